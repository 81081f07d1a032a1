package store

import (
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/models"
)

// Value is a custom field value of the field's type: exactly one of the
// pointers is set.
type Value struct {
	Bool   *bool
	Date   *time.Time // midnight UTC
	Number *float64
	String *string
}

// FieldData is a stored value with its field.
type FieldData struct {
	ID        string
	ItemID    string
	FieldID   string
	FieldName string
	DataType  string
	Value     Value
}

type fieldDataRow struct {
	ID           string
	ItemID       string
	FieldID      string
	FieldName    string
	DataType     string
	BoolValue    *bool
	DateValue    *time.Time
	NumericValue *float64
	StringValue  *string
}

func (r fieldDataRow) data() FieldData {
	v := Value{Bool: r.BoolValue, Number: r.NumericValue, String: r.StringValue}
	if r.DateValue != nil {
		d := r.DateValue.UTC()
		t := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
		v.Date = &t
	}
	return FieldData{ID: r.ID, ItemID: r.ItemID, FieldID: r.FieldID, FieldName: r.FieldName, DataType: r.DataType, Value: v}
}

const fieldDataSelect = `SELECT v.id, v.item_id, v.field_id, f.name AS field_name, f.data_type,
	v.bool_value, v.date_value, v.numeric_value, v.string_value
	FROM field_values v JOIN custom_fields f ON f.id = v.field_id `

// FieldValue loads the value of a field on an item: 404 when it has none.
func FieldValue(db *gorm.DB, itemID, fieldID string) (FieldData, error) {
	var rows []fieldDataRow
	if err := db.Raw(fieldDataSelect+`WHERE v.item_id = ? AND v.field_id = ?`, itemID, fieldID).Scan(&rows).Error; err != nil {
		return FieldData{}, fmt.Errorf("load value of field %s on item %s: %w", fieldID, itemID, err)
	}
	if len(rows) == 0 {
		return FieldData{}, apperr.NotFound("value of field", fieldID)
	}
	return rows[0].data(), nil
}

// ItemFieldValues lists the values of an item, in the fields' display order.
func ItemFieldValues(db *gorm.DB, itemID string) ([]FieldData, error) {
	var rows []fieldDataRow
	if err := db.Raw(fieldDataSelect+`WHERE v.item_id = ? ORDER BY f.display_order, lower(f.name), f.id`, itemID).
		Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("load field values of item %s: %w", itemID, err)
	}
	out := make([]FieldData, len(rows))
	for i, r := range rows {
		out[i] = r.data()
	}
	return out, nil
}

// SetFieldValue creates or replaces the value of field f on an item in tx
// (the caller marks the item dirty for search in the same transaction).
func SetFieldValue(tx *gorm.DB, itemID string, f models.CustomField, v Value) (FieldData, error) {
	var date any
	if v.Date != nil {
		date = v.Date.Format(time.DateOnly)
	}
	var id string
	err := tx.Raw(`INSERT INTO field_values (id, item_id, field_id, bool_value, date_value, numeric_value, string_value)
		VALUES (?, ?, ?, ?, ?::date, ?, ?)
		ON CONFLICT (item_id, field_id) DO UPDATE SET bool_value = excluded.bool_value,
			date_value = excluded.date_value, numeric_value = excluded.numeric_value,
			string_value = excluded.string_value, updated_at = now()
		RETURNING id`, ids.New(), itemID, f.ID, v.Bool, date, v.Number, v.String).Scan(&id).Error
	if err != nil {
		return FieldData{}, fmt.Errorf("set value of field %s on item %s: %w", f.ID, itemID, err)
	}
	return FieldData{ID: id, ItemID: itemID, FieldID: f.ID, FieldName: f.Name, DataType: f.DataType, Value: v}, nil
}

// DeleteFieldValue deletes the value of a field on an item in tx and
// returns it: 404 when it has none.
func DeleteFieldValue(tx *gorm.DB, itemID, fieldID string) (FieldData, error) {
	fd, err := FieldValue(tx, itemID, fieldID)
	if err != nil {
		return fd, err
	}
	if err := tx.Delete(&models.FieldValue{}, "id = ?", fd.ID).Error; err != nil {
		return fd, fmt.Errorf("delete value of field %s on item %s: %w", fieldID, itemID, err)
	}
	return fd, nil
}

// VisibleItems returns which of these ids are live items v may see.
func VisibleItems(db *gorm.DB, v Viewer, itemIDs []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(itemIDs) == 0 {
		return out, nil
	}
	cond, args := v.VisibleSQL("i.location_id", "i.container_id")
	var found []string
	if err := db.Raw(`SELECT i.id FROM items i WHERE i.id = ANY(?) AND i.deleted_at IS NULL AND `+cond,
		append([]any{models.Strings(itemIDs)}, args...)...).Scan(&found).Error; err != nil {
		return nil, fmt.Errorf("find items: %w", err)
	}
	for _, id := range found {
		out[id] = true
	}
	return out, nil
}
