package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// Extractor settings: whether each registered extractor is enabled on this
// platform (a settings row, or the registry default), and whether it can run
// here at all (implemented, tools installed). Enabling an extractor that is
// not available is allowed: it is recorded and runs once it becomes
// available (harvests only ever run available extractors).

type extractorJSON struct {
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	// Family groups extractors by what they tell about a file (the web UI
	// groups an item's metadata by it); FamilyName is its display name.
	Family     string   `json:"family"`
	FamilyName string   `json:"family_name"`
	Version    string   `json:"version"`
	Enabled    bool     `json:"enabled"`
	Available  bool     `json:"available"`
	Reason     string   `json:"reason"`
	Tools      []string `json:"tools"`
	// Settings are the extractor's declared settings (never their values:
	// a key or a URL may be secret).
	Settings []settingJSON `json:"settings"`
}

// settingJSON is the declaration of a setting: its environment variable,
// kind, default and bounds, as the registry checks them at start.
type settingJSON struct {
	Name     string   `json:"name"`
	Env      string   `json:"env"`
	Kind     string   `json:"kind"`
	Default  string   `json:"default"`
	Min      *float64 `json:"min,omitempty"`
	Max      *float64 `json:"max,omitempty"`
	Above    bool     `json:"min_excluded,omitempty"`
	Choices  []string `json:"choices,omitempty"`
	Want     string   `json:"want"`
	Required bool     `json:"required"`
	Secret   bool     `json:"secret"`
	Doc      string   `json:"doc"`
}

func settingsOut(decl []extractors.Setting) []settingJSON {
	out := make([]settingJSON, len(decl))
	for i, s := range decl {
		o := settingJSON{Name: s.Name, Env: s.Env, Kind: string(s.Kind), Default: s.Default, Want: s.Want(),
			Required: s.Required, Secret: s.Secret, Doc: s.Doc}
		if s.Secret {
			o.Default = ""
		}
		switch s.Kind {
		case extractors.KindInt, extractors.KindNumber:
			o.Min, o.Above = &s.Min, s.Above
			if s.Max != 0 {
				o.Max = &s.Max
			}
		case extractors.KindChoice:
			o.Choices = strings.Fields(s.Choices)
		}
		out[i] = o
	}
	return out
}

func (s *Server) extractorOut(info extractors.Info, enabled bool) extractorJSON {
	ok, reason := s.Extractors.Available(info.Name)
	tools := info.Tools
	if tools == nil {
		tools = []string{}
	}
	return extractorJSON{Name: info.Name, DisplayName: info.DisplayName, Family: string(info.Family), FamilyName: info.Family.Name(),
		Version: info.Version, Enabled: enabled,
		Available: ok, Reason: reason, Tools: tools, Settings: settingsOut(info.Settings)}
}

// GET /api/data/extractors
func (s *Server) listExtractors(c *gin.Context) error {
	enabled, err := jobs.EnabledSet(c.Request.Context(), s.DB, s.Extractors)
	if err != nil {
		return err
	}
	all := s.Extractors.All()
	out := make([]extractorJSON, len(all))
	for i, info := range all {
		out[i] = s.extractorOut(info, enabled[info.Name])
	}
	c.JSON(http.StatusOK, gin.H{"extractors": out})
	return nil
}

