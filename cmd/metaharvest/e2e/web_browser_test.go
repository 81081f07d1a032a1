package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/internal/testproc"
	"github.com/metaharvest/metaharvest/internal/testredis"
)

// Words that occur in one sample file each, and nowhere else.
const (
	captionWord = "quokkalantern" // a caption cue of the video
	textWord    = "xylobramble"   // the text file
	pdfWord     = "shipowners"    // multicell.pdf
	secretWord  = "hushcabinet"   // the file of the location the second user may not see
	hostileName = "<img src=x onerror=alert(1)>.mp4"
)

// captionCues are the SubRip cues muxed into the sample video.
const captionCues = `1
00:00:00,500 --> 00:00:01,800
Welcome to the sample reel

2
00:00:02,500 --> 00:00:03,500
The ` + captionWord + ` glows at dusk

3
00:00:04,200 --> 00:00:05,500
End of the sample reel
`

// makeCaptionedVideo writes a six-second MP4 (H.264 test pattern, a sine
// tone, and the cues above as a mov_text subtitle track) to path.
func makeCaptionedVideo(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	srt := filepath.Join(t.TempDir(), "cues.srt")
	if err := os.WriteFile(srt, []byte(captionCues), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
		"-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=6",
		"-f", "lavfi", "-i", "sine=frequency=440:duration=6",
		"-i", srt,
		"-map", "0:v", "-map", "1:a", "-map", "2:s",
		"-c:v", "libx264", "-pix_fmt", "yuv420p", "-preset", "veryfast", "-g", "25",
		"-c:a", "aac", "-c:s", "mov_text", "-metadata:s:s:0", "language=eng",
		"-movflags", "+faststart", "-shortest", path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// webSamples is what the browser test harvests: a folder of real files in
// location "Archive", and one file in location "Vault" that the second
// user's group does not see.
type webSamples struct {
	archive, vault         string // location ids
	video, photo, pdf, txt string // item ids
	recording, zip, email  string
	hostile, secret        string
}

// archiveFiles is how many files the web samples' Archive location holds.
const archiveFiles = 8

// harvestWebSamples creates both locations, harvests them with the
// extractors the pages show, and waits until search has every file.
func harvestWebSamples(t *testing.T, p *platform, c *client, archiveGroup, vaultGroup string) webSamples {
	t.Helper()
	root, vault := t.TempDir(), t.TempDir()
	media := filepath.Join(root, "media")
	makeCaptionedVideo(t, filepath.Join(media, "reel.mp4"))
	copyFile(t, filepath.Join(media, "reel.mp4"), filepath.Join(media, hostileName))
	copyFile(t, filepath.Join("..", "..", "..", "extractors", "testdata", "exif.jpg"), filepath.Join(media, "exif.jpg"))
	copyFile(t, filepath.Join("..", "..", "..", "extractors", "pdf", "testdata", "multicell.pdf"), filepath.Join(media, "leagues.pdf"))
	copyFile(t, filepath.Join("..", "..", "..", "extractors", "testdata", "pluck-pcm16.wav"), filepath.Join(media, "pluck.wav"))
	copyFile(t, filepath.Join("..", "..", "..", "extractors", "archive", "testdata", "docs.zip"), filepath.Join(media, "docs.zip"))
	copyFile(t, filepath.Join("..", "..", "..", "extractors", "documents", "testdata", "attachment.eml"), filepath.Join(media, "clock.eml"))
	if err := os.WriteFile(filepath.Join(media, "notes.txt"), []byte("Field notes: the "+textWord+" was seen near the pier.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(vault, "private"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vault, "private", "secret.txt"), []byte("The "+secretWord+" holds the plans.\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	extractors := []string{"store", "mime_type", "hashes", "mediainfo", "exiv2", "thumbnailer", "video_main_frames",
		"video_previews", "captionsv2", "pdf", "document_pages", "text", "archive", "email", "audiopeak", "geocoding"}
	harvest := func(name, dir, group string, files int) string {
		loc := c.call("POST", "/api/data/v3/locations", map[string]any{"kind": "filesystem", "name": name,
			"config": map[string]any{"path": dir, "groups": []string{group}}}, 201)["id"].(string)
		ctrs := c.call("GET", "/api/data/locations/"+loc+"/containers", nil, 200)["containers"].([]any)
		if len(ctrs) != 1 {
			t.Fatalf("%s containers: %v", name, ctrs)
		}
		ctr := ctrs[0].(map[string]any)["id"].(string)
		c.call("POST", "/api/control/harvest", map[string]any{"location_id": loc, "container_id": ctr, "priority": 1,
			"extractors": extractors, "override_extractors": true}, 202)
		deadline := time.Now().Add(3 * time.Minute)
		for {
			r := c.call("POST", "/api/data/search", map[string]any{"filters": map[string]any{
				"terms": []map[string]any{{"field": "location_id", "value": loc}}}}, 200)
			if int(r["total_hits"].(float64)) == files {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: search finds %v of %d harvested files", name, r["total_hits"], files)
			}
			time.Sleep(200 * time.Millisecond)
		}
		return loc
	}
	s := webSamples{archive: harvest("Archive", root, archiveGroup, archiveFiles), vault: harvest("Vault", vault, vaultGroup, 1)}
	byName := map[string]string{}
	var rows []struct{ ID, Name string }
	if err := p.db.Raw(`SELECT id, name FROM items`).Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		byName[r.Name] = r.ID
	}
	s.video, s.photo, s.pdf, s.txt = byName["reel.mp4"], byName["exif.jpg"], byName["leagues.pdf"], byName["notes.txt"]
	s.hostile, s.secret, s.recording = byName[hostileName], byName["secret.txt"], byName["pluck.wav"]
	s.zip, s.email = byName["docs.zip"], byName["clock.eml"]
	for n, id := range map[string]string{"video": s.video, "photo": s.photo, "pdf": s.pdf, "txt": s.txt, "hostile": s.hostile, "secret": s.secret,
		"recording": s.recording, "zip": s.zip, "email": s.email} {
		if id == "" {
			t.Fatalf("no item for the %s sample: %v", n, byName)
		}
	}
	// The video's captions were extracted: its transcript has cues.
	var cues int64
	p.db.Raw(`SELECT count(*) FROM captions WHERE item_id = ?`, s.video).Scan(&cues)
	if cues == 0 {
		var results string
		p.db.Raw(`SELECT results::text FROM items WHERE id = ?`, s.video).Scan(&results)
		t.Fatalf("no caption extracted from the sample video; its extractor runs: %s", results)
	}
	return s
}

// browserTools are what the browser tests need besides a platform: the
// Chromium to drive (the test fails at once without it), axe-core's source,
// and where screenshots go: web/screenshots with WEB_SCREENSHOTS=1, else
// nowhere (a full-page PNG of every page checked costs CPU, and a
// temporary directory would be removed with the test anyway).
func browserTools(t *testing.T) (chromium, axe, shots string) {
	t.Helper()
	chromium = chromiumPath(t)
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "web", "testdata", "axe", "axe.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("WEB_SCREENSHOTS") == "1" {
		shots = filepath.Join("..", "..", "..", "web", "screenshots")
		if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return chromium, string(src), shots
}

// webPlatform starts an api and a worker and harvests the web samples into
// an archive (readable by the returned group) and a vault (by another).
func webPlatform(t *testing.T) (*platform, *client, webSamples, string) {
	t.Helper()
	// Its own Redis database: the jobs section opens the queue dashboard,
	// which lists every queue there is.
	p := newPlatformOn(t, testdb.URL(t), testredis.OwnDatabase(t))
	c, _ := p.startAPI()
	testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
	archiveGroup := c.call("POST", "/api/data/v3/groups", map[string]any{"name": "Archive readers"}, 201)["id"].(string)
	vaultGroup := c.call("POST", "/api/data/v3/groups", map[string]any{"name": "Vault readers"}, 201)["id"].(string)
	return p, c, harvestWebSamples(t, p, c, archiveGroup, vaultGroup), archiveGroup
}

// browser is one headless Chromium tab, recording what a person would not
// see but a test must: uncaught exceptions, console errors, and dialogs
// (which it dismisses).
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string

	mu       sync.Mutex
	problems []string
	dialogs  []string
}

// chromiumOptions starts Debian's Chromium headless, without the
// background connections this machine's closed network refuses, in a
// profile of the test's own (browserProfile).
func chromiumOptions(t *testing.T, chromium string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(browserProfile(t)), chromedp.WindowSize(1280, 900),
	}
}

// browserProfile is a Chromium profile directory of the test's own,
// removed after the test once the browser has let go of it. Chromium's
// helper processes outlive by a moment the browser process that chromedp
// stops and waits for, and write into the profile meanwhile: t.TempDir's
// removal, which tries once, failed TestQueueDashboardInBrowser by chance
// ("directory not empty"). Call it before the allocator's cancel is
// registered, so that its clean-up runs after the browser is stopped.
func browserProfile(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "metaharvest-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		for {
			err := os.RemoveAll(dir)
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("remove the browser profile: %v", err)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	return dir
}

// newBrowser starts a Chromium of its own (its own profile: one person's
// cookies).
func newBrowser(t *testing.T, chromium, base string) *browser {
	t.Helper()
	opts := append(chromiumOptions(t, chromium),
		// A test cannot click "play" with a person's gesture.
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"),
		chromedp.Flag("mute-audio", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx, chromedpErrors())
	t.Cleanup(cancel)
	b := &browser{t: t, ctx: ctx, base: base}
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			b.note(&b.problems, "uncaught exception: "+e.ExceptionDetails.Text+" "+exceptionText(e.ExceptionDetails))
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				b.note(&b.problems, "console error: "+strings.Join(parts, " "))
			}
		case *page.EventJavascriptDialogOpening:
			b.note(&b.dialogs, string(e.Type)+": "+e.Message)
			go chromedp.Run(ctx, page.HandleJavaScriptDialog(false))
		}
	})
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("start the browser: %v", err)
	}
	return b
}

