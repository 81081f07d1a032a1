package ocr

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// TestParseLanguages reads `tesseract --list-langs` of Debian bookworm's
// tesseract-ocr 5.3 with tesseract-ocr-eng (recorded in testdata/langs).
func TestParseLanguages(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/langs/bookworm.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := ParseLanguages(b); !slices.Equal(got, []string{"eng", "osd"}) {
		t.Errorf("languages %q", got)
	}
	got := ParseLanguages([]byte("List of available languages in \"/x/\" (3):\nchi_sim\nscript/Latin\nfoo bar\n../etc\neng\neng\n"))
	if !slices.Equal(got, []string{"chi_sim", "script/Latin", "eng"}) {
		t.Errorf("languages %q", got)
	}
}

func TestLanguageSetting(t *testing.T) {
	t.Parallel()
	installed := []string{"eng", "osd", "fra"}
	for value, want := range map[string]string{
		"eng":         "eng",
		"eng+fra":     "eng+fra",
		" fra, eng ":  "fra+eng",
		"eng+eng":     "eng",
		"deu":         `error: language "deu" is not installed`,
		"eng+xyz":     `error: language "xyz" is not installed`,
		"osd":         "error: osd detects orientation",
		"":            "error: TESSERACT_LANGUAGES is empty",
		"eng;rm -rf":  "error: is not a tessdata language name",
		"../../etc/x": "error: is not a tessdata language name",
	} {
		got, err := parseLanguageSetting(value, installed)
		if err != nil {
			if !strings.HasPrefix(want, "error: ") || !strings.Contains(err.Error(), strings.TrimPrefix(want, "error: ")) {
				t.Errorf("%q: error %v, want %s", value, err, want)
			}
			continue
		}
		if strings.Join(got, "+") != want {
			t.Errorf("%q: %q, want %s", value, got, want)
		}
	}
}

// A language that is not installed makes every extractor of the package
// unavailable with a set-up error naming it; a bad image budget with the
// registry's setting error.
func TestSetUpRefusesUnknownLanguage(t *testing.T) {
	t.Parallel()
	for env, want := range map[string]string{
		"TESSERACT_LANGUAGES=eng+klingon": `not available: set-up failed: TESSERACT_LANGUAGES: language "klingon" is not installed (installed: eng, osd`,
		"TESSERACT_MAX_IMAGES=0":          `not available: setting TESSERACT_MAX_IMAGES = "0": want a whole number from 1 to 2000`,
	} {
		k, v, _ := strings.Cut(env, "=")
		reg := registry(t, map[string]string{k: v})
		for _, n := range names {
			o := extractors.RunOne(context.Background(), reg, n, extractortest.Input(t, "testdata/addpage.pdf"), 0)
			if o.Err == nil || !strings.Contains(o.Err.Error(), want) {
				t.Errorf("%s with %s: %v, want %q", n, env, o.Err, want)
			}
		}
	}
}

func FuzzParseLanguages(f *testing.F) {
	b, err := os.ReadFile("testdata/langs/bookworm.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b, "eng+osd")
	f.Add([]byte("eng\nfra\n"), "fra,eng")
	f.Fuzz(func(t *testing.T, out []byte, setting string) {
		langs := ParseLanguages(out)
		for _, l := range langs {
			if !languageName.MatchString(l) {
				t.Fatalf("language %q", l)
			}
		}
		got, err := parseLanguageSetting(setting, langs)
		if err == nil && (len(got) == 0 || len(got) > 16) {
			t.Fatalf("setting %q gave %q", setting, got)
		}
		for _, l := range got {
			if !slices.Contains(langs, l) || strings.ContainsAny(l, "+ ,") {
				t.Fatalf("setting %q gave %q", setting, l)
			}
		}
	})
}
