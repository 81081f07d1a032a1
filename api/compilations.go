package api

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// Compilations: curated, ordered lists of items
// (internal/store/compilations.go says who sees what). Only the author or an
// administrator changes one: another caller who may view it (a public
// compilation) gets 403.
// updated_at moves on every change, items included.

// maxCompilationItems bounds an order-items request.
const maxCompilationItems = 10000

type thumbnailJSON struct {
	Height int    `json:"height"`
	Width  int    `json:"width"`
	Path   string `json:"path"`
	Type   string `json:"type"`
	URL    string `json:"url"`
}

func thumbnailOut(t store.Thumbnail, ok bool) *thumbnailJSON {
	if !ok {
		return nil
	}
	return &thumbnailJSON{Height: t.Height, Width: t.Width, Path: t.Path, Type: t.Type, URL: artifactURL(t.Path)}
}

type compilationItemJSON struct {
	EntryID   string         `json:"entry_id"`
	ItemID    string         `json:"item_id"`
	Filename  string         `json:"filename"`
	Thumbnail *thumbnailJSON `json:"thumbnail"`
	Order     int            `json:"order"`
	AddedAt   time.Time      `json:"added_at"`
	InPoint   *float64       `json:"in_point,omitempty"`
	OutPoint  *float64       `json:"out_point,omitempty"`
}

type compilationJSON struct {
	CompilationID string                 `json:"compilation_id"`
	Name          string                 `json:"name"`
	NumItems      int                    `json:"num_items"`
	Public        bool                   `json:"public"`
	Thumbnail     *thumbnailJSON         `json:"thumbnail"`
	Author        userSummaryJSON        `json:"author"`
	CreatedAt     time.Time              `json:"created_at"`
	UpdatedAt     time.Time              `json:"updated_at"`
	Items         *[]compilationItemJSON `json:"items,omitempty"`
}

func (s *Server) loadViewableCompilation(c *gin.Context, id string) (models.Compilation, error) {
	v, err := s.viewer(c)
	if err != nil {
		return models.Compilation{}, err
	}
	return store.Compilation(s.db(c), v, id)
}

// loadOwnCompilation loads a compilation the caller may change.
func (s *Server) loadOwnCompilation(c *gin.Context, id string) (models.Compilation, error) {
	cp, err := s.loadViewableCompilation(c, id)
	if err != nil {
		return cp, err
	}
	if p := principalOf(c); !p.IsAdmin() && cp.AuthorID != p.User.ID {
		return cp, apperr.Forbidden("only its author or an administrator may change a compilation")
	}
	return cp, nil
}

// compilationsOut renders compilations as the caller sees them, with their
// items when withItems (the detail).
func (s *Server) compilationsOut(c *gin.Context, rows []models.Compilation, withItems bool) ([]compilationJSON, error) {
	db := s.db(c)
	v, err := s.viewer(c)
	if err != nil {
		return nil, err
	}
	compIDs := make([]string, len(rows))
	authorIDs := make([]string, len(rows))
	for i, r := range rows {
		compIDs[i], authorIDs[i] = r.ID, r.AuthorID
	}
	sums, err := store.CompilationSummaries(db, v, compIDs)
	if err != nil {
		return nil, err
	}
	authors, err := store.UserSummaries(db, authorIDs)
	if err != nil {
		return nil, err
	}
	entries := map[string][]store.CompilationEntry{}
	var thumbItems []string
	for _, r := range rows {
		if withItems {
			if entries[r.ID], err = store.CompilationEntries(db, v, r.ID); err != nil {
				return nil, err
			}
			for _, e := range entries[r.ID] {
				thumbItems = append(thumbItems, e.ItemID)
			}
		} else if first := sums[r.ID].FirstItem; first != "" {
			thumbItems = append(thumbItems, first)
		}
	}
	thumbs, err := store.Thumbnails(db, thumbItems)
	if err != nil {
		return nil, err
	}
	out := make([]compilationJSON, len(rows))
	for i, r := range rows {
		sum := sums[r.ID]
		t, ok := thumbs[sum.FirstItem]
		out[i] = compilationJSON{CompilationID: r.ID, Name: r.Name, NumItems: sum.NumItems, Public: r.Public,
			Thumbnail: thumbnailOut(t, ok && sum.FirstItem != ""),
			Author:    userSummaryOut(r.AuthorID, authors[r.AuthorID]),
			CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
		if withItems {
			items := make([]compilationItemJSON, len(entries[r.ID]))
			for j, e := range entries[r.ID] {
				t, ok := thumbs[e.ItemID]
				items[j] = compilationItemJSON{EntryID: e.EntryID, ItemID: e.ItemID, Filename: e.Filename,
					Thumbnail: thumbnailOut(t, ok), Order: e.DisplayOrder, AddedAt: e.AddedAt.UTC(), InPoint: e.InPoint, OutPoint: e.OutPoint}
			}
			out[i].Items = &items
		}
	}
	return out, nil
}

// respondCompilation answers the detail of compilation id as saved.
func (s *Server) respondCompilation(c *gin.Context, status int, id string) error {
	cp, err := store.Take[models.Compilation](s.db(c), "compilation", id)
	if err != nil {
		return err
	}
	out, err := s.compilationsOut(c, []models.Compilation{cp}, true)
	if err != nil {
		return err
	}
	c.JSON(status, out[0])
	return nil
}

// GET /api/data/compilations
func (s *Server) listCompilations(c *gin.Context) error {
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	rows, err := store.Compilations(s.db(c), v)
	if err != nil {
		return err
	}
	out, err := s.compilationsOut(c, rows, false)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"compilations": out})
	return nil
}

