package api

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// itemJSON is an item with everything extracted from it. Times the item
// does not have (never harvested, no modification time from storage) are
// null.
type itemJSON struct {
	ID            string           `json:"id"`
	Name          string           `json:"name"`
	Path          string           `json:"path"`
	LocationID    string           `json:"location_id"`
	ContainerID   string           `json:"container_id"`
	Size          int64            `json:"size"`
	ETag          string           `json:"etag"`
	MimeType      string           `json:"mime_type"`
	LastModified  *time.Time       `json:"last_modified"`
	LastHarvested *time.Time       `json:"last_harvested"`
	HarvestFailed bool             `json:"harvest_failed"`
	Metadata      models.JSON      `json:"metadata"`
	Results       []itemResultJSON `json:"results"`
	Artifacts     []artifactJSON   `json:"artifacts"`
}

type itemResultJSON struct {
	Extractor string    `json:"extractor"`
	Version   string    `json:"version"`
	Error     string    `json:"error"`
	RanAt     time.Time `json:"ran_at"`
}

type artifactJSON struct {
	Path      string `json:"path"`
	Kind      string `json:"kind"`
	Extractor string `json:"extractor"`
	Width     int    `json:"width"`
	Height    int    `json:"height"`
	URL       string `json:"url"`
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// artifactURL is where the api serves an artifact, each segment escaped so
// that a name with "?" or "#" still reaches the file.
func artifactURL(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "/api/data/artifacts/" + strings.Join(segs, "/")
}

// loadVisibleItem loads a live item: 404 when unknown or deleted, 403 when
// the caller may not see its location or container.
func (s *Server) loadVisibleItem(c *gin.Context, id string) (models.Item, error) {
	it, err := store.LiveItem(s.db(c), id)
	if err != nil {
		return it, err
	}
	return it, s.checkVisible(c, it.LocationID, it.ContainerID)
}

func (s *Server) getItem(c *gin.Context) error {
	it, err := s.loadVisibleItem(c, c.Param("id"))
	if err != nil {
		return err
	}
	out, err := s.itemOut(c, it)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// itemOut is an item with its metadata, extractor runs and artifacts, as
// GET /api/data/items/{id} answers it (and its JSON export saves it).
func (s *Server) itemOut(c *gin.Context, it models.Item) (itemJSON, error) {
	arts, err := store.Artifacts(s.db(c), it.ID)
	if err != nil {
		return itemJSON{}, err
	}
	out := itemJSON{ID: it.ID, Name: it.Name, Path: it.Path, LocationID: it.LocationID, ContainerID: it.ContainerID,
		Size: it.Size, ETag: it.ETag, MimeType: it.MimeType, LastModified: utcPtr(it.LastModified),
		LastHarvested: utcPtr(it.LastHarvested), HarvestFailed: it.HarvestFailed, Metadata: it.Metadata,
		Results: []itemResultJSON{}, Artifacts: make([]artifactJSON, len(arts))}
	if len(out.Metadata) == 0 || string(out.Metadata) == "null" {
		out.Metadata = models.JSON("{}")
	}
	runs := it.Runs()
	names := make([]string, 0, len(runs))
	for n := range runs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		r := runs[n]
		out.Results = append(out.Results, itemResultJSON{Extractor: n, Version: r.Version, Error: r.Error, RanAt: r.RanAt.UTC()})
	}
	for i, a := range arts {
		out.Artifacts[i] = artifactJSON{Path: a.Path, Kind: a.Kind, Extractor: a.Extractor, Width: a.Width,
			Height: a.Height, URL: artifactURL(a.Path)}
	}
	return out, nil
}

func (s *Server) deleteItem(c *gin.Context) error {
	it, err := s.loadVisibleItem(c, c.Param("id"))
	if err != nil {
		return err
	}
	if err := s.softDeleteItem(c, it.ID); err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"id": it.ID, "item_id": it.ID, "deleted": true})
	return nil
}

// softDeleteItem marks the item deleted and drops what was extracted from
// it: results, artifact rows and, after commit, artifact files. The row
// itself stays (deleted_at set) so that activity, comments and compilations
// keep a target that answers 404 rather than dangling; a new upload or walk
// of the same path brings it back under the same id. The stored file is
// left alone: only the upload endpoint owns files it may remove.
func (s *Server) softDeleteItem(c *gin.Context, itemID string) error {
	var files []string
	err := s.audited(c, "item", "delete", itemID, "", func(tx *store.DB) error {
		var err error
		if files, err = store.SoftDeleteItem(tx, itemID); err != nil {
			return err
		}
		return search.MarkDirty(tx, itemID)
	})
	if err != nil {
		return err
	}
	s.kickIndex(c)
	s.removeArtifactFiles(c, files)
	return nil
}
