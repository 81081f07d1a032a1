package api

import (
	"bytes"
	"io/fs"
	"mime/multipart"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/models"
)

const uploadPrefix = "/files/uploadstore/"

func (e *env) upload(token, path, body string) *response {
	e.t.Helper()
	return e.doPath("POST", uploadPrefix, path, token, []byte(body), "application/octet-stream")
}

// filesUnder lists every file and directory below dir (relative paths).
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

func TestUploadCreatesItemAndStartsHarvest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.upload(e.adminToken, "photos/2024/note.txt", "hello world").status(201).json()
	ctrID := models.ContainerID("uploadstore", "photos")
	itemID := models.ItemID(ctrID, "2024/note.txt")
	if r["item_id"] != itemID || r["container_id"] != ctrID || r["location_id"] != "uploadstore" ||
		r["path"] != "2024/note.txt" || r["size"] != 11.0 || r["request_id"] == "" {
		t.Fatalf("upload answer %v", r)
	}
	data, err := os.ReadFile(filepath.Join(e.cfg.DataDir, "uploadstore", "photos", "2024", "note.txt"))
	if err != nil || string(data) != "hello world" {
		t.Fatalf("file on disk: %q %v", data, err)
	}
	var item models.Item
	if err := e.db.Where("id = ?", itemID).Take(&item).Error; err != nil {
		t.Fatal(err)
	}
	if item.Size != 11 || item.ETag == "" || item.LastModified == nil || item.Name != "note.txt" || item.DeletedAt != nil {
		t.Fatalf("item row %+v", item)
	}
	if n := e.count(`SELECT count(*) FROM containers WHERE id = ? AND enabled AND location_id = 'uploadstore'`, ctrID); n != 1 {
		t.Fatal("container row missing or not enabled")
	}
	if n := e.count(`SELECT count(*) FROM jobs WHERE request_id = ? AND item_id = ? AND location_id = 'uploadstore'`, r["request_id"], itemID); n != 1 {
		t.Fatal("no job for the returned request id")
	}
	if e.auditCount("item", "upload", itemID) != 1 {
		t.Fatal("no upload audit event")
	}

	// The same path again replaces the file and keeps the item id.
	r2 := e.upload(e.adminToken, "photos/2024/note.txt", "hi").status(201).json()
	if r2["item_id"] != itemID || r2["size"] != 2.0 || r2["request_id"] == r["request_id"] {
		t.Fatalf("re-upload %v", r2)
	}

	// One segment goes to the "uploads" container.
	r3 := e.upload(e.adminToken, "single.bin", "x").status(201).json()
	if r3["container_id"] != models.ContainerID("uploadstore", "uploads") || r3["path"] != "single.bin" {
		t.Fatalf("single segment %v", r3)
	}

	// Multipart: the part named "file" is the content.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("comment", "ignored")
	fw, _ := mw.CreateFormFile("file", "whatever.txt")
	_, _ = fw.Write([]byte("multipart content"))
	_ = mw.Close()
	r4 := e.doPath("POST", uploadPrefix, "docs/m.txt", e.adminToken, body.Bytes(), mw.FormDataContentType()).status(201).json()
	if r4["size"] != float64(len("multipart content")) {
		t.Fatalf("multipart %v", r4)
	}
	if data, _ := os.ReadFile(filepath.Join(e.cfg.DataDir, "uploadstore", "docs", "m.txt")); string(data) != "multipart content" {
		t.Fatalf("multipart file %q", data)
	}
	var nofile bytes.Buffer
	mw = multipart.NewWriter(&nofile)
	_ = mw.WriteField("other", "x")
	_ = mw.Close()
	if r := e.doPath("POST", uploadPrefix, "docs/n.txt", e.adminToken, nofile.Bytes(), mw.FormDataContentType()).status(400); r.field("file") == "" {
		t.Fatalf("multipart without file: %s", r.Body)
	}
}

func TestUploadTooLargeLeavesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.UploadLimitBytes = 10 })
	r := e.upload(e.adminToken, "big/deep/dir/file.bin", "01234567890")
	if r.Code != 413 {
		t.Fatalf("over the limit: %d %s", r.Code, r.Body)
	}
	if left := filesUnder(t, filepath.Join(e.cfg.DataDir, "uploadstore")); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
	if n := e.count(`SELECT count(*) FROM items`) + e.count(`SELECT count(*) FROM jobs`); n != 0 {
		t.Fatal("rows written for a refused upload")
	}
	// Into an existing directory: the directory stays, nothing else.
	e.upload(e.adminToken, "big/ok.bin", "0123456789").status(201)
	e.upload(e.adminToken, "big/new/x.bin", "01234567890").status(413)
	if left := strings.Join(filesUnder(t, filepath.Join(e.cfg.DataDir, "uploadstore")), ","); left != "big,big/ok.bin" {
		t.Fatalf("after a refused upload: %s", left)
	}
}

