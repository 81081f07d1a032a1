package api

import (
	"context"
	"sort"
	"strings"

	"github.com/metaharvest/metaharvest/internal/store"
)

// The named lists of the item summary (tags, logos, locations, key
// phrases, entities), each entry with its appearances, most frequent
// first, at most maxSummaryEntries. Names that differ only by case are one
// entry, named as first met.
//
//   - tags: exiv2's keywords, the keywords property of documents (pdf,
//     officex, html; split at commas and semicolons), one appearance each;
//     the objects of a picture (objects), one appearance each; tags of the
//     video's segments (objects, providers), one appearance per segment
//     they are in. Tags an analysis found carry their highest confidence
//     and their source.
//   - logos: logos of the segments, one appearance per segment.
//   - locations: geocoding's places (city, region, country); places of the
//     segments (GeoJSON feature names), one appearance per segment.
//   - key_phrases and entities: tokens' lists as it counted them.

const maxSummaryEntries = 100

type summaryNameCountJSON struct {
	Appearances float64 `json:"appearances"`
	Name        string  `json:"name"`
	// Type of an entity: person, place or organization.
	Type string `json:"type,omitempty"`
	// Confidence (the highest, 0..1) and Source (the service or model) of
	// a tag found by an analysis (objects, a recognition provider);
	// absent for a keyword the file carries.
	Confidence float64 `json:"confidence,omitempty"`
	Source     string  `json:"source,omitempty"`
}

// nameCounts adds up appearances by name, case-insensitively.
type nameCounts struct {
	entries []summaryNameCountJSON
	at      map[string]int
}

func (n *nameCounts) add(name, typ string, appearances float64) {
	n.addFound(name, typ, appearances, 0, "")
}

// addFound adds appearances of a name an analysis found, with its
// confidence and source (kept: the highest confidence, the first source).
func (n *nameCounts) addFound(name, typ string, appearances, confidence float64, source string) {
	name = strings.TrimSpace(name)
	if name == "" || appearances <= 0 {
		return
	}
	key := strings.ToLower(name)
	if n.at == nil {
		n.at = map[string]int{}
	}
	if i, ok := n.at[key]; ok {
		e := &n.entries[i]
		e.Appearances += appearances
		e.Confidence = max(e.Confidence, confidence)
		if e.Source == "" {
			e.Source = source
		}
		return
	}
	n.at[key] = len(n.entries)
	n.entries = append(n.entries, summaryNameCountJSON{Name: name, Type: typ, Appearances: appearances, Confidence: confidence, Source: source})
}

// list is the entries, most frequent first (then by name), at most
// maxSummaryEntries; never nil.
func (n *nameCounts) list() []summaryNameCountJSON {
	out := append([]summaryNameCountJSON{}, n.entries...)
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Appearances != out[b].Appearances {
			return out[a].Appearances > out[b].Appearances
		}
		return strings.ToLower(out[a].Name) < strings.ToLower(out[b].Name)
	})
	if len(out) > maxSummaryEntries {
		out = out[:maxSummaryEntries]
	}
	return out
}

// addListed adds a list of {name, appearances[, type]} objects.
func (n *nameCounts) addListed(list []any) {
	for _, e := range list {
		a, ok := numAt(e, "appearances")
		if !ok {
			a = 1
		}
		n.add(strAt(e, "name"), strAt(e, "type"), a)
	}
}

// segmentNames counts the segments of an item each tag, logo and place
// name appears in, by list ("tags", "logos", "locations").
func (s *Server) segmentNames(ctx context.Context, itemID string) (map[string]*nameCounts, error) {
	rows, err := store.SegmentNames(s.DB.WithContext(ctx), itemID)
	if err != nil {
		return nil, err
	}
	out := map[string]*nameCounts{"tags": {}, "logos": {}, "locations": {}}
	for _, r := range rows {
		out[r.Kind].addFound(r.Name, "", float64(r.Appearances), r.Confidence, r.Source)
	}
	return out, nil
}

// documentTags are the keywords the file itself carries, and the objects
// found in a picture (a video's are in its segments, counted there).
func documentTags(meta metaReader, tags *nameCounts) {
	if obj := meta("objects"); strAt(obj, "frames_source") == "image" {
		for _, e := range listAt(obj, "tags") {
			a, _ := numAt(e, "appearances")
			conf, _ := numAt(e, "confidence")
			tags.addFound(strAt(e, "name"), "", a, conf, strAt(obj, "source"))
		}
	}
	for _, kw := range stringsAt(meta("exiv2"), "keywords") {
		tags.add(kw, "", 1)
	}
	for _, x := range []string{"pdf", "officex", "html"} {
		for _, s := range stringsAt(meta(x), "keywords") {
			for _, kw := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
				tags.add(kw, "", 1)
			}
		}
	}
}
