package api

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/storage"
)

// contentCacheControl: the caller's browser may keep the original (never a
// shared cache: it follows the item's access rules) but asks again each
// time; the ETag makes asking cheap, and a file changed in storage is seen
// at once.
const contentCacheControl = "private, no-cache"

// inlineTypes are the media types a browser renders as inert media: no
// script, no markup, no links. Everything else (HTML, SVG, XML, PDF, text
// the browser might treat as a page, unknown types) is sent as a download,
// so that a file from storage never runs as a page of this origin. The
// response is sandboxed and nosniff in both cases.
func inlineType(mediaType string) bool {
	switch {
	case strings.HasPrefix(mediaType, "video/"), strings.HasPrefix(mediaType, "audio/"):
		return true
	}
	switch mediaType {
	case "image/jpeg", "image/png", "image/gif", "image/webp", "image/avif", "image/bmp":
		return true
	}
	return false
}

// contentType is the item's stored MIME type when it is a well-formed one,
// else application/octet-stream. The media type proper (lower case, no
// parameters) decides inline or attachment.
func contentType(stored string) (header, mediaType string) {
	mt, params, err := mime.ParseMediaType(stored)
	if err != nil || !strings.Contains(mt, "/") {
		return "application/octet-stream", "application/octet-stream"
	}
	// Only a charset is kept: other parameters mean nothing to a browser.
	if cs, ok := params["charset"]; ok {
		if h := mime.FormatMediaType(mt, map[string]string{"charset": cs}); h != "" {
			return h, mt
		}
	}
	return mt, mt
}

// contentDisposition names the file for a download or an inline view: an
// ASCII fallback name (anything outside printable ASCII, quotes,
// backslashes and percent signs replaced) and the real name as
// filename*=UTF-8”..., percent-encoded (RFC 6266, RFC 8187), so that no
// byte of a hostile name reaches the header unencoded.
func contentDisposition(disposition, name string) string {
	name = strings.ToValidUTF8(name, "\uFFFD")
	if name == "" {
		name = "file"
	}
	var ascii, enc strings.Builder
	for _, r := range name {
		if r >= 0x20 && r < 0x7f && r != '"' && r != '\\' && r != '%' {
			ascii.WriteRune(r)
		} else {
			ascii.WriteByte('_')
		}
	}
	var buf [utf8.UTFMax]byte
	for _, r := range name {
		n := utf8.EncodeRune(buf[:], r)
		for _, b := range buf[:n] {
			if attrChar(b) {
				enc.WriteByte(b)
			} else {
				enc.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{b})))
			}
		}
	}
	return disposition + `; filename="` + ascii.String() + `"; filename*=UTF-8''` + enc.String()
}

// attrChar: the bytes RFC 8187 allows unencoded in an ext-value.
func attrChar(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	return strings.IndexByte("!#$&+-.^_`|~", b) >= 0
}

// contentETag quotes the storage's validator as a strong ETag. Storage
// ETags are hex digests in practice; anything that could not stand in a
// quoted string is hashed instead.
func contentETag(etag string) string {
	for i := 0; i < len(etag); i++ {
		if c := etag[i]; c <= 0x20 || c >= 0x7f || c == '"' {
			sum := sha256.Sum256([]byte(etag))
			return `"` + hex.EncodeToString(sum[:16]) + `"`
		}
	}
	return `"` + etag + `"`
}

// itemContent streams an item's original bytes from its location, with
// byte ranges and conditional requests (http.ServeContent). An item the
// caller may not see is 404 like an unknown one: this route names files,
// and must not tell which ids exist.
func (s *Server) itemContent(c *gin.Context) error {
	id := c.Param("id")
	it, err := store.LiveItem(s.db(c), id)
	if err != nil {
		return err
	}
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	if ok, err := v.Sees(s.db(c), it.LocationID, it.ContainerID); err != nil {
		return err
	} else if !ok {
		return apperr.NotFound("item", id)
	}
	l, err := store.Location(s.db(c), it.LocationID)
	if err != nil {
		return err
	}
	ctr, err := store.Container(s.db(c), it.ContainerID)
	if err != nil {
		return err
	}
	loc, err := s.openStoredLocation(l)
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	f, entry, err := storage.OpenSeeker(ctx, loc, ctr.Name, it.Path)
	if err != nil {
		if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrBadPath) {
			return apperr.New(apperr.CodeContentMissing, "the item's file is no longer in its location")
		}
		if ctx.Err() != nil {
			return err
		}
		// The storage failed, not this server: 502 without its error text
		// (which may name hosts or buckets); the log keeps it.
		s.Logger.WarnContext(ctx, "open item content failed", slog.String("request_id", requestIDOf(c)),
			slog.String("item_id", it.ID), slog.String("error", err.Error()))
		return apperr.New(apperr.CodeLocationUnavailable, "the item's location did not answer")
	}
	defer f.Close()

	header, mediaType := contentType(it.MimeType)
	disposition := "attachment"
	if inlineType(mediaType) {
		disposition = "inline"
	}
	h := c.Writer.Header()
	h.Set("Content-Type", header)
	h.Set("Content-Disposition", contentDisposition(disposition, it.Name))
	// The bytes are a user's file: never sniffed into another type, never
	// run as a page of this origin (a sandboxed document with no sources).
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", contentCacheControl)
	if entry.ETag != "" {
		h.Set("ETag", contentETag(entry.ETag))
	}
	w := &contentWriter{ResponseWriter: c.Writer}
	http.ServeContent(w, c.Request, "", entry.LastModified, f)
	switch w.refused {
	case 0:
		return nil
	case http.StatusRequestedRangeNotSatisfiable:
		h.Del("Content-Type") // ServeContent's text/plain; its Content-Range "bytes */<size>" stays
		h.Del("Content-Disposition")
		return apperr.New(apperr.CodeRangeNotSatisfiable, "the requested range is not within the file's %d bytes", entry.Size)
	case http.StatusPreconditionFailed:
		h.Del("Content-Type")
		h.Del("Content-Disposition")
		return apperr.New(apperr.CodePreconditionFailed, "the file does not match the request's preconditions")
	default:
		h.Del("Content-Type")
		h.Del("Content-Disposition")
		return apperr.New(apperr.CodeContentRefused, "the file cannot be served for this request").WithStatus(w.refused)
	}
}
