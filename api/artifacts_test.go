package api

import (
	"os"
	"path/filepath"
	"testing"
)

const artifactPrefix = "/api/data/artifacts/"

func TestArtifactServing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "pub", "priv"))["id"].(string)
	pub := e.insertItem(locID, "pub", "a.mp4")
	priv := e.insertItem(locID, "priv", "b.mp4")
	dir := filepath.Join(e.cfg.DataDir, "artifacts")
	writeFile(t, filepath.Join(dir, "th", pub, "thumb.png"), "png bytes")
	writeFile(t, filepath.Join(dir, "th", priv, "thumb.png"), "private png")
	e.insertArtifact(pub, "th/"+pub+"/thumb.png")
	e.insertArtifact(priv, "th/"+priv+"/thumb.png")
	// A row whose file is missing, one whose file is a symlink out of the
	// artifacts directory, and a file without a row.
	e.insertArtifact(pub, "th/"+pub+"/missing.png")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	writeFile(t, outside, "secret")
	if err := os.Symlink(outside, filepath.Join(dir, "th", pub, "link.png")); err != nil {
		t.Fatal(err)
	}
	e.insertArtifact(pub, "th/"+pub+"/link.png")
	writeFile(t, filepath.Join(dir, "th", pub, "norow.png"), "no row")

	r := e.doPath("GET", artifactPrefix, "th/"+pub+"/thumb.png", e.adminToken, nil, "").status(200)
	if string(r.Body) != "png bytes" || r.Head.Get("Content-Type") != "image/png" || r.Head.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("served %q as %q", r.Body, r.Head.Get("Content-Type"))
	}

	g := e.createGroup("Private")
	e.do("PUT", "/api/data/containers", e.adminToken, map[string]any{"id": e.containerOf(locID, "priv"), "location_id": locID,
		"enabled": false, "groups": []string{g}}).status(200)
	_, tok := e.userWithScopes("art@example.com", "items:read")
	e.doPath("GET", artifactPrefix, "th/"+pub+"/thumb.png", tok, nil, "").status(200)
	e.doPath("GET", artifactPrefix, "th/"+priv+"/thumb.png", tok, nil, "").status(403)

	for _, p := range []string{"th/" + pub + "/missing.png", "th/" + pub + "/link.png", "th/" + pub + "/norow.png", "nope.png"} {
		if r := e.doPath("GET", artifactPrefix, p, e.adminToken, nil, ""); r.Code != 404 {
			t.Errorf("%s: %d %s", p, r.Code, r.Body)
		}
	}
	for _, p := range []string{
		"../uploadstore/x", "th/../../etc/passwd", "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "th%2f..%2f..%2fx",
		"/etc/passwd", "th//x.png", "th/%00.png", "th%5c..%5cx", "",
	} {
		if r := e.doPath("GET", artifactPrefix, p, e.adminToken, nil, ""); r.Code != 400 && r.Code != 404 {
			t.Errorf("%q: %d %s", p, r.Code, r.Body)
		}
	}

	// The artifacts of a deleted item are gone with it.
	e.do("DELETE", "/api/data/items/"+pub, e.adminToken, nil).status(200)
	e.doPath("GET", artifactPrefix, "th/"+pub+"/thumb.png", e.adminToken, nil, "").status(404)
	if _, err := os.Stat(filepath.Join(dir, "th", pub, "thumb.png")); !os.IsNotExist(err) {
		t.Fatal("artifact file of a deleted item left")
	}
	if _, err := os.Stat(outside); err != nil {
		t.Fatal("removing artifacts followed a symlink out of the directory")
	}
}
