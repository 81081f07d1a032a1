package web

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/models"
)

const hostileName = `<img src=x onerror=alert(1)>.mp4`

// corpus is a small platform: a public archive with a video (frames,
// captions, a black scene, text on screen), a file with a hostile name and
// a PDF, and a vault restricted to a group with a text file.
type corpus struct {
	*env
	group                      string
	clip, hostile, pdf, secret string
}

func newCorpus(t *testing.T) *corpus {
	e := newEnv(t)
	c := &corpus{env: e}
	c.group = e.apiCall("POST", "/api/data/v3/groups", e.adminToken, map[string]any{"name": "Vault keepers"}, 201)["id"].(string)
	pub := e.place("pub", "Public archive")
	sec := e.place("sec", "Vault", c.group)
	c.clip = e.item("pub", pub, "trips/clip.mp4", "video/mp4", map[string]any{
		"mediainfo":         map[string]any{"duration": 20.0, "title": "", "video": map[string]any{"codec": "h264"}},
		"video_main_frames": map[string]any{"count": 2, "frames": []any{map[string]any{"time": 0.0, "path": "frames/000000000.jpg"}, map[string]any{"time": 4.0, "path": "frames/000004000.jpg"}}},
		"black_scenes":      map[string]any{"count": 1, "scenes": []any{map[string]any{"start": 15.0, "end": 16.0, "duration": 1.0}}},
		"tesseract":         map[string]any{"frames": []any{map[string]any{"time": 4.0, "text": "HARBOUR SIGN"}}},
		"exiv2":             map[string]any{"description": "<script>alert(2)</script> a comment"},
		"objects": map[string]any{"labels": []any{map[string]any{"name": "boat", "confidence": 0.7, "time": 4.0},
			map[string]any{"name": "person", "confidence": 0.6, "time": 8.0}, map[string]any{"name": "person", "confidence": 0.4, "time": 8.0}}},
	})
	for _, ms := range []string{"000000000", "000004000"} {
		e.must(e.db.Create(&models.Artifact{ItemID: c.clip, Path: "ab/" + c.clip + "/video_main_frames/frames/" + ms + ".jpg",
			Extractor: "video_main_frames", Kind: "frame", Width: 64, Height: 36}).Error)
	}
	e.must(e.db.Create(&models.Caption{ID: "cap1", ItemID: c.clip, Extractor: "caption_files", Source: "file", Language: "en", Format: "srt",
		Cues: models.MustJSON([]map[string]any{{"start_at": 1.0, "end_at": 2.0, "text": "The ferry leaves at noon"},
			{"start_at": 12.0, "end_at": 13.0, "text": "The lighthouse <b>beam</b>"}})}).Error)
	e.must(e.db.Exec(`INSERT INTO segment_parts (item_id, extractor, time_ms, summary) VALUES (?, 'video_main_frames', 0, '{}'), (?, 'video_main_frames', 4000, '{}')`,
		c.clip, c.clip).Error)
	c.hostile = e.item("pub", pub, "odd/"+hostileName, "video/mp4", map[string]any{"mediainfo": map[string]any{"duration": 3.0}})
	c.pdf = e.item("pub", pub, "docs/budget.pdf", "application/pdf", map[string]any{
		"pdf": map[string]any{"page_count": 2, "text": "The budget for the lighthouse keeper <img src=y onerror=alert(3)>"}})
	e.must(e.db.Create(&models.Artifact{ItemID: c.pdf, Path: "cd/" + c.pdf + "/document_pages/thumbnail.jpg",
		Extractor: "document_pages", Kind: "thumbnail", Width: 64, Height: 90}).Error)
	c.secret = e.item("sec", sec, "secret_plan.txt", "text/plain", map[string]any{"text": map[string]any{"text": "secret lighthouse plan"}})
	e.index(c.clip, c.hostile, c.pdf, c.secret)
	return c
}

// Every page route names a scope of the api's catalogue (or is public); a
// user without it gets the 403 page, a user with it the page.
func TestPageRoutesHaveScopes(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	rec := c.serve(authed(httptestGet("/api/data/roles/scopes"), c.adminToken))
	catalogue := rec.Body.String()
	// A public compilation and a job of the public location: every holder
	// of the read scope sees them.
	compilation := c.apiCall("POST", "/api/data/compilations", c.adminToken, map[string]any{"name": "Shared reel", "public": true}, 201)["compilation_id"].(string)
	c.must(c.db.Create(&models.Job{RequestID: "job-pub", JobType: "harvest", LocationID: "pub", ContainerID: models.ContainerID("pub", "media"),
		Priority: 5, Created: time.Now(), Updated: time.Now()}).Error)
	targets := map[string]string{"/{$}": "/", "/moments": "/moments?q=lighthouse", "/items/{id}": "/items/" + url.PathEscape(c.clip),
		"/jobs": "/jobs", "/jobs/{id}": "/jobs/job-pub",
		"/storage": "/storage", "/storage/{id}": "/storage/pub", "/upload": "/upload",
		"/compilations": "/compilations", "/compilations/{id}": "/compilations/" + compilation,
		"/saved":  "/saved",
		"/people": "/people", "/people/{id}": "/people/" + c.person(),
		"/admin/users": "/admin/users", "/admin/groups": "/admin/groups", "/admin/roles": "/admin/roles",
		"/admin/keys": "/admin/keys", "/admin/extractors": "/admin/extractors"}
	none := c.signInAs("none@example.com")
	holders := map[string]*http.Cookie{}
	for _, rt := range c.ui.Routes() {
		if rt.Scope == "" {
			t.Errorf("%s %s has no scope", rt.Method, rt.Pattern)
			continue
		}
		if rt.Scope == ScopePublic {
			continue
		}
		if !strings.Contains(catalogue, `"`+rt.Scope+`"`) {
			t.Errorf("%s %s: scope %q is not in the api's catalogue", rt.Method, rt.Pattern, rt.Scope)
		}
		target, ok := targets[rt.Pattern]
		if !ok {
			t.Errorf("no test target for %s", rt.Pattern)
			continue
		}
		body := c.page(target, none, http.StatusForbidden)
		if !strings.Contains(body, rt.Scope) || strings.Contains(body, "clip.mp4") {
			t.Errorf("403 page of %s: %.500s", target, body)
		}
		holder, ok := holders[rt.Scope]
		if !ok {
			holder = c.signInAs(strings.ReplaceAll(rt.Scope, ":", "-")+"@example.com", rt.Scope)
			holders[rt.Scope] = holder
		}
		c.page(target, holder, http.StatusOK)
	}
	// Unknown paths under / stay the api's JSON 404.
	if r := c.browse("GET", "/nope", none, nil); r.Code != 404 || !strings.Contains(r.Body.String(), `"route_not_found"`) {
		t.Fatalf("unknown path: %d %s", r.Code, r.Body)
	}
}

