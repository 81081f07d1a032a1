package search

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// BuildDocument derives the search document of one item from Postgres. ok is
// false when the item does not exist or is deleted (its document must go).
func BuildDocument(db *store.DB, itemID string) (doc Document, ok bool, err error) {
	ctx := context.Background()
	if db.Statement != nil && db.Statement.Context != nil {
		ctx = db.Statement.Context
	}
	docs, err := BuildDocuments(ctx, db, []string{itemID})
	if err != nil {
		return nil, false, err
	}
	doc, ok = docs[itemID]
	return doc, ok, nil
}

// itemRow is what an item's document is made of: its row (read, or made
// from a Fresh item) and the groups of its location and container.
type itemRow struct {
	store.DocItem
	LocationGroups  models.Strings
	ContainerGroups models.Strings
	// data is the metadata of a Fresh item, decoded already (Metadata is
	// then empty).
	data map[string]any
}

// Fresh is an item its caller has just written whole, in the transaction
// that indexes it (a new file's first harvest): its document is made from
// what the caller holds rather than read back and decoded. The document is
// the one BuildDocuments would read from the row.
type Fresh struct {
	ID, Name, Path, MimeType string
	Size                     int64
	LastModified             time.Time
	LocationID               string
	LocationKind             string
	LocationName             string
	ContainerID              string
	ContainerName            string
	// Data is the item's metadata: the data of each extractor, by
	// extractor name, as it was encoded into the row (nil is {}).
	Data map[string]map[string]any
	// Media: the transaction wrote segment parts or captions of the item,
	// which its document and segments are made of: they are read back.
	// Without it nothing is read for the item: a row just inserted has no
	// rows that refer to it but those its transaction wrote (no custom
	// field values, no uploaded captions).
	Media bool
}

// readsFieldValues: the item's custom field values are read (a fresh item
// has none).
func readsFieldValues(fresh map[string]*Fresh, id string) bool { return fresh[id] == nil }

// readsMedia: the item's captions and segment parts are read.
func readsMedia(fresh map[string]*Fresh, id string) bool {
	f := fresh[id]
	return f == nil || f.Media
}

// only is the documents of docs whose id keep holds.
func only(docs map[string]Document, keep func(id string) bool) map[string]Document {
	out := make(map[string]Document, len(docs))
	for id, d := range docs {
		if keep(id) {
			out[id] = d
		}
	}
	return out
}

func (f *Fresh) row() itemRow {
	data := make(map[string]any, len(f.Data))
	for name, d := range f.Data {
		if d == nil {
			d = map[string]any{}
		}
		data[name] = d
	}
	// The row keeps microseconds, in UTC.
	lm := f.LastModified.UTC().Truncate(time.Microsecond)
	return itemRow{DocItem: store.DocItem{ID: f.ID, Name: f.Name, Path: f.Path, Size: f.Size, LastModified: &lm, MimeType: f.MimeType,
		LocationID: f.LocationID, LocationKind: f.LocationKind, LocationName: f.LocationName,
		ContainerID: f.ContainerID, ContainerName: f.ContainerName}, data: data}
}

// BuildDocuments derives the documents of several items in one query; items
// that do not exist or are deleted are absent from the map.
func BuildDocuments(ctx context.Context, db *store.DB, itemIDs []string) (map[string]Document, error) {
	return buildDocuments(ctx, db, itemIDs, nil)
}

// buildDocuments is BuildDocuments, with the rows of the fresh items (by
// id) taken from them rather than read.
func buildDocuments(ctx context.Context, db *store.DB, itemIDs []string, fresh map[string]*Fresh) (map[string]Document, error) {
	out := make(map[string]Document, len(itemIDs))
	if len(itemIDs) == 0 {
		return out, nil
	}
	rows := make([]itemRow, 0, len(itemIDs))
	read := itemIDs
	if len(fresh) > 0 {
		read = nil
		for _, id := range itemIDs {
			if f := fresh[id]; f != nil {
				rows = append(rows, f.row())
			} else {
				read = append(read, id)
			}
		}
	}
	if len(read) > 0 {
		stored, err := store.DocItems(db.WithContext(ctx), read)
		if err != nil {
			return nil, fmt.Errorf("load items for search: %w", err)
		}
		for _, it := range stored {
			rows = append(rows, itemRow{DocItem: it})
		}
	}
	if err := addGroups(ctx, db, rows); err != nil {
		return nil, err
	}
	for _, r := range rows {
		doc, err := documentOf(r)
		if err != nil {
			return nil, fmt.Errorf("build search document of item %s: %w", r.ID, err)
		}
		out[r.ID] = doc
	}
	if err := addCustomFields(ctx, db, only(out, func(id string) bool { return readsFieldValues(fresh, id) })); err != nil {
		return nil, err
	}
	if err := addTranscripts(ctx, db, only(out, func(id string) bool { return readsMedia(fresh, id) })); err != nil {
		return nil, err
	}
	// A new file's faces get their persons after its harvest (package
	// people), which marks it dirty again: nothing to read yet.
	if err := addPeople(ctx, db, only(out, func(id string) bool { return fresh[id] == nil })); err != nil {
		return nil, err
	}
	return out, nil
}

