package store

import (
	"context"
	"time"

	"github.com/metaharvest/metaharvest/models"
)

// The rows search documents and segments are built from (search/build.go,
// search/segments_build.go, search/segments_build_transcript.go), read for
// a batch of items at once.

// DocItem is a live item's row with the names of its location and container.
type DocItem struct {
	ID            string
	Name          string
	Path          string
	Size          int64
	LastModified  *time.Time
	MimeType      string
	Metadata      models.JSON
	LocationID    string
	LocationKind  string
	LocationName  string
	ContainerID   string
	ContainerName string
}

// DocItems loads the items of ids that exist and are not deleted.
func DocItems(db *DB, ids []string) ([]DocItem, error) {
	var rows []DocItem
	err := db.Raw(`
SELECT i.id, i.name, i.path, i.size, i.last_modified, i.mime_type, i.metadata,
       i.location_id, l.kind AS location_kind, l.name AS location_name,
       i.container_id, c.name AS container_name
FROM items i
JOIN locations l ON l.id = i.location_id
JOIN containers c ON c.id = i.container_id
WHERE i.id = ANY(?::text[]) AND i.deleted_at IS NULL`, models.Strings(ids)).Scan(&rows).Error
	return rows, err
}

// DocGroups are the groups of a location (Container false) or a container.
type DocGroups struct {
	Container bool
	ID        string
	Groups    models.Strings
}

// DocGroupsOf loads the groups of the locations and containers, in one
// statement; those without groups are absent.
func DocGroupsOf(db *DB, locationIDs, containerIDs []string) ([]DocGroups, error) {
	var rows []DocGroups
	err := db.Raw(`
SELECT false AS container, location_id AS id, array_agg(group_id ORDER BY group_id) AS groups
FROM location_groups WHERE location_id = ANY(?::text[]) GROUP BY location_id
UNION ALL
SELECT true, container_id, array_agg(group_id ORDER BY group_id)
FROM container_groups WHERE container_id = ANY(?::text[]) GROUP BY container_id`,
		models.Strings(locationIDs), models.Strings(containerIDs)).Scan(&rows).Error
	return rows, err
}

// DocCaption is one caption of an item with its cues (JSON).
type DocCaption struct {
	ItemID   string
	Source   string
	Language string
	Cues     models.JSON
}

// DocCaptions loads the captions of the items, by item, then in the order
// they were stored (time, then id).
func DocCaptions(db *DB, itemIDs []string) ([]DocCaption, error) {
	var rows []DocCaption
	err := db.Raw(`
SELECT item_id, source, language, cues FROM captions WHERE item_id = ANY(?::text[]) ORDER BY item_id, added_at, id`,
		models.Strings(itemIDs)).Scan(&rows).Error
	return rows, err
}

// DocFieldValue is a custom field value of an item with its field's data type.
type DocFieldValue struct {
	ItemID       string
	FieldID      string
	DataType     string
	BoolValue    *bool
	DateValue    *time.Time
	NumericValue *float64
	StringValue  *string
}

// DocFieldValues loads the custom field values of the items.
func DocFieldValues(db *DB, itemIDs []string) ([]DocFieldValue, error) {
	var rows []DocFieldValue
	err := db.Raw(`
SELECT v.item_id, v.field_id, f.data_type, v.bool_value, v.date_value, v.numeric_value, v.string_value
FROM field_values v JOIN custom_fields f ON f.id = v.field_id
WHERE v.item_id = ANY(?::text[])`, models.Strings(itemIDs)).Scan(&rows).Error
	return rows, err
}

// DocSegmentPart is what one extractor stored about one moment of an item.
type DocSegmentPart struct {
	ItemID    string
	Extractor string
	TimeMS    int64
	Thumbnail models.JSON
	Summary   models.JSON
}

// DocSegmentParts loads the segment parts of the items, by item, time and
// extractor.
func DocSegmentParts(db *DB, itemIDs []string) ([]DocSegmentPart, error) {
	var rows []DocSegmentPart
	err := db.Raw(`
SELECT item_id, extractor, time_ms, thumbnail, summary FROM segment_parts
WHERE item_id = ANY(?::text[]) ORDER BY item_id, time_ms, extractor`, models.Strings(itemIDs)).Scan(&rows).Error
	return rows, err
}

// DocCustomField is a declared custom field.
type DocCustomField struct {
	ID, DataType string
}

// DocCustomFields lists every declared custom field, with db the engine's
// own connection pool (search.AddCustomFields).
func DocCustomFields(ctx context.Context, db Querier) ([]DocCustomField, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, data_type FROM custom_fields`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []DocCustomField
	for rows.Next() {
		var f DocCustomField
		if err := rows.Scan(&f.ID, &f.DataType); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// DocPerson is a person of an item (people across the archive, migration
// 00018): one row per item's own person (vendor_faces' person_id) whose
// described face has a person.
type DocPerson struct {
	ItemID      string
	LocalPerson string
	PersonID    string
	Name        string
	IsKnown     bool
}

// DocPeople loads the persons of the items' faces, by item and local person.
func DocPeople(db *DB, itemIDs []string) ([]DocPerson, error) {
	var rows []DocPerson
	err := db.Raw(`
SELECT DISTINCT ON (f.item_id, f.local_person) f.item_id, f.local_person, p.id AS person_id, p.name, p.is_known
FROM person_faces f JOIN persons p ON p.id = f.person_id
WHERE f.item_id = ANY(?::text[])
ORDER BY f.item_id, f.local_person, f.weight DESC, f.face`, models.Strings(itemIDs)).Scan(&rows).Error
	return rows, err
}
