package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/storage"
)

// containerPageSize is the page of the containers endpoint (and of
// discovery): one storage listing request per page.
const containerPageSize = 100

// containerJSON is a Container. Timestamps that never happened are the zero
// timestamp, as the reference fixes for last_harvested_failure, so that
// every client parses every field the same way.
type containerJSON struct {
	ID                   string    `json:"id"`
	LocationID           string    `json:"location_id"`
	Name                 string    `json:"name"`
	Version              int       `json:"version"`
	Enabled              bool      `json:"enabled"`
	LastHarvested        time.Time `json:"last_harvested"`
	RequestID            string    `json:"request_id"`
	HarvestSuccessCount  int64     `json:"harvest_success_count"`
	HarvestFailureCount  int64     `json:"harvest_failure_count"`
	LastHarvestedFailure time.Time `json:"last_harvested_failure"`
	Groups               []string  `json:"groups"`
	ProfileID            string    `json:"profile_id"`
}

func utcOrZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

func containerOut(ct models.Container, groups []string) containerJSON {
	if groups == nil {
		groups = []string{}
	}
	return containerJSON{ID: ct.ID, LocationID: ct.LocationID, Name: ct.Name, Version: ct.Version, Enabled: ct.Enabled,
		LastHarvested: utcOrZero(ct.LastHarvested), RequestID: ct.RequestID,
		HarvestSuccessCount: ct.HarvestSuccessCount, HarvestFailureCount: ct.HarvestFailureCount,
		LastHarvestedFailure: utcOrZero(ct.LastHarvestedFailure), Groups: groups, ProfileID: ct.ProfileID}
}

// containersOut renders rows with their groups (one query for all).
func (s *Server) containersOut(ctx context.Context, rows []models.Container) ([]containerJSON, error) {
	ctrIDs := make([]string, len(rows))
	for i, ct := range rows {
		ctrIDs[i] = ct.ID
	}
	groups, err := store.ContainerGroups(s.DB.WithContext(ctx), ctrIDs)
	if err != nil {
		return nil, err
	}
	out := make([]containerJSON, len(rows))
	for i, ct := range rows {
		out[i] = containerOut(ct, groups[ct.ID])
	}
	return out, nil
}

// containerCursor is the opaque next_cursor: the storage cursor bound to the
// listing it continues, so a cursor of another location or prefix is
// refused instead of silently skipping containers.
type containerCursor struct {
	Location string `json:"l"`
	Prefix   string `json:"p"`
	After    string `json:"a"`
}

func encodeContainerCursor(cur containerCursor) string {
	b, _ := json.Marshal(cur) // a struct of strings always marshals
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeContainerCursor(raw, locID, prefix string) (string, error) {
	if raw == "" {
		return "", nil
	}
	var cur containerCursor
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err == nil {
		err = json.Unmarshal(b, &cur)
	}
	if err != nil || cur.After == "" {
		return "", apperr.InvalidField("cursor", "is not a next_cursor this server issued")
	}
	if cur.Location != locID || cur.Prefix != prefix {
		return "", apperr.InvalidField("cursor", "belongs to another listing (location or prefix differ)")
	}
	return cur.After, nil
}

// openStoredLocation opens a saved location for listing.
func (s *Server) openStoredLocation(l models.Location) (storage.Location, error) {
	cfg, err := storedConfig(l)
	if err != nil {
		return nil, err
	}
	loc, err := storage.Open(l.Kind, cfg, s.storageEnv())
	if err != nil {
		return nil, fmt.Errorf("open location %s: %w", l.ID, err)
	}
	return loc, nil
}

// listLocationContainers lists one page of containers from storage itself
// (not only the rows we know), records new ones, and answers the rows the
// caller may see, in storage order.
func (s *Server) listLocationContainers(c *gin.Context) error {
	l, err := s.loadVisibleLocation(c, c.Param("id"))
	if err != nil {
		return err
	}
	prefix := c.Query("prefix")
	after, err := decodeContainerCursor(c.Query("cursor"), l.ID, prefix)
	if err != nil {
		return err
	}
	loc, err := s.openStoredLocation(l)
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	names, next, err := loc.ListContainers(ctx, prefix, after, containerPageSize)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		// The storage, not this server, failed: say so (502) without
		// passing its error text on; the log keeps it.
		s.Logger.WarnContext(ctx, "list containers failed", slog.String("request_id", requestIDOf(c)),
			slog.String("location_id", l.ID), slog.String("error", err.Error()))
		return apperr.New(apperr.CodeLocationUnavailable, "the location did not answer the listing")
	}
	if err := store.UpsertContainers(s.db(c), l.ID, names); err != nil {
		return err
	}
	ctrIDs := make([]string, len(names))
	for i, n := range names {
		ctrIDs[i] = models.ContainerID(l.ID, n)
	}
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	rows, err := store.VisibleContainers(s.db(c), v, ctrIDs)
	if err != nil {
		return err
	}
	slices.SortFunc(rows, func(a, b models.Container) int { return strings.Compare(a.Name, b.Name) })
	out, err := s.containersOut(ctx, rows)
	if err != nil {
		return err
	}
	nextCursor := ""
	if next != "" {
		nextCursor = encodeContainerCursor(containerCursor{Location: l.ID, Prefix: prefix, After: next})
	}
	c.JSON(http.StatusOK, gin.H{"containers": out, "prefix": prefix, "next_cursor": nextCursor})
	return nil
}

