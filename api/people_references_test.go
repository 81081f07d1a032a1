package api

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/store"
)

type referenceAnswer struct {
	Person struct {
		PersonID string `json:"person_id"`
		Name     string `json:"name"`
		IsKnown  bool   `json:"is_known"`
		NumFaces int    `json:"num_faces"`
	} `json:"person"`
	References []struct {
		ReferenceID int64  `json:"reference_id"`
		Status      string `json:"status"`
		Error       string `json:"error"`
		PictureURL  string `json:"picture_url"`
		FaceImgURL  string `json:"face_img_url"`
		CreatedBy   string `json:"created_by"`
	} `json:"references"`
}

// Teaching a person from pictures over the API: the pictures are stored
// and pending until a worker describes them (worker tests describe them
// with the real sidecar); the person is seen by the teacher and
// administrators only until one of its faces is in an item others see.
func TestTeachPersonAPI(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	teacherID, teacher := e.userWithScopes("teacher@example.com", "people:read", "people:write")
	_, third := e.userWithScopes("third@example.com", "people:read", "people:write")
	pngPic, jpegPic := pictureBytes(t, "png"), pictureBytes(t, "jpeg")
	body, ct := multipartBody(t, map[string]string{"name": "  Ada Lovelace "},
		[]formFile{{"pictures", "a.png", pngPic}, {"pictures", "b.jpg", jpegPic}})
	var created referenceAnswer
	e.doRaw("POST", "/api/data/people", teacher, body, ct).status(201).decode(&created)
	ada := created.Person.PersonID
	if created.Person.Name != "Ada Lovelace" || !created.Person.IsKnown || created.Person.NumFaces != 0 || len(created.References) != 2 {
		t.Fatalf("created %+v", created)
	}
	for _, r := range created.References {
		if r.Status != "pending" || r.CreatedBy != teacherID || r.FaceImgURL != "" ||
			r.PictureURL != fmt.Sprintf("/api/data/people/%s/references/%d/picture", ada, r.ReferenceID) {
			t.Errorf("reference %+v", r)
		}
	}
	if e.auditCount("person", "teach", ada) != 1 {
		t.Error("teaching not audited")
	}
	got := e.doRaw("GET", created.References[0].PictureURL, teacher, nil, "").status(200)
	if !bytes.Equal(got.Body, pngPic) || got.Head.Get("Content-Type") != "image/png" {
		t.Errorf("picture: %s, %d bytes", got.Head.Get("Content-Type"), len(got.Body))
	}
	e.do("GET", strings.TrimSuffix(created.References[0].PictureURL, "picture")+"face", teacher, nil).status(404)
	e.do("GET", strings.TrimSuffix(created.References[0].PictureURL, "picture")+"other", teacher, nil).status(404)

	// Seen by the teacher and administrators, not by another user.
	e.do("GET", "/api/data/people/"+ada, teacher, nil).status(200)
	e.do("GET", "/api/data/people/"+ada, e.adminToken, nil).status(200)
	e.do("GET", "/api/data/people/"+ada, third, nil).status(404)
	e.do("GET", "/api/data/people/"+ada+"/references", third, nil).status(404)
	e.do("GET", created.References[0].PictureURL, third, nil).status(404)
	list := e.do("GET", "/api/data/people?named=true", teacher, nil).status(200).json()
	if ids := personIDs(list["people"].([]any)); len(ids) != 1 || ids[0] != ada {
		t.Errorf("teacher's people: %v", ids)
	}
	if n := e.do("GET", "/api/data/people", third, nil).status(200).json()["total"].(float64); n != 0 {
		t.Errorf("another user sees %v persons", n)
	}

	// A worker found no face in the second picture: the reason shows.
	second := created.References[1].ReferenceID
	if err := store.FailedReference(e.db, second, "no face was found in the picture", time.Now()); err != nil {
		t.Fatal(err)
	}
	var listed referenceAnswer
	e.do("GET", "/api/data/people/"+ada+"/references", teacher, nil).status(200).decode(&listed)
	if len(listed.References) != 2 || listed.References[1].Status != "failed" || listed.References[1].Error != "no face was found in the picture" {
		t.Fatalf("references %+v", listed.References)
	}

	// More pictures.
	body, ct = multipartBody(t, nil, []formFile{{"pictures", "c.jpg", jpegPic}})
	var more referenceAnswer
	e.doRaw("POST", "/api/data/people/"+ada+"/references", teacher, body, ct).status(201).decode(&more)
	if len(more.References) != 3 || more.References[2].Status != "pending" {
		t.Fatalf("after adding: %+v", more.References)
	}
	e.doRaw("POST", "/api/data/people/"+ada+"/references", third, body, ct).status(404)

	// Refused: clear 4xx.
	gif := pictureBytes(t, "gif")
	for _, tc := range []struct {
		name   string
		values map[string]string
		files  []formFile
		status int
		field  string
	}{
		{"no name", nil, []formFile{{"pictures", "a.png", pngPic}}, 400, "name"},
		{"no picture", map[string]string{"name": "Bo"}, nil, 400, "pictures"},
		{"a GIF", map[string]string{"name": "Bo"}, []formFile{{"pictures", "a.gif", gif}}, 400, "pictures"},
		{"not a picture", map[string]string{"name": "Bo"}, []formFile{{"pictures", "a.jpg", []byte("hello")}}, 400, "pictures"},
		{"a long name", map[string]string{"name": strings.Repeat("n", 201)}, []formFile{{"pictures", "a.png", pngPic}}, 400, "name"},
		{"too many", map[string]string{"name": "Bo"}, func() []formFile {
			var fs []formFile
			for range 21 {
				fs = append(fs, formFile{"pictures", "a.png", pngPic})
			}
			return fs
		}(), 400, "pictures"},
	} {
		body, ct := multipartBody(t, tc.values, tc.files)
		r := e.doRaw("POST", "/api/data/people", teacher, body, ct)
		if r.Code != tc.status || r.errCode() != "validation_failed" || r.field(tc.field) == "" {
			t.Errorf("%s: %d %s", tc.name, r.Code, r.Body)
		}
	}
	if r := e.do("POST", "/api/data/people", teacher, map[string]any{"name": "Bo"}); r.Code != 400 || r.errCode() != "bad_form" {
		t.Errorf("JSON body: %d %s", r.Code, r.Body)
	}
	big := bytes.Repeat([]byte{0xff}, 11<<20)
	body, ct = multipartBody(t, map[string]string{"name": "Big"}, []formFile{{"pictures", "big.jpg", big}})
	if r := e.doRaw("POST", "/api/data/people", teacher, body, ct); r.Code != 413 {
		t.Errorf("a picture over the body limit: %d %s", r.Code, r.Body)
	}
	if n := e.count(`SELECT count(*) FROM persons`); n != 1 {
		t.Errorf("%d persons after refusals, want 1", n)
	}

	// Deleting a reference: its uploader or an administrator; the files go.
	pic := filepath.Join(e.cfg.DataDir, "artifacts", "people", ada, fmt.Sprintf("%d.png", created.References[0].ReferenceID))
	if _, err := os.Stat(pic); err != nil {
		t.Fatalf("stored picture: %v", err)
	}
	del := fmt.Sprintf("/api/data/people/%s/references/%d", ada, created.References[0].ReferenceID)
	e.do("DELETE", del, third, nil).status(404)
	if r := e.do("DELETE", del, teacher, nil).status(200).json(); r["person_deleted"] != false {
		t.Errorf("delete reference: %v", r)
	}
	if _, err := os.Stat(pic); !os.IsNotExist(err) {
		t.Errorf("picture still there: %v", err)
	}
	if e.auditCount("person", "delete-reference", ada) != 1 {
		t.Error("reference deletion not audited")
	}
	e.do("DELETE", del, teacher, nil).status(404)

	// Deleting the person deletes their references and pictures.
	e.do("DELETE", "/api/data/people/"+ada, teacher, nil).status(200)
	if n := e.count(`SELECT count(*) FROM person_references`); n != 0 {
		t.Errorf("%d references left", n)
	}
	left, _ := filepath.Glob(filepath.Join(e.cfg.DataDir, "artifacts", "people", ada, "*"))
	if len(left) != 0 {
		t.Errorf("files left: %v", left)
	}
}

// With facial recognition off, nobody is taught.
func TestTeachPersonRecognitionOff(t *testing.T) {
	t.Parallel()
	e := newCollabEnvWith(t, func(c *config.Config) { c.FacialRecognition = false })
	body, ct := multipartBody(t, map[string]string{"name": "Ada"}, []formFile{{"pictures", "a.png", pictureBytes(t, "png")}})
	r := e.doRaw("POST", "/api/data/people", e.adminToken, body, ct)
	if r.Code != 409 || r.errCode() != "conflict" || !strings.Contains(string(r.Body), "facial recognition is off") {
		t.Fatalf("teach with recognition off: %d %s", r.Code, r.Body)
	}
	r = e.doRaw("POST", "/api/data/people/someone/references", e.adminToken, body, ct)
	if r.Code != 409 {
		t.Fatalf("add references with recognition off: %d %s", r.Code, r.Body)
	}
}
