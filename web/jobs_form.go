package web

import (
	"sort"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/store"
)

// jobStartForm is what the form that starts a harvest offers: the
// locations and containers the user may see (js/jobs.js narrows the
// containers to the chosen location), the extractor profiles (with
// extractors:read) or a choice of extractors by family, priority and the
// request's flags. The script posts it to POST /api/control/harvest.
type jobStartForm struct {
	Locations  []jobOption
	Containers []jobContainerOption
	Profiles   []jobOption // nil without extractors:read: the container's profile (or the default) then
	Families   []jobExtractorFamily
}

type jobOption struct{ ID, Name string }

type jobContainerOption struct{ ID, LocationID, Name string }

type jobExtractorFamily struct {
	Key, Name  string
	Extractors []jobExtractorChoice
}

type jobExtractorChoice struct{ Name, Display string }

func (u *UI) jobStartForm(db *store.DB, v store.Viewer, p *access.Principal) (*jobStartForm, error) {
	f := &jobStartForm{}
	locs, err := store.Locations(db, v)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, l := range locs {
		f.Locations = append(f.Locations, jobOption{l.ID, l.Name})
		names[l.ID] = l.Name
	}
	ctrs, err := store.HarvestTargets(db, v)
	if err != nil {
		return nil, err
	}
	for _, c := range ctrs {
		if _, ok := names[c.LocationID]; ok {
			f.Containers = append(f.Containers, jobContainerOption{c.ID, c.LocationID, c.Name})
		}
	}
	if p.Can("extractors:read") {
		profiles, err := store.Profiles(db)
		if err != nil {
			return nil, err
		}
		for _, pr := range profiles {
			f.Profiles = append(f.Profiles, jobOption{pr.ID, pr.Name})
		}
	}
	f.Families = u.jobExtractorFamilies()
	return f, nil
}

// jobExtractorFamilies are the extractors a request may name, by family:
// the base ones (store, mime_type) run in every harvest and are left out.
func (u *UI) jobExtractorFamilies() []jobExtractorFamily {
	byFamily := map[extractors.Family][]jobExtractorChoice{}
	for _, info := range u.Extractors.All() {
		if info.Always || !info.Implemented {
			continue
		}
		d := info.DisplayName
		if d == "" {
			d = info.Name
		}
		byFamily[info.Family] = append(byFamily[info.Family], jobExtractorChoice{info.Name, d})
	}
	var out []jobExtractorFamily
	add := func(f extractors.Family, name string) {
		list := byFamily[f]
		if len(list) == 0 {
			return
		}
		sort.Slice(list, func(i, k int) bool { return list[i].Display < list[k].Display })
		out = append(out, jobExtractorFamily{Key: string(f), Name: name, Extractors: list})
		delete(byFamily, f)
	}
	for _, f := range extractors.Families() {
		add(f, f.Name())
	}
	var rest []string
	for f := range byFamily {
		rest = append(rest, string(f))
	}
	sort.Strings(rest)
	for _, f := range rest {
		add(extractors.Family(f), f)
	}
	return out
}
