package search_test

import (
	"context"
	"testing"

	"github.com/metaharvest/metaharvest/search"
)

// Custom field values are in documents under "fields", typed by their
// field; every declared field is in an item catalogue with its kind.
func TestCustomFieldsInDocumentsAndCatalogue(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	for _, stmt := range []string{
		`INSERT INTO custom_fields (id, name, data_type) VALUES ('fb', 'B', 'bool'), ('fd', 'D', 'date'),
			('fn', 'N', 'number'), ('fs', 'S', 'string'), ('fe', 'E', 'number')`,
		`INSERT INTO field_values (id, item_id, field_id, bool_value, date_value, numeric_value, string_value) VALUES
			('v1', 'i1', 'fb', false, NULL, NULL, NULL), ('v2', 'i1', 'fd', NULL, '2024-02-29', NULL, NULL),
			('v3', 'i1', 'fn', NULL, NULL, 2.5, NULL), ('v4', 'i1', 'fs', NULL, NULL, NULL, 'licensed'),
			('v5', 'i1', 'fe', NULL, NULL, NULL, 'a string in a number field')`,
	} {
		if err := db.Exec(stmt).Error; err != nil {
			t.Fatal(err)
		}
	}
	doc, ok, err := search.BuildDocument(db, "i1")
	if err != nil || !ok {
		t.Fatalf("i1: %v %v", ok, err)
	}
	fields, _ := doc["fields"].(map[string]any)
	want := map[string]any{"fb": false, "fd": "2024-02-29T00:00:00Z", "fn": 2.5, "fs": "licensed"}
	if len(fields) != len(want) {
		t.Fatalf("fields %v, want %v", fields, want)
	}
	for k, v := range want {
		if fields[k] != v {
			t.Fatalf("fields %v, want %v", fields, want)
		}
	}
	if doc, _, _ := search.BuildDocument(db, "i2"); doc["fields"] != nil {
		t.Fatalf("an item without values has fields: %v", doc["fields"])
	}

	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	cat := search.NewCatalogue(search.ScopeItems)
	if err := search.AddCustomFields(context.Background(), sqlDB, cat); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]search.Kind{"fields.fb": search.KindBool, "fields.fd": search.KindDate,
		"fields.fn": search.KindNumber, "fields.fs": search.KindString, "fields.fe": search.KindNumber} {
		if k, ok := cat.Kind(path); !ok || k != kind {
			t.Errorf("%s: %v %v, want %v", path, k, ok, kind)
		}
	}
}
