package api

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
)

// artifactsDir is DATA_DIR/artifacts, where extractors store thumbnails and
// frames under the path recorded in the artifacts table.
func (s *Server) artifactsDir() string { return filepath.Join(s.Config.DataDir, "artifacts") }

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

// artifactETag is a strong validator of the file's content as written: its
// size and modification time (an extractor rewrites the whole file). A
// strong one, so that a player resuming a preview with If-Range gets the
// rest of the same file or the whole new one.
func artifactETag(fi fs.FileInfo) string {
	return fmt.Sprintf(`"%x-%x"`, fi.Size(), fi.ModTime().UnixNano())
}

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

// fileMissing reports errors meaning "no such regular file here", including
// os.Root's refusal to follow a symlink out of the artifacts directory (the
// os package does not export that error; its text is what users see).
func fileMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) ||
		errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "path escapes from parent")
}

// serveArtifact serves an artifact file with the access rules of its item.
// The path must be a row of the artifacts table (of a live item) and is
// opened through an os.Root on the artifacts directory, so neither a crafted
// URL nor a symlink planted under DATA_DIR reaches another file.
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
	root, err := os.OpenRoot(s.artifactsDir())
	if err != nil {
		if fileMissing(err) {
			return apperr.NotFound("artifact", p)
		}
		return err
	}
	defer root.Close()
	f, err := root.Open(p)
	if err != nil {
		if fileMissing(err) {
			return apperr.NotFound("artifact", p)
		}
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return apperr.NotFound("artifact", p)
	}
	h := c.Writer.Header()
	h.Set("Content-Type", artifactType(p))
	// Artifacts are files extractors made from user content: never let a
	// browser sniff them into HTML or run them as a page of this origin.
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", artifactCacheControl)
	h.Set("ETag", artifactETag(fi))
	// ServeContent answers conditional requests (304 to If-None-Match and
	// If-Modified-Since) and byte ranges (206, one range or several as
	// multipart/byteranges), which players need to seek in a preview.
	w := &contentWriter{ResponseWriter: c.Writer}
	http.ServeContent(w, c.Request, "", fi.ModTime(), f)
	switch w.refused {
	case 0:
		return nil
	case http.StatusRequestedRangeNotSatisfiable:
		h.Del("Content-Type") // ServeContent's text/plain; Content-Range "bytes */<size>" stays
		return apperr.New(apperr.CodeRangeNotSatisfiable, "the requested range is not within the artifact's %d bytes", fi.Size())
	case http.StatusPreconditionFailed:
		h.Del("Content-Type")
		return apperr.New(apperr.CodePreconditionFailed, "the artifact does not match the request's preconditions")
	default:
		h.Del("Content-Type")
		return apperr.New(apperr.CodeArtifactRefused, "the artifact cannot be served for this request").WithStatus(w.refused)
	}
}

// removeArtifactFiles removes artifact files whose rows are gone. Failures
// are logged, not returned: the rows are deleted already, and a file without
// a row is never served. Parent directories are left in place, since a
// worker may be writing a new artifact into the same directory.
func (s *Server) removeArtifactFiles(c *gin.Context, paths []string) {
	if len(paths) == 0 {
		return
	}
	root, err := os.OpenRoot(s.artifactsDir())
	if err != nil {
		if !fileMissing(err) {
			s.Logger.WarnContext(c.Request.Context(), "remove artifacts: open directory", slog.String("request_id", requestIDOf(c)),
				slog.String("error", err.Error()))
		}
		return
	}
	defer root.Close()
	for _, p := range paths {
		if err := root.Remove(p); err != nil && !fileMissing(err) {
			s.Logger.WarnContext(c.Request.Context(), "remove artifact file", slog.String("request_id", requestIDOf(c)),
				slog.String("path", p), slog.String("error", err.Error()))
		}
	}
}
