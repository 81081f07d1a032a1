package web

import (
	"net/http"

	"github.com/metaharvest/metaharvest/internal/access"
)

// uploadPage is GET /upload: files dropped on the page or chosen with its
// file input go to the upload store, each with its progress
// (js/upload.js posts them to /files/uploadstore/<container>/<name>; the
// api records the item and starts its harvest). The size limit comes from
// the platform summary when the user may read it (summary:read); the
// api's 413 says it otherwise.
type uploadPage struct {
	base
	Container  string
	CanSummary bool
}

// uploadContainer is the container uploads go to unless the user names
// another (the api's own choice for a path of one segment).
const uploadContainer = "uploads"

func (u *UI) uploadPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	page := &uploadPage{base: u.base(r, p, "Upload"), Container: uploadContainer, CanSummary: p.Can("summary:read")}
	page.Nav = "upload"
	page.Styles = []string{u.assets.url("css/storage.css")}
	page.Scripts = []string{u.assets.url("js/upload.js")}
	u.render(w, r, http.StatusOK, "upload", page)
	return nil
}
