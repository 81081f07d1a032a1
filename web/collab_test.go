package web

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// The item page's comments, custom fields and "add to a compilation": each
// shown by its scopes, the comments' markdown rendered with the hostile
// parts taken out, their time markers on the timeline's comments lane.
func TestItemPageCollab(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	body := "**bold** and *soft* <script>alert(1)</script> [bad](javascript:alert(2)) [good](https://example.com/a?b=1&c=2) <img src=x onerror=alert(3)>"
	cm := c.apiCall("POST", "/api/data/comments", c.adminToken, map[string]any{"target_type": "item", "target_id": c.clip,
		"body": body, "time_marker": markerOf(4.5)}, 201)
	c.apiCall("POST", "/api/data/comments", c.adminToken, map[string]any{"target_type": "item", "target_id": c.clip,
		"body": "untimed note"}, 201)
	f := c.apiCall("POST", "/api/data/v3/fields", c.adminToken, map[string]any{"name": "Rights <b>holder</b>", "data_type": "string"}, 201)
	c.apiCall("POST", "/api/data/v3/fields", c.adminToken, map[string]any{"name": "Reviewed", "data_type": "bool"}, 201)
	c.apiCall("PUT", "/api/data/v3/fielddata/"+c.clip+"/field/"+f["id"].(string), c.adminToken, map[string]any{"string_value": `"ACME" <x>`}, 200)
	c.apiCall("POST", "/api/data/compilations", c.adminToken, map[string]any{"name": "Admin's reel", "public": true}, 201)

	all := c.signInAs("all@example.com", "items:read", "comments:read", "comments:write", "fields:read", "fielddata:read",
		"fielddata:write", "compilations:read", "compilations:write")
	page := c.page("/items/"+url.PathEscape(c.clip), all, http.StatusOK)
	for _, want := range []string{`id="comments"`, "<strong>bold</strong>", "<em>soft</em>", `href="https://example.com/a?b=1&amp;c=2"`,
		`data-lane="comments"`, `data-t="4.5"`, "at 00:00:04", "untimed note", `id="comment-form"`, `id="comment-at"`,
		"Rights &lt;b&gt;holder&lt;/b&gt;", `value="&#34;ACME&#34; &lt;x&gt;"`, `data-type="bool"`, `type="checkbox"`,
		`id="add-to-compilation"`, "Create one", "/assets/js/comments.js", "/assets/css/collab.css"} {
		if !strings.Contains(page, want) {
			t.Errorf("the item page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script>alert", "javascript:", "onerror", "<img src=x", `class="comment-edit"`} {
		if strings.Contains(page, bad) {
			t.Errorf("the item page has %q", bad)
		}
	}
	// The author edits and deletes; the admin's compilation is not theirs
	// to add to.
	admin := c.signIn(adminEmail, adminPassword)
	page = c.page("/items/"+url.PathEscape(c.clip), admin, http.StatusOK)
	for _, want := range []string{`class="comment-edit"`, `id="comment-` + cm["id"].(string) + `"`, `<option value="`, "Admin&#39;s reel", `id="set-in"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the admin's item page lacks %q", want)
		}
	}

	// Reading only: no forms.
	reader := c.signInAs("reader@example.com", "items:read", "comments:read", "fields:read", "fielddata:read", "compilations:read")
	page = c.page("/items/"+url.PathEscape(c.clip), reader, http.StatusOK)
	if !strings.Contains(page, "<strong>bold</strong>") || strings.Contains(page, `id="comment-form"`) ||
		strings.Contains(page, `id="add-to-compilation"`) || !strings.Contains(page, "readonly") {
		t.Errorf("the reader's item page: %.4000s", page)
	}
	// No scopes of the section: nothing of it.
	plain := c.signInAs("plain@example.com", "items:read")
	page = c.page("/items/"+url.PathEscape(c.clip), plain, http.StatusOK)
	for _, leak := range []string{"bold", "untimed", "Rights", "comments.js", `data-lane="comments"`} {
		if strings.Contains(page, leak) {
			t.Errorf("the item page shows %q to a user without the section's scopes", leak)
		}
	}
	// A document: comments and fields, no time.
	page = c.page("/items/"+url.PathEscape(c.pdf), all, http.StatusOK)
	if !strings.Contains(page, `id="comment-form"`) || strings.Contains(page, `id="comment-at"`) || !strings.Contains(page, "No comments yet") {
		t.Errorf("the pdf's page: %.3000s", page)
	}
}

// The compilations pages: the list and a compilation's entries (moments
// with their points), only those the user may see; 403 without the scope,
// 404 for a compilation they may not view; names stay text.
func TestCompilationPages(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	comp := c.apiCall("POST", "/api/data/compilations", c.adminToken, map[string]any{"name": hostileName, "public": true}, 201)
	id := comp["compilation_id"].(string)
	priv := c.apiCall("POST", "/api/data/compilations", c.adminToken, map[string]any{"name": "Private cut", "public": false}, 201)
	items := "/api/data/compilations/" + id + "/items"
	c.apiCall("POST", items, c.adminToken, map[string]any{"item_id": c.clip, "in_point": 4, "out_point": 6.5}, 201)
	c.apiCall("POST", items, c.adminToken, map[string]any{"item_id": c.clip, "in_point": 1, "out_point": 2}, 201)
	c.apiCall("POST", items, c.adminToken, map[string]any{"item_id": c.secret}, 201)
	c.apiCall("POST", items, c.adminToken, map[string]any{"item_id": c.pdf}, 201)

	admin := c.signIn(adminEmail, adminPassword)
	list := c.page("/compilations", admin, http.StatusOK)
	for _, want := range []string{html.EscapeString(hostileName), "Private cut", `id="create-compilation"`, "delete-compilation", `aria-current="page"`} {
		if !strings.Contains(list, want) {
			t.Errorf("the list lacks %q", want)
		}
	}
	page := c.page("/compilations/"+id, admin, http.StatusOK)
	for _, want := range []string{"00:00:04 to 00:00:06", "00:00:01 to 00:00:02", `data-in="4"`, `data-out="6.5"`, "secret_plan.txt",
		`<a href="/api/data/compilations/` + id + `/export?format=edl" download>EDL (CMX 3600)</a>`,
		`<a href="/api/data/compilations/` + id + `/export?format=otio" download>OpenTimelineIO</a>`,
		"budget.pdf", "(not played)", `id="compilation-player"`, "move-up", "move-down", "remove-entry", `draggable="true"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the compilation page lacks %q", want)
		}
	}
	if strings.Index(page, `data-in="4"`) > strings.Index(page, `data-in="1"`) {
		t.Error("the entries are not in their order")
	}

	// Another user: the public compilation without the vault's item, not
	// theirs to change; the private one is not found.
	viewer := c.signInAs("viewer@example.com", "compilations:read")
	page = c.page("/compilations/"+id, viewer, http.StatusOK)
	if strings.Contains(page, "secret_plan") || strings.Contains(page, c.secret) || !strings.Contains(page, "clip.mp4") ||
		strings.Contains(page, "move-up") || strings.Contains(page, "<img src=x") {
		t.Errorf("the viewer's compilation page: %.4000s", page)
	}
	list = c.page("/compilations", viewer, http.StatusOK)
	if strings.Contains(list, "Private cut") || strings.Contains(list, "create-compilation") || !strings.Contains(list, "3</td>") {
		t.Errorf("the viewer's list: %.4000s", list)
	}
	hidden := c.page("/compilations/"+priv["compilation_id"].(string), viewer, http.StatusNotFound)
	if unknown := c.page("/compilations/nope", viewer, http.StatusNotFound); hidden != unknown {
		t.Error("a private compilation's page differs from an unknown one's")
	}
	none := c.signInAs("none@example.com", "items:read")
	c.page("/compilations", none, http.StatusForbidden)
	c.page("/compilations/"+id, none, http.StatusForbidden)
}

func TestRenderMarkdown(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"**a** *b* `a < b`":                  "<p><strong>a</strong> <em>b</em> <code>a &lt; b</code></p>",
		"one\ntwo\n\nthree":                  "<p>one<br>two</p><p>three</p>",
		"- x\n- **y**":                       "<ul><li>x</li><li><strong>y</strong></li></ul>",
		"> quoted":                           "<blockquote><p>quoted</p></blockquote>",
		"<script>alert(1)</script>safe":      "<p>safe</p>",
		"[x](javascript:alert(1))":           "<p>[x](#)</p>",
		"a <b onclick=x>b</b> & c":           "<p>a &lt;b&gt;b&lt;/b&gt; &amp; c</p>",
		"see https://example.com/x_y_z now":  `<p>see <a href="https://example.com/x_y_z" rel="nofollow">https://example.com/x_y_z</a> now</p>`,
		"```\n<b>code</b>\n```":              "<pre><code>&lt;b&gt;code&lt;/b&gt;</code></pre>",
		`[a"b](https://e.com/"onmouseover=)`: `<p><a href="https://e.com/%22onmouseover=" rel="nofollow">a&#34;b</a></p>`,
	} {
		if got := string(renderMarkdown(in)); got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
	if s, ok := markerSeconds("01:02:03:45"); !ok || s != 3723.45 || markerOf(3723.45) != "01:02:03:45" {
		t.Errorf("marker %v %v %s", s, ok, markerOf(3723.45))
	}
}

// The timeline's markers carry their span for "Add to a compilation":
// captions and QC events their start and end (data-t, data-end), single
// times (text on screen) data-t only, shots in time order (a shot runs to
// the next one: timeline.js); the hint that a marker sets the moment shows
// only to who may add the item to a compilation of theirs.
func TestItemPageMarkerSpans(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	c.apiCall("POST", "/api/data/compilations", c.adminToken, map[string]any{"name": "Reel", "public": false}, 201)
	admin := c.signIn(adminEmail, adminPassword)
	page := c.page("/items/"+url.PathEscape(c.clip), admin, http.StatusOK)
	spans := markerSpans(page)
	for lane, want := range map[string]string{"captions": "1-2 12-13", "qc": "15-16", "ocr": "4-", "shots": "0- 4-"} {
		if spans[lane] != want {
			t.Errorf("the %s lane's spans: %q, want %q", lane, spans[lane], want)
		}
	}
	for _, want := range []string{`<p id="marker-moment" class="note">`, `id="add-moment"`, `id="add-in"`, `id="add-out"`, "/assets/js/compilations.js"} {
		if !strings.Contains(page, want) {
			t.Errorf("the admin's item page lacks %q", want)
		}
	}
	if strings.Index(page, `id="marker-moment"`) > strings.Index(page, `class="lanes"`) {
		t.Error("the hint is not above the lanes")
	}
	// No compilation of theirs, or no right to add: no hint.
	fresh := c.signInAs("fresh@example.com", "items:read", "compilations:read", "compilations:write")
	reader := c.signInAs("reader@example.com", "items:read", "compilations:read")
	for who, cookie := range map[string]*http.Cookie{"fresh": fresh, "reader": reader} {
		if page := c.page("/items/"+url.PathEscape(c.clip), cookie, http.StatusOK); strings.Contains(page, "marker-moment") {
			t.Errorf("the %s user's item page has the hint", who)
		}
	}
	// A document has no timeline.
	if page := c.page("/items/"+url.PathEscape(c.pdf), admin, http.StatusOK); strings.Contains(page, "marker-moment") {
		t.Error("the pdf's page has the hint")
	}
}

var (
	laneRE   = regexp.MustCompile(`(?s)<div class="lane" data-lane="(\w+)">(.*?)</ol>`)
	markerRE = regexp.MustCompile(`<a class="marker" [^>]*?data-t="([\d.]+)"(?: data-end="([\d.]+)")?`)
)

// markerSpans lists each lane's markers as "start-end" ("start-" without
// an end), in page order.
func markerSpans(page string) map[string]string {
	out := map[string]string{}
	for _, l := range laneRE.FindAllStringSubmatch(page, -1) {
		var spans []string
		for _, m := range markerRE.FindAllStringSubmatch(l[2], -1) {
			spans = append(spans, m[1]+"-"+m[2])
		}
		out[l[1]] = strings.Join(spans, " ")
	}
	return out
}
