// Package gazetteer is the small world atlas metaharvest ships: the urban
// areas of Natural Earth (ne_10m_urban_areas_landscan, public domain, as
// embedded in github.com/sams96/rgeo v1.3.0) with their outlines simplified
// to about 650 m, each with the country most of it lies in and its
// first-level region when nearly all of it lies in one, and the names and
// ISO codes of the countries of ne_10m_admin_0_countries.
//
// It answers "which city is this point in" in microseconds from about 2 MB
// of memory, where rgeo's own city layer needs 2.3 GB while it loads, and
// it gives the text analyses a list of place names (countries, regions,
// cities) to recognise. The data file is generated, not edited:
//
//	go run ./extractors/shared/gazetteer/gen -o extractors/shared/gazetteer/gazetteer.bin.gz
//
// (about a minute: it loads rgeo's province layer once to name the region
// of each city). The format is described in format.go.
package gazetteer
