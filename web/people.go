package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/search"
)

// People across the archive (docs/people.md): the People page (faces as a
// grid, most seen first, unnamed ones ready to name in place) and a
// person's page (every item and moment; rename, merge, hide, delete,
// remove wrong faces). They read through the store layer with the api's
// visibility; they change through the api (js/people.js).

// peoplePageSize is how many faces the grid shows at once.
const peoplePageSize = 60

type personCard struct {
	ID, Name, Href, Img, Counts string
}

type peoplePage struct {
	base
	Cards        []personCard
	Filter, Name string
	Total        int64
	Prev, Next   string
	CanWrite     bool
	Filters      []peopleFilter
}

type peopleFilter struct {
	Key, Label, Href string
	Active           bool
}

func personName(p store.Person) string {
	if p.Name != "" {
		return p.Name
	}
	return "Unnamed person"
}

func personCounts(p store.Person) string {
	s := fmt.Sprintf("%d face", p.Faces)
	if p.Faces != 1 {
		s += "s"
	}
	s += fmt.Sprintf(" in %d item", p.Items)
	if p.Items != 1 {
		s += "s"
	}
	return s
}

func (u *UI) peopleAssets(b *base) {
	b.Nav = "people"
	b.Styles = append(b.Styles, u.assets.url("css/people.css"))
	b.Scripts = append(b.Scripts, u.assets.url("js/people.js"))
}

func (u *UI) peoplePage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	v, err := p.Viewer(r.Context(), u.DB)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	filter := q.Get("show")
	query := store.PeopleQuery{Limit: peoplePageSize}
	switch filter {
	case "named":
		t := true
		query.Named = &t
	case "unnamed":
		f := false
		query.Named = &f
	case "hidden":
		query.Hidden = true
	default:
		filter = ""
	}
	name, _ := truncate(strings.TrimSpace(q.Get("name")), 200)
	query.Name = name
	if n, err := strconv.Atoi(q.Get("offset")); err == nil && n > 0 && n < 1<<30 {
		query.Offset = n
	}
	rows, total, err := store.ListPeople(u.DB.WithContext(r.Context()), v, query)
	if err != nil {
		return err
	}
	page := &peoplePage{base: u.base(r, p, "People"), Filter: filter, Name: name, Total: total, CanWrite: p.Can("people:write")}
	u.peopleAssets(&page.base)
	link := func(show string, offset int) string {
		v := url.Values{}
		if show != "" {
			v.Set("show", show)
		}
		if name != "" {
			v.Set("name", name)
		}
		if offset > 0 {
			v.Set("offset", strconv.Itoa(offset))
		}
		if len(v) == 0 {
			return "/people"
		}
		return "/people?" + v.Encode()
	}
	for _, f := range []struct{ key, label string }{{"", "Everyone"}, {"named", "Named"}, {"unnamed", "Unnamed"}, {"hidden", "Hidden"}} {
		page.Filters = append(page.Filters, peopleFilter{Key: f.key, Label: f.label, Href: link(f.key, 0), Active: f.key == filter})
	}
	for _, pr := range rows {
		c := personCard{ID: pr.ID, Name: pr.Name, Href: "/people/" + url.PathEscape(pr.ID), Counts: personCounts(pr)}
		if pr.Cover != nil {
			c.Img = search.ArtifactURL(pr.Cover.Thumbnail)
		}
		page.Cards = append(page.Cards, c)
	}
	if query.Offset > 0 {
		page.Prev = link(filter, max(0, query.Offset-peoplePageSize))
	}
	if int64(query.Offset+peoplePageSize) < total {
		page.Next = link(filter, query.Offset+peoplePageSize)
	}
	u.render(w, r, http.StatusOK, "people", page)
	return nil
}

type personItemView struct {
	ID, Name, Href string
	Faces          int
	Moments        []personMomentView
	Crops          []personCropView
}

type personMomentView struct {
	Href, Label string
}

