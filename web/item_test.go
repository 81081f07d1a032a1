package web

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/models"
)

// The item page of a video carries the markup item.js works with (ids,
// classes, data attributes), and without script every marker and cue is
// a link to the page at its time.
func TestItemPageContract(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	admin := c.signIn(adminEmail, adminPassword)
	id := c.clip
	base := "/items/" + url.PathEscape(id)
	body := c.page(base+"?t=12.5&q=lighthouse", admin, http.StatusOK)
	want := []string{
		`<main id="item" data-item-id="` + id + `" data-start="12.5">`,
		`<video id="player" controls preload="metadata" src="/api/data/items/` + id + `/content"></video>`,
		`<section id="timeline" aria-label="Timeline" data-duration="20">`,
		`<div class="playhead" hidden></div>`,
		`<button type="button" id="prev-hit" hidden>Previous hit</button>`,
		`<button type="button" id="next-hit" hidden>Next hit</button>`,
		`<div class="lane" data-lane="shots"><h3 class="lane-name">Shots</h3><ol class="markers">`,
		`<a class="marker" href="` + base + `?t=4" data-t="4"><img src="/api/data/artifacts/ab/` + id + `/video_main_frames/frames/000004000.jpg" alt="Key frame at 00:00:04"`,
		`<div class="lane" data-lane="captions">`,
		`<a class="marker" href="` + base + `?t=12" data-t="12" data-end="13">`,
		`<div class="lane" data-lane="ocr">`, `HARBOUR SIGN`,
		`<div class="lane" data-lane="qc">`,
		`<a class="marker" href="` + base + `?t=15" data-t="15" data-end="16" data-kind="black">`,
		`<div class="lane" data-lane="objects"><h3 class="lane-name">Objects</h3>`,
		`<a class="marker" href="` + base + `?t=4" data-t="4" data-kind="object">`,
		`<div class="lane" data-lane="hits">`,
		`<a class="marker" href="` + base + `?q=lighthouse&amp;t=12" data-t="12">`,
		`<section id="transcript" aria-label="Transcript">`,
		`<input type="search" id="transcript-filter" aria-label="Filter the transcript"`,
		`<ol class="cues">`,
		`<li><a class="cue" href="` + base + `?t=1" data-t="1" data-end="2"><span class="cue-time">00:00:01</span> <span class="cue-text">The ferry leaves at noon</span></a></li>`,
		`<span class="cue-text">The lighthouse &lt;b&gt;beam&lt;/b&gt;</span>`,
		`<script type="module" src="/assets/js/item.js?v=` + c.ui.assets.version + `"></script>`,
		// Metadata by family, values searching for themselves.
		`<section class="panel" data-family="technical"><h3>Technical</h3>`,
		`<a href="/?f=mediainfo.video.codec%3Ah264">h264</a>`,
		`<details class="raw"><summary>Raw data (JSON)</summary>`,
	}
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("the item page lacks %s", w)
		}
	}
	// An empty value is shown as such, not as a link without a name.
	if !strings.Contains(body, "<dd>(empty)</dd>") || regexp.MustCompile(`<a [^>]*></a>`).MatchString(body) {
		t.Errorf("an empty metadata value is not shown as (empty), or a link has no text")
	}
	if t.Failed() {
		t.Logf("%s", body)
	}
	// Lanes come in their order; the hits lane is only there with words.
	order := regexp.MustCompile(`data-lane="(\w+)"`).FindAllStringSubmatch(body, -1)
	var lanes []string
	for _, m := range order {
		lanes = append(lanes, m[1])
	}
	if strings.Join(lanes, ",") != "shots,ocr,captions,qc,objects,hits" {
		t.Errorf("lanes %v", lanes)
	}
	plain := c.page(base, admin, http.StatusOK)
	if strings.Contains(plain, `data-lane="hits"`) || strings.Contains(plain, "data-start=") {
		t.Errorf("hits lane or start without q/t")
	}
	// Without hits the buttons step between markers, and say so.
	if !strings.Contains(plain, `<button type="button" id="prev-hit" hidden>Previous marker</button> <button type="button" id="next-hit" hidden>Next marker</button>`) {
		t.Errorf("the buttons of a page without hits do not say marker")
	}
	if bad := c.page(base+"?t=abc", admin, http.StatusOK); strings.Contains(bad, "data-start=") || !strings.Contains(bad, "must be a number of seconds") {
		t.Errorf("bad t: %.3000s", bad)
	}
	// Without captions:read the transcript is empty; without segments:read no hits.
	items := c.signInAs("items@example.com", "items:read")
	limited := c.page(base+"?q=lighthouse", items, http.StatusOK)
	if strings.Contains(limited, "ferry") || strings.Contains(limited, `data-lane="hits"`) {
		t.Errorf("a user without captions:read or segments:read sees captions or hits")
	}

	// A document: its page count and text; a text file: its text.
	doc := c.page("/items/"+url.PathEscape(c.pdf), admin, http.StatusOK)
	if !strings.Contains(doc, "<dt>Pages</dt><dd>2</dd>") || !strings.Contains(doc, `<pre class="doctext" tabindex="0">The budget for the lighthouse keeper`) ||
		strings.Contains(doc, `id="timeline"`) ||
		!strings.Contains(doc, `<a class="picture" href="/api/data/items/`+c.pdf+`/content"><img src="/api/data/artifacts/cd/`+c.pdf+`/document_pages/thumbnail.jpg" alt="Preview of budget.pdf" width="64" height="90"></a>`) {
		t.Errorf("document page: %.4000s", doc)
	}
}

