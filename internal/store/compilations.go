package store

import (
	"fmt"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/models"
)

// A compilation is viewable by its author, by administrators and, when
// public, by everyone; any other caller gets 404 and does not find it in
// lists. Its items are shown to each viewer as far as the viewer may see
// them (live items of visible locations and containers): num_items, the
// thumbnail and the item list count only those.

// ViewableCompilations narrows compilations to those v may view.
func ViewableCompilations(v Viewer) Scope {
	if v.Admin {
		return nil
	}
	return func(q *gorm.DB) *gorm.DB { return q.Where("public OR author_id = ?", v.UserID) }
}

// Compilation loads a compilation v may view: 404 otherwise.
func Compilation(db *gorm.DB, v Viewer, id string) (models.Compilation, error) {
	return TakeVisible[models.Compilation](db, "compilation", id, ViewableCompilations(v))
}

// Compilations lists the compilations v may view, most recently changed
// first.
func Compilations(db *gorm.DB, v Viewer) ([]models.Compilation, error) {
	var rows []models.Compilation
	if err := apply(db, ViewableCompilations(v)).Order("updated_at DESC, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list compilations: %w", err)
	}
	return rows, nil
}

// CompilationEntry is an entry of a compilation as a viewer sees it: an
// item, or a moment of it when InPoint and OutPoint are set.
type CompilationEntry struct {
	EntryID           string
	ItemID            string
	Filename          string
	MimeType          string
	DisplayOrder      int
	AddedAt           time.Time
	InPoint, OutPoint *float64
}

const entryOrder = "ci.display_order, ci.added_at, ci.entry_id"

// CompilationEntries lists the items of a compilation v may see, in order.
func CompilationEntries(db *gorm.DB, v Viewer, compilationID string) ([]CompilationEntry, error) {
	cond, args := v.VisibleSQL("i.location_id", "i.container_id")
	out := []CompilationEntry{}
	err := db.Raw(`SELECT ci.entry_id, ci.item_id, i.name AS filename, i.mime_type, ci.display_order, ci.added_at,
			ci.in_point, ci.out_point
		FROM compilation_items ci JOIN items i ON i.id = ci.item_id
		WHERE ci.compilation_id = ? AND i.deleted_at IS NULL AND `+cond+`
		ORDER BY `+entryOrder, append([]any{compilationID}, args...)...).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("list items of compilation %s: %w", compilationID, err)
	}
	return out, nil
}

// CompilationSummary is how many items of a compilation a viewer sees and
// the first of them.
type CompilationSummary struct {
	NumItems  int
	FirstItem string
}

// CompilationSummaries summarises the given compilations for v.
func CompilationSummaries(db *gorm.DB, v Viewer, compilationIDs []string) (map[string]CompilationSummary, error) {
	out := map[string]CompilationSummary{}
	if len(compilationIDs) == 0 {
		return out, nil
	}
	cond, args := v.VisibleSQL("i.location_id", "i.container_id")
	var rows []struct {
		CompilationID string
		NumItems      int
		FirstItem     string
	}
	err := db.Raw(`SELECT ci.compilation_id, count(*) AS num_items,
			(array_agg(ci.item_id ORDER BY `+entryOrder+`))[1] AS first_item
		FROM compilation_items ci JOIN items i ON i.id = ci.item_id
		WHERE ci.compilation_id = ANY(?) AND i.deleted_at IS NULL AND `+cond+`
		GROUP BY ci.compilation_id`, append([]any{models.Strings(compilationIDs)}, args...)...).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("summarise compilations: %w", err)
	}
	for _, r := range rows {
		out[r.CompilationID] = CompilationSummary{NumItems: r.NumItems, FirstItem: r.FirstItem}
	}
	return out, nil
}

// Thumbnail is an item's main picture: the thumbnail artifact (the
// thumbnailer's first, else another extractor's), else its video sprite.
type Thumbnail struct {
	Path          string // the artifact store's key, as the artifacts table has it
	Width, Height int
	Type          string // "image" or "sprite"
}

