package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/testproc"
)

// referenceNames is the extractor list a client of the reference sends
// (issue 23): only the reference's API names, none of ours (no text).
var referenceNames = []string{"mime_type", "hashes", "csv", "json", "html", "xml", "pdf", "document_pages", "tokens",
	"captions", "caption_files", "exiv2", "mediainfo", "audioinfo", "thumbnailer", "video_main_frames", "volumedetect"}

// A client that harvests with override_extractors and only the reference's
// names finds the words of a plain-text file: tokens needs text, so the
// job runs text too (its activity says so), and a search for a word found
// only inside the file hits it, highlights the word and counts it as text
// content.
func TestReferenceNamesReadTextFiles(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	const word = "quillwhistle"
	if err := os.WriteFile(filepath.Join(root, "notes", "minutes.txt"),
		[]byte("Minutes of the meeting.\nThe committee agreed on the "+word+" plan for next spring.\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	addr := testproc.FreeAddr(t)
	apiProc := testproc.Start(t, "api", p.env("HTTP_ADDR="+addr, "ADMIN_EMAIL=admin@example.com", "ADMIN_PASSWORD=e2e-password-1"))
	testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
	c := &client{t: t, base: "http://" + addr}
	waitReady(t, c.base, apiProc)
	c.token = c.call("POST", "/api/login", map[string]string{"email": "admin@example.com", "password": "e2e-password-1"}, 200)["token"].(string)

	locID := c.call("POST", "/api/data/v3/locations", map[string]any{"kind": "filesystem", "name": "Notes",
		"config": map[string]any{"path": root}}, 201)["id"].(string)
	ctrID := c.call("GET", "/api/data/locations/"+locID+"/containers", nil, 200)["containers"].([]any)[0].(map[string]any)["id"].(string)
	req := c.call("POST", "/api/control/harvest", map[string]any{"location_id": locID, "container_id": ctrID,
		"extractors": referenceNames, "override_extractors": true}, 202)["request_id"].(string)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st := c.call("GET", "/api/control/harvest/"+req, nil, 200)
		if st["state"] == "done" {
			break
		}
		if st["state"] == "failed" || st["state"] == "cancelled" || time.Now().After(deadline) {
			t.Fatalf("harvest: %v", st)
		}
		time.Sleep(100 * time.Millisecond)
	}
	ran := map[string]float64{}
	for _, e := range c.call("GET", "/api/data/v3/activity/request/"+req+"/extractors", nil, 200)["extractors"].([]any) {
		m := e.(map[string]any)
		ran[m["name"].(string)] = m["num_errors"].(float64)
	}
	if errs, ok := ran["text"]; !ok || errs != 0 {
		t.Errorf("text in the job's activity: %v, %v errors (all: %v)", ok, errs, ran)
	}
	if errs, ok := ran["tokens"]; !ok || errs != 0 {
		t.Errorf("tokens in the job's activity: %v, %v errors (all: %v)", ok, errs, ran)
	}

	deadline = time.Now().Add(time.Minute)
	for {
		r := c.call("POST", "/api/data/search", map[string]any{"query": word, "hit_counts": map[string]any{}}, 200)
		if r["total_hits"].(float64) == 1 {
			res := r["results"].([]any)[0].(map[string]any)
			found := false
			for _, h := range res["highlight"].([]any) {
				h := h.(map[string]any)
				for _, f := range h["fragments"].([]any) {
					found = found || (h["field"] == "text.text" && strings.Contains(f.(string), "<em>"+word+"</em>"))
				}
			}
			if !found {
				t.Errorf("no text.text highlight of %s: %v", word, res["highlight"])
			}
			if hc, _ := r["hit_counts"].(map[string]any); hc["text_content"] != 1.0 {
				t.Errorf("hit_counts: %v, want text_content 1", r["hit_counts"])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("search for a word of the text file: %v", r)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
