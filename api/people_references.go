package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/blobstore"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/people"
)

// Teaching a person from reference pictures (docs/people.md): like logo
// training, a name and pictures sent as a form. The pictures go to the
// artifact store (people/<person>/<reference>.<ext>) with a pending row
// each; a worker describes them as vendor_faces describes a harvested
// picture (its largest face) and the assigners name the faces of the
// archive that match, and prefer the reference for every new face. The
// api itself never needs the vision sidecar. A reference picture is
// shown to the user who sent it and to administrators; the person to
// them and to whoever sees one of its faces.

// Limits of teaching.
const (
	maxReferencesSent   = 20  // pictures of one request
	maxPersonReferences = 100 // reference pictures of one person
	referencesField     = "pictures"
)

type personReferenceJSON struct {
	ReferenceID int64      `json:"reference_id"`
	PersonID    string     `json:"person_id"`
	Status      string     `json:"status"`
	Error       string     `json:"error,omitempty"`
	Applied     bool       `json:"applied"`
	PictureURL  string     `json:"picture_url"`
	FaceImgURL  string     `json:"face_img_url,omitempty"`
	CreatedBy   string     `json:"created_by"`
	CreatedAt   time.Time  `json:"created_at"`
	DescribedAt *time.Time `json:"described_at"`
}

func referenceURL(person string, id int64, file string) string {
	return "/api/data/people/" + person + "/references/" + strconv.FormatInt(id, 10) + "/" + file
}

func referenceOut(r store.PersonReference) personReferenceJSON {
	out := personReferenceJSON{ReferenceID: r.ID, PersonID: r.PersonID, Status: r.Status, Error: r.Error, Applied: r.Applied,
		PictureURL: referenceURL(r.PersonID, r.ID, "picture"), CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt.UTC(),
		DescribedAt: utcPtr(r.DescribedAt)}
	if r.Thumbnail != "" {
		out.FaceImgURL = referenceURL(r.PersonID, r.ID, "face")
	}
	return out
}

// teachingOn refuses teaching when facial recognition is off: nothing
// would describe the pictures, and nothing is kept to recognise anyone.
func (s *Server) teachingOn() error {
	if !s.Config.FacialRecognition {
		return apperr.New(apperr.CodeConflict,
			"facial recognition is off on this deployment (FACIAL_RECOGNITION=false): people cannot be taught from pictures")
	}
	return nil
}

// readReferenceForm parses the multipart form and reads its pictures
// (JPEG or PNG by content, each within the limits of logo training);
// withName also reads and checks the person's name.
func (s *Server) readReferenceForm(c *gin.Context, withName bool) (string, []logoUpload, error) {
	if err := c.Request.ParseMultipartForm(logoFormMemory); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return "", nil, err // 413
		}
		fields := "pictures"
		if withName {
			fields = "name and pictures"
		}
		return "", nil, apperr.BadRequest(apperr.CodeBadForm, "the body must be a multipart/form-data form with %s", fields)
	}
	form := c.Request.MultipartForm
	problems := map[string]string{}
	var name string
	if withName {
		var err error
		if name, err = checkPersonName(first(form.Value["name"])); err != nil {
			return "", nil, err
		}
		required(problems, map[string]string{"name": name})
	}
	files := form.File[referencesField]
	switch {
	case len(files) == 0:
		problems[referencesField] = "at least one JPEG or PNG picture of the person is required"
	case len(files) > maxReferencesSent:
		problems[referencesField] = fmt.Sprintf("at most %d pictures at once", maxReferencesSent)
	}
	var pics []logoUpload
	if _, bad := problems[referencesField]; !bad {
		for _, fh := range files {
			p, problem := readLogo(fh)
			if problem != "" {
				problems[referencesField] = problem
				break
			}
			pics = append(pics, p)
		}
	}
	return name, pics, invalidIf(problems)
}

// storeReferences adds the pictures to person in tx: a pending row each,
// the picture stored under its key. It returns the keys written (for
// removal when the transaction fails).
func (s *Server) storeReferences(c *gin.Context, tx *store.DB, person string, pics []logoUpload, now time.Time) ([]string, error) {
	var keys []string
	by := principalOf(c).User.ID
	for _, p := range pics {
		id, err := store.AddReference(tx, person, by, now)
		if err != nil {
			return keys, err
		}
		key := store.ReferencePrefix + person + "/" + strconv.FormatInt(id, 10) + p.ext
		if _, err := s.Files.Artifacts.Put(c.Request.Context(), key, bytes.NewReader(p.data), int64(len(p.data))); err != nil {
			if errors.Is(err, blobstore.ErrUnavailable) {
				return keys, s.fileStoreUnavailable(c, "artifact store", err)
			}
			return keys, err
		}
		keys = append(keys, key)
		if err := store.SetReferencePicture(tx, id, key); err != nil {
			return keys, err
		}
	}
	return keys, nil
}

// respondReferences answers with a person and the references the caller
// sees.
func (s *Server) respondReferences(c *gin.Context, status int, person string) error {
	p, err := s.loadPerson(c, person)
	if err != nil {
		return err
	}
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	refs, err := store.PersonReferences(s.db(c), v, person)
	if err != nil {
		return err
	}
	out := make([]personReferenceJSON, len(refs))
	for i, r := range refs {
		out[i] = referenceOut(r)
	}
	c.JSON(status, gin.H{"person": personOut(p), "references": out})
	return nil
}

