package search

import (
	"context"
	"fmt"

	"github.com/metaharvest/metaharvest/internal/store"
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

// Querier runs a query (a *sql.DB, a *sql.Tx); declared with the
// statement (internal/store).
type Querier = store.Querier

// AddCustomFields adds every declared custom field to an item catalogue.
func AddCustomFields(ctx context.Context, db Querier, cat *Catalogue) error {
	fields, err := store.DocCustomFields(ctx, db)
	if err != nil {
		return fmt.Errorf("load custom fields: %w", err)
	}
	for _, f := range fields {
		cat.Add(CustomFieldPath(f.ID), CustomFieldKind(f.DataType))
	}
	return nil
}
