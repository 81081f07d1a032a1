package e2e

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/testproc"
)

const (
	walkthroughBegin = "<!-- walkthrough: begin"
	walkthroughEnd   = "<!-- walkthrough: end -->"
	readmeBase       = "http://localhost:8080"
)

// walkthroughScript returns the shell blocks of README.md's first-hour
// walkthrough, in order.
func walkthroughScript(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	b, e := strings.Index(text, walkthroughBegin), strings.Index(text, walkthroughEnd)
	if b < 0 || e < b {
		t.Fatal("README.md has no walkthrough markers")
	}
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(text[b:e], -1)
	if len(blocks) < 3 {
		t.Fatalf("walkthrough: %d shell blocks", len(blocks))
	}
	var script strings.Builder
	for _, m := range blocks {
		script.WriteString(m[1])
		script.WriteString("\n")
	}
	return script.String()
}

// The README's first hour, run as written against a started platform (one
// `metaharvest all`, as make run starts it): log in with the password file,
// make a media folder, create the location, list its containers, harvest
// one, watch the job until done, see the repeated harvest skipped, search,
// open an item, fetch its thumbnail when the build has a thumbnail
// extractor, upload a file, add a role, a user and an API key.
func TestReadmeWalkthrough(t *testing.T) {
	t.Parallel()
	script := walkthroughScript(t)
	if strings.Count(script, readmeBase) != 1 {
		t.Fatalf("the walkthrough should name %s once (MH=...), found %d", readmeBase, strings.Count(script, readmeBase))
	}
	p := newPlatform(t)
	addr := testproc.FreeAddr(t)
	const password = "walkthrough-password-1"
	proc := testproc.Start(t, "all", p.env("HTTP_ADDR="+addr, "ADMIN_EMAIL=admin@example.com", "ADMIN_PASSWORD="+password))
	base := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) || proc.Exited() {
			t.Fatalf("platform not ready: %v\n%s", err, proc.Output())
		}
		time.Sleep(50 * time.Millisecond)
	}

	dir := t.TempDir() // the clone's root, where make run keeps data/.admin-password
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data", ".admin-password"), []byte(password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	full := "set -euo pipefail\n" + strings.Replace(script, readmeBase, base, 1) +
		"\necho \"::vars $LOC $CTR $REQ $ITEM\"\n"
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", full)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("walkthrough: %v\n%s", err, out.String())
	}
	output := out.String()
	m := regexp.MustCompile(`::vars (\S+) (\S+) (\S+) (\S+)`).FindStringSubmatch(output)
	if m == nil {
		t.Fatalf("walkthrough did not capture its ids:\n%s", output)
	}
	locID, ctrID, reqID, itemID := m[1], m[2], m[3], m[4]
	for _, id := range []string{locID, ctrID, reqID, itemID} {
		if id == "null" || id == "" {
			t.Fatalf("an id was not captured (%v):\n%s", m[1:], output)
		}
	}

	// Check what the walkthrough did, through the API.
	c := &client{t: t, base: base}
	c.token = c.call("POST", "/api/login", map[string]string{"email": "admin@example.com", "password": password}, 200)["token"].(string)
	st := c.call("GET", "/api/control/harvest/"+reqID, nil, 200)
	counts := st["counts"].(map[string]any)
	if st["state"] != "done" || counts["walked"].(float64) != 2 || counts["harvested"].(float64) != 2 || counts["failed"].(float64) != 0 {
		t.Fatalf("job after the walkthrough: %v\n%s", st, output)
	}
	if !strings.Contains(output, `"skipped": "recently_walked"`) {
		t.Errorf("the repeated harvest was not reported skipped:\n%s", output)
	}
	inLocation := c.call("POST", "/api/data/search", map[string]any{"filters": map[string]any{
		"terms": []map[string]any{{"field": "location_id", "value": locID}}}, "only": []string{"name"}}, 200)
	if inLocation["total_hits"].(float64) != 2 {
		t.Errorf("files of the location in the index (the root file must not be): %v", inLocation)
	}
	item := c.call("GET", "/api/data/items/"+itemID, nil, 200)
	if item["name"] != "clip.mp4" || item["container_id"] != ctrID {
		t.Errorf("the item the walkthrough opened: %v", item)
	}
	// gm-api-python's "harvested" query finds the harvested files: two in
	// the folder, and the upload once its harvest is indexed.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		extracted := c.call("POST", "/api/data/search", map[string]any{"filters": map[string]any{
			"exists": []map[string]any{{"field": "extracted", "value": true}}}}, 200)
		if n := extracted["total_hits"].(float64); n == 3 {
			break
		} else if n > 3 || time.Now().After(deadline) {
			t.Fatalf("exists extracted: %v", n)
		}
	}
	if ok, _ := extractors.Default.Available("thumbnailer"); ok {
		b, err := os.ReadFile(filepath.Join(dir, "thumbnail.jpg"))
		if err != nil || len(b) < 3 || !bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff}) {
			t.Errorf("thumbnail.jpg: %v (%d bytes)\n%s", err, len(b), output)
		}
	} else if !strings.Contains(output, "no thumbnail") {
		t.Errorf("no thumbnail extractor, and the walkthrough did not say so:\n%s", output)
	}
	if !strings.Contains(output, `"email": "ed@example.com"`) || !strings.Contains(output, `"total_files"`) {
		t.Errorf("the access part of the walkthrough did not finish:\n%s", output)
	}
}
