package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// itemPage is GET /items/{id}: the preview, the timeline and transcript
// under the player, the metadata by extractor family, the harvest history.
type itemPage struct {
	base
	ID, Name, Path string
	Where          string
	TypeLabel      string
	Summary        []summaryGroup
	Start          string // data-start (?t=), "" without
	BackLink       string

	Player     *player
	Image      *picture
	Pages      []picture
	Filmstrip  []frame
	Text       string
	TextLabel  string
	TextCut    bool
	ContentURL string
	Contents   *archiveContents
	Messages   *emailMessages

	Duration   string // data-duration
	Lanes      []lane
	Cues       []cue
	HasHitLane bool

	Panels  []panel
	Exports []exportLink
	RawJSON string
	RawCut  bool
	Jobs    []jobView
	Errors  []runError
	Notes   []string

	// Collaboration (collab.go), each nil without its scopes.
	Comments *commentsPart
	Fields   *fieldsPart
	AddTo    *addPart
}

type player struct {
	Tag, Src, Type string
	// Poster is a video's representative frame (its large thumbnail),
	// shown until it plays: the first frame is often black.
	Poster string
}

type picture struct {
	Src, Href, Alt string
	Width, Height  int
	// Waveform marks a recording's waveform, which seeks its player
	// (waveform.js).
	Waveform bool
}

// frame is a key frame of the filmstrip under a video's player: a link to
// its time that item.js makes seek in place.
type frame struct {
	Href, T, Time, Img, Alt string
	Width, Height           int
}

// exportLink is a download of an export (api/exports.go).
type exportLink struct{ Href, Label string }

type lane struct {
	Name, Title string
	Markers     []marker
}

type marker struct {
	Href, T, End, Kind, Label string
	Time                      string // the label's timecode
	Img, ImgAlt               string
}

type cue struct {
	Href, T, End, Time, Text string
}

type panel struct {
	Family, Title string
	Groups        []panelGroup
	Values        int // rows shown in all
}

type panelGroup struct {
	Title string
	Rows  []metaRow
	More  int // rows left out
}

type metaRow struct {
	Label, Value, Href string
	Doc                string // what the catalogue says the value is
}

type jobView struct {
	RequestID, Type, Created string
	Errors                   int64
}

type runError struct{ Extractor, Error string }

// Limits of what one item page shows, so that a file with a hundred
// thousand cues still makes a page of bounded size.
const (
	maxLaneMarkers = 400
	maxCues        = 3000
	maxTextRunes   = 20000
	maxRawJSON     = 200_000
	maxPanelRows   = 120
	maxValueRunes  = 300
	maxPages       = 60
	maxFilmstrip   = 60
)

