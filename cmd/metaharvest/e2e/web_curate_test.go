package e2e

import (
	"os"
	"strings"
	"testing"
	"time"
)

// curateEnv is what the sections of the run-and-curate browser test share:
// one platform (api and worker) with the web samples harvested, the admin's
// API client, a browser signed in as the admin, and a second user.
type curateEnv struct {
	t        *testing.T
	p        *platform
	c        *client // the admin's API client
	b        *browser
	samples  webSamples
	chromium string
	axe      string // axe-core's source
	shots    string // where screenshots go
	// editor is a user with a role that reads and searches but may not
	// administer (editor@example.com, password editor-password-1), in
	// the archive's group.
	editorEmail, editorPassword, editorRole string
}

// curateSections are the web UI's run-and-curate screens, each tested in its
// file as a person uses it. WEB_SECTIONS=jobs,storage runs only those.
var curateSections = []struct {
	name string
	run  func(e *curateEnv)
}{
	{"jobs", curateJobs},
	{"storage", curateStorage},
	{"collab", curateCollab},
	{"saved", curateSaved},
	{"admin", curateAdmin},
	{"people", curatePeople},
}

// The web UI's second part in headless Chromium: harvests and jobs,
// storage and uploads, comments, compilations, custom fields, saved
// searches, multi-select and administration, against a real platform.
func TestWebUIRunAndCurateInBrowser(t *testing.T) {
	t.Parallel()
	chromium, axe, shots := browserTools(t)
	p, c, samples, archiveGroup := webPlatform(t)

	role := c.call("POST", "/api/data/roles", map[string]any{"name": "Editors", "scopes": []string{"search:read", "items:read",
		"segments:read", "captions:read", "activity:read", "locations:read", "containers:read", "fields:read", "fielddata:read",
		"fielddata:write", "comments:read", "comments:write", "compilations:read", "compilations:write",
		"savedsearches:read", "savedsearches:write"}}, 201)["id"].(string)
	editor := c.call("POST", "/api/data/users", map[string]any{"email": "editor@example.com", "password": "editor-password-1",
		"role_id": role, "first_name": "Ed", "last_name": "Itor"}, 201)["id"].(string)
	c.call("PUT", "/api/data/v3/users/"+editor+"/groups/"+archiveGroup, nil, 200)

	b := newBrowser(t, chromium, c.base)
	b.signIn("admin@example.com", "ops-password-1")
	b.clean("sign in")
	e := &curateEnv{t: t, p: p, c: c, b: b, samples: samples, chromium: chromium, axe: axe, shots: shots,
		editorEmail: "editor@example.com", editorPassword: "editor-password-1", editorRole: role}

	only := map[string]bool{}
	for _, s := range strings.Split(os.Getenv("WEB_SECTIONS"), ",") {
		if s = strings.TrimSpace(s); s != "" {
			only[s] = true
		}
	}
	for _, s := range curateSections {
		if len(only) > 0 && !only[s.name] {
			continue
		}
		began := time.Now()
		s.run(e)
		t.Logf("the %s section took %s", s.name, time.Since(began).Round(time.Millisecond))
		if t.Failed() {
			t.Fatalf("the %s section failed", s.name)
		}
	}
	if shots != "" {
		t.Logf("screenshots in %s", shots)
	}
}

// page opens path in the admin's browser, checks it with axe-core and for
// horizontal scrolling, and takes its screenshot as name.
func (e *curateEnv) page(path, name string) {
	e.t.Helper()
	e.b.open(path)
	e.check(name)
}

// check runs axe-core and the scroll check on the page as it is now, and
// takes its screenshot.
func (e *curateEnv) check(name string) {
	e.t.Helper()
	e.b.accessible(name, e.axe)
	e.b.noHorizontalScroll(name)
	e.b.screenshot(e.shots, name)
}

// editor is a browser signed in as the editor (who may not administer).
func (e *curateEnv) editor() *browser {
	e.t.Helper()
	v := newBrowser(e.t, e.chromium, e.c.base)
	v.signIn(e.editorEmail, e.editorPassword)
	return v
}
