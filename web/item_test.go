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
	if strings.Join(lanes, ",") != "shots,ocr,captions,qc,hits" {
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

// An archive's page lists its entries (names as text, nested archives'
// entries under their archive) and the text of the documents inside.
func TestArchivePageListsItsContents(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	entries := []any{
		map[string]any{"name": "notes/", "type": "dir", "size": 0.0},
		map[string]any{"name": "notes/<b>turkce</b>.txt", "type": "file", "size": 2048.0, "modified": "2024-05-01T10:30:00Z"},
		map[string]any{"name": "inner.txt", "type": "file", "size": 10.0, "archive": "old.zip"},
	}
	id := c.item("pub", models.ContainerID("pub", "media"), "bundles/notes.zip", "application/zip", map[string]any{
		"archive": map[string]any{"entries": entries, "entry_count": 5.0, "listed": 3.0, "text": "Savaşçısı yağmurda ağladı"}})
	body := c.page("/items/"+url.PathEscape(id), c.signIn(adminEmail, adminPassword), http.StatusOK)
	for _, want := range []string{
		`<h3 id="contents-title">Contents</h3>`,
		`<tr><td>notes/ <span class="note">(dir)</span></td><td></td><td></td></tr>`,
		`<tr><td>notes/&lt;b&gt;turkce&lt;/b&gt;.txt</td><td>2.0 kB</td><td>2024-05-01 10:30</td></tr>`,
		`<tr><td>old.zip › inner.txt</td><td>10 B</td><td></td></tr>`,
		`<p class="note">2 more entries not shown.</p>`,
		`<h3>Text of the documents inside</h3><pre class="doctext" tabindex="0">Savaşçısı yağmurda ağladı</pre>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the archive's page lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("%.6000s", body)
	}
}

// An email's page shows its headers and attachments as text; a mailbox's
// shows each message's.
func TestEmailPageShowsItsHeaders(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	admin := c.signIn(adminEmail, adminPassword)
	eml := c.item("pub", models.ContainerID("pub", "media"), "mail/clock.eml", "message/rfc822", map[string]any{"email": map[string]any{
		"format": "eml", "message_count": 1.0, "from": "Father Time <father.time@example.org>", "to": []any{"timbo@example.org", "<b>x</b>@example.org"},
		"subject": "IMAP file test", "date": "2002-05-12T08:56:15+01:00", "text": "Simple email with attachment.",
		"attachments": []any{map[string]any{"name": "clock.bmp", "size": 630.0, "type": "image/bmp"}}}})
	body := c.page("/items/"+url.PathEscape(eml), admin, http.StatusOK)
	want := `<h3 id="messages-title">Message</h3>` + "\n" + `<dl class="kv message"><div><dt>Subject</dt><dd>IMAP file test</dd></div>` +
		`<div><dt>From</dt><dd>Father Time &lt;father.time@example.org&gt;</dd></div><div><dt>To</dt><dd>timbo@example.org, &lt;b&gt;x&lt;/b&gt;@example.org</dd></div>` +
		`<div><dt>Date</dt><dd>2002-05-12 07:56 UTC</dd></div><div><dt>Attachments</dt><dd>clock.bmp (630 B)</dd></div></dl>`
	if !strings.Contains(body, want) || !strings.Contains(body, "<h3>Message text</h3>") {
		t.Errorf("the email's page lacks %s: %.5000s", want, body)
	}
	mbox := c.item("pub", models.ContainerID("pub", "media"), "mail/box.mbox", "application/mbox", map[string]any{"email": map[string]any{
		"format": "mbox", "message_count": 3.0, "messages": []any{map[string]any{"subject": "First"}, map[string]any{"subject": "Second", "from": "a@example.org"}}}})
	body = c.page("/items/"+url.PathEscape(mbox), admin, http.StatusOK)
	for _, w := range []string{`<h3 id="messages-title">Messages</h3>`, `<dd>First</dd>`, `<dd>Second</dd></div><div><dt>From</dt><dd>a@example.org</dd>`, `1 more message not shown.`} {
		if !strings.Contains(body, w) {
			t.Errorf("the mailbox's page lacks %s", w)
		}
	}
}

// A photo's page shows it at the larger thumbnail's size and says what a
// person asks of it first: its size as seen, when and with what it was
// taken, and where.
func TestPhotoPageFacts(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	admin := c.signIn(adminEmail, adminPassword)
	photo := c.item("pub", models.ContainerID("pub", "media"), "photos/harbour.jpg", "image/jpeg", map[string]any{
		"exiv2": map[string]any{"width": 4000.0, "height": 3000.0, "orientation": 6.0, "created_local": "2014-04-26T19:09:19",
			"camera": map[string]any{"make": "Canon", "model": "Canon EOS 5D <Mark II>"}},
		"geocoding": map[string]any{"city": "Stockholm", "region": "Stockholm", "country": map[string]any{"name": "Sweden", "code": "SE"}}})
	for _, a := range []models.Artifact{
		{ItemID: photo, Path: "aa/" + photo + "/thumbnailer/thumb_320.jpg", Extractor: "thumbnailer", Kind: "thumbnail", Width: 240, Height: 320},
		{ItemID: photo, Path: "aa/" + photo + "/thumbnailer/thumb_1280.jpg", Extractor: "thumbnailer", Kind: "thumbnail_large", Width: 960, Height: 1280},
	} {
		c.must(c.db.Create(&a).Error)
	}
	body := c.page("/items/"+url.PathEscape(photo), admin, http.StatusOK)
	for _, want := range []string{`<p class="where">JPEG image · `, `<img src="/api/data/artifacts/aa/` + photo + `/thumbnailer/thumb_1280.jpg" alt="Preview of harbour.jpg" width="960" height="1280">`,
		"<div><dt>Dimensions</dt><dd>3000 × 4000</dd></div>", "<div><dt>Taken</dt><dd>2014-04-26 19:09</dd></div>",
		"<div><dt>Camera</dt><dd>Canon EOS 5D &lt;Mark II&gt;</dd></div>", "<div><dt>Place</dt><dd>Stockholm, Sweden</dd></div>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the photo's page lacks %s", want)
		}
	}
	clip := c.item("pub", models.ContainerID("pub", "media"), "trips/ferry.mov", "video/quicktime", map[string]any{
		"mediainfo": map[string]any{"duration": 5.0, "creation_time": "2023-07-01T08:30:00Z", "video": map[string]any{"width": 1920.0, "height": 1080.0}}})
	c.must(c.db.Create(&models.Artifact{ItemID: clip, Path: "bb/" + clip + "/thumbnailer/thumb_1280.jpg", Extractor: "thumbnailer",
		Kind: "thumbnail_large", Width: 1280, Height: 720}).Error)
	body = c.page("/items/"+url.PathEscape(clip), admin, http.StatusOK)
	// The video's representative frame stands in the player until it plays.
	for _, want := range []string{`<video id="player" controls preload="metadata" poster="/api/data/artifacts/bb/` + clip + `/thumbnailer/thumb_1280.jpg" src="/api/data/items/` + clip + `/content"></video>`,
		"<div><dt>Dimensions</dt><dd>1920 × 1080</dd></div>", "<div><dt>Recorded</dt><dd>2023-07-01 08:30 UTC</dd></div>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the video's page lacks %s", want)
		}
	}
	if strings.Contains(body, "<dt>Camera</dt>") || strings.Contains(body, "<dt>Place</dt>") {
		t.Errorf("the video's page names a camera or place it has none of")
	}
}