func (u *UI) itemPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	it, v, err := visibleByPath(u, r, p, store.LiveItem, func(i models.Item) (string, string) { return i.LocationID, i.ContainerID })
	if err != nil {
		return err
	}
	ctx := r.Context()
	db := u.DB.WithContext(ctx)

	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if len(q) > maxQueryLen {
		q = ""
	}
	page := &itemPage{base: u.base(r, p, it.Name), ID: it.ID, Name: it.Name, Path: it.Path}
	page.Q = q
	page.Scripts = []string{u.assets.url("js/item.js")}
	page.ContentURL = "/api/data/items/" + url.PathEscape(it.ID) + "/content"
	if q != "" {
		page.BackLink = "/?q=" + url.QueryEscape(q)
	}
	if t := r.URL.Query().Get("t"); t != "" {
		if f, err := strconv.ParseFloat(t, 64); err == nil && f >= 0 && f < 1e7 {
			page.Start = seconds(f)
		} else {
			page.Notes = append(page.Notes, "The start time (t) must be a number of seconds; the player starts at the beginning.")
		}
	}
	if loc, err := store.Take[models.Location](db, "location", it.LocationID); err == nil {
		page.Where = loc.Name
	}
	if ctr, err := store.Take[models.Container](db, "container", it.ContainerID); err == nil {
		page.Where += " / " + ctr.Name
	}

	var meta map[string]any
	if len(it.Metadata) > 0 {
		_ = json.Unmarshal(it.Metadata, &meta)
	}
	arts, err := store.Artifacts(db, it.ID)
	if err != nil {
		return err
	}
	mediaType := models.MediaType(it.MimeType)
	page.TypeLabel = typeLabels[mediaType]
	if name := formatNames[it.MimeType]; name != "" {
		page.TypeLabel = name
	}
	var persons *itemPeople // the item's persons across the archive
	if p.Can("people:read") {
		if persons, err = itemPersons(db, it.ID); err != nil {
			return err
		}
	}
	u.preview(page, it, mediaType, meta, arts)

	var caps []models.Caption
	if p.Can("captions:read") {
		if caps, err = store.CaptionCues(db, it.ID); err != nil {
			return err
		}
	}
	runs := it.Runs()
	for name, run := range runs {
		if run.Error != "" {
			msg, _ := truncate(run.Error, 1000)
			page.Errors = append(page.Errors, runError{u.displayName(name), msg})
		}
	}
	sort.Slice(page.Errors, func(i, j int) bool { return page.Errors[i].Extractor < page.Errors[j].Extractor })
	page.Summary = u.itemSummary(&summaryContext{it: it, meta: meta, kind: mediaType, where: page.Where, typeName: page.TypeLabel,
		caps: caps, errors: len(page.Errors), declared: u.declared(), persons: persons})
	page.Exports = []exportLink{{"/api/data/items/" + url.PathEscape(it.ID) + "/export?format=json", "Metadata (JSON)"}}
	if mediaType == models.TypeImage {
		page.Exports = append(page.Exports, exportLink{"/api/data/items/" + url.PathEscape(it.ID) + "/export?format=xmp", "XMP sidecar"})
	}
	if page.Player != nil {
		if d := itemDuration(meta); d > 0 {
			page.Duration = seconds(d)
		}
		var laneNames map[string]string
		if persons != nil {
			laneNames = persons.labels
		}
		page.Lanes = u.lanes(it, meta, arts, caps, laneNames)
		page.Cues = transcriptCues(it.ID, caps)
		if q != "" && p.Can("segments:read") && u.Search != nil {
			hits, err := u.hitLane(ctx, p, it.ID, q)
			if ae, ok := apperr.As(err); ok && ae.Status == http.StatusServiceUnavailable {
				page.Notes = append(page.Notes, "Search is unavailable right now: the hits of your words are not marked.")
			} else if err != nil {
				return err
			} else {
				page.HasHitLane = true
				if len(hits.Markers) > 0 {
					page.Lanes = append(page.Lanes, hits)
				}
			}
		}
	} else if page.Text == "" && len(caps) > 0 {
		// A caption file has no player: its cues are its text.
		page.Text, page.TextCut = captionsText(it.ID, caps)
		page.TextLabel = "Captions"
	}
	if err := u.itemCollab(ctx, page, p); err != nil {
		return err
	}
	page.Panels = u.panels(meta)
	if meta != nil {
		var raw strings.Builder
		enc := json.NewEncoder(&raw)
		enc.SetEscapeHTML(false) // the template escapes; \u003c would only be harder to read
		enc.SetIndent("", "  ")
		if err := enc.Encode(meta); err == nil {
			page.RawJSON, page.RawCut = truncateBytes(raw.String(), maxRawJSON)
		}
	}
	if p.Can("activity:read") {
		jobs, _, err := store.ItemJobs(db, v, it, store.Page{Limit: 10})
		if err != nil {
			return err
		}
		for _, j := range jobs {
			page.Jobs = append(page.Jobs, jobView{RequestID: j.RequestID, Type: j.JobType,
				Created: j.Created.UTC().Format("2006-01-02 15:04 UTC"), Errors: j.ErrorCount})
		}
	}
	u.render(w, r, http.StatusOK, "item", page)
	return nil
}

func truncateBytes(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n], true
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func (u *UI) displayName(extractor string) string {
	if info, ok := u.Extractors.Get(extractor); ok && info.DisplayName != "" {
		return info.DisplayName
	}
	return extractor
}

// preview picks what the page shows of the item itself.
func (u *UI) preview(page *itemPage, it models.Item, mediaType string, meta map[string]any, arts []models.Artifact) {
	byKind := map[string][]models.Artifact{}
	for _, a := range arts {
		byKind[a.Kind] = append(byKind[a.Kind], a)
	}
	page.Player = mediaPlayer(it, mediaType, page.ContentURL, arts)
	// The item's picture at the largest size made (a small one is not
	// made larger).
	largest := firstThumb(byKind["thumbnail_large"])
	if largest == nil {
		largest = firstThumb(byKind["thumbnail"])
	}
	if th := largest; th != nil && page.Player != nil && mediaType == models.TypeVideo {
		page.Player.Poster = search.ArtifactURL(th.Path)
	}
	if th := largest; th != nil && mediaType == models.TypeAudio {
		// A recording's cover art or waveform, under its player.
		alt, waveform := "Waveform of "+it.Name, true
		if lookup(meta, "thumbnailer.picture") == "cover_art" {
			alt, waveform = "Cover art of "+it.Name, false
		}
		page.Image = &picture{Src: search.ArtifactURL(th.Path), Href: search.ArtifactURL(th.Path), Alt: alt, Width: th.Width, Height: th.Height,
			Waveform: waveform}
	} else if th := largest; th != nil && page.Player == nil {
		page.Image = &picture{Src: search.ArtifactURL(th.Path), Href: page.ContentURL, Alt: "Preview of " + it.Name,
			Width: th.Width, Height: th.Height}
	} else if mediaType == models.TypeImage {
		// No thumbnail (yet): the picture itself, as an image element (no
		// script of an SVG runs there).
		page.Image = &picture{Src: page.ContentURL, Href: page.ContentURL, Alt: it.Name}
	}
	if page.Player != nil && mediaType == models.TypeVideo {
		page.Filmstrip = filmstrip(it, meta, arts)
	}
	pages := byKind["page"]
	sort.Slice(pages, func(i, j int) bool { return pages[i].Path < pages[j].Path })
	for i, a := range pages {
		if i >= maxPages {
			page.Notes = append(page.Notes, "Only the first "+strconv.Itoa(maxPages)+" pages are shown.")
			break
		}
		page.Pages = append(page.Pages, picture{Src: search.ArtifactURL(a.Path), Href: search.ArtifactURL(a.Path),
			Alt: "Page " + strconv.Itoa(i+1), Width: a.Width, Height: a.Height})
	}
	if len(page.Pages) > 0 {
		page.Image = nil
	}
	page.Contents = archiveContentsOf(meta)
	page.Messages = emailMessagesOf(meta)
	for _, f := range []struct{ path, label string }{
		{"archive.text", "Text of the documents inside"},
		{"text.text", "Text"}, {"pdf.text", "Document text"}, {"officex.text", "Document text"}, {"html.text", "Page text"},
		{"email.text", "Message text"}, {"fdx.text", "Script text"}, {"csv.text", "Table text"}, {"xml.text", "Text"},
	} {
		if s, ok := lookup(meta, f.path).(string); ok && strings.TrimSpace(s) != "" {
			page.Text, page.TextCut = truncate(s, maxTextRunes)
			page.TextLabel = f.label
			break
		}
	}
}

