package web

import (
	"net/http"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/jobs"
)

// extractorsPage is GET /admin/extractors: every registered extractor by
// family, whether it is enabled on this platform, whether it can run here
// (or why not) and its settings; switching it (extractors:write) goes
// through the api from admin.js.
type extractorsPage struct {
	adminBase
	Can      can
	Families []extractorFamily
}

type extractorFamily struct {
	Name       string
	Extractors []extractorRow
}

type extractorRow struct {
	Name, DisplayName, Version string
	Enabled, Available         bool
	Reason                     string
	Tools                      []string
	Settings                   []settingRow
}

type settingRow struct {
	Name, Env, Kind, Default, Value, Want, Doc string
	Secret, Required                           bool
}

func (u *UI) adminExtractorsPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	enabled, err := jobs.EnabledSet(r.Context(), u.DB, u.Extractors)
	if err != nil {
		return err
	}
	byFamily := map[extractors.Family][]extractorRow{}
	for _, info := range u.Extractors.All() {
		ok, reason := u.Extractors.Available(info.Name)
		row := extractorRow{Name: info.Name, DisplayName: info.DisplayName, Version: info.Version,
			Enabled: enabled[info.Name], Available: ok, Reason: reason, Tools: info.Tools}
		values := u.Extractors.Settings(info.Name) // secrets are "<set>" or ""
		for _, s := range info.Settings {
			sr := settingRow{Name: s.Name, Env: s.Env, Kind: string(s.Kind), Default: s.Default, Want: s.Want(),
				Doc: s.Doc, Secret: s.Secret, Required: s.Required, Value: values[s.Name]}
			if s.Secret {
				sr.Default = ""
				sr.Value = "not set"
				if values[s.Name] != "" {
					sr.Value = "set (hidden)"
				}
			}
			row.Settings = append(row.Settings, sr)
		}
		byFamily[info.Family] = append(byFamily[info.Family], row)
	}
	page := &extractorsPage{adminBase: u.adminBase(r, p, "Extractors", "extractors"), Can: scopesOf(p, "extractors:write")}
	for _, f := range extractors.Families() {
		if rows := byFamily[f]; len(rows) > 0 {
			page.Families = append(page.Families, extractorFamily{Name: f.Name(), Extractors: rows})
			delete(byFamily, f)
		}
	}
	for f, rows := range byFamily { // a family not among Families (none today)
		page.Families = append(page.Families, extractorFamily{Name: string(f), Extractors: rows})
	}
	u.render(w, r, http.StatusOK, "admin_extractors", page)
	return nil
}
