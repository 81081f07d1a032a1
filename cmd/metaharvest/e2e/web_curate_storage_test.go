package e2e

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/metaharvest/metaharvest/models"
)

// curateStorage tests the storage screens in the browser (see curateSections):
// a filesystem location made from the form (first refused with the api's
// problems beside the fields, nothing created), its container's live
// harvest turned on and off, the location deleted; a text file uploaded
// through the file input with its progress, then found by search; the
// editor (no locations:write, no uploads:write) has no form and the api
// refuses them.
func curateStorage(e *curateEnv) {
	t, b := e.t, e.b
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "reels"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "reels", "cue-sheet.txt"), []byte("cue sheet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	locations := func() []any { return e.c.call("GET", "/api/data/v3/locations", nil, 200)["locations"].([]any) }
	before := len(locations())

	e.page("/storage", "storage-list")
	// No name, and a path that does not exist: the name's problem beside it.
	b.run("fill the form badly",
		chromedp.SetValue(`#new-kind`, "filesystem", chromedp.ByQuery),
		chromedp.SendKeys(`#new-filesystem-path`, filepath.Join(root, "missing"), chromedp.ByQuery),
		chromedp.Click(`#new-location button[type=submit]`, chromedp.ByQuery))
	b.waitFor("the name's problem beside it", `document.querySelector('#new-name[aria-invalid="true"] + p.problem') &&
		document.querySelector('#new-location [role=alert]').textContent.length > 0`)
	// With a name, the path's problem (the platform connects first).
	b.run("name it", chromedp.SendKeys(`#new-name`, "Reels on disk", chromedp.ByQuery),
		chromedp.Click(`#new-location button[type=submit]`, chromedp.ByQuery))
	b.waitFor("the path's problem beside it", `!document.querySelector('#new-name[aria-invalid]') &&
		document.querySelector('#new-filesystem-path[aria-invalid="true"] + p.problem').textContent.includes("does not exist")`)
	e.check("storage-new-problems")
	// An S3 location whose endpoint does not answer: the connection's
	// failure beside the endpoint.
	kind := func(k string) {
		var ok bool
		b.eval(fmt.Sprintf(`(() => { const s = document.getElementById("new-kind"); s.value = %q; s.dispatchEvent(new Event("change")); return true; })()`, k), &ok)
	}
	kind("s3")
	b.waitFor("the s3 settings", `!document.querySelector('fieldset[data-kind="s3"]').hidden && document.querySelector('fieldset[data-kind="filesystem"]').hidden`)
	b.run("an s3 endpoint that refuses", chromedp.SendKeys(`#new-s3-endpoint`, "http://127.0.0.1:1", chromedp.ByQuery),
		chromedp.SendKeys(`#new-s3-bucket`, "media", chromedp.ByQuery),
		chromedp.SendKeys(`#new-s3-secret_access_key`, "SECRETNOTSAVED", chromedp.ByQuery),
		chromedp.SendKeys(`#new-s3-access_key_id`, "AKIATEST", chromedp.ByQuery),
		chromedp.Click(`#new-s3-path_style`, chromedp.ByQuery),
		chromedp.Click(`#new-location button[type=submit]`, chromedp.ByQuery))
	b.waitFor("the endpoint's problem beside it", `!document.querySelector('#new-filesystem-path[aria-invalid]') &&
		document.querySelector('#new-s3-endpoint[aria-invalid="true"] + p.problem').textContent.includes("connection refused")`)
	e.check("storage-new-s3-problem")
	kind("filesystem")
	if n := len(locations()); n != before {
		t.Fatalf("a refused form created a location: %d locations, were %d", n, before)
	}
	b.run("fix the path", chromedp.SetValue(`#new-filesystem-path`, root, chromedp.ByQuery),
		chromedp.Click(`#new-location button[type=submit]`, chromedp.ByQuery))
	b.waitFor("the new location's page", `location.pathname.startsWith("/storage/") && document.readyState === "complete" &&
		document.querySelector("h1").textContent === "Reels on disk"`)
	locID := strings.TrimPrefix(b.location(), e.c.base+"/storage/")
	if locID, _ = url.PathUnescape(locID); locID == "" {
		t.Fatalf("no location id in %s", b.location())
	}
	got := e.c.call("GET", "/api/data/v3/locations/"+locID, nil, 200)
	if got["name"] != "Reels on disk" || got["kind"] != "filesystem" || got["config"].(map[string]any)["path"] != root {
		t.Fatalf("the location made from the form: %v", got)
	}
	row := `document.querySelector('tr.container[data-name="reels"]')`
	b.waitFor("its container", row+` && `+row+`.querySelector(".state").textContent === "off"`)
	e.check("storage-location")

	enabled := func() bool {
		for _, c := range e.c.call("GET", "/api/data/locations/"+locID+"/containers", nil, 200)["containers"].([]any) {
			if m := c.(map[string]any); m["name"] == "reels" {
				return m["enabled"].(bool)
			}
		}
		t.Fatal("the api lists no container reels")
		return false
	}
	b.run("live harvest on", chromedp.Click(`tr.container[data-name="reels"] button.toggle`, chromedp.ByQuery))
	b.waitFor("live harvest on", row+`.querySelector(".state").textContent === "on" && `+row+`.querySelector("button.toggle").textContent.includes("off")`)
	if !enabled() {
		t.Fatal("the container is not enabled in the api")
	}
	b.run("live harvest off", chromedp.Click(`tr.container[data-name="reels"] button.toggle`, chromedp.ByQuery))
	b.waitFor("live harvest off", row+`.querySelector(".state").textContent === "off" && !`+row+`.querySelector("button.toggle").disabled`)
	if enabled() {
		t.Fatal("the container is still enabled in the api")
	}

	// Rename it from the edit form; then a change made meanwhile elsewhere
	// makes the page's version stale: the api's conflict shows, nothing
	// is overwritten.
	b.run("rename", chromedp.SetValue(`#edit-name`, "Reels", chromedp.ByQuery),
		chromedp.Click(`#edit-location button[type=submit]`, chromedp.ByQuery))
	b.waitFor("renamed", `document.readyState === "complete" && document.querySelector("h1").textContent === "Reels"`)
	cur := e.c.call("GET", "/api/data/v3/locations/"+locID, nil, 200)
	if cur["name"] != "Reels" {
		t.Fatalf("the api's location after the rename: %v", cur)
	}
	e.c.call("PUT", "/api/data/v3/locations/"+locID, map[string]any{"kind": "filesystem", "name": "Reels (theirs)",
		"config": map[string]any{"path": root}, "version": cur["version"]}, 200)
	b.run("rename a stale page", chromedp.SetValue(`#edit-name`, "Reels (mine)", chromedp.ByQuery),
		chromedp.Click(`#edit-location button[type=submit]`, chromedp.ByQuery))
	b.waitFor("the conflict said", `document.querySelector('#edit-location [role=alert]') &&
		document.querySelector('#edit-location [role=alert]').textContent.includes("reload the page")`)
	if got := e.c.call("GET", "/api/data/v3/locations/"+locID, nil, 200); got["name"] != "Reels (theirs)" {
		t.Fatalf("a stale page overwrote the location: %v", got)
	}

	b.open("/storage")
	b.waitFor("the new location listed with its container", fmt.Sprintf(`document.getElementById(%q) && document.getElementById(%q).querySelector("td.num").textContent === "1"`,
		"location-"+locID, "location-"+locID))

	b.open("/storage/" + url.PathEscape(locID))
	b.run("delete", chromedp.Click(`#delete-location`, chromedp.ByQuery))
	b.waitFor("the question", `!document.getElementById("delete-confirm").hidden && document.activeElement.id === "delete-really"`)
	e.check("storage-delete")
	b.run("really delete", chromedp.Click(`#delete-really`, chromedp.ByQuery))
	b.waitFor("back on the list without it", fmt.Sprintf(`location.pathname === "/storage" && document.readyState === "complete" &&
		document.querySelector("h1") && !document.getElementById(%q)`, "location-"+locID))
	e.c.call("GET", "/api/data/v3/locations/"+locID, nil, 404)
	b.clean("storage")

	// Upload a file through the file input (the keyboard's way) and find it.
	word := "quillfeather" + fmt.Sprint(time.Now().UnixNano()%100000)
	name := "field-" + word + ".txt"
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, []byte("Upload notes: the "+word+" flew over the dunes.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.page("/upload", "upload-empty")
	b.waitFor("the limit read", `!document.getElementById("upload-limit").textContent.includes("platform's size limit")`)
	b.run("choose the file", chromedp.SetUploadFiles(`#upload-files`, []string{file}, chromedp.ByQuery))
	b.waitFor("the upload done", `document.querySelector("li.upload-file.done progress") &&
		document.querySelector("li.upload-file.done progress").value === 100 && document.querySelector('li.upload-file.done a[href^="/items/"]')`)
	e.check("upload-done")
	var itemHref string
	b.eval(`document.querySelector('li.upload-file.done a[href^="/items/"]').getAttribute("href")`, &itemHref)
	itemID, _ := url.PathUnescape(strings.TrimPrefix(itemHref, "/items/"))
	it := e.c.call("GET", "/api/data/items/"+url.PathEscape(itemID), nil, 200)
	if it["name"] != name {
		t.Fatalf("the uploaded item: %v", it)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		b.open("/?q=" + url.QueryEscape(word))
		var found bool
		b.eval(fmt.Sprintf(`!!document.querySelector('a[href^="/items/%s"]')`, itemID), &found)
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("search never found the uploaded %s:\n%.1500s", name, b.text())
		}
		time.Sleep(time.Second)
	}
	b.clean("upload")
	curateUploadLimit(e)

	// The editor: no form, no upload page, and the api refuses them.
	v := e.editor()
	v.open("/storage")
	v.waitFor("the storage list", `document.querySelector("h1") && document.querySelector("h1").textContent === "Storage"`)
	var form, uploadLink bool
	v.eval(`!!document.getElementById("new-location")`, &form)
	v.eval(`!!document.querySelector('a[href="/upload"]')`, &uploadLink)
	if form || uploadLink {
		t.Errorf("the editor sees the create form (%v) or the upload link (%v)", form, uploadLink)
	}
	var code int
	v.run("the editor posts a location", chromedp.Evaluate(fmt.Sprintf(`fetch("/api/data/v3/locations", {method: "POST", credentials: "same-origin",
		headers: {"Content-Type": "application/json", "X-CSRF-Token": document.querySelector('meta[name="csrf-token"]').content},
		body: JSON.stringify({kind: "filesystem", name: "Editor's", config: {path: %q}})}).then(r => r.status)`, root), &code,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	if code != 403 {
		t.Errorf("the editor's POST of a location: %d, want 403", code)
	}
	if code := v.status("/upload"); code != 403 {
		t.Errorf("the editor's upload page: %d, want 403", code)
	}
	if n := len(locations()); n != before {
		t.Errorf("%d locations after the editor, want %d", n, before)
	}
	v.clean("storage as the editor")
}

// curateUploadLimit runs a second api process of the platform with a limit
// of 100 bytes: the admin's upload page says it and refuses a larger file
// dropped on the drop zone before sending it, and sends a small one; an
// uploader who may not read the platform summary (so the page does not know
// the limit) sends the large file and sees the api's 413. Neither large
// file becomes an item.
func curateUploadLimit(e *curateEnv) {
	t := e.t
	limited, _ := e.p.startAPI("UPLOAD_LIMIT_BYTES=100")
	role := e.c.call("POST", "/api/data/roles", map[string]any{"name": "Uploaders", "scopes": []string{"uploads:write", "search:read"}}, 201)["id"].(string)
	e.c.call("POST", "/api/data/users", map[string]any{"email": "uploader@example.com", "password": "uploader-password-1",
		"role_id": role, "first_name": "Up", "last_name": "Loader"}, 201)
	drop := func(b *browser, name string, size int) {
		var ok bool
		b.run("drop "+name, chromedp.Evaluate(fmt.Sprintf(`(() => { const dt = new DataTransfer();
			dt.items.add(new File(["x".repeat(%d)], %q, {type: "text/plain"}));
			return document.getElementById("dropzone").dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true})) === false; })()`,
			size, name), &ok))
		if !ok {
			t.Fatalf("the drop zone did not take the drop of %s", name)
		}
	}
	row := func(name, class string) string {
		return fmt.Sprintf(`[...document.querySelectorAll("li.upload-file.%s")].find(li => li.querySelector(".upload-name").textContent === %q)`, class, name)
	}

	a := newBrowser(t, e.chromium, limited.base)
	a.signIn("admin@example.com", "ops-password-1")
	a.open("/upload")
	a.waitFor("the limit said", `document.getElementById("upload-limit").textContent.includes("100 bytes")`)
	drop(a, "big-dropped.txt", 500)
	a.waitFor("refused before sending", row("big-dropped.txt", "failed")+`.querySelector(".upload-state").textContent.includes("larger than the limit of 100 bytes")`)
	drop(a, "small-dropped.txt", 20)
	a.waitFor("the small file uploaded", row("small-dropped.txt", "done")+`.querySelector("progress").value === 100`)
	a.accessible("upload-limit", e.axe)
	a.screenshot(e.shots, "upload-limit")
	a.clean("upload with a limit")

	u := newBrowser(t, e.chromium, limited.base)
	u.signIn("uploader@example.com", "uploader-password-1")
	u.open("/upload")
	u.waitFor("the page not knowing the limit", `document.getElementById("upload-limit").textContent.includes("platform's size limit")`)
	drop(u, "big-sent.txt", 500)
	u.waitFor("the api's 413", row("big-sent.txt", "failed")+`.querySelector(".upload-state").textContent.includes("Refused as too large")`)
	u.clean("upload over the limit")

	uploads := models.ContainerID("uploadstore", "uploads")
	for _, name := range []string{"big-dropped.txt", "big-sent.txt"} {
		e.c.call("GET", "/api/data/items/"+url.PathEscape(models.ItemID(uploads, name)), nil, 404)
	}
	e.c.call("GET", "/api/data/items/"+url.PathEscape(models.ItemID(uploads, "small-dropped.txt")), nil, 200)
}
