package web

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/models"
)

// The storage list shows the locations a user may see with their kind,
// settings and container count; never a secret key; the create form only
// with locations:write; a 403 page without locations:read.
func TestStoragePage(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	c.must(c.db.Create(&models.Location{ID: "s3loc", Kind: "s3", Name: hostileName, Config: models.MustJSON(map[string]string{
		"endpoint": "http://minio.example:9000", "bucket": "media", "access_key_id": "AKIAVISIBLE",
		"secret_access_key": "TOPSECRETVALUE"})}).Error)
	c.must(c.db.Create(&models.Container{ID: models.ContainerID("s3loc", "media"), LocationID: "s3loc", Name: "media"}).Error)

	admin := c.signIn(adminEmail, adminPassword)
	body := c.page("/storage", admin, http.StatusOK)
	for _, want := range []string{"Public archive", "Vault", "Upload store", "http://minio.example:9000", "AKIAVISIBLE",
		html.EscapeString(hostileName), `id="new-location"`, `<option value="filesystem">`, `<option value="s3">`,
		`data-kind="s3" hidden disabled`, `name="secret_access_key" type="password"`, "/assets/js/storage.js"} {
		if !strings.Contains(body, want) {
			t.Errorf("the admin's storage page lacks %q", want)
		}
	}
	for _, bad := range []string{"TOPSECRETVALUE", hostileName, `<option value="uploadstore">`} {
		if strings.Contains(body, bad) {
			t.Errorf("the storage page shows %q", bad)
		}
	}
	if !strings.Contains(body, `<td class="num">1</td>`) {
		t.Errorf("no container count: %.3000s", body)
	}

	reader := c.signInAs("reader@example.com", "locations:read")
	body = c.page("/storage", reader, http.StatusOK)
	if strings.Contains(body, "new-location") || strings.Contains(body, "Vault") {
		t.Errorf("a reader outside the vault's group sees the form or the vault: %.3000s", body)
	}
	if !strings.Contains(body, "Public archive") || !strings.Contains(body, `aria-current="page">Storage`) {
		t.Errorf("a reader's storage page lacks the archive or the nav: %.3000s", body)
	}
	none := c.signInAs("nobody@example.com", "search:read")
	if body := c.page("/storage", none, http.StatusForbidden); !strings.Contains(body, "locations:read") {
		t.Errorf("403 page: %.500s", body)
	}
	// The api agrees: the reader may not create.
	tok := c.token("reader@example.com", userPassword)
	c.apiCall("POST", "/api/data/v3/locations", tok, map[string]any{"kind": "filesystem", "name": "x", "config": map[string]any{"path": "/tmp"}}, http.StatusForbidden)
}

// A location's page: its settings, containers with live harvest on or off
// (the toggle with containers:write), the edit form with its version and
// delete with locations:write (not for the built-in upload store); a
// location outside the user's groups is the unknown id's 404 page.
func TestLocationPage(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	c.must(c.db.Create(&models.Location{ID: "s3loc", Kind: "s3", Name: "Bucket", Config: models.MustJSON(map[string]string{
		"endpoint": "http://minio.example:9000", "path_style": "true", "secret_access_key": "TOPSECRETVALUE", "access_key_id": "AK"})}).Error)
	c.must(c.db.Create(&models.Container{ID: models.ContainerID("pub", hostileName), LocationID: "pub", Name: hostileName, Enabled: true}).Error)
	admin := c.signIn(adminEmail, adminPassword)

	body := c.page("/storage/pub", admin, http.StatusOK)
	for _, want := range []string{"<h1", "Public archive", `id="edit-location"`, `data-version="`, `data-kind="filesystem"`,
		`id="edit-filesystem-path" name="path"`, `value="/x"`, `id="delete-really"`, "Turn live harvest on", "Turn live harvest off",
		html.EscapeString(hostileName), `data-enabled="true"`, `data-enabled="false"`, "/assets/js/storage.js"} {
		if !strings.Contains(body, want) {
			t.Errorf("the location page lacks %q", want)
		}
	}
	if strings.Contains(body, hostileName) {
		t.Error("a container's name is markup on the location page")
	}
	body = c.page("/storage/s3loc", admin, http.StatusOK)
	if strings.Contains(body, "TOPSECRETVALUE") || !strings.Contains(body, `name="path_style" type="checkbox" data-config="path_style" data-type="boolean" checked`) ||
		!strings.Contains(body, "Leave it empty to keep the stored secret") {
		t.Errorf("the s3 location's page: %.4000s", body)
	}
	if body := c.page("/storage/uploadstore", admin, http.StatusOK); strings.Contains(body, "delete-really") || !strings.Contains(body, `href="/upload"`) {
		t.Errorf("the built-in upload store offers delete, or no upload link: %.3000s", body)
	}

	reader := c.signInAs("reader@example.com", "locations:read", "containers:read")
	body = c.page("/storage/pub", reader, http.StatusOK)
	if strings.Contains(body, "edit-location") || strings.Contains(body, "delete-really") || strings.Contains(body, "Turn live harvest") {
		t.Errorf("a reader may change the location: %.3000s", body)
	}
	if !strings.Contains(body, html.EscapeString(hostileName)) {
		t.Errorf("a reader does not see the containers: %.3000s", body)
	}
	hidden := c.page("/storage/sec", reader, http.StatusNotFound)
	unknown := c.page("/storage/nope", reader, http.StatusNotFound)
	if hidden != unknown || strings.Contains(hidden, "Vault") {
		t.Errorf("a hidden location's page differs from an unknown one's")
	}
	onlyLocations := c.signInAs("loc@example.com", "locations:read")
	if body := c.page("/storage/pub", onlyLocations, http.StatusOK); strings.Contains(body, "containers-title") {
		t.Error("containers shown without containers:read")
	}
	none := c.signInAs("nobody@example.com", "search:read")
	c.page("/storage/pub", none, http.StatusForbidden)

	memberID := c.user("member@example.com", "locations:read", "containers:read")
	c.apiCall("PUT", "/api/data/v3/users/"+memberID+"/groups/"+c.group, c.adminToken, nil, 200)
	member := c.signIn("member@example.com", userPassword)
	if body := c.page("/storage/"+url.PathEscape("sec"), member, http.StatusOK); !strings.Contains(body, "Vault") {
		t.Errorf("a member of the vault's group does not see it: %.2000s", body)
	}
}

// The upload page needs uploads:write; it offers the file input and reads
// the limit from the platform summary only for users who may.
func TestUploadPage(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	uploader := c.signInAs("up@example.com", "uploads:write")
	body := c.page("/upload", uploader, http.StatusOK)
	for _, want := range []string{`id="upload-files" name="file" type="file" multiple`, `id="dropzone"`, `data-summary=""`,
		`aria-current="page">Upload`, "/assets/js/upload.js"} {
		if !strings.Contains(body, want) {
			t.Errorf("the upload page lacks %q", want)
		}
	}
	admin := c.signIn(adminEmail, adminPassword)
	if body := c.page("/upload", admin, http.StatusOK); !strings.Contains(body, `data-summary="1"`) {
		t.Error("the admin's upload page does not read the summary")
	}
	reader := c.signInAs("reader@example.com", "locations:read")
	if body := c.page("/upload", reader, http.StatusForbidden); !strings.Contains(body, "uploads:write") {
		t.Errorf("403 page: %.500s", body)
	}
	if body := c.page("/storage", reader, http.StatusOK); strings.Contains(body, `href="/upload"`) {
		t.Error("the nav links to the upload page for a user who may not upload")
	}
}
