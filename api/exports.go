package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/export"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// Exports (internal/export writes them): downloads with a
// Content-Disposition naming a file. The web pages link to these routes
// (GET, with the session cookie), so that a page's button and a script
// get the same file with the same checks.

// attachment sets the headers of a download named base.ext (base made of
// the name's letters, digits and a few marks; fallback when none is left).
func attachment(c *gin.Context, contentType, name, fallback, ext string) {
	base := strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_', r == '.':
			return r
		case unicode.IsSpace(r):
			return '-'
		}
		return -1
	}, name)
	base = strings.Trim(base, ".-")
	if r := []rune(base); len(r) > 80 {
		base = string(r[:80])
	}
	if base == "" {
		base = fallback
	}
	c.Header("Content-Type", contentType)
	c.Header("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": base + "." + ext}))
	c.Header("X-Content-Type-Options", "nosniff")
}

// GET /api/data/compilations/{id}/export?format=csv|edl|otio: the entries
// of a compilation the caller sees, in order, as a shot list, a CMX 3600
// EDL or an OpenTimelineIO timeline.
func (s *Server) exportCompilation(c *gin.Context) error {
	format := c.DefaultQuery("format", "csv")
	write, ctype, ext := export.ShotList, "text/csv; charset=utf-8", "csv"
	switch format {
	case "csv":
	case "edl":
		write, ctype, ext = export.EDL, "text/plain; charset=utf-8", "edl"
	case "otio":
		write, ctype, ext = export.OTIO, "application/json", "otio"
	default:
		return apperr.InvalidField("format", "must be csv, edl or otio")
	}
	cp, err := s.loadViewableCompilation(c, c.Param("id"))
	if err != nil {
		return err
	}
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	db := s.db(c)
	entries, err := store.CompilationEntries(db, v, cp.ID)
	if err != nil {
		return err
	}
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.ItemID
	}
	sources, err := store.ClipSources(db, ids)
	if err != nil {
		return err
	}
	seq := export.Sequence{ID: cp.ID, Title: cp.Name}
	for _, e := range entries {
		src := sources[e.ItemID]
		typ := models.MediaType(e.MimeType)
		seq.Clips = append(seq.Clips, export.Clip{ItemID: e.ItemID, Name: e.Filename,
			Source: search.StoreURL(src.LocationKind, src.LocationName, src.ContainerName, src.Path),
			In:     e.InPoint, Out: e.OutPoint, Duration: src.Duration, FrameRate: src.FrameRate, StartTimecode: src.Timecode,
			HasVideo: src.VideoStreams > 0 || typ == models.TypeVideo && src.Duration > 0,
			HasAudio: src.AudioStreams > 0})
	}
	var b bytes.Buffer
	if err := write(&b, seq); err != nil {
		return err
	}
	attachment(c, ctype, cp.Name, "compilation", ext)
	c.Data(http.StatusOK, ctype, b.Bytes())
	return nil
}

// GET /api/data/items/{id}/export?format=json|xmp: the item's metadata as
// the item route answers it, or a picture's as an XMP sidecar.
func (s *Server) exportItem(c *gin.Context) error {
	format := c.DefaultQuery("format", "json")
	if format != "json" && format != "xmp" {
		return apperr.InvalidField("format", "must be json or xmp")
	}
	it, err := s.loadVisibleItem(c, c.Param("id"))
	if err != nil {
		return err
	}
	var b bytes.Buffer
	ctype := "application/json"
	if format == "xmp" {
		if models.MediaType(it.MimeType) != models.TypeImage {
			return apperr.InvalidField("format", "an XMP sidecar is made for pictures; export this item as json")
		}
		var meta map[string]any
		dec := json.NewDecoder(bytes.NewReader(it.Metadata))
		dec.UseNumber()
		if len(it.Metadata) > 0 {
			if err := dec.Decode(&meta); err != nil {
				return err
			}
		}
		if err := export.XMP(&b, export.Picture{MimeType: it.MimeType, Metadata: meta}); err != nil {
			return err
		}
		ctype = "application/rdf+xml"
	} else {
		out, err := s.itemOut(c, it)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	}
	attachment(c, ctype, it.Name, "item", format)
	c.Data(http.StatusOK, ctype, b.Bytes())
	return nil
}

// maxExportRequest bounds the request parameter of a GET export (the body
// of a POST has the api's body limit).
const maxExportRequest = 64 << 10

// GET or POST /api/data/search/export?format=csv|jsonl&fields=a,b&max=n:
// every result of a search the caller may see, streamed. The search is
// the body of POST /api/data/search (POST), or that JSON in the request
// parameter (GET, what the search page's buttons link to); its words,
// types and filters apply, its page, limit, sort, aggregations and hit
// counts do not. Each export is an audit event (search/export).
func (s *Server) exportSearch(c *gin.Context) error {
	o := export.Results{Format: c.DefaultQuery("format", export.FormatCSV)}
	for _, f := range c.QueryArray("fields") {
		o.Fields = append(o.Fields, strings.Split(f, ",")...)
	}
	max, err := queryInt(c, "max", 0, 1, export.MaxResults)
	if err != nil {
		return err
	}
	o.Max = max
	if err := o.Check(); err != nil {
		return err
	}
	var req search.Request
	if c.Request.Method == http.MethodPost {
		if err := decodeJSON(c, &req); err != nil {
			return err
		}
	} else if raw := c.Query("request"); raw != "" {
		if len(raw) > maxExportRequest {
			return apperr.InvalidField("request", "is too long")
		}
		if err := json.Unmarshal([]byte(raw), &req); err != nil {
			return apperr.InvalidField("request", "must be a search request in JSON")
		}
	}
	for _, f := range o.Fields {
		if s.longText(f) {
			o.LongText = true
		}
	}
	eng, vis, err := s.engineFor(c)
	if err != nil {
		return err
	}
	// The first page is asked for before the response starts, so that a
	// search the engine refuses is the usual 400 (or 503), not a cut file.
	probe := req
	probe.Cursor, probe.Limit, probe.Page, probe.SortFields, probe.Aggregations, probe.HitCounts =
		&search.Cursor{}, 1, 0, nil, nil, nil
	probe.Only = []string{search.FieldID}
	if _, err := eng.Search(c.Request.Context(), probe, vis); err != nil {
		return err
	}
	if err := record(s.db(c), principalOf(c), "search", "export", "", o.Format); err != nil {
		return err
	}
	ctype := "text/csv; charset=utf-8"
	if o.Format == export.FormatJSONL {
		ctype = "application/x-ndjson"
	}
	attachment(c, ctype, "search-"+time.Now().UTC().Format("20060102-150405"), "search", o.Format)
	c.Status(http.StatusOK)
	n, err := export.WriteResults(c.Request.Context(), eng, req, vis, o, c.Writer)
	if err != nil && c.Request.Context().Err() == nil {
		// The status is sent: cut the response, so that the client sees
		// a failed download rather than a file that looks complete.
		s.Logger.ErrorContext(c.Request.Context(), "search export failed", slog.String("request_id", requestIDOf(c)),
			slog.Int("written", n), slog.String("error", err.Error()))
		panic(http.ErrAbortHandler)
	}
	return nil
}

// longText reports whether a field is declared long text (a document's
// text): an export of it reads smaller pages.
func (s *Server) longText(field string) bool {
	for _, f := range s.Extractors.Fields() {
		if f.Path == field {
			return f.Type == extractors.TypeText
		}
	}
	return field == search.FieldTranscript+".text" || field == search.FieldTranscript
}
