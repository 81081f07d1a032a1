package web

import (
	"math"
	"net/http"
	"net/url"
	"strconv"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// Compilations: the list (create, clone, delete) and a compilation's page
// (its entries in order, play them in order, reorder, remove). What the
// pages show comes through the store layer as the api shows it: the
// compilations the user may view, the entries whose items they may see.
// What they change they change through the api (js/compilations.js).

type compilationRow struct {
	ID, Name, Href, Author, Updated string
	Entries                         int
	Public, Mine                    bool
}

type compilationsPage struct {
	base
	Rows     []compilationRow
	CanWrite bool
}

func (u *UI) compilationsPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	db := u.DB.WithContext(r.Context())
	v, err := p.Viewer(r.Context(), u.DB)
	if err != nil {
		return err
	}
	rows, err := store.Compilations(db, v)
	if err != nil {
		return err
	}
	ids := make([]string, len(rows))
	authorIDs := make([]string, len(rows))
	for i, c := range rows {
		ids[i], authorIDs[i] = c.ID, c.AuthorID
	}
	sums, err := store.CompilationSummaries(db, v, ids)
	if err != nil {
		return err
	}
	authors, err := store.UserSummaries(db, authorIDs)
	if err != nil {
		return err
	}
	page := &compilationsPage{base: u.base(r, p, "Compilations"), CanWrite: p.Can("compilations:write")}
	u.collabAssets(&page.base, "js/compilations.js")
	for _, c := range rows {
		page.Rows = append(page.Rows, compilationRow{ID: c.ID, Name: c.Name, Href: "/compilations/" + url.PathEscape(c.ID),
			Author: authorName(authors[c.AuthorID]), Updated: c.UpdatedAt.UTC().Format("2006-01-02 15:04 UTC"),
			Entries: sums[c.ID].NumItems, Public: c.Public, Mine: page.CanWrite && ownsCompilation(p, c)})
	}
	u.render(w, r, http.StatusOK, "compilations", page)
	return nil
}

func ownsCompilation(p *access.Principal, c models.Compilation) bool {
	return p.IsAdmin() || c.AuthorID == p.User.ID
}

type entryView struct {
	EntryID, ItemID, Name, Href string
	In, Out, InTime, OutTime    string // seconds and timecodes of a moment; "" for the whole item
	Src, Type, Tag              string // what the playlist plays; "" when it plays nothing
	Position                    int
}

type compilationPage struct {
	base
	ID, Name, Author, Updated string
	Public, Mine, Playable    bool
	Entries                   []entryView
	Exports                   []exportLink
}

func (u *UI) compilationPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	ctx := r.Context()
	db := u.DB.WithContext(ctx)
	id := r.PathValue("id")
	if id == "" || len(id) > 64 {
		return errNotFound
	}
	v, err := p.Viewer(ctx, u.DB)
	if err != nil {
		return err
	}
	c, err := store.Compilation(db, v, id)
	if ae, ok := apperr.As(err); ok && ae.Status == http.StatusNotFound {
		return errNotFound
	} else if err != nil {
		return err
	}
	entries, err := store.CompilationEntries(db, v, c.ID)
	if err != nil {
		return err
	}
	authors, err := store.UserSummaries(db, []string{c.AuthorID})
	if err != nil {
		return err
	}
	page := &compilationPage{base: u.base(r, p, c.Name), ID: c.ID, Name: c.Name, Public: c.Public,
		Author: authorName(authors[c.AuthorID]), Updated: c.UpdatedAt.UTC().Format("2006-01-02 15:04 UTC"),
		Mine: p.Can("compilations:write") && ownsCompilation(p, c)}
	u.collabAssets(&page.base, "js/compilations.js")
	export := "/api/data/compilations/" + url.PathEscape(c.ID) + "/export?format="
	page.Exports = []exportLink{{export + "csv", "Shot list (CSV)"}, {export + "edl", "EDL (CMX 3600)"},
		{export + "otio", "OpenTimelineIO"}}
	sources := map[string]*player{}
	for i, e := range entries {
		ev := entryView{EntryID: e.EntryID, ItemID: e.ItemID, Name: e.Filename, Position: i + 1, Href: itemHref(e.ItemID, "", -1)}
		if e.InPoint != nil && e.OutPoint != nil {
			ev.In, ev.Out = seconds(*e.InPoint), seconds(*e.OutPoint)
			ev.InTime, ev.OutTime = pointTime(*e.InPoint), pointTime(*e.OutPoint)
			ev.Href = itemHref(e.ItemID, "", *e.InPoint)
		}
		pl, seen := sources[e.ItemID]
		if !seen {
			if pl, err = u.entrySource(db, e); err != nil {
				return err
			}
			sources[e.ItemID] = pl
		}
		if pl != nil {
			ev.Src, ev.Type, ev.Tag = pl.Src, pl.Type, pl.Tag
			page.Playable = true
		}
		page.Entries = append(page.Entries, ev)
	}
	u.render(w, r, http.StatusOK, "compilation", page)
	return nil
}

// entrySource is what plays an entry: the item page's player source (its
// preview when there is one), nil for what is not audio or video.
func (u *UI) entrySource(db *store.DB, e store.CompilationEntry) (*player, error) {
	mt := models.MediaType(e.MimeType)
	if mt != models.TypeVideo && mt != models.TypeAudio {
		return nil, nil
	}
	arts, err := store.Artifacts(db, e.ItemID)
	if err != nil {
		return nil, err
	}
	return mediaPlayer(models.Item{ID: e.ItemID, MimeType: e.MimeType}, mt, "/api/data/items/"+url.PathEscape(e.ItemID)+"/content", arts), nil
}

// compilationChoice is a compilation the item page offers to add to.
type compilationChoice struct{ ID, Name string }

type addPart struct {
	Choices []compilationChoice
	Timed   bool // the item has a player: moments may be added
}

// itemAddPart lists the compilations p may add the item to (theirs, or
// every one for an administrator).
func itemAddPart(db *store.DB, p *access.Principal, v store.Viewer, timed bool) (*addPart, error) {
	rows, err := store.Compilations(db, v)
	if err != nil {
		return nil, err
	}
	part := &addPart{Timed: timed}
	for _, c := range rows {
		if ownsCompilation(p, c) {
			part.Choices = append(part.Choices, compilationChoice{ID: c.ID, Name: c.Name})
		}
	}
	return part, nil
}

// pointTime writes a moment's point as 00:01:02, or 00:01:02.5 with its
// tenths.
func pointTime(t float64) string {
	tenths := int64(math.Round(t*10)) % 10
	if tenths == 0 {
		return timecode(math.Round(t))
	}
	return timecode(t) + "." + strconv.FormatInt(tenths, 10)
}
