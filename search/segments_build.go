package search

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/metaharvest/metaharvest/internal/store"
)

// Segments come from extractors (extractors.Result.Segments), stored by the
// worker as segment parts: one row per item, extractor and moment.
// BuildSegments merges the parts of every extractor of an item by time (to
// the millisecond), so one frame analysed for faces and for text is one
// segment. The item's captions are then linked to the segments by time
// (summary.transcript; see linkTranscripts), cues no segment reaches making
// segments of their own. Drain rebuilds an item's segments whenever it
// indexes the item, so they always follow the item's data, its captions
// and its visibility.

// BuildSegments returns the segments of the given item documents, by item
// id, with the visibility lists of their documents.
func BuildSegments(ctx context.Context, db *store.DB, docs []Document) (map[string][]Segment, error) {
	out := map[string][]Segment{}
	if len(docs) == 0 {
		return out, nil
	}
	byID := make(map[string]Document, len(docs))
	ids := make([]string, 0, len(docs))
	for _, d := range docs {
		byID[d.ID()] = d
		ids = append(ids, d.ID())
	}
	rows, err := store.DocSegmentParts(db.WithContext(ctx), ids)
	if err != nil {
		return nil, fmt.Errorf("load segments: %w", err)
	}
	persons, err := segmentPersons(ctx, db, ids)
	if err != nil {
		return nil, err
	}
	type key struct {
		item string
		ms   int64
	}
	merged := map[key]*Segment{}
	var order []key
	for _, r := range rows {
		k := key{r.ItemID, r.TimeMS}
		seg, ok := merged[k]
		if !ok {
			lg, cg := byID[r.ItemID].Groups()
			seg = &Segment{ID: fmt.Sprintf("%s-%d", r.ItemID, r.TimeMS), ItemID: r.ItemID, Time: float64(r.TimeMS) / 1000,
				LocationGroups: lg, ContainerGroups: cg}
			merged[k] = seg
			order = append(order, k)
		}
		var sum SegmentSummary
		if len(r.Summary) > 0 {
			_ = json.Unmarshal(r.Summary, &sum) // a malformed part contributes nothing
		}
		for i, p := range sum.People {
			// The item's own person becomes the person across the
			// archive: a person's moments are found by id or name.
			if g, ok := persons[[2]string{r.ItemID, p.ID}]; ok {
				sum.People[i].ID, sum.People[i].Name = g.PersonID, g.Name
			}
		}
		seg.Summary.Merge(sum)
		if seg.Thumbnail == nil && len(r.Thumbnail) > 0 && string(r.Thumbnail) != "null" {
			var th Thumbnail
			if json.Unmarshal(r.Thumbnail, &th) == nil && th.Path != "" {
				seg.Thumbnail = &th
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].item != order[j].item {
			return order[i].item < order[j].item
		}
		return order[i].ms < order[j].ms
	})
	for _, k := range order {
		out[k.item] = append(out[k.item], *merged[k])
	}

	caps, err := loadTimedCaptions(ctx, db, ids)
	if err != nil {
		return nil, err
	}
	for id, cs := range caps {
		d, ok := byID[id]
		if !ok {
			continue
		}
		lg, cg := d.Groups()
		out[id] = linkTranscripts(out[id], cs, func(ms int64) Segment {
			return Segment{ID: fmt.Sprintf("%s-%d", id, ms), ItemID: id, Time: float64(ms) / 1000,
				LocationGroups: lg, ContainerGroups: cg}
		})
	}
	return out, nil
}

// segmentPersons maps (item, the item's own person) to its person across
// the archive.
func segmentPersons(ctx context.Context, db *store.DB, ids []string) (map[[2]string]store.DocPerson, error) {
	rows, err := store.DocPeople(db.WithContext(ctx), ids)
	if err != nil {
		return nil, fmt.Errorf("load people of segments: %w", err)
	}
	out := make(map[[2]string]store.DocPerson, len(rows))
	for _, r := range rows {
		out[[2]string{r.ItemID, r.LocalPerson}] = r
	}
	return out, nil
}