// chromedpErrors drops chromedp's complaints about DevTools events it has
// no handler for (Chromium newer than chromedp: "unhandled node event
// *dom.EventTopLayerElementsUpdated"), which say nothing about the page
// and, printed by the test binary, read as if another test's process had
// said them. chromedp's other errors go to the log as before.
func chromedpErrors() chromedp.ContextOption {
	return chromedp.WithErrorf(func(format string, args ...any) {
		if msg := fmt.Sprintf(format, args...); !strings.HasPrefix(msg, "unhandled node event") {
			log.Print("ERROR: " + msg) // as chromedp prints them
		}
	})
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil {
		return d.Exception.Description
	}
	return ""
}

func (b *browser) note(list *[]string, s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	*list = append(*list, s)
}

// clean fails the test if a page threw, logged an error or opened a dialog.
func (b *browser) clean(where string) {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.problems) > 0 || len(b.dialogs) > 0 {
		b.t.Errorf("%s: script errors %q, dialogs %q", where, b.problems, b.dialogs)
		b.problems, b.dialogs = nil, nil
	}
}

func (b *browser) run(what string, actions ...chromedp.Action) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// open navigates to path and waits until the page's scripts have run.
func (b *browser) open(path string) {
	b.t.Helper()
	b.run("open "+path, chromedp.Navigate(b.base+path), chromedp.WaitReady("body", chromedp.ByQuery))
}

