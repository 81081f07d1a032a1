package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/storage"
)

// uploadStoreID is the id of the built-in upload store location, created by
// the migrations. It cannot be deleted or change kind: uploads need it.
const uploadStoreID = "uploadstore"

// locationCheckTimeout bounds connecting to a location while a user waits
// for the create or update to answer (the s3 kind has a shorter limit of its
// own; this one also covers a hung network filesystem).
const locationCheckTimeout = 30 * time.Second

// discoverPages bounds the container discovery done on create and update:
// an s3 account where every bucket is a container may hold thousands, and
// the containers endpoint records the rest as a client pages through them.
const discoverPages = 10

// locationJSON is a Location as the reference shapes it: config carries the
// kind's keys (secrets left out), groups and version.
type locationJSON struct {
	ID      string         `json:"id"`
	Kind    string         `json:"kind"`
	Name    string         `json:"name"`
	Config  map[string]any `json:"config"`
	Version int            `json:"version"`
}

// locationRequest is the body of create and update. Unknown top-level
// fields are refused: "groups" sent beside config instead of inside it
// would otherwise be silently dropped.
type locationRequest struct {
	ID      string                     `json:"id"`
	Kind    string                     `json:"kind"`
	Name    string                     `json:"name"`
	Config  map[string]json.RawMessage `json:"config"`
	Version *int                       `json:"version"`
}

// locationConfig is a request's config split into the kind's string keys
// and the two keys the api owns.
type locationConfig struct {
	values    map[string]string
	groups    []string
	groupsSet bool // "groups" was present; null or [] clears
	version   *int
}

// parseLocationConfig splits config. Values must be strings; booleans are
// accepted as "true"/"false" because path_style is a boolean in the kind
// descriptors and a form may send it as one. null means absent.
func parseLocationConfig(raw map[string]json.RawMessage, problems map[string]string) locationConfig {
	out := locationConfig{values: map[string]string{}}
	for key, v := range raw {
		switch key {
		case "groups":
			out.groupsSet = true
			var g []string
			if err := json.Unmarshal(v, &g); err != nil {
				problems["groups"] = "must be an array of group ids or null"
				continue
			}
			slices.Sort(g)
			out.groups = slices.Compact(g)
			continue
		case "version":
			if string(v) == "null" {
				continue
			}
			var n int
			if err := json.Unmarshal(v, &n); err != nil {
				problems["version"] = "must be an integer"
				continue
			}
			out.version = &n
			continue
		}
		var str string
		var b bool
		switch {
		case string(v) == "null":
		case json.Unmarshal(v, &str) == nil:
			out.values[key] = str
		case json.Unmarshal(v, &b) == nil:
			out.values[key] = strconv.FormatBool(b)
		default:
			problems[key] = "must be a string"
		}
	}
	return out
}

func (s *Server) storageEnv() storage.Env {
	return storage.Env{DataDir: s.Config.DataDir, UploadBucket: s.Files.Uploads}
}

// storedConfig decodes a location's config column (always a JSON object of
// strings: only this file writes it).
func storedConfig(l models.Location) (map[string]string, error) {
	out := map[string]string{}
	if len(l.Config) == 0 {
		return out, nil
	}
	if err := json.Unmarshal(l.Config, &out); err != nil {
		return nil, fmt.Errorf("location %s: decode config: %w", l.ID, err)
	}
	return out, nil
}

func locationOut(l models.Location, groups []string) (locationJSON, error) {
	cfg, err := storedConfig(l)
	if err != nil {
		return locationJSON{}, err
	}
	for _, k := range storage.SecretKeys(l.Kind) {
		delete(cfg, k)
	}
	out := make(map[string]any, len(cfg)+2)
	for k, v := range cfg {
		out[k] = v
	}
	if len(groups) > 0 {
		out["groups"] = groups
	} else {
		out["groups"] = nil
	}
	out["version"] = l.Version
	return locationJSON{ID: l.ID, Kind: l.Kind, Name: l.Name, Config: out, Version: l.Version}, nil
}

// locationGroups maps each location id to its sorted group ids.
func (s *Server) locationGroups(ctx context.Context, locIDs []string) (map[string][]string, error) {
	return store.LocationGroups(s.DB.WithContext(ctx), locIDs)
}

func (s *Server) loadLocation(c *gin.Context, id string) (models.Location, error) {
	return store.Location(s.db(c), id)
}

// loadVisibleLocation is loadLocation answering 403 for a location the
// caller may not see (404 first: an unknown id is unknown to everyone).
func (s *Server) loadVisibleLocation(c *gin.Context, id string) (models.Location, error) {
	l, err := s.loadLocation(c, id)
	if err != nil {
		return l, err
	}
	return l, s.checkVisible(c, l.ID, "")
}

