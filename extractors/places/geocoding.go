package places

import (
	"context"
	"math"

	"github.com/metaharvest/metaharvest/extractors"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "geocoding",
		DisplayName:    "Geocoding",
		Family:         extractors.FamilyPlaces,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		// Offline: no provider. exiv2 gives the GPS of photos and phone
		// videos; other videos are asked for their location tag.
		After:  []string{"exiv2"},
		Accept: extractors.AcceptMIME([]string{"image/", "video/"}),
		Fields: []extractors.Field{
			{Path: "country.name", Type: extractors.TypeString, Doc: "country (Natural Earth name); absent at sea", Label: "Country"},
			{Path: "country.code", Type: extractors.TypeString, Doc: "ISO 3166-1 alpha-2 code; absent when the country has none", Label: "Country code"},
			{Path: "region", Type: extractors.TypeString, Doc: "first-level region (state, province, department) of the point with the provinces level; else of the city the point is in, when nearly all the city lies in that region"},
			{Path: "region_code", Type: extractors.TypeString, Doc: "ISO 3166-2 code of the region (provinces level only)"},
			{Path: "city", Type: extractors.TypeString, Doc: "urban area the point is in (cities level)"},
			{Path: "coordinates.latitude", Type: extractors.TypeNumber, Doc: "decimal degrees, north positive", Label: "Latitude"},
			{Path: "coordinates.longitude", Type: extractors.TypeNumber, Doc: "decimal degrees, east positive", Label: "Longitude"},
			{Path: "source", Type: extractors.TypeString, Doc: "where the position comes from: exiv2 (EXIF/XMP GPS) or ffprobe (a video's ISO 6709 location tag)"},
			{Path: "locations.name", Type: extractors.TypeString, Doc: "city, region and country names, for the item summary's locations"},
			{Path: "locations.appearances", Type: extractors.TypeNumber, Doc: "times the place is named (1)"},
		},
		Settings: []extractors.Setting{{Name: "levels", Env: "GEOCODING_LEVELS", Kind: extractors.KindText, Default: "countries,cities",
			Doc: "comma-separated layers, loaded once per worker process: cities (shipped gazetteer, 10 MB), " +
				"countries (for points outside cities; +56 MB held, 250 MB peak while loading), " +
				"provinces (countries and the region of any point; +131 MB held, 650 MB peak while loading)"}},
		New: func(env extractors.Env) (extractors.Extractor, error) {
			l, err := ParseLevels(env.Get("levels"))
			if err != nil {
				return nil, err
			}
			g, err := NewGeocoder(l)
			if err != nil {
				return nil, err
			}
			return &geocoding{geo: g, run: env.Runner}, nil
		},
	})
}

type geocoding struct {
	geo *Geocoder
	run *extractors.Runner
}

func (x *geocoding) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	pos, err := positionNeeded(ctx, x.run, in)
	if err != nil {
		return nil, err
	}
	place, err := x.geo.Lookup(ctx, pos.Lat, pos.Lon)
	if err != nil {
		return nil, err
	}
	return &extractors.Result{Data: placeData(pos, place)}, nil
}

func placeData(pos Position, p Place) map[string]any {
	data := map[string]any{
		"coordinates": map[string]any{"latitude": round(pos.Lat, 6), "longitude": round(pos.Lon, 6)},
		"source":      pos.Source,
	}
	if p.Country != "" {
		c := map[string]any{"name": p.Country}
		if p.CountryCode != "" {
			c["code"] = p.CountryCode
		}
		data["country"] = c
	}
	if p.Region != "" {
		data["region"] = p.Region
	}
	if p.RegionCode != "" {
		data["region_code"] = p.RegionCode
	}
	if p.City != "" {
		data["city"] = p.City
	}
	var locs []any
	seen := map[string]bool{}
	for _, n := range []string{p.City, p.Region, p.Country} {
		if n != "" && !seen[n] {
			seen[n] = true
			locs = append(locs, map[string]any{"name": n, "appearances": 1})
		}
	}
	if locs != nil {
		data["locations"] = locs
	}
	return data
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
