package api

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/internal/wordmatch"
	"github.com/metaharvest/metaharvest/models"
)

// Keyword hits: where the words of each keyword group occur in an item's
// speech, captions, OCR and documents (keywords_sources.go says which
// texts). Words match whole, whatever their case and accents, phrases
// across any spacing (internal/wordmatch).
//
// A group is listed when one of its words occurs; each match is one word
// of the group in one text (a caption track, the frames of a video, a
// document's text): its type (speech, caption, ocr, text), its source (the
// extractor, "uploaded" for an uploaded caption), the word, and a
// timeline. Timed texts give one timeline entry per run of hits of the
// word at most keywordMergeGap seconds apart (start of the first, end of
// the last, how many hits); the frames of a video stand until the next
// frame, so their hits merge over one and a half frame intervals. Texts
// without times (a document, OCR of a picture or of pages) give one entry
// with start_at = end_at = 0 and the number of hits.

// maxTimelineEntries bounds a match's timeline; count still counts every
// hit, and timeline_truncated says entries were left out.
const maxTimelineEntries = 1000

type keywordHitsJSON struct {
	Insights []keywordInsightJSON `json:"insights"`
}

type keywordInsightJSON struct {
	GroupID   string             `json:"group_id"`
	GroupName string             `json:"group_name"`
	Color     string             `json:"color"`
	Words     []string           `json:"words"`
	Matches   []keywordMatchJSON `json:"matches"`
}

type keywordMatchJSON struct {
	Type      string `json:"type"`
	Source    string `json:"source"`
	Word      string `json:"word"`
	CaptionID string `json:"caption_id,omitempty"`
	Language  string `json:"language,omitempty"`
	// Count is every hit of the word in this text.
	Count             int                 `json:"count"`
	Timeline          []timelineEntryJSON `json:"timeline"`
	TimelineTruncated bool                `json:"timeline_truncated"`
}

type timelineEntryJSON struct {
	StartAt float64 `json:"start_at"`
	EndAt   float64 `json:"end_at"`
	Count   int     `json:"count"`
}

func (s *Server) keywordHits(c *gin.Context) error {
	it, err := s.loadVisibleItem(c, c.Param("item_id"))
	if err != nil {
		return err
	}
	insights, err := s.keywordInsights(c.Request.Context(), it, itemMetadata(it))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, keywordHitsJSON{Insights: insights})
	return nil
}

// itemMetadata splits an item's metadata by extractor; metadata that is
// not an object reads as nothing extracted.
func itemMetadata(it models.Item) map[string]json.RawMessage {
	meta := map[string]json.RawMessage{}
	if len(it.Metadata) == 0 || json.Unmarshal(it.Metadata, &meta) != nil || meta == nil {
		return map[string]json.RawMessage{}
	}
	return meta
}

// keywordInsights matches every keyword group against the item's texts.
func (s *Server) keywordInsights(ctx context.Context, it models.Item, meta map[string]json.RawMessage) ([]keywordInsightJSON, error) {
	groups, err := store.KeywordGroups(s.DB.WithContext(ctx), maxKeywordGroups)
	if err != nil {
		return nil, err
	}
	out := []keywordInsightJSON{}
	if len(groups) == 0 {
		return out, nil
	}
	sources, err := s.itemTextSources(ctx, it, meta)
	if err != nil {
		return nil, err
	}
	// Every word of every group is a phrase of one matcher, known by its
	// index; ref says whose it is.
	type ref struct{ group, word int }
	var phrases []string
	var refs []ref
	for gi, g := range groups {
		for wi, w := range g.Words {
			phrases = append(phrases, w)
			refs = append(refs, ref{gi, wi})
		}
	}
	m := wordmatch.New(phrases)
	matches := make([][]keywordMatchJSON, len(groups))
	for _, src := range sources {
		// The match of each phrase in this source, built as the spans go
		// by (in time order: a hit extends the last entry or starts one).
		found := map[int]*keywordMatchJSON{}
		var order []int
		for _, sp := range src.spans {
			m.Scan(sp.text, func(p int) {
				mt := found[p]
				if mt == nil {
					mt = &keywordMatchJSON{Type: src.kind, Source: src.source, Word: phrases[p],
						CaptionID: src.captionID, Language: src.language, Timeline: []timelineEntryJSON{}}
					found[p] = mt
					order = append(order, p)
				}
				mt.Count++
				addHit(mt, sp, src)
			})
		}
		sort.Ints(order) // the groups' order, and each group's words in order
		for _, p := range order {
			r := refs[p]
			matches[r.group] = append(matches[r.group], *found[p])
		}
	}
	for gi, g := range groups {
		if len(matches[gi]) == 0 {
			continue
		}
		sort.SliceStable(matches[gi], func(a, b int) bool {
			return matchTypeOrder[matches[gi][a].Type] < matchTypeOrder[matches[gi][b].Type]
		})
		out = append(out, keywordInsightJSON{GroupID: g.ID, GroupName: g.Name, Color: g.Color,
			Words: keywordGroupOut(g).Words, Matches: matches[gi]})
	}
	return out, nil
}

// addHit adds one hit of a span to a match's timeline.
func addHit(mt *keywordMatchJSON, sp textSpan, src textSource) {
	tl := mt.Timeline
	if !src.timed {
		if len(tl) == 0 {
			mt.Timeline = append(tl, timelineEntryJSON{})
		}
		mt.Timeline[0].Count++
		return
	}
	if n := len(tl); n > 0 && sp.start-tl[n-1].EndAt <= src.gap {
		tl[n-1].EndAt = max(tl[n-1].EndAt, sp.end)
		tl[n-1].Count++
		return
	}
	if len(tl) >= maxTimelineEntries {
		mt.TimelineTruncated = true
		return
	}
	mt.Timeline = append(tl, timelineEntryJSON{StartAt: sp.start, EndAt: sp.end, Count: 1})
}