func (c *corpus) signInAs(email string, scopes ...string) *http.Cookie {
	c.t.Helper()
	c.user(email, scopes...)
	return c.signIn(email, userPassword)
}

func httptestGet(target string) *http.Request {
	req, _ := http.NewRequest("GET", target, nil)
	req.RemoteAddr = "192.0.2.1:1234"
	return req
}

func authed(req *http.Request, token string) *http.Request {
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}

// A user who sees only the public archive finds nothing of the vault on
// the search page, in moments, or by the item's URL (the 404 page of an
// unknown id, word for word); a member of the vault's group sees it.
func TestPagesKeepVisibility(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	scopes := []string{"search:read", "items:read", "segments:read", "captions:read"}
	outsider := c.signInAs("out@example.com", scopes...)
	memberID := c.user("in@example.com", scopes...)
	c.apiCall("PUT", "/api/data/v3/users/"+memberID+"/groups/"+c.group, c.adminToken, nil, 200)
	member := c.signIn("in@example.com", userPassword)

	for _, target := range []string{"/", "/?q=lighthouse", "/?q=secret", "/?f=location:Vault", "/?view=list&q=plan", "/moments?q=secret"} {
		body := c.page(target, outsider, http.StatusOK)
		for _, leak := range []string{"secret_plan", "Vault", c.secret} {
			if strings.Contains(body, leak) && !(leak == "Vault" && strings.Contains(target, "Vault")) {
				t.Errorf("%s shows %q to an outsider", target, leak)
			}
		}
	}
	if body := c.page("/?q=lighthouse", outsider, http.StatusOK); !strings.Contains(body, "budget.pdf") || !strings.Contains(body, "clip.mp4") {
		t.Errorf("the outsider's own results are missing: %.3000s", body)
	}
	hidden := c.page("/items/"+url.PathEscape(c.secret), outsider, http.StatusNotFound)
	unknown := c.page("/items/no-such-item", outsider, http.StatusNotFound)
	if hidden != unknown || strings.Contains(hidden, "secret") {
		t.Errorf("a hidden item's page differs from an unknown one's:\n%s\n---\n%s", hidden, unknown)
	}
	// Nor through the api with the page's cookie.
	if r := c.browse("GET", "/api/data/items/"+url.PathEscape(c.secret), outsider, nil); r.Code == 200 {
		t.Errorf("the api shows the hidden item to the cookie: %d", r.Code)
	}

	if body := c.page("/?q=secret", member, http.StatusOK); !strings.Contains(body, "secret_plan.txt") || !strings.Contains(body, "Vault / media") {
		t.Errorf("a member does not find the vault's file: %.3000s", body)
	}
	if body := c.page("/items/"+url.PathEscape(c.secret), member, http.StatusOK); !strings.Contains(body, "secret lighthouse plan") {
		t.Errorf("a member's item page lacks the text: %.3000s", body)
	}
}

// Untrusted text (a file name, an EXIF comment, captions, document text,
// highlights of them) is written as text on every page.
func TestHostileTextIsText(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	admin := c.signIn(adminEmail, adminPassword)
	escaped := html.EscapeString(hostileName)
	for _, target := range []string{"/", "/?q=onerror", "/?q=img&view=list", "/items/" + url.PathEscape(c.hostile), "/items/" + url.PathEscape(c.pdf), "/items/" + url.PathEscape(c.clip)} {
		body := c.page(target, admin, http.StatusOK)
		for _, raw := range []string{"<img src=x", "<img src=y", "<script>alert", "<b>beam"} {
			if strings.Contains(body, raw) {
				t.Errorf("%s: raw markup %q in the page", target, raw)
			}
		}
		if strings.HasPrefix(target, "/?") || target == "/" || strings.Contains(target, url.PathEscape(c.hostile)) {
			if !strings.Contains(body, escaped) && !strings.Contains(body, "&lt;img src=x onerror=alert(1)&gt;") {
				t.Errorf("%s: the hostile name is not shown as text: %.4000s", target, body)
			}
		}
	}
	// A highlight marks the match and escapes the rest.
	body := c.page("/?q=keeper", admin, http.StatusOK)
	if !strings.Contains(body, "<mark>keeper</mark>") || !strings.Contains(body, "&lt;img src=y onerror=alert") {
		t.Errorf("highlighted fragment: %.4000s", body)
	}
}