// containerRequest is the body of PUT /api/data/containers. Groups absent
// or null keep the container's groups; [] clears them. The read-only
// fields of a Container are accepted (and ignored) so that a client may
// send back the object it got with enabled changed.
type containerRequest struct {
	ID         string    `json:"id"`
	LocationID string    `json:"location_id"`
	Enabled    *bool     `json:"enabled"`
	ProfileID  *string   `json:"profile_id"`
	Groups     *[]string `json:"groups"`

	Name                 json.RawMessage `json:"name"`
	Version              json.RawMessage `json:"version"`
	LastHarvested        json.RawMessage `json:"last_harvested"`
	RequestID            json.RawMessage `json:"request_id"`
	HarvestSuccessCount  json.RawMessage `json:"harvest_success_count"`
	HarvestFailureCount  json.RawMessage `json:"harvest_failure_count"`
	LastHarvestedFailure json.RawMessage `json:"last_harvested_failure"`
}

func (s *Server) loadContainer(c *gin.Context, id string) (models.Container, error) {
	return store.Container(s.db(c), id)
}

func (s *Server) putContainer(c *gin.Context) error {
	var req containerRequest
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	problems := map[string]string{}
	required(problems, map[string]string{"id": req.ID, "location_id": req.LocationID})
	if req.Enabled == nil {
		problems["enabled"] = "is required"
	}
	if err := invalidIf(problems); err != nil {
		return err
	}
	ct, err := s.loadContainer(c, req.ID)
	if err != nil {
		return err
	}
	if ct.LocationID != req.LocationID {
		return apperr.NotFound("container", req.ID)
	}
	if err := s.checkVisible(c, ct.LocationID, ct.ID); err != nil {
		return err
	}
	ctx := c.Request.Context()
	profileID := ct.ProfileID
	if req.ProfileID != nil {
		profileID = strings.TrimSpace(*req.ProfileID)
		if profileID != "" {
			ok, err := store.ProfileExists(s.db(c), profileID)
			if err != nil {
				return err
			}
			if !ok {
				problems["profile_id"] = "no such extractor profile"
			}
		}
	}
	var wantGroups []string
	if req.Groups != nil {
		wantGroups = slices.Compact(slices.Sorted(slices.Values(*req.Groups)))
		missing, err := store.UnknownGroups(s.db(c), wantGroups)
		if err != nil {
			return err
		}
		if len(missing) > 0 {
			problems["groups"] = fmt.Sprintf("unknown groups: %s", strings.Join(missing, ", "))
		}
	}
	if err := invalidIf(problems); err != nil {
		return err
	}
	p := principalOf(c)
	err = s.DB.WithContext(ctx).Transaction(func(tx *store.DB) error {
		updated := profileID != ct.ProfileID
		if err := store.SetContainer(tx, ct.ID, *req.Enabled, profileID); err != nil {
			return err
		}
		if req.Groups != nil {
			changed, err := store.SetContainerGroups(tx, ct.ID, wantGroups)
			if err != nil {
				return err
			}
			if changed {
				// Who may find the container's items changes with its groups.
				if err := search.GroupsChanged(ctx, tx, s.Search, nil, []string{ct.ID}); err != nil {
					return err
				}
			}
			updated = updated || changed
		}
		if *req.Enabled != ct.Enabled {
			action := "disable"
			if *req.Enabled {
				action = "enable"
			}
			if err := record(tx, p, "container", action, ct.ID, ct.LocationID); err != nil {
				return err
			}
		}
		if updated {
			return record(tx, p, "container", "update", ct.ID, ct.LocationID)
		}
		return nil
	})
	if err != nil {
		return err
	}
	ct, err = s.loadContainer(c, ct.ID)
	if err != nil {
		return err
	}
	out, err := s.containersOut(ctx, []models.Container{ct})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, out[0])
	return nil
}

func (s *Server) enabledContainers(c *gin.Context) error {
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	rows, err := store.EnabledContainers(s.db(c), v)
	if err != nil {
		return err
	}
	out, err := s.containersOut(c.Request.Context(), rows)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}

func (s *Server) containerName(c *gin.Context) error {
	ct, err := s.loadContainer(c, c.Param("id"))
	if err != nil {
		return err
	}
	if err := s.checkVisible(c, ct.LocationID, ct.ID); err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"name": ct.Name})
	return nil
}
