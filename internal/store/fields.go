package store

import (
	"fmt"
	"strconv"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// fieldOrder is the order of custom fields: their display order, then name.
const fieldOrder = "display_order, lower(name), id"

// Field loads a custom field: 404 when unknown.
func Field(db *gorm.DB, id string) (models.CustomField, error) {
	return Take[models.CustomField](db, "field", id)
}

// Fields lists one page of the custom fields in display order.
func Fields(db *gorm.DB, p Page) ([]models.CustomField, int64, error) {
	return List[models.CustomField](db, p, fieldOrder)
}

// FieldsByID loads the custom fields with these ids (unknown ids are
// absent from the map).
func FieldsByID(db *gorm.DB, ids []string) (map[string]models.CustomField, error) {
	out := map[string]models.CustomField{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []models.CustomField
	if err := db.Where("id = ANY(?)", models.Strings(ids)).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("load fields: %w", err)
	}
	for _, f := range rows {
		out[f.ID] = f
	}
	return out, nil
}

// FieldNameTaken is NameTaken for custom fields.
func FieldNameTaken(name string) func(error) error {
	return func(err error) error { return NameTaken(err, "a field named %q exists", name) }
}

// CreateField inserts f in tx at the end of the display order.
func CreateField(tx *gorm.DB, f *models.CustomField) error {
	if err := tx.Raw(`SELECT COALESCE(max(display_order) + 1, 0) FROM custom_fields`).Scan(&f.DisplayOrder).Error; err != nil {
		return fmt.Errorf("order of a new field: %w", err)
	}
	return FieldNameTaken(f.Name)(tx.Create(f).Error)
}

// DeleteField deletes a field and its values in tx and returns the items
// that had a value (their search documents change).
func DeleteField(tx *gorm.DB, id string) ([]string, error) {
	var items []string
	if err := tx.Raw(`SELECT item_id FROM field_values WHERE field_id = ?`, id).Scan(&items).Error; err != nil {
		return nil, fmt.Errorf("values of field %s: %w", id, err)
	}
	if err := tx.Delete(&models.CustomField{}, "id = ?", id).Error; err != nil {
		return nil, fmt.Errorf("delete field %s: %w", id, err)
	}
	return items, nil
}

// FieldPosition is a field's place in the display order.
type FieldPosition struct {
	ID    string `json:"id"`
	Order int    `json:"order"`
}

// SetFieldOrder gives each listed field its display order in tx.
func SetFieldOrder(tx *gorm.DB, order []FieldPosition) error {
	if len(order) == 0 {
		return nil
	}
	ids := make(models.Strings, len(order))
	orders := make(models.Strings, len(order))
	for i, o := range order {
		ids[i], orders[i] = o.ID, strconv.Itoa(o.Order)
	}
	if err := tx.Exec(`UPDATE custom_fields f SET display_order = u.o, updated_at = now()
		FROM unnest(?::text[], ?::text[]::bigint[]) AS u(id, o) WHERE f.id = u.id`, ids, orders).Error; err != nil {
		return fmt.Errorf("order fields: %w", err)
	}
	return nil
}
