package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/storage"
)

// storagePage is GET /storage: the locations the user may see (the api's
// list and visibility) with their kind, settings (secrets never) and
// container count, and, for users with locations:write, the form that
// creates one (js/storage.js posts it to the api).
type storagePage struct {
	base
	Locations []locationView
	Kinds     []kindView
	CanWrite  bool
}

type locationView struct {
	ID, Name, Kind, KindLabel string
	Href                      string
	Settings                  []fact // the kind's keys with values, secrets left out
	Containers                int64
	Builtin                   bool
}

// kindView is a location kind the create form offers, with its settings.
type kindView struct {
	Name, Label string
	Fields      []configField
}

// configField is one setting of a kind as a form control.
type configField struct {
	Field, Label, Placeholder, ID string
	Boolean, Required, Secret     bool
	Value                         string // the stored value (never a secret's)
	Hint                          string
	Checked                       bool
}

func (u *UI) storagePage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	ctx := r.Context()
	db := u.DB.WithContext(ctx)
	v, err := p.Viewer(ctx, u.DB)
	if err != nil {
		return err
	}
	rows, err := store.Locations(db, v)
	if err != nil {
		return err
	}
	locIDs := make([]string, len(rows))
	for i, l := range rows {
		locIDs[i] = l.ID
	}
	counts, err := store.ContainerCounts(db, v, locIDs)
	if err != nil {
		return err
	}
	page := &storagePage{base: u.base(r, p, "Storage"), CanWrite: p.Can("locations:write")}
	page.Nav = "storage"
	page.Styles = []string{u.assets.url("css/storage.css")}
	page.Scripts = []string{u.assets.url("js/storage.js")}
	for _, l := range rows {
		view, err := locationOf(l)
		if err != nil {
			return err
		}
		view.Containers = counts[l.ID]
		page.Locations = append(page.Locations, view)
	}
	if page.CanWrite {
		page.Kinds = creatableKinds()
	}
	u.render(w, r, http.StatusOK, "storage", page)
	return nil
}

// kindLabels are the kinds' names for people.
var kindLabels = map[string]string{
	storage.KindFilesystem:  "Filesystem",
	storage.KindS3:          "S3 (object storage)",
	storage.KindUploadStore: "Upload store",
}

func kindLabel(kind string) string {
	if l, ok := kindLabels[kind]; ok {
		return l
	}
	return kind
}

// creatableKinds are the kinds the api's GET /api/data/v3/location-kinds
// offers (the upload store is built in), with their fields as controls.
func creatableKinds() []kindView {
	var out []kindView
	for _, k := range storage.Kinds() {
		if k.Name == storage.KindUploadStore {
			continue
		}
		out = append(out, kindView{Name: k.Name, Label: kindLabel(k.Name), Fields: kindFields(k, "new", nil)})
	}
	return out
}

// kindFields are a kind's settings as controls with ids prefix-kind-field,
// filled from cfg (secrets stay empty: the api never gives them back).
func kindFields(k storage.KindInfo, prefix string, cfg map[string]string) []configField {
	out := make([]configField, 0, len(k.Fields))
	for _, f := range k.Fields {
		c := configField{Field: f.Field, Label: f.Name, Placeholder: f.Placeholder, ID: prefix + "-" + k.Name + "-" + f.Field,
			Boolean: f.Type == "boolean", Required: f.Required, Secret: f.IsSecret}
		switch {
		case f.IsSecret && prefix == "edit":
			c.Hint = "Leave it empty to keep the stored secret: it is never shown again."
		case f.IsSecret:
			c.Hint = "It is never shown again once saved."
		default:
			c.Value = cfg[f.Field]
			c.Checked = c.Boolean && c.Value == "true"
		}
		if c.Boolean {
			c.Placeholder = ""
		}
		out = append(out, c)
	}
	return out
}

// storedSettings decodes a location's config and leaves out what the api
// leaves out of its answers: the kind's secret keys.
func storedSettings(l models.Location) (map[string]string, error) {
	cfg := map[string]string{}
	if len(l.Config) > 0 {
		if err := json.Unmarshal(l.Config, &cfg); err != nil {
			return nil, err
		}
	}
	for _, k := range storage.SecretKeys(l.Kind) {
		delete(cfg, k)
	}
	return cfg, nil
}

// locationOf is a location as the list shows it: its kind's settings in
// the kind's order, then any other stored key (secrets never).
func locationOf(l models.Location) (locationView, error) {
	cfg, err := storedSettings(l)
	if err != nil {
		return locationView{}, err
	}
	view := locationView{ID: l.ID, Name: l.Name, Kind: l.Kind, KindLabel: kindLabel(l.Kind), Href: "/storage/" + url.PathEscape(l.ID),
		Builtin: l.Builtin}
	seen := map[string]bool{}
	if k, ok := kindOf(l.Kind); ok {
		for _, f := range k.Fields {
			seen[f.Field] = true
			if v := cfg[f.Field]; v != "" && !f.IsSecret {
				view.Settings = append(view.Settings, fact{f.Name, v})
			}
		}
	}
	var rest []string
	for key := range cfg {
		if !seen[key] && cfg[key] != "" {
			rest = append(rest, key)
		}
	}
	slices.Sort(rest)
	for _, key := range rest {
		view.Settings = append(view.Settings, fact{key, cfg[key]})
	}
	return view, nil
}

func kindOf(name string) (storage.KindInfo, bool) {
	for _, k := range storage.Kinds() {
		if k.Name == name {
			return k, true
		}
	}
	return storage.KindInfo{}, false
}