// A caption file has no player: its page shows its cues as its text, one a
// line after its start time, as text (markup in a cue is not markup), to
// users who may read captions.
func TestCaptionFilePageShowsItsCues(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	srt := c.item("pub", models.ContainerID("pub", "media"), "subs/ferry.srt", "application/x-subrip",
		map[string]any{"caption_files": map[string]any{"cues": 2, "format": "srt", "encoding": "windows-1254"}})
	c.must(c.db.Create(&models.Caption{ID: "cap-srt", ItemID: srt, Extractor: "caption_files", Source: "file", Format: "srt",
		Cues: models.MustJSON([]map[string]any{{"start_at": 63.5, "end_at": 65.0, "text": "Başka seçeneğim <i>yoktu</i>."},
			{"start_at": 3.0, "end_at": 4.0, "text": "Benim adım Deniz."}})}).Error)
	base := "/items/" + url.PathEscape(srt)
	body := c.page(base, c.signIn(adminEmail, adminPassword), http.StatusOK)
	want := "<h3>Captions</h3><pre class=\"doctext\" tabindex=\"0\">00:00:03  Benim adım Deniz.\n00:01:03  Başka seçeneğim &lt;i&gt;yoktu&lt;/i&gt;.\n</pre>"
	if !strings.Contains(body, want) || strings.Contains(body, `id="timeline"`) {
		t.Errorf("the caption file's page lacks its cues %q: %.4000s", want, body)
	}
	items := c.signInAs("items@example.com", "items:read")
	if limited := c.page(base, items, http.StatusOK); strings.Contains(limited, "Deniz") || strings.Contains(limited, `class="doctext"`) {
		t.Errorf("a user without captions:read sees a caption file's cues")
	}
}

// A recording's page shows its picture (cover art or waveform, the large
// thumbnail) under its player, named for what it is.
func TestRecordingPageShowsItsPicture(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	admin := c.signIn(adminEmail, adminPassword)
	for _, tc := range []struct{ name, picture, alt, class string }{
		{"talk.wav", "waveform", "Waveform of talk.wav", "picture waveform"}, // waveform.js makes it seek
		{"song.mp3", "cover_art", "Cover art of song.mp3", "picture"},
	} {
		id := c.item("pub", models.ContainerID("pub", "media"), "sound/"+tc.name, "audio/mpeg",
			map[string]any{"audioinfo": map[string]any{"duration": 20.0}, "thumbnailer": map[string]any{"picture": tc.picture}})
		for _, a := range []models.Artifact{
			{ItemID: id, Path: "ef/" + id + "/thumbnailer/thumb_320.jpg", Extractor: "thumbnailer", Kind: "thumbnail", Width: 320, Height: 120},
			{ItemID: id, Path: "ef/" + id + "/thumbnailer/thumb_1280.jpg", Extractor: "thumbnailer", Kind: "thumbnail_large", Width: 1280, Height: 480},
		} {
			c.must(c.db.Create(&a).Error)
		}
		body := c.page("/items/"+url.PathEscape(id), admin, http.StatusOK)
		large := "/api/data/artifacts/ef/" + id + "/thumbnailer/thumb_1280.jpg"
		want := `<audio id="player" controls preload="metadata" src="/api/data/items/` + id + `/content"></audio>` + "\n" +
			`<a class="` + tc.class + `" href="` + large + `"><img src="` + large + `" alt="` + tc.alt + `" width="1280" height="480"></a>`
		if !strings.Contains(body, want) {
			t.Errorf("%s: the page lacks %s: %.3000s", tc.name, want, body)
		}
	}
}
