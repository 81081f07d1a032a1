package search

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/metaharvest/metaharvest/models"
)

// Custom fields are known fields (DECISIONS.md): the values users give
// items are in documents as "fields.<field_id>", typed by their field, and
// every declared field is in the catalogue, with the kind of its data
// type, before any item has a value, so that it filters, sorts and
// aggregates like a declared extractor field.

// CustomFieldPath is the document path of a custom field's values.
func CustomFieldPath(fieldID string) string { return FieldCustomFieldsPrefix + "." + fieldID }

// CustomFieldKind is the kind of the values of a custom field data type.
func CustomFieldKind(dataType string) Kind {
	switch dataType {
	case models.FieldBool:
		return KindBool
	case models.FieldNumber:
		return KindNumber
	case models.FieldDate:
		return KindDate
	}
	return KindString
}

// Querier runs a query (a *sql.DB, a *sql.Tx).
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// AddCustomFields adds every declared custom field to an item catalogue.
func AddCustomFields(ctx context.Context, db Querier, cat *Catalogue) error {
	rows, err := db.QueryContext(ctx, `SELECT id, data_type FROM custom_fields`)
	if err != nil {
		return fmt.Errorf("load custom fields: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, dataType string
		if err := rows.Scan(&id, &dataType); err != nil {
			return fmt.Errorf("load custom fields: %w", err)
		}
		cat.Add(CustomFieldPath(id), CustomFieldKind(dataType))
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load custom fields: %w", err)
	}
	return nil
}
