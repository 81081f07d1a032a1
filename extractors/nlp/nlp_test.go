package nlp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jonreiter/govader"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/extractors/shared/gazetteer"
	"github.com/metaharvest/metaharvest/extractors/shared/langid"
)

func registry(t testing.TB) *extractors.Registry {
	return extractortest.Registry(t, nil, "store", "mime_type", "tokens", "vendorlanguage")
}

func prior(t testing.TB, kv ...any) map[string]json.RawMessage {
	t.Helper()
	out := map[string]json.RawMessage{}
	for i := 0; i < len(kv); i += 2 {
		raw, err := json.Marshal(kv[i+1])
		if err != nil {
			t.Fatal(err)
		}
		out[kv[i].(string)] = raw
	}
	return out
}

// run runs one extractor of reg on an item whose earlier extractors gave
// p: the text the extractors read.
func run(t testing.TB, reg *extractors.Registry, name string, p map[string]json.RawMessage) extractors.Outcome {
	t.Helper()
	in := extractortest.Input(t, "/dev/null")
	in.Name, in.Prior = "doc.bin", p
	return extractortest.Run(t, reg, name, in)
}

func readFile(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestGather(t *testing.T) {
	t.Parallel()
	p := prior(t,
		"pdf", map[string]any{"title": "Annual Report", "text": "The report.", "page_count": 3},
		"email", map[string]any{"subject": "Hello", "text": "Body", "messages": []any{map[string]any{"subject": "Second"}}},
		"exiv2", map[string]any{"keywords": []any{"sea", "boat"}, "title": "Annual Report"},
		"mediainfo", map[string]any{"title": "not a text source"})
	p["json"] = json.RawMessage(`not json`)
	g := Gather(p)
	want := "Annual Report\n\nThe report.\n\nHello\n\nBody\n\nSecond\n\nsea, boat"
	if g.Text != want || strings.Join(g.Sources, ",") != "pdf,email,exiv2" || g.Truncated || g.SpeechOnly {
		t.Errorf("%+v", g)
	}
	big := strings.Repeat("é", MaxAnalysed) // 2 bytes each
	g = Gather(prior(t, "text", map[string]any{"text": big}, "tesseract", map[string]any{"text": "more"}))
	if !g.Truncated || len(g.Text) > MaxAnalysed || !strings.HasSuffix(g.Text, "é") || strings.Join(g.Sources, ",") != "text" {
		t.Errorf("cap: %d bytes, truncated %v, sources %v", len(g.Text), g.Truncated, g.Sources)
	}
	g = Gather(prior(t, "speech_to_text", map[string]any{"text": "hello world"}))
	if !g.SpeechOnly {
		t.Errorf("speech only: %+v", g)
	}
	// A provider's transcript is read, and is in the language spoken.
	g = Gather(prior(t, "speech_to_text_provider", map[string]any{"transcript": "bonjour le monde", "language": "fr"}))
	if g.Text != "bonjour le monde" || g.SpeechOnly || strings.Join(g.Sources, ",") != "speech_to_text_provider" {
		t.Errorf("provider transcript: %+v", g)
	}
	if g := Gather(nil); g.Text != "" || g.Sources != nil {
		t.Errorf("nothing: %+v", g)
	}
}

func TestSentences(t *testing.T) {
	t.Parallel()
	got := Sentences("Mr. J. Smith paid $3.50 to Acme Inc. in the U.S. yesterday. Did he? Yes!\n\nNew paragraph\nwraps here\tcell two")
	var lines []string
	for _, s := range got {
		var ws []string
		for _, tk := range s {
			ws = append(ws, tk.Text)
		}
		lines = append(lines, strings.Join(ws, " "))
	}
	want := []string{
		"Mr J Smith paid $ 3.50 to Acme Inc in the U.S yesterday .",
		"Did he ?",
		"Yes !",
		"New paragraph wraps here",
		"cell two",
	}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestIdentifyLanguages reads the paragraphs of gofpdf's UTF-8 sample, one
// sentence in each of 13 languages. whatlanggo has no Armenian, Icelandic,
// Igbo nor Kazakh, and takes this one Russian sentence for Bulgarian: for
// those paragraphs only the script is checked.
func TestIdentifyLanguages(t *testing.T) {
	t.Parallel()
	want := map[string]string{"English": "en", "Greek": "el", "Polish": "pl", "Portuguese": "pt",
		"Vietnamese": "vi", "Arabic": "ar", "Georgian": "ka", "Hebrew": "he"}
	scripts := map[string]string{"Armenian": "", "Icelandic": "Latin", "Igbo": "Latin", "Russian": "Cyrillic", "Kazakh": "Cyrillic"}
	paras := strings.Split(readFile(t, "languages-utf-8test.txt"), "\n\n")
	checked := 0
	for _, p := range paras {
		label, text, ok := strings.Cut(strings.TrimSpace(p), ":\n")
		if !ok {
			continue
		}
		lang, found := langid.Identify(text)
		if code, ok := want[label]; ok {
			checked++
			if !found || lang.Code != code {
				t.Errorf("%s: %+v", label, lang)
			}
		} else if s, ok := scripts[label]; ok && s != "" && lang.Script != s {
			t.Errorf("%s: script %q", label, lang.Script)
		}
	}
	if checked != len(want) {
		t.Errorf("checked %d paragraphs, want %d", checked, len(want))
	}
	if _, ok := langid.Identify("12345 67 !!"); ok {
		t.Error("digits identified as a language")
	}
	// A long text: whatlanggo alone gives a negative confidence past a few KiB.
	gpl := readFile(t, "gpl-3.txt")
	if lang, ok := langid.Identify(gpl); !ok || lang.Code != "en" || lang.Confidence < 0.8 || !lang.Reliable {
		t.Errorf("GPL: %+v", lang)
	}
}

func TestSentiments(t *testing.T) {
	t.Parallel()
	v := govader.NewSentimentIntensityAnalyzer()
	cases := map[string]string{
		"The food was wonderful and the staff were lovely. We had a great time.":                   "positive",
		"The service was terrible. The room was dirty and the staff were rude.":                    "negative",
		"The meeting starts at nine. The room is on the second floor.":                             "neutral",
		"The hotel was wonderful and we loved it. The flight was awful and we hated every minute.": "mixed",
	}
	for text, want := range cases {
		got := Sentiments(v, Sentences(text))
		if len(got) != 4 || got[0].Name != want {
			t.Errorf("%q: %+v, want %s first", text, got, want)
		}
		var sum float64
		for _, s := range got {
			sum += s.Confidence
		}
		if sum < 0.99 || sum > 1.01 {
			t.Errorf("%q: confidences sum to %v", text, sum)
		}
	}
	if got := Sentiments(v, Sentences("... !!")); got != nil {
		t.Errorf("no words: %+v", got)
	}
}

func TestKeyPhrases(t *testing.T) {
	t.Parallel()
	got := KeyPhrases(Sentences(readFile(t, "gpl-3.txt")), stopwords["en"], 5)
	var names []string
	for _, p := range got {
		names = append(names, p.Name)
	}
	// The terms the licence defines and keeps using.
	for _, want := range []string{"GNU General Public License", "covered work", "Corresponding Source"} {
		if !strings.Contains(strings.Join(names, "|"), want) {
			t.Errorf("top phrases %v lack %q", names, want)
		}
	}
}

// TestAnalysisGolden pins what tokens finds in the real texts of testdata
// (go test -update rewrites the .golden files after a deliberate change).
func TestAnalysisGolden(t *testing.T) {
	t.Parallel()
	atlas, err := gazetteer.Default()
	if err != nil {
		t.Fatal(err)
	}
	ner, vader := NewRecognizer(atlas), govader.NewSentimentIntensityAnalyzer()
	extractortest.Golden(t, "testdata", ".txt", func(t *testing.T, name string, in []byte) (any, error) {
		return Analyse(context.Background(), string(in), ner, vader).Data(), nil
	})
}

func TestTokensExtractor(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	o := run(t, reg, "tokens", prior(t, "text", map[string]any{"text": readFile(t, "verne-20k-c1.txt")},
		"pdf", map[string]any{"title": "Twenty Thousand Leagues Under the Sea"}))
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	d := o.Data
	if l, _ := d["language"].(map[string]any); l["code"] != "en" {
		t.Errorf("language %v", d["language"])
	}
	for _, k := range []string{"key_phrases", "entities", "sentiment"} {
		if l, _ := d[k].([]any); len(l) == 0 {
			t.Errorf("no %s: %s", k, o.JSON)
		}
	}
	if !strings.Contains(string(o.JSON), `"name":"Paul Egede","type":"person"`) || d["truncated"] != false {
		t.Errorf("%s", o.JSON)
	}
	if s, _ := d["sources"].([]string); strings.Join(s, ",") != "text,pdf" {
		t.Errorf("sources %v", d["sources"])
	}
	// French: key phrases and entities, no sentiment (VADER is English).
	o = run(t, reg, "tokens", prior(t, "text", map[string]any{"text": "Le président Emmanuel Macron a reçu la chancelière à Paris. " +
		"La réunion au palais de l'Élysée a porté sur la politique agricole commune et la politique agricole de la France."}))
	if o.Err != nil || strings.Contains(string(o.JSON), "sentiment") || !strings.Contains(string(o.JSON), `"code":"fr"`) ||
		!strings.Contains(string(o.JSON), `"name":"Emmanuel Macron","type":"person"`) || !strings.Contains(string(o.JSON), `politique agricole`) {
		t.Errorf("french: %v %s", o.Err, o.JSON)
	}
	for _, p := range []map[string]json.RawMessage{nil, prior(t, "mediainfo", map[string]any{"title": "x"}), prior(t, "text", map[string]any{"text": "  "})} {
		if o := run(t, reg, "tokens", p); !errors.Is(o.Err, extractors.ErrUnsupported) {
			t.Errorf("no text: %v", o.Err)
		}
	}
}

func TestVendorLanguage(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	o := run(t, reg, "vendorlanguage", prior(t, "officex", map[string]any{"text": "Zjedz trochę tych miękkich francuskich bułeczek i wypij herbatę."}))
	if o.Err != nil || o.Data["language"] != "pl" || o.Data["script"] != "Latin" || o.Data["source"] != "text" {
		t.Errorf("%v %s", o.Err, o.JSON)
	}
	// Unsure: a speech transcript alone (English-only recogniser), or a
	// text too short to tell: a guess, not a language to filter by.
	o = run(t, reg, "vendorlanguage", prior(t, "speech_to_text", map[string]any{"text": "front center"}))
	if o.Err != nil || o.Data["source"] != "speech" || o.Data["reliable"] != false || o.Data["language"] != nil || o.Data["guess"] == nil {
		t.Errorf("speech: %v %s", o.Err, o.JSON)
	}
	o = run(t, reg, "vendorlanguage", prior(t, "officex", map[string]any{"text": "Lorem ipsum"}))
	if o.Err != nil || o.Data["reliable"] != false || o.Data["language"] != nil || o.Data["guess"] == nil {
		t.Errorf("short text: %v %s", o.Err, o.JSON)
	}
	if o := run(t, reg, "vendorlanguage", nil); !errors.Is(o.Err, extractors.ErrUnsupported) {
		t.Errorf("nothing: %v", o.Err)
	}
	info, _ := reg.Get("vendorlanguage")
	if info.Provider != "" || len(info.Tools) != 0 {
		t.Errorf("vendorlanguage needs %q %v", info.Provider, info.Tools)
	}
	if ok, why := reg.Available("vendorlanguage"); !ok {
		t.Errorf("unavailable: %s", why)
	}
}

// TestSuite runs the conformance suite. The suite gives no Prior, so
// every file is unsupported here (no extracted text): it checks the
// cancellation and refusal paths; the data paths are checked above.
func TestSuite(t *testing.T) {
	t.Parallel()
	samples, _ := filepath.Glob("testdata/*.txt")
	extractortest.Suite(t, registry(t), samples)
}

func FuzzAnalyse(f *testing.F) {
	for _, s := range []string{"Mr. J. Smith met Angela Merkel in Berlin.", "NATO NATO UN", "Co. Co. Inc.",
		"West India & Pacific Steam Navigation Co.", "ÉÉ é. Dr.", "\t|\n\n", "The University of Oxford of of"} {
		f.Add(s)
	}
	atlas, _ := gazetteer.Default()
	ner, vader := NewRecognizer(atlas), govader.NewSentimentIntensityAnalyzer()
	f.Fuzz(func(t *testing.T, s string) {
		a := Analyse(context.Background(), s, ner, vader)
		if len(a.KeyPhrases) > maxKeyPhrases || len(a.Entities) > maxEntities {
			t.Fatalf("%d phrases, %d entities", len(a.KeyPhrases), len(a.Entities))
		}
		for _, e := range a.Entities {
			if strings.TrimSpace(e.Name) == "" || e.Appearances < 1 {
				t.Fatalf("entity %+v", e)
			}
		}
		if _, err := json.Marshal(a.Data()); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzGather(f *testing.F) {
	f.Add([]byte(`{"text":"a","title":["x",1],"messages":[{"subject":"s"},3]}`))
	f.Add([]byte(`{"keywords":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		g := Gather(map[string]json.RawMessage{"email": b, "text": b})
		if len(g.Text) > MaxAnalysed {
			t.Fatalf("%d bytes", len(g.Text))
		}
	})
}
