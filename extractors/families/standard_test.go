package families_test

import (
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	_ "github.com/metaharvest/metaharvest/extractors/families"
)

// added are the extractors this project registers besides the reference's
// list: text (plain text documents), speech_to_text (offline speech to
// text, the gms2t of the original clients), and the provider-backed ones
// whose names the reference omits (its providers' brands): tags
// (recognition), logos (logo detection, the gmlogos of the original
// clients), speech_to_text_provider and tokens_provider; objects (COCO
// objects offline, the vision sidecar). nsfw and
// nsfw_provider join them when their family is linked.
var added = []string{"text", "speech_to_text", "speech_to_text_provider", "tags", "logos", "tokens_provider", "objects"}

// base are the base extractors of package extractors: store and mime_type
// run on every file (Always), hashes on every file asked for. They accept
// every file.
var base = []string{"store", "mime_type", "hashes"}

// readsPrior are the extractors that accept every file because what they
// read is not the file but the text the other extractors of the harvest
// found in it (Input.Prior), which a file of any type may have (the text
// of a PDF, the description of a photo, the captions of a video). Accept
// judges a file by its name and type only, so it cannot tell; on a file
// without text they end at once with ErrUnsupported, recorded as nothing.
var readsPrior = map[string]bool{"tokens": true, "vendorlanguage": true, "tokens_provider": true}

// writesNothing lists the extractors that declare no field, each with the
// reason it writes no data. None does: every extractor's data is in the
// search catalogue.
var writesNothing = map[string]string{}

var envName = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)

// TestEveryLinkedExtractor holds the Default registry, with every family
// linked as the binary links them, to what the platform relies on: the
// reference's names and ours, each implemented with a name and a version
// for the extractor list, a field declaration for the search catalogue,
// an Accept so that a harvest of files of other types costs nothing,
// environment settings named alike and meaning one thing each, and After
// names that exist.
func TestEveryLinkedExtractor(t *testing.T) {
	t.Parallel()
	want := append(extractortest.ReferenceNames(), added...)
	if _, linked := extractors.Default.Get("nsfw"); linked {
		want = append(want, "nsfw", "nsfw_provider")
	}
	slices.Sort(want)
	if got := extractors.Names(); !slices.Equal(got, want) {
		t.Errorf("names:\n got %v\nwant %v", got, want)
	}

	settingOf := map[string]extractors.Setting{} // by Env
	declaredBy := map[string]string{}            // Env -> first extractor declaring it
	for _, info := range extractors.Default.All() {
		name := info.Name
		if !info.Implemented || info.New == nil {
			t.Errorf("%s: not implemented: is its family linked in imports.go?", name)
		}
		if info.DisplayName == "" || info.Version == "" {
			t.Errorf("%s: DisplayName %q Version %q, want both", name, info.DisplayName, info.Version)
		}
		if why, ok := writesNothing[name]; ok {
			if len(info.Fields) != 0 || why == "" {
				t.Errorf("%s: listed as writing nothing (%q) but declares %d fields", name, why, len(info.Fields))
			}
		} else if len(info.Fields) == 0 {
			t.Errorf("%s: declares no field", name)
		}

		isBase := slices.Contains(base, name)
		if info.Always && !isBase {
			t.Errorf("%s: runs on every file (Always) but is not a base extractor", name)
		}
		switch {
		case isBase || readsPrior[name]:
			if info.Accept != nil {
				t.Errorf("%s: takes every file by design, but has an Accept", name)
			}
		case info.Accept == nil:
			t.Errorf("%s: no Accept: it would run on every file of every harvest", name)
		}
		if readsPrior[name] && len(info.After) == 0 {
			t.Errorf("%s: reads the other extractors' text but runs after none", name)
		}

		for _, after := range info.After {
			if a, ok := extractors.Default.Get(after); !ok || !a.Implemented {
				t.Errorf("%s: runs after %q, which is not a registered extractor", name, after)
			}
		}

		own := map[string]bool{}
		for _, s := range info.Settings {
			if !envName.MatchString(s.Env) {
				t.Errorf("%s: setting %s reads %q, not an UPPER_SNAKE_CASE name", name, s.Name, s.Env)
			}
			if own[s.Env] {
				t.Errorf("%s: %s declared twice", name, s.Env)
			}
			own[s.Env] = true
			if first, seen := settingOf[s.Env]; seen && !reflect.DeepEqual(first, s) {
				t.Errorf("%s: %s means %+v here and %+v in %s", name, s.Env, s, first, declaredBy[s.Env])
			} else if !seen {
				settingOf[s.Env], declaredBy[s.Env] = s, name
			}
		}
	}
}