// GET /api/data/compilations/{id}
func (s *Server) getCompilation(c *gin.Context) error {
	cp, err := s.loadViewableCompilation(c, c.Param("id"))
	if err != nil {
		return err
	}
	return s.respondCompilation(c, http.StatusOK, cp.ID)
}

// POST /api/data/compilations {name, public}: 201 with the detail.
func (s *Server) createCompilation(c *gin.Context) error {
	var req struct {
		Name   string `json:"name"`
		Public *bool  `json:"public"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	req.Name = strings.TrimSpace(req.Name)
	problems := map[string]string{}
	required(problems, map[string]string{"name": req.Name})
	if req.Public == nil {
		problems["public"] = "is required"
	}
	if err := invalidIf(problems); err != nil {
		return err
	}
	cp := models.Compilation{ID: ids.New(), Name: req.Name, Public: *req.Public, AuthorID: principalOf(c).User.ID}
	err := s.audited(c, "compilation", "create", cp.ID, "", func(tx *store.DB) error {
		return store.Insert(tx, &cp, nil)
	})
	if err != nil {
		return err
	}
	return s.respondCompilation(c, http.StatusCreated, cp.ID)
}

// PUT /api/data/compilations/{id} {name?, public?}
func (s *Server) putCompilation(c *gin.Context) error {
	cp, err := s.loadOwnCompilation(c, c.Param("id"))
	if err != nil {
		return err
	}
	var req struct {
		Name   *string `json:"name"`
		Public *bool   `json:"public"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Name != nil {
		n := strings.TrimSpace(*req.Name)
		if n == "" {
			return apperr.InvalidField("name", "is required")
		}
		cp.Name = n
	}
	assign(&cp.Public, req.Public)
	if err := s.auditedUpdate(c, "compilation", "update", cp.ID, &cp, nil, "name", "public"); err != nil {
		return err
	}
	return s.respondCompilation(c, http.StatusOK, cp.ID)
}

// DELETE /api/data/compilations/{id}: the compilation, not its items.
func (s *Server) deleteCompilation(c *gin.Context) error {
	cp, err := s.loadOwnCompilation(c, c.Param("id"))
	if err != nil {
		return err
	}
	if err := auditedDelete[models.Compilation](s, c, "compilation", cp.ID, "compilation"); err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"id": cp.ID, "compilation_id": cp.ID, "deleted": true})
	return nil
}

