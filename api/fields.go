package api

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// Custom fields: fields users define (name, description, a data type that
// never changes) and give values per item (fielddata.go). A field's values
// are searchable as "fields.<field id>" (search.CustomFieldPath), so
// changing a field's values reindexes the items that hold them.

// Page sizes of the Limits table ("list fields; set field order").
const (
	fieldsDefLimit = 20
	fieldsMaxLimit = 1000
)

var fieldTypes = []string{models.FieldBool, models.FieldDate, models.FieldNumber, models.FieldString}

type fieldJSON struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Description  string    `json:"description"`
	DisplayOrder int       `json:"display_order"`
	DataType     string    `json:"data_type"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

func fieldOut(f models.CustomField) fieldJSON {
	return fieldJSON{ID: f.ID, Name: f.Name, Description: f.Description, DisplayOrder: f.DisplayOrder,
		DataType: f.DataType, CreatedAt: f.CreatedAt.UTC(), UpdatedAt: f.UpdatedAt.UTC()}
}

func (s *Server) loadField(c *gin.Context, id string) (models.CustomField, error) {
	return store.Field(s.db(c), id)
}

// GET /api/data/v3/fields?page-token=&limit=
func (s *Server) listFields(c *gin.Context) error {
	p, err := tokenPage(c, fieldsDefLimit, fieldsMaxLimit)
	if err != nil {
		return err
	}
	rows, total, err := store.Fields(s.db(c), store.Page(p))
	if err != nil {
		return err
	}
	out := make([]fieldJSON, len(rows))
	for i, f := range rows {
		out[i] = fieldOut(f)
	}
	next, prev := p.Tokens(total)
	c.JSON(http.StatusOK, gin.H{"fields": out, "next_page": next, "previous_page": prev})
	return nil
}

// GET /api/data/v3/fields/{id}
func (s *Server) getField(c *gin.Context) error {
	f, err := s.loadField(c, c.Param("id"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, fieldOut(f))
	return nil
}

// POST /api/data/v3/fields {name, description, data_type}
func (s *Server) createField(c *gin.Context) error {
	var req struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		DataType    string `json:"data_type"`
	}
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	req.Name = strings.TrimSpace(req.Name)
	problems := map[string]string{}
	required(problems, map[string]string{"name": req.Name})
	if !isFieldType(req.DataType) {
		problems["data_type"] = "must be one of " + strings.Join(fieldTypes, ", ")
	}
	if err := invalidIf(problems); err != nil {
		return err
	}
	f := models.CustomField{ID: ids.New(), Name: req.Name, Description: req.Description, DataType: req.DataType}
	err := s.audited(c, "field", "create", f.ID, "", func(tx *store.DB) error {
		return store.CreateField(tx, &f)
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, fieldOut(f))
	return nil
}

func isFieldType(t string) bool {
	for _, ft := range fieldTypes {
		if t == ft {
			return true
		}
	}
	return false
}

// PATCH /api/data/v3/fields/{id} {name?, description?}: data_type never
// changes (400 when sent), since stored values and the search catalogue
// are typed by it.
func (s *Server) patchField(c *gin.Context) error {
	f, err := s.loadField(c, c.Param("id"))
	if err != nil {
		return err
	}
	var req struct {
		Name        *string `json:"name"`
		Description *string `json:"description"`
		DataType    *string `json:"data_type"`
	}
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	if req.DataType != nil && *req.DataType != f.DataType {
		return apperr.InvalidField("data_type", "cannot be changed")
	}
	if req.Name != nil {
		n := strings.TrimSpace(*req.Name)
		if n == "" {
			return apperr.InvalidField("name", "is required")
		}
		f.Name = n
	}
	assign(&f.Description, req.Description)
	if err := s.auditedUpdate(c, "field", "update", f.ID, &f, store.FieldNameTaken(f.Name), "name", "description"); err != nil {
		return err
	}
	c.JSON(http.StatusOK, fieldOut(f))
	return nil
}

// DELETE /api/data/v3/fields/{id}: the field and every value of it; the
// items that had one are reindexed.
func (s *Server) deleteField(c *gin.Context) error {
	f, err := s.loadField(c, c.Param("id"))
	if err != nil {
		return err
	}
	err = s.audited(c, "field", "delete", f.ID, "", func(tx *store.DB) error {
		items, err := store.DeleteField(tx, f.ID)
		if err != nil {
			return err
		}
		return search.MarkDirty(tx, items...)
	})
	if err != nil {
		return err
	}
	s.kickIndex(c)
	c.JSON(http.StatusOK, gin.H{"id": f.ID, "deleted": true})
	return nil
}

// PUT /api/data/v3/fields/order {fields: [{id, order}]}: each listed field
// takes its order; the answer is the order of every field (one page of it,
// page-token and limit as in the list).
func (s *Server) orderFields(c *gin.Context) error {
	var req struct {
		Fields []store.FieldPosition `json:"fields"`
	}
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	if req.Fields == nil {
		return apperr.InvalidField("fields", "is required")
	}
	if len(req.Fields) > fieldsMaxLimit {
		return apperr.InvalidField("fields", fmt.Sprintf("at most %d fields", fieldsMaxLimit))
	}
	p, err := tokenPage(c, fieldsDefLimit, fieldsMaxLimit)
	if err != nil {
		return err
	}
	db := s.db(c)
	want := make([]string, len(req.Fields))
	for i, f := range req.Fields {
		want[i] = f.ID
	}
	known, err := store.FieldsByID(db, want)
	if err != nil {
		return err
	}
	problems := map[string]string{}
	seen := map[string]bool{}
	for i, f := range req.Fields {
		switch {
		case known[f.ID].ID == "":
			problems[fmt.Sprintf("fields[%d].id", i)] = "no such field"
		case seen[f.ID]:
			problems[fmt.Sprintf("fields[%d].id", i)] = "is listed twice"
		case f.Order < 0:
			problems[fmt.Sprintf("fields[%d].order", i)] = "must be 0 or more"
		}
		seen[f.ID] = true
	}
	if err := invalidIf(problems); err != nil {
		return err
	}
	err = s.audited(c, "field", "order", "", "", func(tx *store.DB) error {
		return store.SetFieldOrder(tx, req.Fields)
	})
	if err != nil {
		return err
	}
	rows, total, err := store.Fields(db, store.Page(p))
	if err != nil {
		return err
	}
	out := make([]store.FieldPosition, len(rows))
	for i, f := range rows {
		out[i] = store.FieldPosition{ID: f.ID, Order: f.DisplayOrder}
	}
	next, prev := p.Tokens(total)
	c.JSON(http.StatusOK, gin.H{"fields": out, "next_page": next, "previous_page": prev})
	return nil
}
