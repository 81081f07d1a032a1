package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/captions"
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// Limits of caption uploads: a feature film's subtitles are a few hundred
// kilobytes; uploads are kept in Postgres.
const (
	maxCaptionUpload    = 4 << 20
	maxCaptionsPerItem  = 100 // uploaded ones; extracted ones are bounded by the extractors
	maxCaptionIDLength  = 64
	maxCaptionFileName  = 255
	maxMultipartParts   = 8
	maxFormFieldLength  = 64
	multipartOverheadCB = 64 << 10
)

// captionJSON is a Caption of the reference, plus what tells an uploaded
// caption from an extracted one (extractor, format, label, file_name).
type captionJSON struct {
	ID         string              `json:"id"`
	Source     string              `json:"source"`
	Language   captionLanguageJSON `json:"language"`
	AddedAt    int64               `json:"added_at"`
	Transcript []extractors.Cue    `json:"transcript"`
	Extractor  string              `json:"extractor"`
	Format     string              `json:"format"`
	Label      string              `json:"label"`
	FileName   string              `json:"file_name"`
}

type captionLanguageJSON struct {
	Language   string  `json:"language"`
	Confidence float64 `json:"confidence"`
}

func captionOf(m models.Caption) captionJSON {
	cues := []extractors.Cue{}
	_ = json.Unmarshal(m.Cues, &cues) // written by the worker or by upload: always a list
	if cues == nil {
		cues = []extractors.Cue{}
	}
	return captionJSON{ID: m.ID, Source: m.Source, Language: captionLanguageJSON{Language: m.Language, Confidence: m.Confidence},
		AddedAt: m.AddedAt.Unix(), Transcript: cues, Extractor: m.Extractor, Format: m.Format, Label: m.Label, FileName: m.FileName}
}

// captionItem loads the item of the path with the item rules: 404 when
// unknown or deleted, 403 when not visible.
func (s *Server) captionItem(c *gin.Context) (models.Item, error) {
	id := c.Param("item_id")
	if len(id) > 64 {
		return models.Item{}, apperr.NotFound("item", store.ShortID(id))
	}
	return s.loadVisibleItem(c, id)
}

// captionOfItem loads the caption named by the caption_id query of a
// visible item.
func (s *Server) captionOfItem(c *gin.Context, itemID string) (models.Caption, error) {
	var m models.Caption
	id := c.Query("caption_id")
	switch {
	case id == "":
		return m, apperr.InvalidField("caption_id", "is required")
	case len(id) > maxCaptionIDLength:
		return m, apperr.InvalidField("caption_id", fmt.Sprintf("is longer than %d characters", maxCaptionIDLength))
	}
	return store.Caption(s.db(c), itemID, id)
}

func (s *Server) listCaptions(c *gin.Context) error {
	it, err := s.captionItem(c)
	if err != nil {
		return err
	}
	rows, err := store.Captions(s.db(c), it.ID)
	if err != nil {
		return err
	}
	out := make([]captionJSON, len(rows))
	for i, m := range rows {
		out[i] = captionOf(m)
	}
	c.JSON(http.StatusOK, gin.H{"captions": gin.H{"captions": out}})
	return nil
}

// captionTypes are the content types of downloads.
var captionTypes = map[string]string{
	"srt": "application/x-subrip; charset=utf-8",
	"vtt": "text/vtt; charset=utf-8",
}

// downloadCaption serves an uploaded caption byte for byte as uploaded,
// an extracted one as SubRip made from its cues.
func (s *Server) downloadCaption(c *gin.Context) error {
	it, err := s.captionItem(c)
	if err != nil {
		return err
	}
	m, err := s.captionOfItem(c, it.ID)
	if err != nil {
		return err
	}
	body, format, name := m.Original, m.Format, m.FileName
	if m.Original == nil {
		var cues []extractors.Cue
		_ = json.Unmarshal(m.Cues, &cues)
		body, format = captions.WriteSRT(cues), "srt"
		name = extractedCaptionName(it.Name, m)
	}
	ctype, ok := captionTypes[format]
	if !ok {
		ctype = "application/octet-stream"
	}
	h := c.Writer.Header()
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", "private, no-cache")
	c.Data(http.StatusOK, ctype, body)
	return nil
}

// extractedCaptionName names the SubRip of an extracted caption after its
// item and language: "clip.eng.srt", "clip.2.srt" for track 2 without a
// language.
func extractedCaptionName(itemName string, m models.Caption) string {
	base := strings.TrimSuffix(itemName, path.Ext(itemName))
	if base == "" {
		base = "caption"
	}
	tag := m.Language
	if tag == "" && m.Label != "" && !strings.ContainsAny(m.Label, "./\\") {
		tag = strings.ReplaceAll(m.Label, ":", "-")
	}
	if tag != "" {
		base += "." + tag
	}
	return safeFileName(base + ".srt")
}

