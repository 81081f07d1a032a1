package api

import (
	"fmt"
	"strings"
	"testing"
)

type adultBody struct {
	Category     string `json:"category"`
	Interval     int    `json:"interval"`
	AdultSummary []struct {
		StartAt int64   `json:"start_at"`
		Avg     float64 `json:"avg"`
		Max     float64 `json:"max"`
	} `json:"adult_summary"`
}

func (b adultBody) String() string {
	var s strings.Builder
	for _, x := range b.AdultSummary {
		fmt.Fprintf(&s, "%d:%.4g/%.4g ", x.StartAt, x.Avg, x.Max)
	}
	return strings.TrimSpace(s.String())
}

func (e *env) adult(token, path string) adultBody {
	e.t.Helper()
	var b adultBody
	e.do("GET", path, token, nil).status(200).decode(&b)
	return b
}

func TestAdultSummary(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "show"))["id"].(string)
	clip := e.insertItem(locID, "show", "clip.mp4")
	nsfw := func(score float64, categories map[string]float64) map[string]any {
		n := map[string]any{"source": "nsfwjs", "nsfw": score > 0.5, "nsfw_score": score}
		if categories != nil {
			n["categories"] = categories
		}
		return map[string]any{"nsfw": n}
	}
	// Scores at 0.5 s, 9.999 s, 10 s, 12 s (two classifiers), 35 s; a
	// frame without a score, and scores that are not scores.
	e.insertSegmentPart(clip, "nsfwjs", 500, nsfw(0.1, map[string]float64{"porn": 0.05, "neutral": 0.9}))
	e.insertSegmentPart(clip, "nsfwjs", 9999, nsfw(0.3, map[string]float64{"porn": 0.25, "neutral": 0.7}))
	e.insertSegmentPart(clip, "nsfwjs", 10000, nsfw(0.9, map[string]float64{"porn": 0.85}))
	e.insertSegmentPart(clip, "nsfwjs", 12000, nsfw(0.5, nil))
	e.insertSegmentPart(clip, "vendor_nsfw", 12000, nsfw(0.7, nil))
	e.insertSegmentPart(clip, "nsfwjs", 35000, nsfw(0.2, map[string]float64{"porn": 0.1}))
	e.insertSegmentPart(clip, "vendor_faces", 20000, map[string]any{"people": []any{}})
	e.insertSegmentPart(clip, "odd", 21000, map[string]any{"nsfw": map[string]any{"nsfw_score": "high", "categories": map[string]any{"porn": "x"}}})
	e.insertSegmentPart(clip, "odd", 22000, map[string]any{"nsfw": map[string]any{"nsfw_score": 7, "categories": map[string]any{"porn": -1}}})

	base := "/api/data/items/" + clip + "/adult"
	for path, want := range map[string]string{
		base:                       "0:0.2/0.3 10:0.7/0.9 30:0.2/0.2",
		base + "?interval=":        "0:0.2/0.3 10:0.7/0.9 30:0.2/0.2",
		base + "?interval=10":      "0:0.2/0.3 10:0.7/0.9 30:0.2/0.2",
		base + "?interval=5":       "0:0.1/0.1 5:0.3/0.3 10:0.7/0.9 35:0.2/0.2",
		base + "?interval=3600":    "0:0.45/0.9",
		base + "?interval=1":       "0:0.1/0.1 9:0.3/0.3 10:0.9/0.9 12:0.6/0.7 35:0.2/0.2",
		base + "/porn":             "0:0.15/0.25 10:0.85/0.85 30:0.1/0.1",
		base + "/PORN?interval=20": "0:0.3833/0.85 20:0.1/0.1",
		base + "/neutral":          "0:0.8/0.9",
		base + "/hentai":           "",
	} {
		b := e.adult(e.adminToken, path)
		if b.String() != want {
			t.Errorf("%s: %s, want %s", path, b, want)
		}
		if b.AdultSummary == nil {
			t.Errorf("%s: adult_summary is not a list", path)
		}
	}
	if b := e.adult(e.adminToken, base+"/Porn?interval=15"); b.Category != "porn" || b.Interval != 15 {
		t.Errorf("category response %+v", b)
	}
	if b := e.adult(e.adminToken, base); b.Interval != 10 {
		t.Errorf("default interval %d", b.Interval)
	}

	// No scores: an empty histogram, not an invented one.
	plain := e.insertItem(locID, "show", "plain.mp4")
	if b := e.adult(e.adminToken, "/api/data/items/"+plain+"/adult"); len(b.AdultSummary) != 0 {
		t.Errorf("no scores: %s", b)
	}

	// Bad intervals and categories.
	for _, q := range []string{"0", "-5", "3601", "abc", "1.5", "99999999999999999999"} {
		if r := e.do("GET", base+"?interval="+q, e.adminToken, nil); r.Code != 400 || r.field("interval") == "" {
			t.Errorf("interval=%s: %d %s", q, r.Code, r.Body)
		}
		e.do("GET", base+"/porn?interval="+q, e.adminToken, nil).status(400)
	}
	if r := e.do("GET", base+"/violence", e.adminToken, nil); r.Code != 400 || r.field("category") == "" {
		t.Errorf("unknown category: %d %s", r.Code, r.Body)
	}
	e.do("GET", base+"/"+strings.Repeat("p", 5000), e.adminToken, nil).status(400)

	// Item rules.
	e.do("GET", "/api/data/items/nope/adult", e.adminToken, nil).status(404)
	e.do("GET", "/api/data/items/nope/adult/porn", e.adminToken, nil).status(404)
	outsider := e.hiddenItemUser(locID, "outsider@example.com", "adult:read")
	e.do("GET", base, outsider, nil).status(403)
	e.do("GET", base+"/porn", outsider, nil).status(403)
	_, noScope := e.userWithScopes("items@example.com", "items:read")
	e.do("GET", base, noScope, nil).status(403)
}
