package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

// The assets (the stylesheet, and the scripts web-client writes under
// assets/js) are embedded and served under /assets/. Pages name them with
// ?v=<hash of every asset>, which a browser may keep for a year; without
// it (the scripts' own imports) they are revalidated by ETag.
//
//go:embed assets
var assetFS embed.FS

type asset struct {
	body  []byte
	etag  string
	ctype string
}

type assetSet struct {
	files   map[string]asset // by path below assets/
	version string
}

func loadAssets() (*assetSet, error) {
	set := &assetSet{files: map[string]asset{}}
	all := sha256.New()
	err := fs.WalkDir(assetFS, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := assetFS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		rel := strings.TrimPrefix(p, "assets/")
		ctype := mime.TypeByExtension(path.Ext(p))
		switch path.Ext(p) {
		case ".js":
			ctype = "text/javascript; charset=utf-8"
		case ".css":
			ctype = "text/css; charset=utf-8"
		}
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		set.files[rel] = asset{body: b, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, ctype: ctype}
		all.Write([]byte(rel))
		all.Write(sum[:])
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load assets: %w", err)
	}
	set.version = hex.EncodeToString(all.Sum(nil)[:6])
	return set, nil
}

// url is the versioned address of an asset (path below assets/).
func (a *assetSet) url(p string) string { return "/assets/" + p + "?v=" + a.version }

// serveAsset answers GET /assets/<path> (public: the files hold nothing
// secret, and the sign-in page needs the stylesheet).
func (u *UI) serveAsset(w http.ResponseWriter, r *http.Request) {
	a, ok := u.assets.files[strings.TrimPrefix(r.URL.Path, "/assets/")]
	if !ok {
		w.Header().Set("Cache-Control", "no-store")
		u.fail(w, r, nil, errNotFound)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("ETag", a.etag)
	if r.URL.Query().Get("v") == u.assets.version {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}