// addPeople sets docs[id]["people"] to the item's persons across the
// archive: [{person_id, name (once named), is_known}], most seen first, so
// that their names are words of the item and a person is a filter and a
// facet. Renaming a person marks their items dirty.
func addPeople(ctx context.Context, db *store.DB, docs map[string]Document) error {
	if len(docs) == 0 {
		return nil
	}
	ids := make([]string, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	rows, err := store.DocPeople(db.WithContext(ctx), ids)
	if err != nil {
		return fmt.Errorf("load people for search: %w", err)
	}
	seen := map[[2]string]bool{}
	for _, r := range rows {
		if seen[[2]string{r.ItemID, r.PersonID}] {
			continue
		}
		seen[[2]string{r.ItemID, r.PersonID}] = true
		p := map[string]any{"person_id": r.PersonID, "is_known": r.IsKnown}
		if r.Name != "" {
			p["name"] = r.Name
		}
		list, _ := docs[r.ItemID][FieldPeople].([]any)
		docs[r.ItemID][FieldPeople] = append(list, p)
	}
	return nil
}

// addGroups sets the visibility lists of items from the groups of their
// locations and containers, read once for the few of them a batch has.
func addGroups(ctx context.Context, db *store.DB, rows []itemRow) error {
	if len(rows) == 0 {
		return nil
	}
	var locs, ctrs []string
	seenLoc, seenCtr := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		if !seenLoc[r.LocationID] {
			seenLoc[r.LocationID] = true
			locs = append(locs, r.LocationID)
		}
		if !seenCtr[r.ContainerID] {
			seenCtr[r.ContainerID] = true
			ctrs = append(ctrs, r.ContainerID)
		}
	}
	groups, err := store.DocGroupsOf(db.WithContext(ctx), locs, ctrs)
	if err != nil {
		return fmt.Errorf("load groups for search: %w", err)
	}
	byLoc, byCtr := map[string]models.Strings{}, map[string]models.Strings{}
	for _, g := range groups {
		if g.Container {
			byCtr[g.ID] = g.Groups
		} else {
			byLoc[g.ID] = g.Groups
		}
	}
	for i := range rows {
		rows[i].LocationGroups, rows[i].ContainerGroups = byLoc[rows[i].LocationID], byCtr[rows[i].ContainerID]
	}
	return nil
}

// maxTranscriptBytes caps the caption text of one document: enough for a
// feature film's subtitles; beyond it the words stay in the item's
// captions (and keyword hits) but not in full-text search.
const maxTranscriptBytes = 1 << 20

