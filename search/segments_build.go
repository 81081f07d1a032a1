package search

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// Segments come from extractors: an extractor whose data holds
//
//	"segments": [{"time": <seconds>, "summary": {<SegmentSummary fields>}}, ...]
//
// contributes analysed moments of a video. SegmentsOf merges the moments of
// every extractor of an item by time (to the millisecond), so one frame
// analysed by OCR and by a tagger is one segment. Drain rebuilds an item's
// segments whenever it indexes the item, so they always follow the item's
// metadata (and its visibility).

// SegmentsOf returns the segments carried by an item document.
func SegmentsOf(doc Document) []Segment {
	itemID := doc.ID()
	lg, cg := doc.Groups()
	byMS := map[int64]*Segment{}
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	sort.Strings(keys) // merge order does not depend on map order
	for _, k := range keys {
		data, ok := doc[k].(map[string]any)
		if !ok {
			continue
		}
		list, ok := data["segments"].([]any)
		if !ok {
			continue
		}
		for _, raw := range list {
			m, ok := raw.(map[string]any)
			if !ok {
				continue
			}
			t, ok := m["time"].(float64)
			if !ok || math.IsNaN(t) || math.IsInf(t, 0) || t < 0 {
				continue
			}
			var sum SegmentSummary
			if b, err := json.Marshal(m["summary"]); err == nil {
				_ = json.Unmarshal(b, &sum) // a malformed summary contributes nothing
			}
			ms := int64(math.Round(t * 1000))
			seg, ok := byMS[ms]
			if !ok {
				seg = &Segment{ID: fmt.Sprintf("%s-%d", itemID, ms), ItemID: itemID, Time: float64(ms) / 1000,
					LocationGroups: lg, ContainerGroups: cg}
				byMS[ms] = seg
			}
			seg.Summary.merge(sum)
		}
	}
	out := make([]Segment, 0, len(byMS))
	for _, s := range byMS {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Time < out[j].Time })
	return out
}

// merge adds another extractor's view of the same moment. Lists append; of
// single values the most confident (or first) is kept.
func (s *SegmentSummary) merge(o SegmentSummary) {
	s.Tags = append(s.Tags, o.Tags...)
	s.People = append(s.People, o.People...)
	s.Descriptions = append(s.Descriptions, o.Descriptions...)
	s.Logos = append(s.Logos, o.Logos...)
	s.OCR = append(s.OCR, o.OCR...)
	if o.Description != nil && (s.Description == nil || o.Description.Confidence > s.Description.Confidence) {
		s.Description = o.Description
	}
	if o.NSFW != nil && (s.NSFW == nil || o.NSFW.NSFWScore > s.NSFW.NSFWScore) {
		s.NSFW = o.NSFW
	}
	if s.Locations == nil {
		s.Locations = o.Locations
	}
}
