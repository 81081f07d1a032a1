package meili

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/meilisearch/meilisearch-go"

	"github.com/metaharvest/metaharvest/search"
)

// writeBatch bounds the documents of one request.
const writeBatch = 1000

// Upsert adds or replaces documents, waits until they are searchable, and
// copies their visibility lists to the segments of these items.
func (e *Engine) Upsert(ctx context.Context, docs []search.Document) error {
	if len(docs) == 0 {
		return nil
	}
	prepared := make([]*search.Prepared, 0, len(docs))
	for _, d := range docs {
		p, err := search.PrepareItem(d)
		if err != nil {
			return fmt.Errorf("index document %q: %w", d.ID(), err)
		}
		prepared = append(prepared, p)
	}
	if err := e.learn(ctx, search.ScopeItems, prepared); err != nil {
		return err
	}
	pk := search.FieldID
	for start := 0; start < len(prepared); start += writeBatch {
		batch := prepared[start:min(start+writeBatch, len(prepared))]
		out := make([]map[string]any, len(batch))
		for i, p := range batch {
			out[i] = document(p)
		}
		info, err := e.client.Index(e.items).AddDocumentsWithContext(ctx, out, &meilisearch.DocumentOptions{PrimaryKey: &pk})
		if err != nil {
			return wrapErr(fmt.Errorf("index documents: %w", err))
		}
		if err := e.wait(ctx, info); err != nil {
			return fmt.Errorf("index documents: %w", err)
		}
		if err := e.refreshSegmentGroups(ctx, batch); err != nil {
			return err
		}
	}
	return nil
}

// refreshSegmentGroups gives the segments of these items their lists.
func (e *Engine) refreshSegmentGroups(ctx context.Context, items []*search.Prepared) error {
	byItem := make(map[string]*search.Prepared, len(items))
	ids := make([]string, 0, len(items))
	for _, p := range items {
		byItem[p.ID] = p
		ids = append(ids, p.ID)
	}
	var updates []map[string]any
	const page = 10_000
	for offset := int64(0); ; offset += page {
		var res meilisearch.DocumentsResult
		err := e.client.Index(e.segments).GetDocumentsWithContext(ctx, &meilisearch.DocumentsQuery{
			Offset: offset, Limit: page, Fields: []string{search.FieldID, "item_id"},
			Filter: fmt.Sprintf("%s IN %s", quote("item_id"), quoteList(ids)),
		}, &res)
		if err != nil {
			return wrapErr(fmt.Errorf("find segments of indexed items: %w", err))
		}
		for _, h := range res.Results {
			var s struct {
				ID     string `json:"_id"`
				ItemID string `json:"item_id"`
			}
			raw, _ := json.Marshal(h)
			if err := json.Unmarshal(raw, &s); err != nil {
				return fmt.Errorf("find segments of indexed items: %w", err)
			}
			if p := byItem[s.ItemID]; p != nil {
				updates = append(updates, map[string]any{
					search.FieldID:              s.ID,
					search.FieldLocationGroups:  groupsOrPublic(p.LocationGroups),
					search.FieldContainerGroups: groupsOrPublic(p.ContainerGroups),
				})
			}
		}
		if int64(len(res.Results)) < page {
			break
		}
	}
	if len(updates) == 0 {
		return nil
	}
	pk := search.FieldID
	info, err := e.client.Index(e.segments).UpdateDocumentsWithContext(ctx, updates, &meilisearch.DocumentOptions{PrimaryKey: &pk})
	if err != nil {
		return wrapErr(fmt.Errorf("refresh segment visibility: %w", err))
	}
	return e.wait(ctx, info)
}

// Delete removes documents.
func (e *Engine) Delete(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	info, err := e.client.Index(e.items).DeleteDocumentsWithContext(ctx, ids, nil)
	if err != nil {
		return wrapErr(fmt.Errorf("delete documents: %w", err))
	}
	return e.wait(ctx, info)
}

