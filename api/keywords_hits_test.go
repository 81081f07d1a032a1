package api

import (
	"fmt"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

type keywordHitsBody struct {
	Insights []struct {
		GroupID   string   `json:"group_id"`
		GroupName string   `json:"group_name"`
		Color     string   `json:"color"`
		Words     []string `json:"words"`
		Matches   []struct {
			Type      string `json:"type"`
			Source    string `json:"source"`
			Word      string `json:"word"`
			CaptionID string `json:"caption_id"`
			Language  string `json:"language"`
			Count     int    `json:"count"`
			Timeline  []struct {
				StartAt float64 `json:"start_at"`
				EndAt   float64 `json:"end_at"`
				Count   int     `json:"count"`
			} `json:"timeline"`
			TimelineTruncated bool `json:"timeline_truncated"`
		} `json:"matches"`
	} `json:"insights"`
}

// String writes the hits one match a line: group, type, source, caption,
// language, word, count, timeline entries start-end*count.
func (b keywordHitsBody) String() string {
	var s strings.Builder
	for _, g := range b.Insights {
		for _, m := range g.Matches {
			fmt.Fprintf(&s, "%s %s %s %s %s %q %d", g.GroupName, m.Type, m.Source, m.CaptionID, m.Language, m.Word, m.Count)
			for _, e := range m.Timeline {
				fmt.Fprintf(&s, " %g-%g*%d", e.StartAt, e.EndAt, e.Count)
			}
			if m.TimelineTruncated {
				s.WriteString(" truncated")
			}
			s.WriteByte('\n')
		}
	}
	return s.String()
}

func (e *env) keywordHits(token, itemID string) keywordHitsBody {
	e.t.Helper()
	var b keywordHitsBody
	e.do("GET", "/api/data/keywords/hits/"+itemID, token, nil).status(200).decode(&b)
	return b
}

// hitsFixture is a captioned, spoken video with text in its frames, and a
// PDF with OCR'd pages, in a location of their own.
type hitsFixture struct {
	locID, clip, report string
}

func newHitsFixture(e *env) hitsFixture {
	e.t.Helper()
	e.srv.Extractors = textRegistry(e.t)
	f := hitsFixture{locID: e.createFSLocation(e.adminToken, "L", mkdirs(e.t, e.t.TempDir(), "show"))["id"].(string)}
	f.clip = e.insertItem(f.locID, "show", "clip.mp4")
	f.report = e.insertItem(f.locID, "show", "report.pdf")

	e.insertCaption("cap-emb", f.clip, "captionsv2", "embedded", "eng", 1, []extractors.Cue{
		{Start: 0.5, End: 1.5, Text: "Rain is coming to NEW YORK"},
		{Start: 2, End: 3, Text: "rain, rain"},
		{Start: 10, End: 11, Text: "The rainbow over New Yorkshire"}, // no whole word
		{Start: 20, End: 21, Text: "Café au lait"},
	})
	e.insertCaption("cap-speech", f.clip, "speech_to_text", "speech", "en", 2, []extractors.Cue{
		{Start: 30, End: 31, Text: "new\nyork"},
		{Start: 4, End: 5, Text: "it will rain"}, // out of order: timelines still run in time order
	})
	e.insertCaption("cap-up", f.clip, "", "uploaded", "fr", 3, []extractors.Cue{{Start: 1, End: 2, Text: "CAFE crème"}})
	// Frames read every 2 s: hits 2 s apart are one stretch.
	e.insertSegmentPart(f.clip, "tesseract", 2000, map[string]any{"ocr": []map[string]any{{"text": "RAIN WARNING", "source": "tesseract"}}})
	e.insertSegmentPart(f.clip, "tesseract", 4000, map[string]any{"ocr": []map[string]any{{"text": "rain", "source": "tesseract"}}})
	e.insertSegmentPart(f.clip, "tesseract", 20000, map[string]any{"ocr": []map[string]any{{"text": "Rain", "source": "tesseract"}}})
	e.insertSegmentPart(f.clip, "vendor_faces", 4000, map[string]any{"people": []map[string]any{{"id": "p1"}}})
	e.setMetadata(f.clip, map[string]any{
		// The frames' text again, as tesseract keeps it: not read twice.
		"tesseract":      map[string]any{"source": "video_frames", "text": "RAIN WARNING\n\nrain\n\nRain", "frame_interval": 2},
		"credits":        map[string]any{"text": "rain rain rain"},
		"speech_to_text": map[string]any{"text": "new york\nit will rain"},
		"mediainfo":      map[string]any{"title": "Rain in New York"},
	})
	e.setMetadata(f.report, map[string]any{
		"pdf":       map[string]any{"text": "Rain over New-York.\fUn café, s'il vous plaît."},
		"tesseract": map[string]any{"source": "document_pages", "text": "rain\frain"},
	})
	return f
}

func TestKeywordHits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := newHitsFixture(e)

	// No group: no insight (a list, not null).
	if b := e.keywordHits(e.adminToken, f.clip); b.Insights == nil || len(b.Insights) != 0 {
		t.Fatalf("no groups: %+v", b)
	}
	weather := e.createKeywordGroup("Weather", "#00FF00", "rain", "New York")
	e.createKeywordGroup("Drinks", "#aa0000", "café")
	e.createKeywordGroup("Snow", "#ffffff", "snow") // no hit: not listed

	got := e.keywordHits(e.adminToken, f.clip)
	want := `Drinks caption captionsv2 cap-emb eng "café" 1 20-21*1
Drinks caption uploaded cap-up fr "café" 1 1-2*1
Weather speech speech_to_text cap-speech en "rain" 1 4-5*1
Weather speech speech_to_text cap-speech en "New York" 1 30-31*1
Weather caption captionsv2 cap-emb eng "rain" 3 0.5-3*3
Weather caption captionsv2 cap-emb eng "New York" 1 0.5-1.5*1
Weather ocr tesseract   "rain" 3 2-4*2 20-20*1
`
	if got.String() != want {
		t.Fatalf("clip hits:\n%s\nwant:\n%s", got, want)
	}
	w := got.Insights[1]
	if w.GroupID != weather.ID || w.Color != "#00ff00" || strings.Join(w.Words, "|") != "rain|New York" {
		t.Fatalf("group %+v", w)
	}

	// A document: its text and its pages' OCR have no time.
	want = `Drinks text pdf   "café" 1 0-0*1
Weather ocr tesseract   "rain" 2 0-0*2
Weather text pdf   "rain" 1 0-0*1
Weather text pdf   "New York" 1 0-0*1
`
	if got := e.keywordHits(e.adminToken, f.report); got.String() != want {
		t.Fatalf("report hits:\n%s\nwant:\n%s", got, want)
	}

	// Item rules: unknown 404, another group's item 403, no scope 403.
	e.do("GET", "/api/data/keywords/hits/nope", e.adminToken, nil).status(404)
	e.do("GET", "/api/data/keywords/hits/"+strings.Repeat("x", 300), e.adminToken, nil).status(404)
	outsider := e.hiddenItemUser(f.locID, "outsider@example.com", "keywords:read")
	e.do("GET", "/api/data/keywords/hits/"+f.clip, outsider, nil).status(403)
	_, noScope := e.userWithScopes("items-only@example.com", "items:read")
	e.do("GET", "/api/data/keywords/hits/"+f.clip, noScope, nil).status(403)

	// A deleted item answers 404.
	e.do("DELETE", "/api/data/items/"+f.report, e.adminToken, nil).status(200)
	e.do("GET", "/api/data/keywords/hits/"+f.report, e.adminToken, nil).status(404)
}

// A word in every cue, each 10 s apart: 1001 timeline entries are cut to
// 1000, and count still counts them all.
func TestKeywordHitsTimelineBound(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "show"))["id"].(string)
	item := e.insertItem(locID, "show", "long.mp4")
	cues := make([]extractors.Cue, maxTimelineEntries+1)
	for i := range cues {
		cues[i] = extractors.Cue{Start: float64(i * 10), End: float64(i*10 + 1), Text: "rain"}
	}
	e.insertCaption("cap-long", item, "captions", "embedded", "", 1, cues)
	e.createKeywordGroup("Weather", "#00ff00", "rain")
	b := e.keywordHits(e.adminToken, item)
	m := b.Insights[0].Matches[0]
	if m.Count != maxTimelineEntries+1 || len(m.Timeline) != maxTimelineEntries || !m.TimelineTruncated ||
		m.Timeline[999].StartAt != 9990 {
		t.Fatalf("count %d, %d entries, truncated %v", m.Count, len(m.Timeline), m.TimelineTruncated)
	}
}
