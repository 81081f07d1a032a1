package api

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// Field values: the value of a custom field on an item, typed by the
// field (dates YYYY-MM-DD, answered as the instant of their midnight UTC).
// A write marks the item dirty for search in its transaction and kicks the
// indexer, so that the value is searchable as "fields.<field id>" as soon
// as the workers drain the outbox.
//
// The item must be live and visible to the caller (404 unknown, 403 not
// visible, as for items); the bulk upsert lists unknown and invisible
// items alike under invalid_items, so that it does not tell them apart.

// maxBulkValues bounds the values of one bulk upsert (the Limits table).
const maxBulkValues = 1000

// maxStringValue bounds a string value (free text, as description).
const maxStringValue = 4096

// valueJSON is a value as clients send and receive it: one key, of the
// field's type.
type valueJSON struct {
	BoolValue    *bool    `json:"bool_value,omitempty"`
	DateValue    *string  `json:"date_value,omitempty"`
	NumericValue *float64 `json:"numeric_value,omitempty"`
	StringValue  *string  `json:"string_value,omitempty"`
}

type fieldDataJSON struct {
	FieldDataID   string    `json:"fielddata_id"`
	ItemID        string    `json:"item_id"`
	FieldID       string    `json:"field_id"`
	FieldName     string    `json:"field_name"`
	FieldDatatype string    `json:"field_datatype"`
	Value         valueJSON `json:"value"`
}

func valueOut(v store.Value) valueJSON {
	out := valueJSON{BoolValue: v.Bool, NumericValue: v.Number, StringValue: v.String}
	if v.Date != nil {
		d := v.Date.UTC().Format(time.RFC3339)
		out.DateValue = &d
	}
	return out
}

func fieldDataOut(fd store.FieldData) fieldDataJSON {
	return fieldDataJSON{FieldDataID: fd.ID, ItemID: fd.ItemID, FieldID: fd.FieldID, FieldName: fd.FieldName,
		FieldDatatype: fd.DataType, Value: valueOut(fd.Value)}
}

// parseValue checks that v has exactly one key, the one of the field's
// data type, and a value in range; at names the value in problems.
func parseValue(f models.CustomField, v valueJSON, at string, problems map[string]string) store.Value {
	set := 0
	for _, p := range []bool{v.BoolValue != nil, v.DateValue != nil, v.NumericValue != nil, v.StringValue != nil} {
		if p {
			set++
		}
	}
	key := map[string]string{models.FieldBool: "bool_value", models.FieldDate: "date_value",
		models.FieldNumber: "numeric_value", models.FieldString: "string_value"}[f.DataType]
	if set != 1 {
		problems[at] = "must have exactly one of bool_value, date_value, numeric_value, string_value (" + key + " for this field)"
		return store.Value{}
	}
	var out store.Value
	switch {
	case f.DataType == models.FieldBool && v.BoolValue != nil:
		out.Bool = v.BoolValue
	case f.DataType == models.FieldNumber && v.NumericValue != nil:
		if math.IsInf(*v.NumericValue, 0) || math.IsNaN(*v.NumericValue) {
			problems[joinPath(at, key)] = "must be a finite number"
		}
		out.Number = v.NumericValue
	case f.DataType == models.FieldString && v.StringValue != nil:
		if utf8.RuneCountInString(*v.StringValue) > maxStringValue {
			problems[joinPath(at, key)] = fmt.Sprintf("must be at most %d characters", maxStringValue)
		}
		out.String = v.StringValue
	case f.DataType == models.FieldDate && v.DateValue != nil:
		d, err := time.Parse(time.DateOnly, strings.TrimSpace(*v.DateValue))
		if err != nil {
			problems[joinPath(at, key)] = "must be a date YYYY-MM-DD"
		}
		out.Date = &d
	default:
		problems[at] = fmt.Sprintf("field %s is of type %s: give %s", f.ID, f.DataType, key)
	}
	return out
}

