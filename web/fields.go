package web

import (
	"strconv"
	"time"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// Custom fields on the item page: every field with the item's value and a
// control of the field's type; setting and clearing go through the api
// (js/fields.js).

// maxFields bounds the fields one item page shows (the api's page limit).
const maxFields = 1000

type fieldView struct {
	ID, Name, Description string
	Type                  string // string, number, bool, date
	Input                 string // the input's type: text, number, checkbox, date
	Value                 string // the value as the input takes it ("" none)
	Checked, HasValue     bool
}

type fieldsPart struct {
	Views    []fieldView
	CanWrite bool
	More     bool
}

var fieldInputs = map[string]string{models.FieldString: "text", models.FieldNumber: "number",
	models.FieldBool: "checkbox", models.FieldDate: "date"}

// itemFields loads the custom fields and the item's values of them.
func itemFields(db *store.DB, p *access.Principal, itemID string) (*fieldsPart, error) {
	fields, total, err := store.Fields(db, store.Page{Limit: maxFields})
	if err != nil {
		return nil, err
	}
	values, err := store.ItemFieldValues(db, itemID)
	if err != nil {
		return nil, err
	}
	byField := map[string]store.Value{}
	for _, v := range values {
		byField[v.FieldID] = v.Value
	}
	part := &fieldsPart{CanWrite: p.Can("fielddata:write"), More: total > int64(len(fields))}
	for _, f := range fields {
		v := fieldView{ID: f.ID, Name: f.Name, Description: f.Description, Type: f.DataType, Input: fieldInputs[f.DataType]}
		if v.Input == "" {
			v.Input = "text"
		}
		if val, ok := byField[f.ID]; ok {
			v.HasValue = true
			switch {
			case val.String != nil:
				v.Value = *val.String
			case val.Number != nil:
				v.Value = strconv.FormatFloat(*val.Number, 'f', -1, 64)
			case val.Bool != nil:
				v.Checked = *val.Bool
				v.Value = strconv.FormatBool(*val.Bool)
			case val.Date != nil:
				v.Value = val.Date.UTC().Format(time.DateOnly)
			}
		}
		part.Views = append(part.Views, v)
	}
	return part, nil
}
