package api

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/blobstore"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/storage"
)

// uploadRelPath is the path below /files/uploadstore/ as the router decoded
// it. Exactly one slash (the route's own) is removed, so "//etc/passwd"
// stays absolute and is refused rather than quietly made relative.
func uploadRelPath(c *gin.Context) string { return strings.TrimPrefix(c.Param("path"), "/") }

// badPath answers 400 for a storage.ErrBadPath. The storage error names only
// the client's own path (quoted) and the rule it broke.
func badPath(err error) error {
	e := apperr.BadRequest(apperr.CodeBadPath, "the path is not acceptable: %s", err.Error())
	e.Fields = map[string]string{"path": err.Error()}
	return e
}

// storageError maps the storage sentinels to client errors.
func storageError(err error, what string) error {
	switch {
	case errors.Is(err, storage.ErrBadPath):
		return badPath(err)
	case errors.Is(err, storage.ErrNotFound):
		return apperr.NotFound("file", what)
	}
	return err
}

// checkUploadVisible applies the visibility rule to the upload store and,
// when it exists already, the target container: a caller may not write into
// (or delete from) a part of the store it cannot see.
func (s *Server) checkUploadVisible(c *gin.Context, ctrID string) error {
	if err := s.checkVisible(c, uploadStoreID, ""); err != nil {
		return err
	}
	exists, err := store.ContainerExists(s.db(c), ctrID)
	if err != nil || !exists {
		return err
	}
	return s.checkVisible(c, uploadStoreID, ctrID)
}

// uploadBody is the raw request body, or the part named "file" of a
// multipart/form-data body. Parts before it are skipped while streaming,
// never buffered.
func uploadBody(c *gin.Context) (io.Reader, error) {
	mt, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type"))
	if mt != "multipart/form-data" {
		return c.Request.Body, nil
	}
	mr, err := c.Request.MultipartReader()
	if err != nil {
		return nil, apperr.BadRequest(apperr.CodeMalformedMultipart, "the multipart body cannot be read: %v", err)
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, apperr.InvalidField("file", "is required (the multipart part holding the file)")
		}
		if err != nil {
			return nil, apperr.BadRequest(apperr.CodeMalformedMultipart, "the multipart body cannot be read")
		}
		if part.FormName() == "file" {
			return part, nil
		}
	}
}

// missingDirs lists, deepest first, the directories the upload of full
// (container/path) would create below the store. A refused upload removes
// them again: an empty directory left behind would show up as a new
// container or folder.
func missingDirs(storeDir, full string) []string {
	root, err := os.OpenRoot(storeDir)
	if err != nil {
		return nil
	}
	defer root.Close()
	var missing []string
	for d := path.Dir(full); d != "." && d != "/"; d = path.Dir(d) {
		if _, err := root.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
	}
	return missing
}

// removeEmptyDirs removes dirs (deepest first) if they are empty. A
// directory another upload has put a file into meanwhile is not empty and
// stays.
func removeEmptyDirs(storeDir string, dirs []string) {
	if len(dirs) == 0 {
		return
	}
	root, err := os.OpenRoot(storeDir)
	if err != nil {
		return
	}
	defer root.Close()
	for _, d := range dirs {
		if root.Remove(d) != nil {
			return
		}
	}
}

type uploadJSON struct {
	ItemID      string `json:"item_id"`
	LocationID  string `json:"location_id"`
	ContainerID string `json:"container_id"`
	Path        string `json:"path"`
	Size        int64  `json:"size"`
	RequestID   string `json:"request_id"`
}

// uploadFile stores the body at the path (first segment: container; a
// single segment goes to the container "uploads"), records the container
// and item, and starts a harvest of the item.
func (s *Server) uploadFile(c *gin.Context) error {
	if !s.Config.UploadEnabled {
		return apperr.New(apperr.CodeUploadsDisabled, "the upload store is disabled on this platform")
	}
	rel := uploadRelPath(c)
	container, itemPath, err := storage.SplitUploadPath(rel)
	if err != nil {
		return storageError(err, rel)
	}
	if storage.IgnoredName(itemPath, s.Config.UploadIgnorePatterns) {
		return apperr.BadRequest(apperr.CodeIgnoredName, "files named %q are ignored by the upload store", path.Base(itemPath))
	}
	ctrID := models.ContainerID(uploadStoreID, container)
	itemID := models.ItemID(ctrID, itemPath)
	if err := s.checkUploadVisible(c, ctrID); err != nil {
		return err
	}
	body, err := uploadBody(c)
	if err != nil {
		return err
	}
	uploads, err := storage.OpenUploads(s.storageEnv())
	if err != nil {
		return err
	}
	// A local store keeps no directories a failed upload made (a bucket
	// has none).
	var created []string
	local, isLocal := uploads.(*storage.UploadStore)
	if isLocal {
		created = missingDirs(local.Dir(), container+"/"+itemPath)
	}
	ctx := c.Request.Context()
	_, entry, err := uploads.Write(ctx, rel, body, s.Config.UploadLimitBytes)
	if err != nil {
		if isLocal {
			removeEmptyDirs(local.Dir(), created)
		}
		switch {
		case errors.Is(err, storage.ErrTooLarge):
			return apperr.TooLarge("the upload is larger than the limit of %d bytes", s.Config.UploadLimitBytes)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return apperr.BadRequest(apperr.CodeIncompleteBody, "the request body ended before its announced length")
		case errors.Is(err, blobstore.ErrUnavailable):
			return s.fileStoreUnavailable(c, "upload store", err)
		}
		return storageError(err, rel)
	}
	p := principalOf(c)
	err = s.audited(c, "item", "upload", itemID, ctrID, func(tx *store.DB) error {
		if err := store.RecordUpload(tx, uploadStoreID, store.UploadedFile{ItemID: itemID, ContainerID: ctrID,
			Container: container, Path: itemPath, Name: path.Base(itemPath), ETag: entry.ETag, Size: entry.Size,
			LastModified: entry.LastModified}); err != nil {
			return err
		}
		return search.MarkDirty(tx, itemID)
	})
	if err != nil {
		return err
	}
	requestID, err := s.jobs.Start(ctx, jobs.Spec{UserID: p.User.ID, LocationID: uploadStoreID, ItemID: itemID, Force: true})
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, uploadJSON{ItemID: itemID, LocationID: uploadStoreID, ContainerID: ctrID,
		Path: itemPath, Size: entry.Size, RequestID: requestID})
	return nil
}

// deleteUpload removes the file at the path used on upload, then the item
// and everything extracted from it. 404 when no such file is in the store.
func (s *Server) deleteUpload(c *gin.Context) error {
	rel := uploadRelPath(c)
	container, itemPath, err := storage.SplitUploadPath(rel)
	if err != nil {
		return storageError(err, rel)
	}
	ctrID := models.ContainerID(uploadStoreID, container)
	itemID := models.ItemID(ctrID, itemPath)
	if err := s.checkUploadVisible(c, ctrID); err != nil {
		return err
	}
	uploads, err := storage.OpenUploads(s.storageEnv())
	if err != nil {
		return err
	}
	if _, _, err := uploads.Remove(c.Request.Context(), rel); err != nil {
		if errors.Is(err, blobstore.ErrUnavailable) {
			return s.fileStoreUnavailable(c, "upload store", err)
		}
		return storageError(err, rel)
	}
	if err := s.softDeleteItem(c, itemID); err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"item_id": itemID, "deleted": true})
	return nil
}