// POST /api/data/compilations/{id}/items {item_id, display_order?,
// in_point?, out_point?}: the item (live, visible to the caller), or its
// moment from in_point to out_point (seconds, both or neither), goes at
// display_order (0 first; absent: the end), the entries from there on move
// one down.
func (s *Server) addCompilationItem(c *gin.Context) error {
	cp, err := s.loadOwnCompilation(c, c.Param("id"))
	if err != nil {
		return err
	}
	var req struct {
		ItemID       string   `json:"item_id"`
		DisplayOrder *int     `json:"display_order"`
		InPoint      *float64 `json:"in_point"`
		OutPoint     *float64 `json:"out_point"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if strings.TrimSpace(req.ItemID) == "" {
		return apperr.InvalidField("item_id", "is required")
	}
	if req.DisplayOrder != nil && *req.DisplayOrder < 0 {
		return apperr.InvalidField("display_order", "must be 0 or more")
	}
	if err := checkMoment(req.InPoint, req.OutPoint); err != nil {
		return err
	}
	it, err := s.loadVisibleItem(c, req.ItemID)
	if err != nil {
		return err
	}
	var ci models.CompilationItem
	err = s.audited(c, "compilation", "add-item", cp.ID, it.ID, func(tx *store.DB) error {
		var err error
		ci, err = store.AddCompilationItem(tx, cp.ID, it.ID, req.DisplayOrder, req.InPoint, req.OutPoint)
		return err
	})
	if err != nil {
		return err
	}
	thumbs, err := store.Thumbnails(s.db(c), []string{it.ID})
	if err != nil {
		return err
	}
	t, ok := thumbs[it.ID]
	out := gin.H{"entry_id": ci.EntryID, "item_id": it.ID, "filename": it.Name, "thumbnail": thumbnailOut(t, ok),
		"display_order": ci.DisplayOrder, "added_at": ci.AddedAt.UTC()}
	if ci.InPoint != nil {
		out["in_point"], out["out_point"] = *ci.InPoint, *ci.OutPoint
	}
	c.JSON(http.StatusCreated, out)
	return nil
}

// maxMomentPoint bounds in and out points (seconds: 1000 hours).
const maxMomentPoint = 3.6e6

// checkMoment checks a moment's points: both or neither, 0 <= in < out.
func checkMoment(in, out *float64) error {
	switch {
	case in == nil && out == nil:
		return nil
	case in == nil:
		return apperr.InvalidField("in_point", "is required with out_point")
	case out == nil:
		return apperr.InvalidField("out_point", "is required with in_point")
	case math.IsNaN(*in) || *in < 0 || *in > maxMomentPoint:
		return apperr.InvalidField("in_point", "must be a number of seconds from 0")
	case math.IsNaN(*out) || *out <= *in || *out > maxMomentPoint:
		return apperr.InvalidField("out_point", "must be after in_point")
	}
	return nil
}

// DELETE /api/data/compilations/{id}/items/{item_id}: the item (each of its
// entries), or the one entry when item_id is an entry id, leaves the
// compilation (the item is not deleted); answers the compilation.
func (s *Server) removeCompilationItem(c *gin.Context) error {
	cp, err := s.loadOwnCompilation(c, c.Param("id"))
	if err != nil {
		return err
	}
	itemID := c.Param("item_id")
	err = s.audited(c, "compilation", "remove-item", cp.ID, itemID, func(tx *store.DB) error {
		return store.RemoveCompilationItem(tx, cp.ID, itemID)
	})
	if err != nil {
		return err
	}
	return s.respondCompilation(c, http.StatusOK, cp.ID)
}

// PUT /api/data/compilations/{id}/order-items {items: [item or entry
// ids]}: the listed entries first, in that order (an item id: each entry of
// the item), the others after them as they were; answers the compilation.
func (s *Server) orderCompilationItems(c *gin.Context) error {
	cp, err := s.loadOwnCompilation(c, c.Param("id"))
	if err != nil {
		return err
	}
	var req struct {
		Items []string `json:"items"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Items == nil {
		return apperr.InvalidField("items", "is required")
	}
	if len(req.Items) > maxCompilationItems {
		return apperr.InvalidField("items", fmt.Sprintf("at most %d item ids", maxCompilationItems))
	}
	err = s.audited(c, "compilation", "order-items", cp.ID, "", func(tx *store.DB) error {
		unknown, err := store.OrderCompilationItems(tx, cp.ID, req.Items)
		if err != nil {
			return err
		}
		if len(unknown) > 0 {
			return apperr.InvalidField("items", "not in the compilation: "+strings.Join(unknown, ", "))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.respondCompilation(c, http.StatusOK, cp.ID)
}

// POST /api/data/compilations/{id}/clone {new_name}: a compilation of the
// caller's with the same public flag and the items of the original the
// caller may see, in order; 201 with its detail. Any viewer may clone.
func (s *Server) cloneCompilation(c *gin.Context) error {
	src, err := s.loadViewableCompilation(c, c.Param("id"))
	if err != nil {
		return err
	}
	var req struct {
		NewName string `json:"new_name"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	req.NewName = strings.TrimSpace(req.NewName)
	if req.NewName == "" {
		return apperr.InvalidField("new_name", "is required")
	}
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	id := ids.New()
	err = s.audited(c, "compilation", "clone", id, src.ID, func(tx *store.DB) error {
		return store.CloneCompilation(tx, v, src, id, req.NewName, principalOf(c).User.ID)
	})
	if err != nil {
		return err
	}
	return s.respondCompilation(c, http.StatusCreated, id)
}