// filmstrip is a video's key frames (video_main_frames), in time order.
func filmstrip(it models.Item, meta map[string]any, arts []models.Artifact) []frame {
	var out []frame
	for _, f := range list(lookup(meta, "video_main_frames.frames")) {
		t, ok := number(lookup(f, "time"))
		if !ok || t < 0 {
			continue
		}
		a, ok := artifactOf(arts, "video_main_frames", str(lookup(f, "path")))
		if !ok {
			continue
		}
		w, _ := number(lookup(f, "width"))
		h, _ := number(lookup(f, "height"))
		out = append(out, frame{Href: itemHref(it.ID, "", t), T: seconds(t), Time: timecode(t), Img: search.ArtifactURL(a.Path),
			Alt: "Key frame at " + timecode(t), Width: int(w), Height: int(h)})
	}
	sort.SliceStable(out, func(i, j int) bool { return secs(out[i].T) < secs(out[j].T) })
	if len(out) > maxFilmstrip {
		out = out[:maxFilmstrip]
	}
	return out
}

// mediaPlayer is the player of a video or audio item (nil for other
// types): its preview when it has one (a format every browser plays), else
// the original at contentURL.
func mediaPlayer(it models.Item, mediaType, contentURL string, arts []models.Artifact) *player {
	if mediaType != models.TypeVideo && mediaType != models.TypeAudio {
		return nil
	}
	tag := "video"
	if mediaType == models.TypeAudio {
		tag = "audio"
	}
	pl := &player{Tag: tag, Src: contentURL, Type: it.MimeType}
	for _, a := range arts {
		if a.Kind != "preview" {
			continue
		}
		isAudio := strings.HasSuffix(a.Path, ".m4a")
		if (tag == "audio") == isAudio {
			pl.Src, pl.Type = search.ArtifactURL(a.Path), ""
			if isAudio {
				pl.Type = "audio/mp4"
			} else {
				pl.Type = "video/mp4"
			}
			break
		}
	}
	return pl
}

func firstThumb(arts []models.Artifact) *models.Artifact {
	for i, a := range arts {
		if a.Extractor == "thumbnailer" {
			return &arts[i]
		}
	}
	if len(arts) > 0 {
		return &arts[0]
	}
	return nil
}

// artifactOf finds the artifact an extractor reported at rel (relative to
// its own directory): stored paths end in "<extractor>/<rel>".
func artifactOf(arts []models.Artifact, extractor, rel string) (models.Artifact, bool) {
	if rel == "" {
		return models.Artifact{}, false
	}
	suffix := "/" + extractor + "/" + path.Clean(rel)
	for _, a := range arts {
		if a.Extractor == extractor && (strings.HasSuffix(a.Path, suffix) || a.Path == rel) {
			return a, true
		}
	}
	return models.Artifact{}, false
}

func (u *UI) hitLane(ctx context.Context, p *access.Principal, itemID, q string) (lane, error) {
	l := lane{Name: "hits", Title: "Search hits"}
	vis, err := p.SearchVisibility(ctx, u.DB)
	if err != nil {
		return l, err
	}
	res, err := u.Search.SearchSegments(ctx, segmentRequest(q, itemID, maxLaneMarkers, 0), vis)
	var ae *apperr.Error
	if errors.As(err, &ae) && ae.Status < 500 {
		return l, nil // words the engine refuses find no hits
	}
	if err != nil {
		return l, err
	}
	words := queryWords(q)
	for _, r := range res.Results {
		t, _ := number(r.Result["time"])
		label := ""
		if lines := momentLines(r.Result, words); len(lines) > 0 {
			label = lines[0].Kind
			if text := partsText(lines[0].Parts); text != "" {
				label += ": " + text
			}
		}
		label, _ = truncate(label, 120)
		l.Markers = append(l.Markers, marker{Href: itemHref(itemID, q, t), T: seconds(t), Label: label, Time: timecode(t)})
	}
	return l, nil
}