// addTranscripts sets docs[id]["transcript"] = {text, languages, sources}
// from the item's captions (subtitle tracks, caption files, speech,
// uploads), so that what a video says is found by a text search.
func addTranscripts(ctx context.Context, db *store.DB, docs map[string]Document) error {
	if len(docs) == 0 {
		return nil
	}
	ids := make([]string, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	rows, err := store.DocCaptions(db.WithContext(ctx), ids)
	if err != nil {
		return fmt.Errorf("load captions for search: %w", err)
	}
	type acc struct {
		text               strings.Builder
		languages, sources []string
	}
	by := map[string]*acc{}
	for _, r := range rows {
		a := by[r.ItemID]
		if a == nil {
			a = &acc{}
			by[r.ItemID] = a
		}
		if r.Language != "" && !slicesContains(a.languages, r.Language) {
			a.languages = append(a.languages, r.Language)
		}
		if r.Source != "" && !slicesContains(a.sources, r.Source) {
			a.sources = append(a.sources, r.Source)
		}
		var cues []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(r.Cues, &cues) // malformed cues add no text
		for _, c := range cues {
			if a.text.Len()+len(c.Text)+1 > maxTranscriptBytes {
				break
			}
			if a.text.Len() > 0 {
				a.text.WriteByte('\n')
			}
			a.text.WriteString(c.Text)
		}
	}
	for id, a := range by {
		langs, srcs := a.languages, a.sources
		sort.Strings(langs)
		sort.Strings(srcs)
		docs[id][FieldTranscript] = map[string]any{"text": a.text.String(), "languages": anyStrings(langs), "sources": anyStrings(srcs)}
	}
	return nil
}

func anyStrings(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func documentOf(r itemRow) (Document, error) {
	doc := Document{}
	// Extractor data first, so that base fields win a name clash (the
	// mime_type extractor's object must not hide the mime_type string).
	meta := r.data
	if meta == nil && len(r.Metadata) > 0 {
		// Numbers stay json.Number: what Prepare would make of them.
		dec := json.NewDecoder(bytes.NewReader(r.Metadata))
		dec.UseNumber()
		if err := dec.Decode(&meta); err != nil {
			return nil, fmt.Errorf("decode metadata: %w", err)
		}
	}
	for name, data := range meta {
		if strings.HasPrefix(name, "_") || name == FieldCustomFieldsPrefix {
			continue
		}
		doc[name] = data
	}
	doc[FieldID] = r.ID
	doc[FieldName] = r.Name
	doc[FieldMimeType] = r.MimeType
	doc[FieldSize] = r.Size
	if r.LastModified != nil {
		doc[FieldLastModified] = r.LastModified.UTC().Format(time.RFC3339Nano)
	}
	doc[FieldLocationID] = r.LocationID
	doc[FieldLocationKind] = r.LocationKind
	doc[FieldLocationName] = r.LocationName
	doc[FieldContainerID] = r.ContainerID
	doc[FieldContainerName] = r.ContainerName
	doc[FieldStoreURL] = StoreURL(r.LocationKind, r.LocationName, r.ContainerName, r.Path)
	doc[FieldType] = models.MediaType(r.MimeType)
	doc[FieldExtension] = Extension(r.Name)
	lg, cg := []string(r.LocationGroups), []string(r.ContainerGroups)
	sort.Strings(lg)
	sort.Strings(cg)
	doc[FieldLocationGroups] = nonNil(lg)
	doc[FieldContainerGroups] = nonNil(cg)
	return doc, nil
}

// StoreURL is where an item lives: <kind>://<location name>/<container name>/<path>.
func StoreURL(kind, location, container, path string) string {
	return kind + "://" + location + "/" + container + "/" + strings.TrimLeft(path, "/")
}

// addCustomFields sets docs[id]["fields"] = {<field_id>: value, ...} from
// the items' custom field values, each typed by its field: a bool, a
// number, a string, or a date as the RFC 3339 instant of its midnight UTC.
// Saving or deleting a value marks the item dirty in the same transaction.
func addCustomFields(ctx context.Context, db *store.DB, docs map[string]Document) error {
	if len(docs) == 0 {
		return nil
	}
	ids := make([]string, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	rows, err := store.DocFieldValues(db.WithContext(ctx), ids)
	if err != nil {
		return fmt.Errorf("load custom field values for search: %w", err)
	}
	for _, r := range rows {
		var v any
		switch {
		case r.DataType == models.FieldBool && r.BoolValue != nil:
			v = *r.BoolValue
		case r.DataType == models.FieldNumber && r.NumericValue != nil:
			v = *r.NumericValue
		case r.DataType == models.FieldDate && r.DateValue != nil:
			d := r.DateValue.UTC()
			v = time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
		case r.DataType == models.FieldString && r.StringValue != nil:
			v = *r.StringValue
		default:
			continue // a value of another type than its field's: not indexed
		}
		fields, _ := docs[r.ItemID][FieldCustomFieldsPrefix].(map[string]any)
		if fields == nil {
			fields = map[string]any{}
			docs[r.ItemID][FieldCustomFieldsPrefix] = fields
		}
		fields[r.FieldID] = v
	}
	return nil
}
