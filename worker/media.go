package worker

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/store"
)

// mediaRows are the segment parts, captions and face descriptors of a
// batch, column by column.
type mediaRows struct {
	segAt                                       map[string]int // item, extractor, ms -> index: one row per moment
	segItem, segExtractor, segThumb, segSummary []string
	segTime                                     []int64

	capID, capItem, capExtractor, capLabel, capSource, capLanguage, capFormat, capCues []string
	capConfidence                                                                      []float64

	faces store.FaceRows // face descriptors (vendor_faces)
}

// add collects what an outcome reported besides its data. prefix is the
// outcome's artifact directory relative to the artifact root: the paths of
// thumbnails and face crops are stored from the root, as artifacts are.
func (m *mediaRows) add(itemID string, o extractors.Outcome, prefix string) {
	for _, s := range o.Segments {
		thumb := ""
		if s.Thumbnail != nil {
			t := *s.Thumbnail
			t.Path = prefix + t.Path
			b, _ := json.Marshal(t)
			thumb = string(b)
		}
		sum := s.Summary
		if len(sum.People) > 0 {
			sum.People = append([]extractors.SegmentPerson(nil), sum.People...)
			for i := range sum.People {
				if sum.People[i].ThumbnailPath != "" {
					sum.People[i].ThumbnailPath = prefix + sum.People[i].ThumbnailPath
				}
			}
		}
		b, err := json.Marshal(sum)
		if err != nil {
			continue // checked by extractors.Run: cannot happen
		}
		ms := int64(math.Round(s.Time * 1000))
		key := fmt.Sprintf("%s\x00%s\x00%d", itemID, o.Name, ms)
		if m.segAt == nil {
			m.segAt = map[string]int{}
		}
		if i, dup := m.segAt[key]; dup {
			// Two moments of one extractor rounding to the same
			// millisecond: merged, as the search engine would.
			var have extractors.SegmentSummary
			_ = json.Unmarshal([]byte(m.segSummary[i]), &have)
			have.Merge(sum)
			merged, _ := json.Marshal(have)
			m.segSummary[i] = string(merged)
			if m.segThumb[i] == "" {
				m.segThumb[i] = thumb
			}
			continue
		}
		m.segAt[key] = len(m.segItem)
		m.segItem = append(m.segItem, itemID)
		m.segExtractor = append(m.segExtractor, o.Name)
		m.segTime = append(m.segTime, ms)
		m.segThumb = append(m.segThumb, thumb)
		m.segSummary = append(m.segSummary, string(b))
	}
	for _, f := range o.Faces {
		ms := int64(-1)
		if f.Time != nil {
			ms = int64(math.Round(*f.Time * 1000))
		}
		thumb := ""
		if f.Thumbnail != "" {
			thumb = prefix + f.Thumbnail
		}
		r := &m.faces
		r.Item, r.Extractor, r.PersonID, r.Thumbnail, r.Model = append(r.Item, itemID), append(r.Extractor, o.Name),
			append(r.PersonID, f.PersonID), append(r.Thumbnail, thumb), append(r.Model, f.Model)
		r.Face, r.TimeMS, r.Descriptor = append(r.Face, int32(f.Face)), append(r.TimeMS, ms), append(r.Descriptor, f.Descriptor)
		r.Left, r.Top = append(r.Left, float32(f.Box.Left)), append(r.Top, float32(f.Box.Top))
		r.Width, r.Height = append(r.Width, float32(f.Box.Width)), append(r.Height, float32(f.Box.Height))
	}
	for i, c := range o.Captions {
		cues := c.Cues
		if cues == nil {
			cues = []extractors.Cue{}
		}
		b, err := json.Marshal(cues)
		if err != nil {
			continue
		}
		m.capID = append(m.capID, CaptionID(itemID, o.Name, c.Label, i))
		m.capItem = append(m.capItem, itemID)
		m.capExtractor = append(m.capExtractor, o.Name)
		m.capLabel = append(m.capLabel, c.Label)
		m.capSource = append(m.capSource, c.Source)
		m.capLanguage = append(m.capLanguage, c.Language)
		m.capConfidence = append(m.capConfidence, c.Confidence)
		m.capFormat = append(m.capFormat, c.Format)
		m.capCues = append(m.capCues, string(b))
	}
}