type personCropView struct {
	Face     int
	Img, Alt string
	Href     string
}

type personPage struct {
	base
	ID, Name, Counts, Img string
	Hidden                bool
	Items                 []personItemView
	Others                []personCard // merge candidates
	CanWrite              bool
	More                  int64
	// References are the reference pictures the caller taught the person
	// from (an administrator: all of them).
	References []personRefView
}

// personRefView is a reference picture on a person's page.
type personRefView struct {
	ID                  int64
	Status, Error       string
	Picture, Face, Sent string
}

// referenceStatus says where a reference picture stands, in words.
func referenceStatus(r store.PersonReference) string {
	switch r.Status {
	case "pending":
		return "Waiting to be described"
	case "failed":
		return "Not usable"
	}
	if r.Applied {
		return "Learnt"
	}
	return "Described"
}

func (u *UI) personPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	v, err := p.Viewer(r.Context(), u.DB)
	if err != nil {
		return err
	}
	db := u.DB.WithContext(r.Context())
	id := r.PathValue("id")
	if id == "" || len(id) > 64 {
		return errNotFound
	}
	pr, err := store.GetPerson(db, v, id)
	if ae, ok := apperr.As(err); ok && ae.Status == http.StatusNotFound {
		return errNotFound // unknown, or only in items the caller may not see
	} else if err != nil {
		return err
	}
	items, total, err := store.PersonItems(db, v, pr.ID, 100, 0)
	if err != nil {
		return err
	}
	page := &personPage{base: u.base(r, p, personName(pr)), ID: pr.ID, Name: pr.Name, Counts: personCounts(pr), Hidden: pr.Hidden,
		CanWrite: p.Can("people:write"), More: total - int64(len(items))}
	u.peopleAssets(&page.base)
	if pr.Cover != nil {
		page.Img = search.ArtifactURL(pr.Cover.Thumbnail)
	}
	for _, it := range items {
		iv := personItemView{ID: it.ItemID, Name: it.Name, Href: itemHref(it.ItemID, "", -1), Faces: it.Faces}
		for _, m := range it.Moments {
			label := timecode(m.Start)
			if m.End > m.Start {
				label += " – " + timecode(m.End)
			}
			iv.Moments = append(iv.Moments, personMomentView{Href: itemHref(it.ItemID, "", m.Start), Label: label})
		}
		for _, c := range it.Crops {
			cv := personCropView{Face: c.Face, Alt: fmt.Sprintf("Face %d of %s", c.Face+1, it.Name), Href: iv.Href}
			if c.Thumbnail != "" {
				cv.Img = search.ArtifactURL(c.Thumbnail)
			}
			if c.TimeMS != nil {
				cv.Href = itemHref(it.ItemID, "", float64(*c.TimeMS)/1000)
			}
			iv.Crops = append(iv.Crops, cv)
		}
		page.Items = append(page.Items, iv)
	}
	refs, err := store.PersonReferences(db, v, pr.ID)
	if err != nil {
		return err
	}
	for _, rf := range refs {
		at := "/api/data/people/" + url.PathEscape(pr.ID) + "/references/" + strconv.FormatInt(rf.ID, 10)
		rv := personRefView{ID: rf.ID, Status: referenceStatus(rf), Error: rf.Error, Picture: at + "/picture",
			Sent: rf.CreatedAt.UTC().Format("2006-01-02 15:04")}
		if rf.Thumbnail != "" {
			rv.Face = at + "/face"
		}
		page.References = append(page.References, rv)
	}
	if page.CanWrite {
		others, _, err := store.ListPeople(db, v, store.PeopleQuery{Limit: 200})
		if err != nil {
			return err
		}
		for _, o := range others {
			if o.ID != pr.ID {
				page.Others = append(page.Others, personCard{ID: o.ID, Name: personName(o), Counts: personCounts(o)})
			}
		}
	}
	u.render(w, r, http.StatusOK, "person", page)
	return nil
}
