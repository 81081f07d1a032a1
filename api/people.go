package api

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// People across the archive (docs/people.md): the persons the workers'
// assigners made of described faces (package people), as the caller sees
// them: a person exists for a caller who sees an item with one of its
// faces, and counts only those faces. Changes hold the people lock (the
// assigners wait), are audited, and mark the persons' items dirty, so
// that search sees a new name within seconds.

// Limits of the People API.
const (
	maxPersonName   = 200
	maxMergePeople  = 100
	maxPeoplePage   = 500
	defaultPeople   = 100
	maxPersonIDLen  = 32
	maxFaceIndex    = 1 << 20
	peopleExtractor = facesExtractor
)

type personJSON struct {
	PersonID    string     `json:"person_id"`
	Name        string     `json:"name,omitempty"`
	IsKnown     bool       `json:"is_known"`
	Hidden      bool       `json:"hidden"`
	NumFaces    int        `json:"num_faces"`
	NumItems    int        `json:"num_items"`
	FirstSeen   *time.Time `json:"first_seen"`
	LastSeen    *time.Time `json:"last_seen"`
	FaceImgPath string     `json:"face_img_path,omitempty"`
	FaceImgURL  string     `json:"face_img_url,omitempty"`
	FaceItemID  string     `json:"face_item_id,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
}

func personOut(p store.Person) personJSON {
	out := personJSON{PersonID: p.ID, Name: p.Name, IsKnown: p.IsKnown, Hidden: p.Hidden, NumFaces: p.Faces, NumItems: p.Items,
		FirstSeen: utcPtr(p.FirstSeen), LastSeen: utcPtr(p.LastSeen), CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC()}
	if p.Cover != nil {
		out.FaceImgPath, out.FaceImgURL, out.FaceItemID = p.Cover.Thumbnail, artifactURL(p.Cover.Thumbnail), p.Cover.ItemID
	}
	return out
}

// GET /api/data/people?named=&hidden=&name=&sort=&limit=&offset=
func (s *Server) listPeople(c *gin.Context) error {
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	page, err := tokenPage(c, defaultPeople, maxPeoplePage)
	if err != nil {
		return err
	}
	q := store.PeopleQuery{Limit: page.Limit, Offset: page.Offset, Sort: c.DefaultQuery("sort", "faces")}
	if !slices.Contains(store.PeopleSorts, q.Sort) {
		return apperr.InvalidField("sort", "must be one of "+strings.Join(store.PeopleSorts, ", "))
	}
	if raw := c.Query("named"); raw != "" {
		named, err := strconv.ParseBool(raw)
		if err != nil {
			return apperr.InvalidField("named", "must be true or false")
		}
		q.Named = &named
	}
	if q.Hidden, err = queryBool(c, "hidden"); err != nil {
		return err
	}
	if q.Name = strings.TrimSpace(c.Query("name")); utf8.RuneCountInString(q.Name) > maxPersonName {
		return apperr.InvalidField("name", "must be at most 200 characters")
	}
	rows, total, err := store.ListPeople(s.db(c), v, q)
	if err != nil {
		return err
	}
	out := make([]personJSON, len(rows))
	for i, p := range rows {
		out[i] = personOut(p)
	}
	next, prev := page.Tokens(total)
	c.JSON(http.StatusOK, gin.H{"people": out, "total": total, "limit": page.Limit, "offset": page.Offset,
		"next_page_token": next, "previous_page_token": prev})
	return nil
}

// loadPerson is the person of the path as the caller sees it (404 when
// the caller sees none of its faces).
func (s *Server) loadPerson(c *gin.Context, id string) (store.Person, error) {
	if id == "" || len(id) > maxPersonIDLen {
		return store.Person{}, apperr.NotFound("person", id)
	}
	v, err := s.viewer(c)
	if err != nil {
		return store.Person{}, err
	}
	return store.GetPerson(s.db(c), v, id)
}

type personItemJSON struct {
	ItemID       string               `json:"item_id"`
	Name         string               `json:"name"`
	MimeType     string               `json:"mime_type"`
	LastModified *time.Time           `json:"last_modified"`
	NumFaces     int                  `json:"num_faces"`
	Moments      []personMomentJSON   `json:"moments"`
	Faces        []personItemFaceJSON `json:"faces"`
}

type personMomentJSON struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

type personItemFaceJSON struct {
	Face        int      `json:"face"`
	Time        *float64 `json:"time"`
	Pinned      bool     `json:"pinned"`
	FaceImgPath string   `json:"face_img_path,omitempty"`
	FaceImgURL  string   `json:"face_img_url,omitempty"`
}

// GET /api/data/people/{id}?limit=&offset=: the person, and the items the
// caller sees with their faces of the person and, in videos, the moments.
func (s *Server) getPerson(c *gin.Context) error {
	p, err := s.loadPerson(c, c.Param("id"))
	if err != nil {
		return err
	}
	page, err := tokenPage(c, 50, maxPeoplePage)
	if err != nil {
		return err
	}
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	items, total, err := store.PersonItems(s.db(c), v, p.ID, page.Limit, page.Offset)
	if err != nil {
		return err
	}
	out := make([]personItemJSON, len(items))
	for i, it := range items {
		j := personItemJSON{ItemID: it.ItemID, Name: it.Name, MimeType: it.MimeType, LastModified: utcPtr(it.LastModified),
			NumFaces: it.Faces, Moments: []personMomentJSON{}, Faces: []personItemFaceJSON{}}
		for _, m := range it.Moments {
			j.Moments = append(j.Moments, personMomentJSON{Start: m.Start, End: m.End})
		}
		for _, f := range it.Crops {
			fj := personItemFaceJSON{Face: f.Face, Pinned: f.Pinned}
			if f.TimeMS != nil {
				t := float64(*f.TimeMS) / 1000
				fj.Time = &t
			}
			if f.Thumbnail != "" {
				fj.FaceImgPath, fj.FaceImgURL = f.Thumbnail, artifactURL(f.Thumbnail)
			}
			j.Faces = append(j.Faces, fj)
		}
		out[i] = j
	}
	next, prev := page.Tokens(total)
	c.JSON(http.StatusOK, gin.H{"person": personOut(p), "items": out, "total_items": total,
		"next_page_token": next, "previous_page_token": prev})
	return nil
}

type patchPersonBody struct {
	Name   *string `json:"name"`
	Hidden *bool   `json:"hidden"`
}

// checkPersonName trims a name and refuses what is not one.
func checkPersonName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > maxPersonName {
		return "", apperr.InvalidField("name", "must be at most 200 characters")
	}
	if !utf8.ValidString(name) || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return "", apperr.InvalidField("name", "must be text without control characters")
	}
	return name, nil
}

// PATCH /api/data/people/{id} {name, hidden}: name or rename (is_known
// true; "" makes the person unnamed again), hide or show.
func (s *Server) patchPerson(c *gin.Context) error {
	var body patchPersonBody
	if err := decodeStrictJSON(c, &body); err != nil {
		return err
	}
	if body.Name == nil && body.Hidden == nil {
		return apperr.InvalidField("name", "give name or hidden")
	}
	if body.Name != nil {
		name, err := checkPersonName(*body.Name)
		if err != nil {
			return err
		}
		body.Name = &name
	}
	p, err := s.loadPerson(c, c.Param("id"))
	if err != nil {
		return err
	}
	action := "rename"
	if body.Name == nil {
		action = map[bool]string{true: "hide", false: "show"}[*body.Hidden]
	}
	now := time.Now().UTC()
	err = s.audited(c, "person", action, p.ID, "", func(tx *store.DB) error {
		if err := store.LockPeople(tx); err != nil {
			return err
		}
		if body.Name != nil {
			if err := store.RenamePerson(tx, p.ID, *body.Name, now); err != nil {
				return err
			}
			if err := search.MarkDirtyWhere(tx, store.PersonItemsCond, models.Strings([]string{p.ID})); err != nil {
				return err
			}
		}
		if body.Hidden != nil {
			return store.HidePerson(tx, p.ID, *body.Hidden, now)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.respondPerson(c, p.ID)
}

func (s *Server) respondPerson(c *gin.Context, id string) error {
	p, err := s.loadPerson(c, id)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"person": personOut(p)})
	return nil
}

type mergePeopleBody struct {
	PersonIDs []string `json:"person_ids"`
}

// POST /api/data/people/{id}/merge {person_ids}: the persons given are
// this person too ("this is also ..."): their faces, reference pictures
// and name (when this one has none) come here, and they are deleted.
func (s *Server) mergePeople(c *gin.Context) error {
	var body mergePeopleBody
	if err := decodeStrictJSON(c, &body); err != nil {
		return err
	}
	if len(body.PersonIDs) == 0 || len(body.PersonIDs) > maxMergePeople {
		return apperr.InvalidField("person_ids", "must list 1 to 100 persons")
	}
	into, err := s.loadPerson(c, c.Param("id"))
	if err != nil {
		return err
	}
	var from []string
	for _, id := range body.PersonIDs {
		if id == into.ID {
			return apperr.InvalidField("person_ids", "cannot merge a person into itself")
		}
		p, err := s.loadPerson(c, id)
		if err != nil {
			return err
		}
		if !slices.Contains(from, p.ID) {
			from = append(from, p.ID)
		}
	}
	err = s.audited(c, "person", "merge", into.ID, strings.Join(from, ","), func(tx *store.DB) error {
		if err := store.LockPeople(tx); err != nil {
			return err
		}
		all := append([]string{into.ID}, from...)
		if err := search.MarkDirtyWhere(tx, store.PersonItemsCond, models.Strings(all)); err != nil {
			return err
		}
		if err := store.MergePeople(tx, into.ID, from, time.Now().UTC()); err != nil {
			return err
		}
		_, err := store.RecountPeople(tx, []string{into.ID})
		return err
	})
	if err != nil {
		return err
	}
	return s.respondPerson(c, into.ID)
}

type moveFaceBody struct {
	ItemID string `json:"item_id"`
	Face   *int   `json:"face"`
}

// loadFace is a face with a descriptor of an item the caller sees.
func (s *Server) loadFace(c *gin.Context, itemID string, face int) (store.FaceRef, *string, error) {
	f := store.FaceRef{ItemID: itemID, Extractor: peopleExtractor, Face: face}
	if itemID == "" || len(itemID) > maxPersonIDLen || face < 0 || face > maxFaceIndex {
		return f, nil, apperr.NotFound("face", itemID)
	}
	person, loc, ctr, err := store.PersonFaceOwner(s.db(c), f)
	if err != nil {
		return f, nil, err
	}
	v, err := s.viewer(c)
	if err != nil {
		return f, nil, err
	}
	if ok, err := v.Sees(s.db(c), loc, ctr); err != nil {
		return f, nil, err
	} else if !ok {
		return f, nil, apperr.NotFound("face", itemID)
	}
	return f, person, nil
}

// POST /api/data/people/{id}/faces {item_id, face}: the face is of this
// person (kept so on the next harvest).
func (s *Server) moveFace(c *gin.Context) error {
	var body moveFaceBody
	if err := decodeStrictJSON(c, &body); err != nil {
		return err
	}
	if body.Face == nil {
		return apperr.InvalidField("face", "is required")
	}
	to, err := s.loadPerson(c, c.Param("id"))
	if err != nil {
		return err
	}
	f, from, err := s.loadFace(c, body.ItemID, *body.Face)
	if err != nil {
		return err
	}
	err = s.audited(c, "person", "move-face", to.ID, f.ItemID+"/"+strconv.Itoa(f.Face), func(tx *store.DB) error {
		if err := store.LockPeople(tx); err != nil {
			return err
		}
		if err := store.MoveFace(tx, f, to.ID); err != nil {
			return err
		}
		touched := []string{to.ID}
		if from != nil {
			touched = append(touched, *from)
		}
		if _, err := store.RecountPeople(tx, touched); err != nil {
			return err
		}
		return search.MarkDirty(tx, f.ItemID)
	})
	if err != nil {
		return err
	}
	return s.respondPerson(c, to.ID)
}

// DELETE /api/data/people/{id}/faces/{item_id}/{face}: not this person.
// The face leaves the person for good (also after its item is harvested
// again) and gets another person from the assigner.
func (s *Server) rejectFace(c *gin.Context) error {
	p, err := s.loadPerson(c, c.Param("id"))
	if err != nil {
		return err
	}
	face, err := strconv.Atoi(c.Param("face"))
	if err != nil {
		return apperr.InvalidField("face", "must be an integer")
	}
	f, owner, err := s.loadFace(c, c.Param("item_id"), face)
	if err != nil {
		return err
	}
	if owner == nil || *owner != p.ID {
		return apperr.NotFound("face of this person", f.ItemID+"/"+strconv.Itoa(face))
	}
	err = s.audited(c, "person", "reject-face", p.ID, f.ItemID+"/"+strconv.Itoa(f.Face), func(tx *store.DB) error {
		if err := store.LockPeople(tx); err != nil {
			return err
		}
		if err := store.RejectFace(tx, f, p.ID); err != nil {
			return err
		}
		if _, err := store.RecountPeople(tx, []string{p.ID}); err != nil {
			return err
		}
		return search.MarkDirty(tx, f.ItemID)
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"person_id": p.ID, "item_id": f.ItemID, "face": f.Face, "rejected": true})
	return nil
}

// DELETE /api/data/people/{id}: the person goes with the descriptors of
// its faces and its reference pictures; the faces stay, unknown, also
// after their items are harvested again.
func (s *Server) deletePerson(c *gin.Context) error {
	p, err := s.loadPerson(c, c.Param("id"))
	if err != nil {
		return err
	}
	var files []string
	err = s.audited(c, "person", "delete", p.ID, "", func(tx *store.DB) error {
		if err := store.LockPeople(tx); err != nil {
			return err
		}
		if err := search.MarkDirtyWhere(tx, store.PersonItemsCond, models.Strings([]string{p.ID})); err != nil {
			return err
		}
		files, err = store.DeletePerson(tx, p.ID)
		return err
	})
	if err != nil {
		return err
	}
	s.removeArtifactFiles(c, files)
	c.JSON(http.StatusOK, gin.H{"person_id": p.ID, "deleted": true})
	return nil
}
