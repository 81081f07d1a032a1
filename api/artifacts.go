package api

import (
	"context"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/blobstore"
	"github.com/metaharvest/metaharvest/internal/store"
)

// artifactTypes fixes the content types of the artifacts extractors write,
// so they do not depend on the host's mime.types; other extensions fall back
// to the standard table, then to application/octet-stream.
var artifactTypes = map[string]string{
	".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".webp": "image/webp",
	".gif": "image/gif", ".avif": "image/avif", ".vtt": "text/vtt; charset=utf-8", ".srt": "application/x-subrip",
	".txt": "text/plain; charset=utf-8", ".json": "application/json", ".mp4": "video/mp4", ".m4v": "video/mp4",
	".webm": "video/webm", ".m4a": "audio/mp4", ".aac": "audio/aac", ".mp3": "audio/mpeg", ".wav": "audio/wav",
	".oga": "audio/ogg", ".ogg": "audio/ogg", ".opus": "audio/ogg", ".flac": "audio/flac",
}

// artifactCacheControl lets the caller's browser (never a shared cache:
// artifacts follow their item's access rules) keep an artifact a day
// without asking. Artifact paths are stable and their content changes only
// when the item is harvested again; after a day the ETag makes asking cheap.
const artifactCacheControl = "private, max-age=86400"

// contentWriter is handed to http.ServeContent in place of the response:
// the statuses it answers with a plain-text body (416 for a range outside
// the file, 412 for a failed If-Match or If-Unmodified-Since) are held
// back, so that the api's JSON error body is rendered instead.
type contentWriter struct {
	http.ResponseWriter
	refused int
}