// Thumbnails returns the main thumbnail of each of these items that has one.
func Thumbnails(db *gorm.DB, itemIDs []string) (map[string]Thumbnail, error) {
	out := map[string]Thumbnail{}
	if len(itemIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		ItemID, Path, Kind string
		Width, Height      int
	}
	err := db.Raw(`SELECT DISTINCT ON (item_id) item_id, path, kind, width, height
		FROM artifacts WHERE item_id = ANY(?) AND kind IN ('thumbnail', 'sprite')
		ORDER BY item_id, kind <> 'thumbnail', extractor <> 'thumbnailer', path`, models.Strings(itemIDs)).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("load thumbnails: %w", err)
	}
	for _, r := range rows {
		typ := "image"
		if r.Kind == "sprite" {
			typ = "sprite"
		}
		out[r.ItemID] = Thumbnail{Path: r.Path, Width: r.Width, Height: r.Height, Type: typ}
	}
	return out, nil
}

// TouchCompilation moves a compilation's updated_at to now.
func TouchCompilation(tx *gorm.DB, id string) error {
	if err := tx.Exec(`UPDATE compilations SET updated_at = now() WHERE id = ?`, id).Error; err != nil {
		return fmt.Errorf("touch compilation %s: %w", id, err)
	}
	return nil
}

// lockCompilation serialises changes to a compilation's items.
func lockCompilation(tx *gorm.DB, id string) error {
	var got []string
	if err := tx.Raw(`SELECT id FROM compilations WHERE id = ? FOR UPDATE`, id).Scan(&got).Error; err != nil {
		return fmt.Errorf("lock compilation %s: %w", id, err)
	}
	if len(got) == 0 {
		return apperr.NotFound("compilation", id)
	}
	return nil
}

// AddCompilationItem puts an item, or the moment of it from in to out
// (seconds; both nil: the whole item), in a compilation at position (0
// first; nil or past the end: last), moving the entries at and after it
// one down: 409 when that item or moment is in it already.
func AddCompilationItem(tx *gorm.DB, compilationID, itemID string, position *int, in, out *float64) (models.CompilationItem, error) {
	ci := models.CompilationItem{CompilationID: compilationID, EntryID: ids.New(), ItemID: itemID, AddedAt: time.Now().UTC(),
		InPoint: in, OutPoint: out}
	if err := lockCompilation(tx, compilationID); err != nil {
		return ci, err
	}
	var n int64
	if err := tx.Model(&models.CompilationItem{}).Where(`compilation_id = ? AND item_id = ?
		AND in_point IS NOT DISTINCT FROM ? AND out_point IS NOT DISTINCT FROM ?`, compilationID, itemID, in, out).
		Count(&n).Error; err != nil {
		return ci, fmt.Errorf("find item %s in compilation %s: %w", itemID, compilationID, err)
	}
	if n > 0 {
		if in != nil {
			return ci, apperr.Conflict(apperr.CodeAlreadyInCompilation, "this moment of item %q is in the compilation already", itemID)
		}
		return ci, apperr.Conflict(apperr.CodeAlreadyInCompilation, "item %q is in the compilation already", itemID)
	}
	var end int
	if err := tx.Raw(`SELECT COALESCE(max(display_order) + 1, 0) FROM compilation_items WHERE compilation_id = ?`,
		compilationID).Scan(&end).Error; err != nil {
		return ci, fmt.Errorf("end of compilation %s: %w", compilationID, err)
	}
	ci.DisplayOrder = end
	if position != nil && *position < end {
		ci.DisplayOrder = max(*position, 0)
		if err := tx.Exec(`UPDATE compilation_items SET display_order = display_order + 1
			WHERE compilation_id = ? AND display_order >= ?`, compilationID, ci.DisplayOrder).Error; err != nil {
			return ci, fmt.Errorf("make room in compilation %s: %w", compilationID, err)
		}
	}
	if err := tx.Create(&ci).Error; err != nil {
		return ci, fmt.Errorf("add item %s to compilation %s: %w", itemID, compilationID, err)
	}
	return ci, TouchCompilation(tx, compilationID)
}