// PUT /api/data/extractors/{name} {enabled}. enabled_at records when the
// extractor last went from disabled to enabled (new_extractors_only reads
// it); it stays NULL for an extractor enabled by default and never disabled.
func (s *Server) putExtractor(c *gin.Context) error {
	name, _ := s.Extractors.Resolve(c.Param("name")) // the original product's names too
	info, ok := s.Extractors.Get(name)
	if !ok {
		return apperr.NotFound("extractor", c.Param("name"))
	}
	var req struct {
		Enabled *bool `json:"enabled"`
	}
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	if req.Enabled == nil {
		return apperr.InvalidField("enabled", "is required")
	}
	on := *req.Enabled
	action := "disable"
	if on {
		action = "enable"
	}
	err := s.audited(c, "extractor", action, info.Name, "", func(tx *store.DB) error {
		return store.SwitchExtractor(tx, info.Name, on, info.DefaultEnabled)
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, s.extractorOut(info, on))
	return nil
}

// Extractor profiles: named sets of extractors a container (or a harvest
// request) selects. The built-in "default" profile's empty list means every
// enabled extractor; it can be edited but neither renamed nor deleted.

type profileJSON struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	Extractors []string  `json:"extractors"`
	Builtin    bool      `json:"builtin"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

func profileOut(p models.ExtractorProfile) profileJSON {
	ex := []string(p.Extractors)
	if ex == nil {
		ex = []string{}
	}
	return profileJSON{ID: p.ID, Name: p.Name, Extractors: ex, Builtin: p.Builtin,
		CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC()}
}

type profileRequest struct {
	Name       string   `json:"name"`
	Extractors []string `json:"extractors"`
}

// validate trims the name, refuses unknown extractor names (naming them),
// stores the names of the original product's clients as the extractors
// they stand for, and dedupes the list.
func (r *profileRequest) validate(reg *extractors.Registry) error {
	r.Name = strings.TrimSpace(r.Name)
	problems := map[string]string{}
	required(problems, map[string]string{"name": r.Name})
	var unknown []string
	names := make([]string, 0, len(r.Extractors))
	for _, n := range r.Extractors {
		name, ok := reg.Resolve(n)
		if !ok {
			unknown = append(unknown, n)
			continue
		}
		names = append(names, name)
	}
	if len(unknown) > 0 {
		problems["extractors"] = "unknown extractors: " + strings.Join(unknown, ", ")
	}
	r.Extractors = dedupe(names)
	return invalidIf(problems)
}

// GET /api/data/extractor-profiles
func (s *Server) listProfiles(c *gin.Context) error {
	rows, err := store.Profiles(s.db(c))
	if err != nil {
		return err
	}
	out := make([]profileJSON, len(rows))
	for i, p := range rows {
		out[i] = profileOut(p)
	}
	c.JSON(http.StatusOK, gin.H{"profiles": out})
	return nil
}

// GET /api/data/extractor-profiles/{id}
func (s *Server) getProfile(c *gin.Context) error {
	p, err := store.Profile(s.db(c), c.Param("id"), false)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, profileOut(p))
	return nil
}

// POST /api/data/extractor-profiles {name, extractors}
func (s *Server) createProfile(c *gin.Context) error {
	var req profileRequest
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	if err := req.validate(s.Extractors); err != nil {
		return err
	}
	p := models.ExtractorProfile{ID: ids.New(), Name: req.Name, Extractors: req.Extractors}
	err := s.audited(c, "extractorprofile", "create", p.ID, "", func(tx *store.DB) error {
		return store.Insert(tx, &p, store.ProfileNameTaken(p.Name))
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, profileOut(p))
	return nil
}

// PUT /api/data/extractor-profiles/{id} {name, extractors}: replaces both.
func (s *Server) putProfile(c *gin.Context) error {
	var req profileRequest
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	if err := req.validate(s.Extractors); err != nil {
		return err
	}
	var p models.ExtractorProfile
	// Not s.audited: the profile is loaded (locked) inside the transaction.
	err := s.db(c).Transaction(func(tx *store.DB) error {
		var err error
		if p, err = store.Profile(tx, c.Param("id"), true); err != nil {
			return err
		}
		if p.Builtin && req.Name != p.Name {
			return apperr.Conflict(apperr.CodeBuiltinProfile, "the built-in profile %q cannot be renamed", p.Name)
		}
		p.Name, p.Extractors = req.Name, req.Extractors
		if err := store.SaveProfile(tx, &p); err != nil {
			return err
		}
		return record(tx, principalOf(c), "extractorprofile", "update", p.ID, "")
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, profileOut(p))
	return nil
}

// DELETE /api/data/extractor-profiles/{id}: 409 for the built-in profile
// and for a profile a container uses.
func (s *Server) deleteProfile(c *gin.Context) error {
	var p models.ExtractorProfile
	// Not s.audited: the profile is loaded (locked) inside the transaction.
	err := s.db(c).Transaction(func(tx *store.DB) error {
		var err error
		if p, err = store.Profile(tx, c.Param("id"), true); err != nil {
			return err
		}
		if p.Builtin {
			return apperr.Conflict(apperr.CodeBuiltinProfile, "the built-in profile %q cannot be deleted", p.Name)
		}
		if err := store.DeleteUnusedProfile(tx, p.ID); err != nil {
			return err
		}
		return record(tx, principalOf(c), "extractorprofile", "delete", p.ID, "")
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"id": p.ID, "deleted": true})
	return nil
}