func (b *browser) eval(expr string, out any) {
	b.t.Helper()
	b.run("evaluate "+expr, chromedp.Evaluate(expr, out))
}

func (b *browser) text() string {
	var s string
	b.eval(`document.body ? document.body.innerText : ""`, &s)
	return s
}

func (b *browser) location() string {
	var s string
	b.run("location", chromedp.Location(&s))
	return s
}

// waitFor polls a boolean expression until it holds on a page parsed
// whole: a page still arriving may already show what expr looks for (its
// title) and not yet what the test reads next (the results below it).
// Errors while a page is replaced by the next (no body yet, a destroyed
// context) count as "not yet".
func (b *browser) waitFor(what, expr string) {
	b.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ok bool
		ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
		err := chromedp.Run(ctx, chromedp.Evaluate(`(() => { try { return document.readyState !== "loading" && !!(`+expr+`); } catch (e) { return false; } })()`, &ok))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("%s: %s never held (%v) at %s\n%.1500s", what, expr, err, b.location(), b.text())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// number evaluates expr to a float.
func (b *browser) number(expr string) float64 {
	b.t.Helper()
	var f float64
	b.eval(expr, &f)
	return f
}

// signIn signs in through the sign-in page as a person does.
func (b *browser) signIn(email, password string) {
	b.t.Helper()
	b.open("/signin")
	b.run("sign in",
		chromedp.WaitVisible(`input[type=password]`, chromedp.ByQuery),
		chromedp.SendKeys(`input[name=email]`, email, chromedp.ByQuery),
		chromedp.SendKeys(`input[type=password]`, password, chromedp.ByQuery),
		chromedp.Click(`form button[type=submit], form input[type=submit]`, chromedp.ByQuery),
	)
	b.waitFor("signed in", `!location.pathname.startsWith("/signin") && document.readyState === "complete"`)
}

// noHorizontalScroll checks the page at a phone's width.
func (b *browser) noHorizontalScroll(where string) {
	b.t.Helper()
	b.run("narrow", chromedp.EmulateViewport(390, 844))
	var w struct{ Scroll, Inner float64 }
	b.eval(`({Scroll: document.documentElement.scrollWidth, Inner: window.innerWidth})`, &w)
	if w.Scroll > w.Inner {
		b.t.Errorf("%s at 390 px: scrollWidth %v > innerWidth %v", where, w.Scroll, w.Inner)
	}
	b.run("wide", chromedp.EmulateViewport(1280, 900))
}

// axeViolation is one rule axe-core found broken, with where.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any  `json:"target"`
		HTML   string `json:"html"`
	} `json:"nodes"`
}