// RemoveCompilationItem takes an item (each of its entries) or one entry
// (id is an entry id) out of a compilation (the item itself stays): 404
// when it is not in it.
func RemoveCompilationItem(tx *gorm.DB, compilationID, id string) error {
	res := tx.Delete(&models.CompilationItem{}, "compilation_id = ? AND (item_id = ? OR entry_id = ?)", compilationID, id, id)
	if res.Error != nil {
		return fmt.Errorf("remove item %s from compilation %s: %w", id, compilationID, res.Error)
	}
	if res.RowsAffected == 0 {
		return apperr.NotFound("item in the compilation", id)
	}
	return TouchCompilation(tx, compilationID)
}

// OrderCompilationItems puts the listed entries first, in the order
// given; the others follow in their present order. Each id is an entry id,
// or an item id for every entry of that item (in their present order). Ids
// that are neither in the compilation are returned (and nothing changes).
func OrderCompilationItems(tx *gorm.DB, compilationID string, itemIDs []string) ([]string, error) {
	if err := lockCompilation(tx, compilationID); err != nil {
		return nil, err
	}
	var have []struct{ EntryID, ItemID string }
	if err := tx.Raw(`SELECT ci.entry_id, ci.item_id FROM compilation_items ci WHERE ci.compilation_id = ? ORDER BY `+entryOrder,
		compilationID).Scan(&have).Error; err != nil {
		return nil, fmt.Errorf("items of compilation %s: %w", compilationID, err)
	}
	entries := map[string][]string{} // an entry or item id: its entries
	for _, h := range have {
		entries[h.EntryID] = []string{h.EntryID}
		entries[h.ItemID] = append(entries[h.ItemID], h.EntryID)
	}
	var unknown []string
	listed := map[string]bool{}
	order := make([]string, 0, len(have))
	for _, id := range itemIDs {
		es, ok := entries[id]
		if !ok {
			unknown = append(unknown, id)
			continue
		}
		for _, e := range es {
			if !listed[e] {
				listed[e] = true
				order = append(order, e)
			}
		}
	}
	if len(unknown) > 0 {
		return unknown, nil
	}
	for _, h := range have {
		if !listed[h.EntryID] {
			order = append(order, h.EntryID)
		}
	}
	positions := make(models.Strings, len(order))
	for i := range order {
		positions[i] = strconv.Itoa(i)
	}
	if err := tx.Exec(`UPDATE compilation_items ci SET display_order = u.o
		FROM unnest(?::text[], ?::text[]::bigint[]) AS u(id, o)
		WHERE ci.compilation_id = ? AND ci.entry_id = u.id`, models.Strings(order), positions, compilationID).Error; err != nil {
		return nil, fmt.Errorf("order compilation %s: %w", compilationID, err)
	}
	return nil, TouchCompilation(tx, compilationID)
}

// CloneCompilation copies src as a new compilation id of authorID named
// name, with the items of src that v may see, in their order.
func CloneCompilation(tx *gorm.DB, v Viewer, src models.Compilation, id, name, authorID string) error {
	dst := models.Compilation{ID: id, Name: name, Public: src.Public, AuthorID: authorID}
	if err := tx.Create(&dst).Error; err != nil {
		return fmt.Errorf("create compilation: %w", err)
	}
	cond, args := v.VisibleSQL("i.location_id", "i.container_id")
	err := tx.Exec(`INSERT INTO compilation_items (compilation_id, entry_id, item_id, display_order, in_point, out_point)
		SELECT ?, md5(random()::text || ci.entry_id), ci.item_id, ci.display_order, ci.in_point, ci.out_point FROM compilation_items ci JOIN items i ON i.id = ci.item_id
		WHERE ci.compilation_id = ? AND i.deleted_at IS NULL AND `+cond, append([]any{dst.ID, src.ID}, args...)...).Error
	if err != nil {
		return fmt.Errorf("copy items of compilation %s: %w", src.ID, err)
	}
	return nil
}
