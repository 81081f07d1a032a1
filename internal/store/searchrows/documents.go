package searchrows

import (
	"context"
	"time"

	"github.com/metaharvest/metaharvest/models"
)

// The rows search documents and segments are built from (search/build.go,
// search/segments_build.go, search/segments_build_transcript.go), read for
// a batch of items at once.

// Item is a live item's row with the names of its location and container.
type Item struct {
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

// Items loads the items of ids that exist and are not deleted.
func Items(db *DB, ids []string) ([]Item, error) {
	var rows []Item
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

// Groups are the groups of a location (Container false) or a container.
type Groups struct {
	Container bool
	ID        string
	Groups    models.Strings
}

// GroupsOf loads the groups of the locations and containers, in one
// statement; those without groups are absent.
func GroupsOf(db *DB, locationIDs, containerIDs []string) ([]Groups, error) {
	var rows []Groups
	err := db.Raw(`
SELECT false AS container, location_id AS id, array_agg(group_id ORDER BY group_id) AS groups
FROM location_groups WHERE location_id = ANY(?::text[]) GROUP BY location_id
UNION ALL
SELECT true, container_id, array_agg(group_id ORDER BY group_id)
FROM container_groups WHERE container_id = ANY(?::text[]) GROUP BY container_id`,
		models.Strings(locationIDs), models.Strings(containerIDs)).Scan(&rows).Error
	return rows, err
}

// Caption is one caption of an item with its cues (JSON).
type Caption struct {
	ItemID   string
	Source   string
	Language string
	Cues     models.JSON
}

// Captions loads the captions of the items, by item, then in the order
// they were stored (time, then id).
func Captions(db *DB, itemIDs []string) ([]Caption, error) {
	var rows []Caption
	err := db.Raw(`
SELECT item_id, source, language, cues FROM captions WHERE item_id = ANY(?::text[]) ORDER BY item_id, added_at, id`,
		models.Strings(itemIDs)).Scan(&rows).Error
	return rows, err
}

// FieldValue is a custom field value of an item with its field's data type.
type FieldValue struct {
	ItemID       string
	FieldID      string
	DataType     string
	BoolValue    *bool
	DateValue    *time.Time
	NumericValue *float64
	StringValue  *string
}

// FieldValues loads the custom field values of the items.
func FieldValues(db *DB, itemIDs []string) ([]FieldValue, error) {
	var rows []FieldValue
	err := db.Raw(`
SELECT v.item_id, v.field_id, f.data_type, v.bool_value, v.date_value, v.numeric_value, v.string_value
FROM field_values v JOIN custom_fields f ON f.id = v.field_id
WHERE v.item_id = ANY(?::text[])`, models.Strings(itemIDs)).Scan(&rows).Error
	return rows, err
}

// SegmentPart is what one extractor stored about one moment of an item.
type SegmentPart struct {
	ItemID    string
	Extractor string
	TimeMS    int64
	Thumbnail models.JSON
	Summary   models.JSON
}

// SegmentParts loads the segment parts of the items, by item, time and
// extractor.
func SegmentParts(db *DB, itemIDs []string) ([]SegmentPart, error) {
	var rows []SegmentPart
	err := db.Raw(`
SELECT item_id, extractor, time_ms, thumbnail, summary FROM segment_parts
WHERE item_id = ANY(?::text[]) ORDER BY item_id, time_ms, extractor`, models.Strings(itemIDs)).Scan(&rows).Error
	return rows, err
}

// CustomField is a declared custom field.
type CustomField struct {
	ID, DataType string
}

// CustomFields lists every declared custom field, with db the engine's
// own connection pool (search.AddCustomFields).
func CustomFields(ctx context.Context, db Querier) ([]CustomField, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, data_type FROM custom_fields`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []CustomField
	for rows.Next() {
		var f CustomField
		if err := rows.Scan(&f.ID, &f.DataType); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// Person is a person of an item (people across the archive, migration
// 00018): one row per item's own person (vendor_faces' person_id) whose
// described face has a person.
type Person struct {
	ItemID      string
	LocalPerson string
	PersonID    string
	Name        string
	IsKnown     bool
}

// People loads the persons of the items' faces, by item and local person.
func People(db *DB, itemIDs []string) ([]Person, error) {
	var rows []Person
	err := db.Raw(`
SELECT DISTINCT ON (f.item_id, f.local_person) f.item_id, f.local_person, p.id AS person_id, p.name, p.is_known
FROM person_faces f JOIN persons p ON p.id = f.person_id
WHERE f.item_id = ANY(?::text[])
ORDER BY f.item_id, f.local_person, f.weight DESC, f.face`, models.Strings(itemIDs)).Scan(&rows).Error
	return rows, err
}