// accessible runs the vendored axe-core on the page and fails on serious
// or critical violations.
func (b *browser) accessible(where string, axeSource string) {
	b.t.Helper()
	var loaded bool
	b.eval(axeSource+"\n;typeof axe === 'object'", &loaded)
	if !loaded {
		b.t.Fatalf("%s: axe-core did not load", where)
	}
	var raw string
	b.run("axe "+where, chromedp.Evaluate(`axe.run(document, {resultTypes: ['violations']}).then(r => JSON.stringify(r.violations))`,
		&raw, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	var vs []axeViolation
	if err := json.Unmarshal([]byte(raw), &vs); err != nil {
		b.t.Fatalf("%s: axe result: %v", where, err)
	}
	for _, v := range vs {
		if v.Impact != "serious" && v.Impact != "critical" {
			continue
		}
		var nodes []string
		for i, n := range v.Nodes {
			if i == 3 {
				nodes = append(nodes, "...")
				break
			}
			nodes = append(nodes, fmt.Sprintf("%v %.160s", n.Target, n.HTML))
		}
		b.t.Errorf("%s: axe %s (%s): %s: %s", where, v.ID, v.Impact, v.Help, strings.Join(nodes, "; "))
	}
}

// screenshot saves the page as name.png in dir (none without a dir).
func (b *browser) screenshot(dir, name string) {
	b.t.Helper()
	if dir == "" {
		return
	}
	var png []byte
	b.run("screenshot", chromedp.FullScreenshot(&png, 100))
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// status fetches path in the page (with its session cookie) and returns
// the HTTP status.
func (b *browser) status(path string) int {
	b.t.Helper()
	var code int
	b.run("fetch "+path, chromedp.Evaluate(fmt.Sprintf(`fetch(%q, {credentials: "same-origin"}).then(r => r.status)`, path), &code,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	return code
}

// The web UI in headless Chromium, as a person uses it, against a
// platform (api and worker processes) that harvested real samples: a
// captioned video, an EXIF photo, a PDF, a text file, a file with a
// hostile name, and a second location a second user may not see.
func TestWebUIInBrowser(t *testing.T) {
	t.Parallel()
	chromium, axe, shots := browserTools(t)
	axeSource := []byte(axe)
	_, c, s, archiveGroup := webPlatform(t)

	role := c.call("POST", "/api/data/roles", map[string]any{"name": "Viewers", "scopes": []string{"search:read", "items:read",
		"segments:read", "captions:read", "activity:read", "locations:read", "containers:read", "fields:read", "fielddata:read"}}, 201)["id"].(string)
	viewer := c.call("POST", "/api/data/users", map[string]any{"email": "viewer@example.com", "password": "viewer-password-1",
		"role_id": role, "first_name": "Vi", "last_name": "Ewer"}, 201)["id"].(string)
	c.call("PUT", "/api/data/v3/users/"+viewer+"/groups/"+archiveGroup, nil, 200)

	b := newBrowser(t, chromium, c.base)

	// Signed out, a page leads to the sign-in page.
	b.open("/?q=" + textWord)
	if loc := b.location(); !strings.Contains(loc, "/signin") {
		t.Fatalf("signed out, / is at %s, want the sign-in page", loc)
	}
	b.accessible("sign-in page", string(axeSource))
	b.noHorizontalScroll("sign-in page")
	b.screenshot(shots, "signin")
	b.signIn("admin@example.com", "ops-password-1")
	b.clean("sign in")

	// Search for a word of the text file and one of the PDF, typed into
	// the search field.
	for _, w := range []struct{ word, name string }{{textWord, "notes.txt"}, {pdfWord, "leagues.pdf"}} {
		b.open("/")
		b.run("search "+w.word,
			chromedp.WaitVisible(`input[type=search]`, chromedp.ByQuery),
			chromedp.SendKeys(`input[type=search]`, w.word+"\r", chromedp.ByQuery),
		)
		b.waitFor("results for "+w.word, fmt.Sprintf(`location.search.includes(%q) && document.body.innerText.includes(%q)`, w.word, w.name))
	}
	b.accessible("search page", string(axeSource))
	b.noHorizontalScroll("search page")
	b.screenshot(shots, "search")
	// Open the hit.
	b.run("open the hit", chromedp.Click(fmt.Sprintf(`a[href^="/items/%s"]`, s.pdf), chromedp.ByQuery))
	b.waitFor("the PDF's item page, naming it", fmt.Sprintf(`location.pathname === "/items/%s" && document.readyState === "complete" && document.querySelector("h1").innerText.includes("leagues.pdf")`, s.pdf))
	b.accessible("document item page", string(axeSource))
	b.noHorizontalScroll("document item page")
	b.screenshot(shots, "item-document")
	b.clean("search and open a hit")

	// The photo's page.
	b.open("/items/" + s.photo)
	b.accessible("photo item page", string(axeSource))
	b.noHorizontalScroll("photo item page")
	b.screenshot(shots, "item-photo")
	b.clean("photo page")

	// A recording's page: its player, and its waveform under it.
	b.open("/items/" + s.recording)
	b.waitFor("the recording's waveform", `document.getElementById("player") && Array.from(document.querySelectorAll(".preview img")).some(i => i.alt === "Waveform of pluck.wav" && i.complete && i.naturalWidth === 1280)`)
	// A click on the waveform's middle seeks there; the line over it follows.
	b.waitFor("the recording's metadata", `document.getElementById("player").readyState >= 1 && document.getElementById("player").duration > 0`)
	b.run("click the waveform's middle", chromedp.Click(`.preview a.waveform img`, chromedp.ByQuery))
	b.waitFor("seek to the middle", `Math.abs(document.getElementById("player").currentTime / document.getElementById("player").duration - 0.5) < 0.1`)
	b.eval(`document.getElementById("player").pause()`, new(any))
	b.waitFor("the line over the waveform", `(() => { const h = document.querySelector(".preview a.waveform .playhead"); return h && !h.hidden && Math.abs(parseFloat(h.style.left) - 50) < 12; })()`)
	b.accessible("recording item page", string(axeSource))
	b.noHorizontalScroll("recording item page")
	b.screenshot(shots, "item-recording")
	b.clean("recording page")

	// An archive's page lists its entries and the text inside; an email's
	// shows its headers.
	b.open("/items/" + s.zip)
	b.waitFor("the archive's entries and text", `document.getElementById("contents-title") && document.querySelector("table[aria-labelledby=contents-title]").innerText.includes("docs/notes.md") && document.body.innerText.includes("Text of the documents inside")`)
	b.accessible("archive item page", string(axeSource))
	b.noHorizontalScroll("archive item page")
	b.clean("archive page")
	b.open("/items/" + s.email)
	b.waitFor("the email's headers", `document.getElementById("messages-title") && document.querySelector("dl.message").innerText.includes("IMAP file test") && document.querySelector("dl.message").innerText.includes("clock.bmp")`)
	b.accessible("email item page", string(axeSource))
	b.noHorizontalScroll("email item page")
	b.clean("email page")

	// The video: it plays, the transcript seeks, ?t= starts there.
	b.open("/items/" + s.video)
	b.waitFor("the player's metadata", `document.getElementById("player") && document.getElementById("player").readyState >= 1`)
	b.eval(`document.getElementById("player").play().then(() => true, () => false)`, new(any))
	b.waitFor("playback", `document.getElementById("player").currentTime > 0.5`)
	b.eval(`document.getElementById("player").pause()`, new(any))
	cue := fmt.Sprintf(`Array.from(document.querySelectorAll("#transcript a.cue")).find(a => a.textContent.includes(%q))`, captionWord)
	b.waitFor("the caption cue in the transcript", cue)
	want := b.number(`Number(` + cue + `.dataset.t)`)
	// The page stays (the script seeks in place; without it the link would
	// load the page again at ?t=): a mark left on the window survives.
	b.eval(`window.mhStay = true`, new(any))
	b.run("click the cue", chromedp.Click(`//section[@id="transcript"]//a[contains(@class,"cue")][contains(.,"`+captionWord+`")]`, chromedp.BySearch))
	b.waitFor("seek to the cue", fmt.Sprintf(`Math.abs(document.getElementById("player").currentTime - %v) < 0.6`, want))
	b.waitFor("the cue marked current", cue+`.getAttribute("aria-current") === "true"`)
	b.waitFor("the same page after the cue", `window.mhStay === true`)
	// The playhead follows playback.
	b.waitFor("the playhead along the track", `parseFloat(document.querySelector("#timeline .playhead").style.left) > 0 && !document.querySelector("#timeline .playhead").hidden`)
	b.eval(`document.getElementById("player").pause()`, new(any))
	// A marker of the captions lane seeks in place too.
	lastCaption := `Array.from(document.querySelectorAll('#timeline .lane[data-lane="captions"] a.marker')).pop()`
	b.waitFor("the captions lane", lastCaption)
	markerAt := b.number(`Number(` + lastCaption + `.dataset.t)`)
	b.eval(lastCaption+`.click()`, new(any))
	b.waitFor("seek to the marker", fmt.Sprintf(`Math.abs(document.getElementById("player").currentTime - %v) < 0.6`, markerAt))
	b.waitFor("the same page after the marker", `window.mhStay === true`)
	b.eval(`document.getElementById("player").pause()`, new(any))
	b.accessible("video item page", string(axeSource))
	b.noHorizontalScroll("video item page")
	b.screenshot(shots, "item-video")
	b.clean("video page")

	// With the search's words, the hits lane: "Next hit" goes to it. The
	// keyboard: arrows move between markers, space plays and pauses (not
	// while typing in the transcript's filter, which hides other cues).
	b.open("/items/" + s.video + "?q=" + captionWord)
	hitLane := `document.querySelector('#timeline .lane[data-lane="hits"] a.marker')`
	b.waitFor("the hits lane and its buttons", hitLane+` && !document.getElementById("next-hit").hidden && document.getElementById("player").readyState >= 1`)
	hit := b.number(`Number(` + hitLane + `.dataset.t)`)
	b.run("next hit", chromedp.Click("#next-hit", chromedp.ByID))
	b.waitFor("at the hit", fmt.Sprintf(`Math.abs(document.getElementById("player").currentTime - %v) < 0.6`, hit))
	b.eval(`(() => { const p = document.getElementById("player"); p.pause(); p.currentTime = 0; document.activeElement.blur(); return true; })()`, new(any))
	b.waitFor("back at 0", `document.getElementById("player").currentTime === 0 && !document.getElementById("player").seeking`)
	firstMarker := b.number(`Math.min(...Array.from(document.querySelectorAll("#timeline a.marker")).map(a => Number(a.dataset.t)).filter(t => t > 0.25))`)
	b.run("ArrowRight", chromedp.KeyEvent(kb.ArrowRight))
	b.waitFor("ArrowRight at the next marker", fmt.Sprintf(`Math.abs(document.getElementById("player").currentTime - %v) < 0.05`, firstMarker))
	b.run("space", chromedp.KeyEvent(" "))
	b.waitFor("space plays", `!document.getElementById("player").paused`)
	b.run("space", chromedp.KeyEvent(" "))
	b.waitFor("space pauses", `document.getElementById("player").paused`)
	b.run("filter the transcript", chromedp.SendKeys("#transcript-filter", "sample reel", chromedp.ByID))
	b.waitFor("the filter hides the other cue", cue+`.closest("li").hidden && Array.from(document.querySelectorAll("#transcript a.cue")).filter(a => !a.closest("li").hidden).length === 2`)
	var paused bool
	b.eval(`document.getElementById("player").paused`, &paused)
	if !paused {
		t.Error("typing a space in the transcript's filter started playback")
	}
	b.clean("hits, keyboard and filter")

	b.open("/items/" + s.video + "?t=2")
	b.waitFor("start at ?t=2", `document.getElementById("player").readyState >= 1 && Math.abs(document.getElementById("player").currentTime - 2) < 0.3`)
	b.clean("?t=")

	// A facet narrows the results and the URL; back restores both.
	b.open("/")
	b.waitFor("every archive file listed", `document.body.innerText.includes("notes.txt") && document.body.innerText.includes("leagues.pdf")`)
	before := b.location()
	facet := `Array.from(document.querySelectorAll("a[href^='/?']")).find(a => a.closest("[id*=facet], [class*=facet]") && /\bvideo\b/i.test(a.textContent))`
	b.waitFor("a facet for video", facet)
	b.eval(facet+`.click()`, new(any))
	b.waitFor("the narrowed results", fmt.Sprintf(`location.href !== %q && !document.body.innerText.includes("notes.txt") && document.body.innerText.includes("reel.mp4")`, before))
	narrowed := b.location()
	b.eval(`history.back()`, new(any))
	b.waitFor("the results restored", fmt.Sprintf(`location.href === %q && document.body.innerText.includes("notes.txt")`, before))
	if narrowed == before {
		t.Errorf("the facet did not change the URL %s", before)
	}
	b.clean("facets")

	// Moments: segment search lists the caption's moment with its time.
	b.open("/moments?q=" + captionWord)
	b.waitFor("the moment", fmt.Sprintf(`Array.from(document.querySelectorAll("a[href*='/items/%s']")).some(a => /[?&]t=/.test(a.getAttribute("href")))`, s.video))
	b.accessible("moments page", string(axeSource))
	b.noHorizontalScroll("moments page")
	b.screenshot(shots, "moments")
	b.clean("moments")

	// The hostile name is text: shown as typed, no element made of it, no
	// dialog.
	b.open("/?q=onerror")
	b.waitFor("the hostile name shown", fmt.Sprintf(`document.body.innerText.includes(%q)`, hostileName))
	var injected bool
	b.eval(`!!document.querySelector('img[src="x"]')`, &injected)
	if injected {
		t.Error("the hostile name became an element")
	}
	b.open("/items/" + s.hostile)
	b.waitFor("the hostile item's page", fmt.Sprintf(`document.body.innerText.includes(%q)`, hostileName))
	b.eval(`!!document.querySelector('img[src="x"]')`, &injected)
	if injected {
		t.Error("the hostile name became an element on its page")
	}
	b.clean("hostile name")

	// The second user sees the archive and nothing of the vault.
	v := newBrowser(t, chromium, c.base)
	v.signIn("viewer@example.com", "viewer-password-1")
	v.open("/?q=" + url.QueryEscape(textWord))
	v.waitFor("the viewer finds the archive", `document.body.innerText.includes("notes.txt")`)
	v.open("/?q=" + secretWord)
	if txt := v.text(); strings.Contains(txt, "secret.txt") || strings.Contains(txt, secretWord+" holds") {
		t.Errorf("the viewer's search shows the vault:\n%.1000s", txt)
	}
	v.open("/")
	v.waitFor("the viewer's full list", `document.body.innerText.includes("notes.txt")`)
	if txt := v.text(); strings.Contains(txt, "secret.txt") || strings.Contains(txt, "Vault") {
		t.Errorf("the viewer's list shows the vault:\n%.1500s", txt)
	}
	if code := v.status("/items/" + s.secret); code != http.StatusNotFound {
		t.Errorf("the viewer opens the vault's item page: %d", code)
	}
	v.open("/items/" + s.secret)
	if txt := v.text(); strings.Contains(txt, "secret.txt") || strings.Contains(txt, secretWord) {
		t.Errorf("the vault's item page shows it:\n%.1000s", txt)
	}
	if code := v.status("/api/data/items/" + s.secret + "/content"); code != http.StatusNotFound {
		t.Errorf("the viewer reads the vault's file: %d", code)
	}
	if code := v.status("/api/data/items/" + s.txt + "/content"); code != http.StatusOK {
		t.Errorf("the viewer cannot read the archive's file: %d", code)
	}
	if code := b.status("/api/data/items/" + s.secret + "/content"); code != http.StatusOK {
		t.Errorf("the admin cannot read the vault's file: %d", code)
	}
	v.clean("second user")
	if shots != "" {
		t.Logf("screenshots in %s", shots)
	}
}