// UpsertSegments adds or replaces segments; when the item's document is
// indexed, its visibility lists win over the segment's own.
func (e *Engine) UpsertSegments(ctx context.Context, segs []search.Segment) error {
	if len(segs) == 0 {
		return nil
	}
	itemIDs := map[string]bool{}
	for _, s := range segs {
		itemIDs[s.ItemID] = true
	}
	groups, err := e.itemGroups(ctx, itemIDs)
	if err != nil {
		return err
	}
	prepared := make([]*search.Prepared, 0, len(segs))
	for _, s := range segs {
		if g, ok := groups[s.ItemID]; ok {
			s.LocationGroups, s.ContainerGroups = g[0], g[1]
		}
		d, err := s.Document()
		if err != nil {
			return err
		}
		p, err := search.Prepare(d)
		if err != nil {
			return fmt.Errorf("index segment %q: %w", s.ID, err)
		}
		prepared = append(prepared, p)
	}
	if err := e.learn(ctx, search.ScopeSegments, prepared); err != nil {
		return err
	}
	pk := search.FieldID
	for start := 0; start < len(prepared); start += writeBatch {
		batch := prepared[start:min(start+writeBatch, len(prepared))]
		out := make([]map[string]any, len(batch))
		for i, p := range batch {
			out[i] = document(p)
		}
		info, err := e.client.Index(e.segments).AddDocumentsWithContext(ctx, out, &meilisearch.DocumentOptions{PrimaryKey: &pk})
		if err != nil {
			return wrapErr(fmt.Errorf("index segments: %w", err))
		}
		if err := e.wait(ctx, info); err != nil {
			return fmt.Errorf("index segments: %w", err)
		}
	}
	return nil
}

// itemGroups reads the visibility lists of indexed items.
func (e *Engine) itemGroups(ctx context.Context, itemIDs map[string]bool) (map[string][2][]string, error) {
	ids := make([]string, 0, len(itemIDs))
	for id := range itemIDs {
		ids = append(ids, id)
	}
	out := map[string][2][]string{}
	for start := 0; start < len(ids); start += writeBatch {
		chunk := ids[start:min(start+writeBatch, len(ids))]
		var res meilisearch.DocumentsResult
		err := e.client.Index(e.items).GetDocumentsWithContext(ctx, &meilisearch.DocumentsQuery{
			Limit: int64(len(chunk)), Filter: fmt.Sprintf("%s IN %s", quote(search.FieldID), quoteList(chunk)),
			Fields: []string{search.FieldID, search.FieldLocationGroups, search.FieldContainerGroups},
		}, &res)
		if err != nil {
			return nil, wrapErr(fmt.Errorf("read item visibility: %w", err))
		}
		for _, h := range res.Results {
			var d struct {
				ID string   `json:"_id"`
				LG []string `json:"_location_groups"`
				CG []string `json:"_container_groups"`
			}
			raw, _ := json.Marshal(h)
			if err := json.Unmarshal(raw, &d); err != nil {
				return nil, fmt.Errorf("read item visibility: %w", err)
			}
			out[d.ID] = [2][]string{withoutPublic(d.LG), withoutPublic(d.CG)}
		}
	}
	return out, nil
}

func withoutPublic(g []string) []string {
	out := []string{}
	for _, x := range g {
		if x != publicGroup {
			out = append(out, x)
		}
	}
	return out
}

// DeleteSegmentsOfItems removes the segments of items.
func (e *Engine) DeleteSegmentsOfItems(ctx context.Context, itemIDs []string) error {
	if len(itemIDs) == 0 {
		return nil
	}
	info, err := e.client.Index(e.segments).DeleteDocumentsByFilterWithContext(ctx, fmt.Sprintf("%s IN %s", quote("item_id"), quoteList(itemIDs)), nil)
	if err != nil {
		return wrapErr(fmt.Errorf("delete segments: %w", err))
	}
	return e.wait(ctx, info)
}