func (s *Server) respondLocation(c *gin.Context, status int, l models.Location) error {
	groups, err := s.locationGroups(c.Request.Context(), []string{l.ID})
	if err != nil {
		return err
	}
	out, err := locationOut(l, groups[l.ID])
	if err != nil {
		return err
	}
	c.JSON(status, out)
	return nil
}

// validateLocation checks a create or update: fields, groups and the kind's
// config (without I/O), all problems in one answer; then connects. The
// returned Location is ready to list containers.
func (s *Server) validateLocation(c *gin.Context, req *locationRequest, cfg locationConfig, problems map[string]string) (storage.Location, error) {
	req.Name = strings.TrimSpace(req.Name)
	req.Kind = strings.TrimSpace(req.Kind)
	required(problems, map[string]string{"name": req.Name, "kind": req.Kind})
	if cfg.groupsSet {
		missing, err := store.UnknownGroups(s.db(c), cfg.groups)
		if err != nil {
			return nil, err
		}
		if len(missing) > 0 {
			problems["groups"] = fmt.Sprintf("unknown groups: %s", strings.Join(missing, ", "))
		}
	}
	var loc storage.Location
	var openErr error
	if req.Kind != "" {
		loc, openErr = storage.Open(req.Kind, cfg.values, s.storageEnv())
		var ce *storage.ConfigError
		if errors.As(openErr, &ce) {
			if _, dup := problems[ce.Field]; !dup {
				problems[ce.Field] = ce.Problem
			}
			openErr = nil
		}
	}
	if err := invalidIf(problems); err != nil {
		return nil, err
	}
	if openErr != nil {
		return nil, fmt.Errorf("open location: %w", openErr)
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), locationCheckTimeout)
	defer cancel()
	if err := loc.Check(ctx); err != nil {
		var ce *storage.ConfigError
		if errors.As(err, &ce) {
			return nil, apperr.InvalidField(ce.Field, ce.Problem)
		}
		if ctx.Err() != nil && c.Request.Context().Err() == nil {
			return nil, apperr.BadRequest(apperr.CodeLocationUnreachable, "the location did not answer within %s", locationCheckTimeout)
		}
		return nil, fmt.Errorf("check location: %w", err)
	}
	return loc, nil
}

// setLocationGroups makes the location's groups exactly want, in tx, and
// audits each group added.
func setLocationGroups(tx *store.DB, p *Principal, locID string, want []string) error {
	added, err := store.SetLocationGroups(tx, locID, want)
	if err != nil {
		return err
	}
	for _, g := range added {
		if err := record(tx, p, "location", "add-group", locID, g); err != nil {
			return err
		}
	}
	return nil
}

// discoverContainers records the first containers of a new or changed
// location, so a client can enable them right away. Failing here does not
// fail the request (the location answered Check a moment ago; the
// containers endpoint lists and records again), so the error is logged.
func (s *Server) discoverContainers(c *gin.Context, locID string, loc storage.Location) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), locationCheckTimeout)
	defer cancel()
	cursor := ""
	for range discoverPages {
		names, next, err := loc.ListContainers(ctx, "", cursor, containerPageSize)
		if err == nil {
			err = store.UpsertContainers(s.DB.WithContext(ctx), locID, names)
		}
		if err != nil {
			s.Logger.WarnContext(ctx, "container discovery failed", slog.String("request_id", requestIDOf(c)),
				slog.String("location_id", locID), slog.String("error", err.Error()))
			return
		}
		if next == "" {
			return
		}
		cursor = next
	}
}

func (s *Server) createLocation(c *gin.Context) error {
	var req locationRequest
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	problems := map[string]string{}
	cfg := parseLocationConfig(req.Config, problems)
	if strings.TrimSpace(req.Kind) == storage.KindUploadStore {
		return apperr.Conflict(apperr.CodeBuiltinLocation, "the upload store is built in (location %q); another cannot be created", uploadStoreID)
	}
	loc, err := s.validateLocation(c, &req, cfg, problems)
	if err != nil {
		return err
	}
	row := models.Location{ID: ids.New(), Kind: req.Kind, Name: req.Name, Config: models.MustJSON(cfg.values)}
	p := principalOf(c)
	err = s.db(c).Transaction(func(tx *store.DB) error {
		if err := store.Insert(tx, &row, nil); err != nil {
			return err
		}
		if err := record(tx, p, "location", "create", row.ID, ""); err != nil {
			return err
		}
		return setLocationGroups(tx, p, row.ID, cfg.groups)
	})
	if err != nil {
		return err
	}
	s.discoverContainers(c, row.ID, loc)
	return s.respondLocation(c, http.StatusCreated, row)
}