// Every spelling of a path outside the store, or of a name the store would
// hide, is refused with 400 before anything is written. Paths are sent raw
// in the URL, percent-encodings included.
func TestUploadBadPaths(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, p := range []string{
		"",                      // empty
		"/etc/passwd",           // absolute (//etc/passwd in the URL)
		"../escape.txt",         // parent
		"a/../../escape.txt",    // parent in the middle
		"%2e%2e%2fescape.txt",   // encoded ../
		"%2E%2E/escape.txt",     // encoded .. segment
		"a/%2e%2e%2f%2e%2e%2fx", // encoded, deeper
		"..%2fescape.txt",       // mixed
		"a/./b.txt",             // dot segment
		"a//b.txt",              // empty segment
		"a/b/",                  // trailing slash
		".hidden",               // hidden file
		"a/.git/config",         // hidden segment
		"a%00b.txt",             // NUL
		"a/b%0a.txt",            // newline
		"a/b%1b.txt",            // escape character
		"a%5c..%5cb.txt",        // backslashes
		"%2fetc%2fpasswd",       // encoded absolute
	} {
		r := e.upload(e.adminToken, p, "x")
		if r.Code != 400 || r.errCode() != "bad_path" {
			t.Errorf("POST %q: %d %s", p, r.Code, r.Body)
		}
		r = e.doPath("DELETE", uploadPrefix, p, e.adminToken, nil, "")
		if r.Code != 400 {
			t.Errorf("DELETE %q: %d %s", p, r.Code, r.Body)
		}
	}
	for _, f := range filesUnder(t, e.cfg.DataDir) {
		if f != "uploadstore" {
			t.Fatalf("written: %s", f)
		}
	}
	if n := e.count(`SELECT count(*) FROM items`); n != 0 {
		t.Fatal("items written for bad paths")
	}
}

func TestUploadIgnoredNamesAndDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.UploadIgnorePatterns = append(c.UploadIgnorePatterns, "*.tmp") })
	for _, p := range []string{"Thumbs.db", "a/b/Thumbs.db", "a/x.tmp"} {
		if r := e.upload(e.adminToken, p, "x"); r.Code != 400 || r.errCode() != "ignored_name" {
			t.Errorf("%s: %d %s", p, r.Code, r.Body)
		}
	}
	e.upload(e.adminToken, "a/x.tmp.txt", "x").status(201)

	off := newEnv(t, func(c *config.Config) { c.UploadEnabled = false })
	if r := off.upload(off.adminToken, "a/b.txt", "x"); r.Code != 403 || r.errCode() != "uploads_disabled" {
		t.Fatalf("disabled store: %d %s", r.Code, r.Body)
	}
}

func TestUploadDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.upload(e.adminToken, "clips/a/b.mp4", "video").status(201).json()
	itemID := r["item_id"].(string)
	art := filepath.Join(e.cfg.DataDir, "artifacts", itemID[:2], itemID, "thumb.jpg")
	writeFile(t, art, "jpeg")
	e.insertArtifact(itemID, itemID[:2]+"/"+itemID+"/thumb.jpg")
	e.insertResult(itemID, "mediainfo", "")

	d := e.doPath("DELETE", uploadPrefix, "clips/a/b.mp4", e.adminToken, nil, "").status(200).json()
	if d["item_id"] != itemID || d["deleted"] != true {
		t.Fatalf("delete answer %v", d)
	}
	if _, err := os.Stat(filepath.Join(e.cfg.DataDir, "uploadstore", "clips", "a", "b.mp4")); !os.IsNotExist(err) {
		t.Fatal("file still in the store")
	}
	if _, err := os.Stat(art); !os.IsNotExist(err) {
		t.Fatal("artifact file left")
	}
	if n := e.count(`SELECT count(*) FROM items WHERE id = ? AND deleted_at IS NOT NULL`, itemID); n != 1 {
		t.Fatal("item not soft-deleted")
	}
	if n := e.count(`SELECT count(*) FROM artifacts WHERE item_id = ?`, itemID) + e.count(`SELECT count(*) FROM items WHERE id = ? AND results <> '{}'`, itemID); n != 0 {
		t.Fatal("results or artifacts left")
	}
	e.do("GET", "/api/data/items/"+itemID, e.adminToken, nil).status(404)
	e.doPath("DELETE", uploadPrefix, "clips/a/b.mp4", e.adminToken, nil, "").status(404)
	e.doPath("DELETE", uploadPrefix, "clips/never.mp4", e.adminToken, nil, "").status(404)

	// Uploading again brings the item back under the same id.
	if again := e.upload(e.adminToken, "clips/a/b.mp4", "video2").status(201).json(); again["item_id"] != itemID {
		t.Fatalf("re-upload %v", again)
	}
	e.do("GET", "/api/data/items/"+itemID, e.adminToken, nil).status(200)
}

// A user who cannot see the upload store (it has a group they are not in)
// can neither upload nor delete.
func TestUploadVisibility(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := e.createGroup("Uploaders")
	e.do("PUT", "/api/data/v3/locations/uploadstore", e.adminToken, map[string]any{
		"kind": "uploadstore", "name": "Upload store", "config": map[string]any{"groups": []string{g}}, "version": 0}).status(200)
	uid, tok := e.userWithScopes("up@example.com", "uploads:write")
	e.upload(tok, "a/b.txt", "x").status(403)
	e.upload(e.adminToken, "a/c.txt", "x").status(201)
	e.doPath("DELETE", uploadPrefix, "a/c.txt", tok, nil, "").status(403)
	e.joinGroup(uid, g)
	e.upload(tok, "a/b.txt", "x").status(201)
	e.doPath("DELETE", uploadPrefix, "a/c.txt", tok, nil, "").status(200)
}