// POST /api/data/people, multipart: name, pictures (one or more JPEG or
// PNG files of the person): a new named person taught from the pictures;
// 201 with the person and their references (pending until a worker
// described them).
func (s *Server) teachPerson(c *gin.Context) error {
	if err := s.teachingOn(); err != nil {
		return err
	}
	name, pics, err := s.readReferenceForm(c, true)
	if c.Request.MultipartForm != nil {
		defer c.Request.MultipartForm.RemoveAll()
	}
	if err != nil {
		return err
	}
	person := ids.New()
	now := time.Now().UTC()
	var keys []string
	err = s.audited(c, "person", "teach", person, strconv.Itoa(len(pics)), func(tx *store.DB) error {
		if err := store.NewTaughtPerson(tx, person, name, now); err != nil {
			return err
		}
		keys, err = s.storeReferences(c, tx, person, pics, now)
		return err
	})
	if err != nil {
		s.removeArtifactFiles(c, keys)
		return err
	}
	return s.respondReferences(c, http.StatusCreated, person)
}

// POST /api/data/people/{id}/references, multipart: pictures: more
// reference pictures of a person the caller sees; 201 with the person and
// their references.
func (s *Server) addReferences(c *gin.Context) error {
	if err := s.teachingOn(); err != nil {
		return err
	}
	_, pics, err := s.readReferenceForm(c, false)
	if c.Request.MultipartForm != nil {
		defer c.Request.MultipartForm.RemoveAll()
	}
	if err != nil {
		return err
	}
	p, err := s.loadPerson(c, c.Param("id"))
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	var keys []string
	err = s.audited(c, "person", "teach", p.ID, strconv.Itoa(len(pics)), func(tx *store.DB) error {
		n, err := store.CountReferences(tx, p.ID)
		if err != nil {
			return err
		}
		if n+int64(len(pics)) > maxPersonReferences {
			return apperr.InvalidField(referencesField,
				fmt.Sprintf("a person has at most %d reference pictures (%d already)", maxPersonReferences, n))
		}
		keys, err = s.storeReferences(c, tx, p.ID, pics, now)
		return err
	})
	if err != nil {
		s.removeArtifactFiles(c, keys)
		return err
	}
	return s.respondReferences(c, http.StatusCreated, p.ID)
}

// GET /api/data/people/{id}/references: the person's reference pictures
// the caller sent (an administrator: all), with their status (pending,
// ready, failed and why).
func (s *Server) listReferences(c *gin.Context) error {
	return s.respondReferences(c, http.StatusOK, c.Param("id"))
}

// loadReference is a reference picture of a person the caller sees, sent
// by the caller (or any, for an administrator).
func (s *Server) loadReference(c *gin.Context) (store.PersonReference, error) {
	p, err := s.loadPerson(c, c.Param("id"))
	if err != nil {
		return store.PersonReference{}, err
	}
	id, err := strconv.ParseInt(c.Param("ref"), 10, 64)
	if err != nil || id <= 0 {
		return store.PersonReference{}, apperr.NotFound("reference picture", c.Param("ref"))
	}
	v, err := s.viewer(c)
	if err != nil {
		return store.PersonReference{}, err
	}
	return store.GetPersonReference(s.db(c), v, p.ID, id)
}

// DELETE /api/data/people/{id}/references/{ref}: the picture and its
// descriptor go, and the faces it named are assigned again as if it had
// never been taught (people.DeleteReference). A person left without faces
// nor references goes too.
func (s *Server) deleteReference(c *gin.Context) error {
	r, err := s.loadReference(c)
	if err != nil {
		return err
	}
	var done people.DeletedReference
	err = s.audited(c, "person", "delete-reference", r.PersonID, strconv.FormatInt(r.ID, 10), func(tx *store.DB) error {
		if err := store.LockPeople(tx); err != nil {
			return err
		}
		done, err = people.DeleteReference(tx, r.ID, s.Config.PeopleSamePerson)
		return err
	})
	if err != nil {
		return err
	}
	s.removeArtifactFiles(c, done.Files)
	c.JSON(http.StatusOK, gin.H{"person_id": r.PersonID, "reference_id": r.ID, "deleted": true,
		"person_deleted": done.PersonDeleted, "faces_released": done.Released})
	return nil
}

// GET /api/data/people/{id}/references/{ref}/{file}: the picture sent
// (picture) or the crop of the face described (face).
func (s *Server) referenceFile(c *gin.Context) error {
	r, err := s.loadReference(c)
	if err != nil {
		return err
	}
	key := r.Picture
	switch c.Param("file") {
	case "picture":
	case "face":
		key = r.Thumbnail
	default:
		return apperr.NotFound("reference file", c.Param("file"))
	}
	if key == "" {
		return apperr.NotFound("reference file", c.Param("file"))
	}
	f, err := s.Files.Artifacts.Open(c.Request.Context(), key, true)
	switch {
	case errors.Is(err, blobstore.ErrNotFound), errors.Is(err, blobstore.ErrBadKey):
		return apperr.NotFound("reference file", c.Param("file"))
	case errors.Is(err, blobstore.ErrUnavailable):
		return s.fileStoreUnavailable(c, "artifact store", err)
	case err != nil:
		return err
	}
	defer f.Close()
	h := c.Writer.Header()
	typ := "image/jpeg"
	if strings.HasSuffix(key, ".png") {
		typ = "image/png"
	}
	h.Set("Content-Type", typ)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", "private, no-cache")
	h.Set("Content-Length", strconv.FormatInt(f.Info().Size, 10))
	c.Status(http.StatusOK)
	_, _ = io.Copy(c.Writer, f)
	return nil
}
