package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/testproc"
)

// teach sends a person's name and pictures as a client does (multipart),
// checks the status and the response against openapi.yaml, and returns
// the decoded response.
func (c *client) teach(path, name string, pictures map[string][]byte, want int) map[string]any {
	c.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if name != "" {
		mw.WriteField("name", name)
	}
	for file, b := range pictures {
		w, err := mw.CreateFormFile("pictures", file)
		if err != nil {
			c.t.Fatal(err)
		}
		w.Write(b)
	}
	mw.Close()
	raw := body.Bytes()
	req, _ := http.NewRequest(http.MethodPost, c.base+path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+c.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("POST %s: %v", path, err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		c.t.Fatalf("POST %s: %d, want %d: %s", path, res.StatusCode, want, out)
	}
	validate(c.t, req, raw, res, out)
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		c.t.Fatalf("POST %s: %v: %s", path, err, out)
	}
	return m
}

// TestTeachAPersonThroughTheAPI takes the path a client takes, with the
// processes users run: a person taught from a picture through the api
// (which keeps it in the artifact store), described by a worker process
// with the vision sidecar; a folder harvested afterwards names the person
// from its first harvest, search finds their picture by their name, and
// a stranger's picture is not theirs.
func TestTeachAPersonThroughTheAPI(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	c, _ := p.startAPI()
	testproc.Start(t, "worker", p.env(testproc.VisionSidecar()))
	sample := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "extractors", "faces", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	taught := c.teach("/api/data/people", "Ada Lindqvist", map[string][]byte{"ada.jpg": sample("facematch-man-1.jpg")}, 201)
	person := taught["person"].(map[string]any)["person_id"].(string)
	ref := func() map[string]any {
		refs := c.call("GET", "/api/data/people/"+person+"/references", nil, 200)["references"].([]any)
		if len(refs) != 1 {
			t.Fatalf("references: %v", refs)
		}
		return refs[0].(map[string]any)
	}
	for deadline := time.Now().Add(3 * time.Minute); ref()["status"] == "pending"; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the reference picture was never described: %v", ref())
		}
	}
	if r := ref(); r["status"] != "ready" {
		t.Fatalf("the reference picture: %v", r)
	}

	root := t.TempDir()
	dir := filepath.Join(root, "portraits")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for file, sampleName := range map[string]string{"ada-again.jpg": "facematch-man-2.jpg", "stranger.png": "astronaut.png"} {
		if err := os.WriteFile(filepath.Join(dir, file), sample(sampleName), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	locID := c.call("POST", "/api/data/v3/locations", map[string]any{"kind": "filesystem", "name": "Portraits",
		"config": map[string]any{"path": root}}, 201)["id"].(string)
	ctrID := c.call("GET", "/api/data/locations/"+locID+"/containers", nil, 200)["containers"].([]any)[0].(map[string]any)["id"].(string)
	c.call("POST", "/api/control/harvest", map[string]any{"location_id": locID, "container_id": ctrID,
		"extractors": []string{"vendor_faces"}, "override_extractors": true}, 202)

	byName := map[string]any{"query": "Lindqvist", "only": []string{"name"}}
	var names []string
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		names = nil
		for _, h := range c.call("POST", "/api/data/search", byName, 200)["results"].([]any) {
			names = append(names, h.(map[string]any)["result"].(map[string]any)["name"].(string))
		}
		if len(names) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(names) != 1 || names[0] != "ada-again.jpg" {
		t.Fatalf("search for the taught name finds %v, want only ada-again.jpg", names)
	}
	got := c.call("GET", "/api/data/people/"+person, nil, 200)
	if items := got["items"].([]any); len(items) != 1 {
		t.Errorf("the taught person's items: %v", items)
	}
}