func (s *Server) listLocations(c *gin.Context) error {
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	rows, err := store.Locations(s.db(c), v)
	if err != nil {
		return err
	}
	locIDs := make([]string, len(rows))
	for i, l := range rows {
		locIDs[i] = l.ID
	}
	groups, err := s.locationGroups(c.Request.Context(), locIDs)
	if err != nil {
		return err
	}
	out := make([]locationJSON, len(rows))
	for i, l := range rows {
		if out[i], err = locationOut(l, groups[l.ID]); err != nil {
			return err
		}
	}
	c.JSON(http.StatusOK, gin.H{"locations": out})
	return nil
}

func (s *Server) getLocation(c *gin.Context) error {
	l, err := s.loadVisibleLocation(c, c.Param("id"))
	if err != nil {
		return err
	}
	return s.respondLocation(c, http.StatusOK, l)
}

// putLocation replaces kind, name and config. The version in the body (or,
// for clients that send the object back as they got it, in config) must be
// the current one; it is checked before connecting and again atomically in
// the UPDATE, so of two concurrent updates of one version exactly one wins.
func (s *Server) putLocation(c *gin.Context) error {
	l, err := s.loadVisibleLocation(c, c.Param("id"))
	if err != nil {
		return err
	}
	var req locationRequest
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	problems := map[string]string{}
	if req.ID != "" && req.ID != l.ID {
		problems["id"] = "does not match the location in the path"
	}
	cfg := parseLocationConfig(req.Config, problems)
	version := req.Version
	if version == nil {
		version = cfg.version
	}
	if version == nil {
		problems["version"] = "is required (the current version of the location)"
		return invalidIf(problems)
	}
	if *version != l.Version {
		return apperr.Conflict(apperr.CodeVersionConflict, "the location is at version %d, not %d; reload it and retry", l.Version, *version)
	}
	kind := strings.TrimSpace(req.Kind)
	switch {
	case l.Builtin && kind != "" && kind != l.Kind:
		return apperr.Conflict(apperr.CodeBuiltinLocation, "the built-in location %q cannot change kind", l.ID)
	case !l.Builtin && kind == storage.KindUploadStore:
		return apperr.Conflict(apperr.CodeBuiltinLocation, "the upload store is built in (location %q); another cannot be made", uploadStoreID)
	}
	if kind == l.Kind {
		// A secret that is absent keeps its stored value: responses never
		// carry secrets, so a client sending back what it got must not
		// erase them. An explicit "" clears one.
		old, err := storedConfig(l)
		if err != nil {
			return err
		}
		for _, k := range storage.SecretKeys(l.Kind) {
			if _, sent := cfg.values[k]; !sent {
				if v, ok := old[k]; ok {
					cfg.values[k] = v
				}
			}
		}
	}
	loc, err := s.validateLocation(c, &req, cfg, problems)
	if err != nil {
		return err
	}
	p := principalOf(c)
	err = s.db(c).Transaction(func(tx *store.DB) error {
		if err := store.UpdateLocation(tx, l.ID, req.Kind, req.Name, models.MustJSON(cfg.values), *version); err != nil {
			return err
		}
		if err := record(tx, p, "location", "update", l.ID, ""); err != nil {
			return err
		}
		if cfg.groupsSet {
			if err := setLocationGroups(tx, p, l.ID, cfg.groups); err != nil {
				return err
			}
			// Who may find the location's items changes with its groups.
			return search.GroupsChanged(c.Request.Context(), tx, s.Search, []string{l.ID}, nil)
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.discoverContainers(c, l.ID, loc)
	l, err = s.loadLocation(c, l.ID)
	if err != nil {
		return err
	}
	return s.respondLocation(c, http.StatusOK, l)
}

// deleteLocation removes the location for good: its containers, items,
// results and artifact rows go by foreign-key cascade, the search documents
// of its items are queued for removal in the same transaction, and artifact
// files are removed once the rows are gone (a file left by a crash is
// unreachable: artifacts are served only through their rows).
func (s *Server) deleteLocation(c *gin.Context) error {
	l, err := s.loadVisibleLocation(c, c.Param("id"))
	if err != nil {
		return err
	}
	if l.Builtin {
		return apperr.Conflict(apperr.CodeBuiltinLocation, "the built-in location %q cannot be deleted", l.ID)
	}
	var files []string
	err = s.audited(c, "location", "delete", l.ID, "", func(tx *store.DB) error {
		itemIDs, paths, err := store.DeleteLocation(tx, l.ID)
		if err != nil {
			return err
		}
		files = paths
		return search.MarkDirty(tx, itemIDs...)
	})
	if err != nil {
		return err
	}
	s.kickIndex(c)
	s.removeArtifactFiles(c, files)
	c.JSON(http.StatusOK, gin.H{"id": l.ID, "deleted": true})
	return nil
}