// items are the items with segment parts or captions.
func (m *mediaRows) items() map[string]bool {
	out := map[string]bool{}
	for _, id := range m.segItem {
		out[id] = true
	}
	for _, id := range m.capItem {
		out[id] = true
	}
	return out
}

// CaptionID is the id of an extracted caption: the same caption found again
// keeps its id.
func CaptionID(itemID, extractor, label string, index int) string {
	return ids.Derived("caption", itemID, extractor, label, fmt.Sprint(index))
}

// insert writes the rows of the items in keep. Several parts of one
// extractor at the same millisecond keep the last.
func (m *mediaRows) insert(tx *store.DB, keep map[string]bool, now time.Time) error {
	if len(m.segItem) > 0 {
		var it, ex, th, su []string
		var tm []int64
		for i := range m.segItem {
			if keep[m.segItem[i]] {
				it, ex, th, su, tm = append(it, m.segItem[i]), append(ex, m.segExtractor[i]), append(th, m.segThumb[i]),
					append(su, m.segSummary[i]), append(tm, m.segTime[i])
			}
		}
		if len(it) > 0 {
			if err := store.InsertSegmentParts(tx, store.SegmentParts{Item: it, Extractor: ex, TimeMS: tm, Thumbnail: th, Summary: su}); err != nil {
				return err
			}
		}
	}
	if len(m.capID) > 0 {
		var id, it, ex, la, so, lg, fo, cu []string
		var co []float64
		for i := range m.capID {
			if keep[m.capItem[i]] {
				id, it, ex, la = append(id, m.capID[i]), append(it, m.capItem[i]), append(ex, m.capExtractor[i]), append(la, m.capLabel[i])
				so, lg, fo, cu = append(so, m.capSource[i]), append(lg, m.capLanguage[i]), append(fo, m.capFormat[i]), append(cu, m.capCues[i])
				co = append(co, m.capConfidence[i])
			}
		}
		if len(id) > 0 {
			if err := store.InsertCaptions(tx, store.ExtractedCaptions{ID: id, Item: it, Extractor: ex, Label: la, Source: so,
				Language: lg, Confidence: co, Format: fo, Cues: cu}, now); err != nil {
				return err
			}
		}
	}
	if len(m.faces.Item) > 0 {
		var keepFaces store.FaceRows
		f := &m.faces
		for i := range f.Item {
			if !keep[f.Item[i]] {
				continue
			}
			k := &keepFaces
			k.Item, k.Extractor, k.PersonID, k.Thumbnail, k.Model = append(k.Item, f.Item[i]), append(k.Extractor, f.Extractor[i]),
				append(k.PersonID, f.PersonID[i]), append(k.Thumbnail, f.Thumbnail[i]), append(k.Model, f.Model[i])
			k.Face, k.TimeMS, k.Descriptor = append(k.Face, f.Face[i]), append(k.TimeMS, f.TimeMS[i]), append(k.Descriptor, f.Descriptor[i])
			k.Left, k.Top, k.Width, k.Height = append(k.Left, f.Left[i]), append(k.Top, f.Top[i]), append(k.Width, f.Width[i]),
				append(k.Height, f.Height[i])
		}
		if err := store.InsertFaceDescriptors(tx, keepFaces, now); err != nil {
			return err
		}
	}
	return nil
}

// itemExtractors are (item, extractor) pairs, column by column.
type itemExtractors struct{ item, extractor []string }

func (p *itemExtractors) add(item, extractor string) {
	p.item = append(p.item, item)
	p.extractor = append(p.extractor, extractor)
}

// delete removes what the extractors harvested again had found before in
// the items of keep: their artifacts, segment parts and extracted captions
// (uploaded captions stay).
func (p *itemExtractors) delete(tx *store.DB, keep map[string]bool) error {
	var it, ex []string
	for i := range p.item {
		if keep[p.item[i]] {
			it, ex = append(it, p.item[i]), append(ex, p.extractor[i])
		}
	}
	if len(it) == 0 {
		return nil
	}
	return store.DeleteExtractorResults(tx, it, ex)
}