func (w *contentWriter) WriteHeader(code int) {
	if code >= 400 {
		w.refused = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *contentWriter) Write(p []byte) (int, error) {
	if w.refused != 0 {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

func artifactType(p string) string {
	ext := strings.ToLower(path.Ext(p))
	if t, ok := artifactTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// artifactPathProblem refuses spellings that could only be traversal
// attempts; everything else is looked up as it is, and only paths present
// in the artifacts table are ever opened.
func artifactPathProblem(p string) string {
	switch {
	case p == "":
		return "is empty"
	case strings.HasPrefix(p, "/"):
		return "is absolute"
	case strings.ContainsAny(p, "\x00\\"):
		return "contains NUL or a backslash"
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "has an empty, . or .. segment"
		}
	}
	return ""
}

// serveArtifact serves an artifact with the access rules of its item. The
// path must be a row of the artifacts table (of a live item); it is read
// from the artifact store (whose directory kind reads through an os.Root,
// so that neither a crafted URL nor a symlink planted under DATA_DIR
// reaches another file), or, when browsers reach the store's bucket
// (DATA_BUCKET_BROWSER_ENDPOINT), the caller is sent to a short-lived
// presigned URL of it. Visibility is checked before either.
func (s *Server) serveArtifact(c *gin.Context) error {
	p := strings.TrimPrefix(c.Param("path"), "/")
	if problem := artifactPathProblem(p); problem != "" {
		e := apperr.BadRequest(apperr.CodeBadPath, "the artifact path %s", problem)
		e.Fields = map[string]string{"path": problem}
		return e
	}
	owner, err := store.ArtifactOwnerOf(s.db(c), p)
	if err != nil {
		return err
	}
	if owner.ItemID == "" {
		return apperr.NotFound("artifact", p)
	}
	if err := s.checkVisible(c, owner.LocationID, owner.ContainerID); err != nil {
		return err
	}
	ctx := c.Request.Context()
	if ttl := s.Files.URLTTL; ttl > 0 {
		u, err := s.Files.Artifacts.BrowserURL(ctx, p, ttl, artifactType(p))
		switch {
		case err == nil:
			// The URL expires: neither the redirect nor its target is
			// kept by the browser beyond it.
			c.Header("Cache-Control", "private, no-store")
			c.Header("Location", u)
			c.Status(http.StatusFound)
			return nil
		case errors.Is(err, blobstore.ErrBadKey):
			return apperr.NotFound("artifact", p)
		case !errors.Is(err, blobstore.ErrNoBrowserURL):
			return s.fileStoreUnavailable(c, "artifact store", err)
		}
	}
	// A plain GET gets the bytes in the same round trip as their
	// description; a range or a conditional request first asks only for
	// the description (a 304 sends no bytes, a range only its own).
	whole := c.GetHeader("Range") == "" && c.GetHeader("If-None-Match") == "" && c.GetHeader("If-Modified-Since") == ""
	f, err := s.Files.Artifacts.Open(ctx, p, whole)
	switch {
	case errors.Is(err, blobstore.ErrNotFound), errors.Is(err, blobstore.ErrBadKey):
		return apperr.NotFound("artifact", p)
	case errors.Is(err, blobstore.ErrUnavailable):
		return s.fileStoreUnavailable(c, "artifact store", err)
	case err != nil:
		return err
	}
	defer f.Close()
	info := f.Info()
	h := c.Writer.Header()
	h.Set("Content-Type", artifactType(p))
	// Artifacts are files extractors made from user content: never let a
	// browser sniff them into HTML or run them as a page of this origin.
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", artifactCacheControl)
	// A strong validator of the content as written (a directory: size and
	// time; a bucket: its ETag), so that a player resuming a preview with
	// If-Range gets the rest of the same file or the whole new one.
	h.Set("ETag", contentETag(info.ETag))
	// ServeContent answers conditional requests (304 to If-None-Match and
	// If-Modified-Since) and byte ranges (206, one range or several as
	// multipart/byteranges), which players need to seek in a preview.
	w := &contentWriter{ResponseWriter: c.Writer}
	http.ServeContent(w, c.Request, "", info.Modified, f)
	switch w.refused {
	case 0:
		return nil
	case http.StatusRequestedRangeNotSatisfiable:
		h.Del("Content-Type") // ServeContent's text/plain; Content-Range "bytes */<size>" stays
		return apperr.New(apperr.CodeRangeNotSatisfiable, "the requested range is not within the artifact's %d bytes", info.Size)
	case http.StatusPreconditionFailed:
		h.Del("Content-Type")
		return apperr.New(apperr.CodePreconditionFailed, "the artifact does not match the request's preconditions")
	default:
		h.Del("Content-Type")
		return apperr.New(apperr.CodeArtifactRefused, "the artifact cannot be served for this request").WithStatus(w.refused)
	}
}

// fileStoreUnavailable is the answer when the store of the platform's own
// files (artifacts, uploads) does not answer: 502, without its error text
// (which names hosts and buckets); the log keeps it.
func (s *Server) fileStoreUnavailable(c *gin.Context, what string, err error) error {
	s.Logger.WarnContext(c.Request.Context(), what+" did not answer", slog.String("request_id", requestIDOf(c)),
		slog.String("error", err.Error()))
	return apperr.New(apperr.CodeFileStoreUnavailable, "the %s did not answer; try again later", what)
}

// removeArtifactFiles removes artifact files whose rows are gone. Failures
// are logged, not returned: the rows are deleted already, a file without a
// row is never served, and the worker's sweep removes it later. The
// removal outlives the request (a client that hangs up must not leave the
// files).
func (s *Server) removeArtifactFiles(c *gin.Context, paths []string) {
	if len(paths) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request.Context()), removeArtifactsTimeout)
	defer cancel()
	if err := s.Files.Artifacts.Remove(ctx, paths); err != nil {
		s.Logger.WarnContext(ctx, "remove artifact files; the sweep will", slog.String("request_id", requestIDOf(c)),
			slog.Int("files", len(paths)), slog.String("error", err.Error()))
	}
}

// removeArtifactsTimeout bounds the removal of a deleted item's or
// location's files.
const removeArtifactsTimeout = time.Minute