// fieldDataTarget checks the path's item and field: 400 when either is
// blank, 404 when unknown, 403 when the item is not visible.
func (s *Server) fieldDataTarget(c *gin.Context) (models.Item, models.CustomField, error) {
	itemID, fieldID := strings.TrimSpace(c.Param("item_id")), strings.TrimSpace(c.Param("field_id"))
	problems := map[string]string{}
	required(problems, map[string]string{"item_id": itemID, "field_id": fieldID})
	if err := invalidIf(problems); err != nil {
		return models.Item{}, models.CustomField{}, err
	}
	it, err := s.loadVisibleItem(c, itemID)
	if err != nil {
		return it, models.CustomField{}, err
	}
	f, err := s.loadField(c, fieldID)
	return it, f, err
}

// GET /api/data/v3/fielddata/{item_id}/field/{field_id}
func (s *Server) getFieldData(c *gin.Context) error {
	it, f, err := s.fieldDataTarget(c)
	if err != nil {
		return err
	}
	fd, err := store.FieldValue(s.db(c), it.ID, f.ID)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, fieldDataOut(fd))
	return nil
}

// GET /api/data/v3/fielddata/{item_id}: the item's values (only the
// fields that have one).
func (s *Server) itemFieldData(c *gin.Context) error {
	itemID := strings.TrimSpace(c.Param("item_id"))
	if itemID == "" {
		return apperr.InvalidField("item_id", "is required")
	}
	it, err := s.loadVisibleItem(c, itemID)
	if err != nil {
		return err
	}
	rows, err := store.ItemFieldValues(s.db(c), it.ID)
	if err != nil {
		return err
	}
	out := make([]fieldDataJSON, len(rows))
	for i, fd := range rows {
		out[i] = fieldDataOut(fd)
	}
	c.JSON(http.StatusOK, gin.H{"item_id": it.ID, "fields": out})
	return nil
}

// POST (201) and PUT (200) /api/data/v3/fielddata/{item_id}/field/{field_id}
// with one value key: both set the value, whether or not one existed.
func (s *Server) createFieldData(c *gin.Context) error { return s.setFieldData(c, http.StatusCreated) }
func (s *Server) putFieldData(c *gin.Context) error    { return s.setFieldData(c, http.StatusOK) }

func (s *Server) setFieldData(c *gin.Context, status int) error {
	it, f, err := s.fieldDataTarget(c)
	if err != nil {
		return err
	}
	var req valueJSON
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	problems := map[string]string{}
	v := parseValue(f, req, "body", problems)
	if err := invalidIf(problems); err != nil {
		return err
	}
	var fd store.FieldData
	err = s.audited(c, "fielddata", "set", it.ID, f.ID, func(tx *store.DB) error {
		var err error
		if fd, err = store.SetFieldValue(tx, it.ID, f, v); err != nil {
			return err
		}
		return search.MarkDirty(tx, it.ID)
	})
	if err != nil {
		return err
	}
	s.kickIndex(c)
	c.JSON(status, fieldDataOut(fd))
	return nil
}

// DELETE /api/data/v3/fielddata/{item_id}/field/{field_id}: 200 with the
// deleted value; 404 when the item has none.
func (s *Server) deleteFieldData(c *gin.Context) error {
	it, f, err := s.fieldDataTarget(c)
	if err != nil {
		return err
	}
	var fd store.FieldData
	err = s.audited(c, "fielddata", "delete", it.ID, f.ID, func(tx *store.DB) error {
		var err error
		if fd, err = store.DeleteFieldValue(tx, it.ID, f.ID); err != nil {
			return err
		}
		return search.MarkDirty(tx, it.ID)
	})
	if err != nil {
		return err
	}
	s.kickIndex(c)
	c.JSON(http.StatusOK, fieldDataOut(fd))
	return nil
}

type bulkFieldValue struct {
	FieldID string    `json:"field_id"`
	Value   valueJSON `json:"value"`
}

type bulkItemValues struct {
	ItemID string           `json:"item_id"`
	Fields []bulkFieldValue `json:"fields"`
}