// safeFileName keeps the base of a client's file name, without control
// characters, at most maxCaptionFileName bytes.
func safeFileName(name string) string {
	name = path.Base(strings.ReplaceAll(name, `\`, "/"))
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '"' {
			return -1
		}
		return r
	}, strings.ToValidUTF8(name, ""))
	for len(name) > maxCaptionFileName {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	if name == "" || name == "." || name == "/" {
		return "caption"
	}
	return name
}

// captionUpload is what a multipart caption upload carries.
type captionUpload struct {
	data     []byte
	fileName string
	language string
	hasLang  bool
}

// readCaptionUpload reads the parts of a multipart/form-data body:
// caption_file (the file, at most maxCaptionUpload bytes) and language
// (optional). Other parts are skipped, at most maxMultipartParts in all.
func readCaptionUpload(c *gin.Context) (*captionUpload, error) {
	mt, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type"))
	if mt != "multipart/form-data" {
		return nil, apperr.BadRequest(apperr.CodeMalformedMultipart, "the body must be multipart/form-data with a part named caption_file")
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, maxCaptionUpload+multipartOverheadCB)
	mr, err := c.Request.MultipartReader()
	if err != nil {
		return nil, apperr.BadRequest(apperr.CodeMalformedMultipart, "the multipart body cannot be read")
	}
	up := &captionUpload{}
	for n := 0; ; n++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, multipartError(err)
		}
		if n == maxMultipartParts {
			return nil, apperr.BadRequest(apperr.CodeMalformedMultipart, "more than %d parts", maxMultipartParts)
		}
		switch part.FormName() {
		case "caption_file":
			if up.data != nil {
				return nil, apperr.InvalidField("caption_file", "is given twice")
			}
			if up.data, err = readPart(part, maxCaptionUpload); err != nil {
				if errors.Is(err, errPartTooLarge) {
					return nil, apperr.TooLarge("the caption file is larger than %d bytes", maxCaptionUpload)
				}
				return nil, multipartError(err)
			}
			up.fileName = safeFileName(part.FileName())
		case "language":
			v, err := readPart(part, maxFormFieldLength)
			if err != nil {
				if errors.Is(err, errPartTooLarge) {
					return nil, apperr.InvalidField("language", fmt.Sprintf("is longer than %d characters", maxFormFieldLength))
				}
				return nil, multipartError(err)
			}
			up.language, up.hasLang = strings.TrimSpace(string(v)), true
		default:
			if _, err := io.Copy(io.Discard, part); err != nil {
				return nil, multipartError(err)
			}
		}
	}
	if up.data == nil {
		return nil, apperr.InvalidField("caption_file", "is required (the multipart part holding the caption file)")
	}
	return up, nil
}

var errPartTooLarge = errors.New("part too large")

func readPart(p *multipart.Part, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(p, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, errPartTooLarge
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

func multipartError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return apperr.TooLarge("the request body is larger than %d bytes", mbe.Limit)
	}
	return apperr.BadRequest(apperr.CodeMalformedMultipart, "the multipart body cannot be read")
}

// uploadCaption stores an SRT or WebVTT file as a caption of the item. The
// file is validated by parsing it; its cues are what search and keyword
// hits read, the bytes are kept to be downloaded as sent. The item is
// marked for the search index in the same transaction.
func (s *Server) uploadCaption(c *gin.Context) error {
	it, err := s.captionItem(c)
	if err != nil {
		return err
	}
	up, err := readCaptionUpload(c)
	if err != nil {
		return err
	}
	p, err := captions.Parse(c.Request.Context(), nil, up.fileName, up.data)
	if err != nil {
		e := apperr.BadRequest(apperr.CodeInvalidCaption, "the caption file cannot be read: %s", err.Error())
		e.Fields = map[string]string{"caption_file": err.Error()}
		return e
	}
	if p.Format != "srt" && p.Format != "vtt" {
		return apperr.InvalidField("caption_file", "must be SubRip (.srt) or WebVTT (.vtt), not "+p.Format)
	}
	if len(p.Cues) == 0 {
		return apperr.InvalidField("caption_file", "has no cue")
	}
	declared := ""
	switch {
	case up.hasLang && up.language != "":
		if declared = captions.LanguageTag(up.language); declared == "" {
			return apperr.InvalidField("language", "is not a language tag (en, eng, pt-BR)")
		}
	case p.Language != "":
		declared = p.Language
	default:
		declared = captions.NameLanguage(up.fileName)
	}
	lang := captions.LanguageOf(declared, p.Cues)
	cues, err := json.Marshal(p.Cues)
	if err != nil {
		return err
	}
	m := models.Caption{ID: ids.New(), ItemID: it.ID, Source: "uploaded", Language: lang.Code, Confidence: lang.Confidence,
		Format: p.Format, Cues: cues, Original: up.data, FileName: up.fileName, AddedAt: time.Now().UTC().Truncate(time.Microsecond)}
	err = s.audited(c, "caption", "upload", m.ID, it.ID, func(tx *store.DB) error {
		if err := store.AddUploadedCaption(tx, &m, maxCaptionsPerItem); err != nil {
			return err
		}
		return search.MarkDirty(tx, it.ID)
	})
	if err != nil {
		return err
	}
	s.kickIndex(c)
	c.JSON(http.StatusCreated, captionOf(m))
	return nil
}

// deleteCaption removes a caption, uploaded or extracted. An extracted one
// comes back when its extractor harvests the item again.
func (s *Server) deleteCaption(c *gin.Context) error {
	it, err := s.captionItem(c)
	if err != nil {
		return err
	}
	m, err := s.captionOfItem(c, it.ID)
	if err != nil {
		return err
	}
	err = s.audited(c, "caption", "delete", m.ID, it.ID, func(tx *store.DB) error {
		if err := store.DeleteCaption(tx, it.ID, m.ID); err != nil {
			return err
		}
		return search.MarkDirty(tx, it.ID)
	})
	if err != nil {
		return err
	}
	s.kickIndex(c)
	c.JSON(http.StatusOK, gin.H{"id": m.ID, "deleted": true})
	return nil
}
