package store

import "github.com/metaharvest/metaharvest/models"

// The statements of search.GroupsChanged: which containers' items change
// visibility when the groups of locations or containers change, and, for
// an engine that cannot refresh it in the transaction, marking their items.

// ContainersOf lists, in id order, the containers of the locations and
// the containers themselves that exist.
func ContainersOf(tx *DB, locationIDs, containerIDs []string) ([]string, error) {
	var ids []string
	err := tx.Raw(`SELECT id FROM containers WHERE location_id = ANY(?::text[]) OR id = ANY(?::text[]) ORDER BY id`,
		models.Strings(nonNil(locationIDs)), models.Strings(nonNil(containerIDs))).Scan(&ids).Error
	return ids, err
}

// MarkContainersDirty is MarkDirty for every live item of the containers
// (their groups changed).
func MarkContainersDirty(tx *DB, channel string, containerIDs []string) error {
	return MarkDirtyWhere(tx, channel, "container_id = ANY(?::text[])", models.Strings(containerIDs))
}

// nonNil passes no ids as an empty array rather than NULL.
func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}