type changedValueJSON struct {
	FieldDataID string    `json:"fielddata_id"`
	FieldID     string    `json:"field_id"`
	Value       valueJSON `json:"value"`
}

type changedItemJSON struct {
	ItemID string             `json:"item_id"`
	Fields []changedValueJSON `json:"fields"`
}

// PUT /api/data/v3/fielddata [{item_id, fields: [{field_id, value}]}]: sets
// up to 1000 values in one transaction, each audited (fielddata set, the
// item and the field). Unknown (or invisible) items and unknown fields do
// not fail the request: they are listed under invalid_items and
// invalid_fields (an unknown field whatever its item) and the other values
// are set. A value of the wrong type for its field is a 400 (nothing is
// set).
func (s *Server) bulkFieldData(c *gin.Context) error {
	var req []bulkItemValues
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	if req == nil {
		return apperr.BadRequest(apperr.CodeMalformedJSON, "the body must be an array of {item_id, fields}")
	}
	total := 0
	var itemIDs, fieldIDs []string
	for _, it := range req {
		total += len(it.Fields)
		itemIDs = append(itemIDs, it.ItemID)
		for _, f := range it.Fields {
			fieldIDs = append(fieldIDs, f.FieldID)
		}
	}
	if total > maxBulkValues {
		return apperr.InvalidField("body", fmt.Sprintf("at most %d values in one request, got %d", maxBulkValues, total))
	}
	db := s.db(c)
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	items, err := store.VisibleItems(db, v, itemIDs)
	if err != nil {
		return err
	}
	fields, err := store.FieldsByID(db, fieldIDs)
	if err != nil {
		return err
	}
	type write struct {
		itemID string
		field  models.CustomField
		value  store.Value
	}
	var writes []write
	invalidItems, invalidFields := []string{}, []string{}
	seenItem, seenField := map[string]bool{}, map[string]bool{}
	problems := map[string]string{}
	for i, it := range req {
		validItem := items[it.ItemID]
		if !validItem && !seenItem[it.ItemID] {
			invalidItems = append(invalidItems, it.ItemID)
			seenItem[it.ItemID] = true
		}
		// Unknown fields are listed whatever their item: fields are the
		// platform's, so naming them tells nothing of an item.
		for j, fv := range it.Fields {
			f, ok := fields[fv.FieldID]
			if !ok {
				if !seenField[fv.FieldID] {
					invalidFields = append(invalidFields, fv.FieldID)
					seenField[fv.FieldID] = true
				}
				continue
			}
			if !validItem {
				continue
			}
			val := parseValue(f, fv.Value, fmt.Sprintf("[%d].fields[%d].value", i, j), problems)
			writes = append(writes, write{itemID: it.ItemID, field: f, value: val})
		}
	}
	if err := invalidIf(problems); err != nil {
		return err
	}
	changed := []changedItemJSON{}
	at := map[string]int{}
	p := principalOf(c)
	err = db.Transaction(func(tx *store.DB) error {
		var dirty []string
		for _, w := range writes {
			fd, err := store.SetFieldValue(tx, w.itemID, w.field, w.value)
			if err != nil {
				return err
			}
			if err := record(tx, p, "fielddata", "set", w.itemID, w.field.ID); err != nil {
				return err
			}
			k, ok := at[w.itemID]
			if !ok {
				k = len(changed)
				at[w.itemID] = k
				changed = append(changed, changedItemJSON{ItemID: w.itemID, Fields: []changedValueJSON{}})
				dirty = append(dirty, w.itemID)
			}
			changed[k].Fields = append(changed[k].Fields, changedValueJSON{FieldDataID: fd.ID, FieldID: fd.FieldID,
				Value: valueOut(fd.Value)})
		}
		return search.MarkDirty(tx, dirty...)
	})
	if err != nil {
		return err
	}
	if len(writes) > 0 {
		s.kickIndex(c)
	}
	c.JSON(http.StatusOK, gin.H{"changed": changed, "invalid_items": invalidItems, "invalid_fields": invalidFields})
	return nil
}
