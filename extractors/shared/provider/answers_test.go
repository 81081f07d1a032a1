package provider

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/metaharvest/metaharvest/extractors"
)

func TestTranscriptClean(t *testing.T) {
	t.Parallel()
	var tr Transcript
	if err := json.Unmarshal([]byte(`{"language":"PT-br","words":[
		{"text":"later","start":2,"end":2.5,"confidence":0.9},
		{"text":"first","start":0.5,"end":0.9},
		{"text":"no end","start":1},
		{"text":"","start":1,"end":2},
		{"text":"backwards","start":3,"end":2},
		{"text":"loud","start":1,"end":1.2,"confidence":1.2},
		{"text":"rounded","start":10.4,"end":10.8,"confidence":0.5},
		{"text":"past","start":12,"end":13}]}`), &tr); err != nil {
		t.Fatal(err)
	}
	lang, words := tr.Clean(10)
	want := []TimedWord{{Text: "first", Start: 0.5, End: 0.9}, {Text: "later", Start: 2, End: 2.5, Confidence: 0.9},
		{Text: "rounded", Start: 10, End: 10, Confidence: 0.5}}
	if lang != "pt-br" || !reflect.DeepEqual(words, want) {
		t.Errorf("%q %+v", lang, words)
	}
	for in, want := range map[string]string{"en": "en", " EN-GB ": "en-GB", "zh-Hant-TW": "zh-Hant-TW", "e": "", "english": "",
		"en_GB": "", "en-": "", "<script>": "", strings.Repeat("a-", 20) + "a": ""} {
		if got := Language(in); got != want {
			t.Errorf("Language(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRecognitionAndLogosClean(t *testing.T) {
	t.Parallel()
	var r Recognition
	json.Unmarshal([]byte(`{"labels":[{"name":"a","confidence":0.2},{"name":"b","confidence":0.9,"time":3},{"name":"c","time":-1}],
		"people":[{"name":"Ada","confidence":0.8},{"name":"","confidence":0.9}]}`), &r)
	labels, people := r.Clean(10)
	if len(labels) != 2 || labels[0].Name != "b" || len(people) != 1 || people[0].Name != "Ada" || r.Size() != 5 {
		t.Errorf("%+v %+v", labels, people)
	}
	var l LogoAnswer
	json.Unmarshal([]byte(`{"logos":[
		{"name":"edge","confidence":0.5,"box":{"left":0.5,"top":0.5,"width":0.5005,"height":0.5}},
		{"name":"out","confidence":0.6,"box":{"left":0.5,"top":0.5,"width":0.6,"height":0.5}},
		{"name":"flat","confidence":0.7,"box":{"left":0.5,"top":0.5,"width":0.1,"height":0}},
		{"name":"late","time":20},
		{"name":"bad","confidence":-1}]}`), &l)
	got := l.Clean(10)
	if len(got) != 3 || got[0].Name != "flat" || got[0].Box != nil || got[1].Name != "out" || got[1].Box != nil ||
		got[2].Name != "edge" || got[2].Box == nil {
		t.Fatalf("%+v", got)
	}
	if q := got[2].Box.Quadrilateral(); !reflect.DeepEqual(q, [][]float64{{0.5, 0.5}, {1, 0.5}, {1, 1}, {0.5, 1}}) || got[2].Box.Size() != "large" {
		t.Errorf("edge box %v %s", q, got[2].Box.Size())
	}
}

func TestNSFWClean(t *testing.T) {
	t.Parallel()
	known := []string{"drawing", "hentai", "neutral", "porn", "sexy"}
	var a NSFWAnswer
	json.Unmarshal([]byte(`{"results":[
		{"nsfw_score":0.9,"categories":{"Porn":0.8,"sexy":0.1,"violence":0.7,"neutral":1.5}},
		{"nsfw_score":1.2},
		{"categories":{"porn":0.9}},
		{"nsfw_score":0}]}`), &a)
	got, err := a.Clean(4, known)
	want := []NSFWVerdict{{OK: true, Score: 0.9, Categories: map[string]float64{"porn": 0.8, "sexy": 0.1}}, {}, {}, {OK: true}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("%v %+v", err, got)
	}
	if _, err := a.Clean(3, known); err == nil || !strings.Contains(err.Error(), "4 results for 3 pictures") {
		t.Errorf("count mismatch: %v", err)
	}
}

func TestNLPClean(t *testing.T) {
	t.Parallel()
	var a NLPAnswer
	json.Unmarshal([]byte(`{
		"language":{"code":"EN","name":"English","confidence":0.97},
		"sentiment":[{"name":"neutral","confidence":0.2},{"name":"Positive","confidence":0.7},{"name":"positive","confidence":0.1},
			{"name":"angry","confidence":0.9},{"name":"negative","confidence":-0.1},{"name":"mixed"}],
		"key_phrases":[{"name":"new bridge","appearances":2,"score":4.5},{"name":"New Bridge","appearances":1},{"name":"river"},
			{"name":"half","appearances":1.5},{"name":"none","appearances":0},{"name":""}],
		"entities":[{"name":"Paris","type":"LOCATION","appearances":2,"confidence":0.9},{"name":"paris","type":"gpe"},
			{"name":"Ada Lovelace","type":"PERSON"},{"name":"Friday","type":"date"},{"name":"ACME","type":"org","confidence":3}]}`), &a)
	got := a.Clean()
	want := NLP{
		Language:   &NLPLanguage{Code: "en", Name: "English", Confidence: 0.97},
		Sentiment:  []NLPSentiment{{"positive", 0.7}, {"neutral", 0.2}},
		KeyPhrases: []NLPPhrase{{"new bridge", 3, 4.5}, {"river", 1, 0}},
		Entities:   []NLPEntity{{"Paris", "place", 3, 0.9}, {"Ada Lovelace", "person", 1, 0}, {"Friday", "other", 1, 0}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if (NLPAnswer{}).Clean().Language != nil {
		t.Error("language out of nothing")
	}
}

func TestBatches(t *testing.T) {
	t.Parallel()
	mb := func(n int) Media { return Media{Type: "image/jpeg", Data: make([]byte, n<<20)} }
	got := Batches([]Media{mb(2), mb(2), mb(2), mb(2), mb(1), mb(9), mb(1)})
	var sizes []int
	for _, b := range got {
		sizes = append(sizes, len(b))
	}
	if !reflect.DeepEqual(sizes, []int{4, 1, 1, 1}) {
		t.Errorf("batches of %v", sizes)
	}
	if Batches(nil) != nil {
		t.Error("a batch of nothing")
	}
}

// CallMedia sends each batch in its own call, in order, and stops at the
// first refusal.
func TestCallMedia(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var calls []int
	srv := fake(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		media := body["input"].(map[string]any)["media"].([]any)
		mu.Lock()
		calls = append(calls, len(media))
		n := len(calls)
		mu.Unlock()
		if n == 3 {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"n": len(media)})
	})
	c := client(t, srv.URL)
	big := Media{Type: "image/jpeg", Data: make([]byte, 5<<20)}
	var got []int
	err := CallMedia(context.Background(), c, "recognition", []Media{big, big, big},
		func(batch []Media, a struct{ N int }) error { got = append(got, a.N); return nil })
	mu.Lock()
	defer mu.Unlock()
	if err == nil || extractors.IsTransient(err) || !reflect.DeepEqual(got, []int{1, 1}) || !reflect.DeepEqual(calls, []int{1, 1, 1}) {
		t.Errorf("%v: answers %v, calls %v", err, got, calls)
	}
}

// checkText fails on a kept text that is empty, too long, not UTF-8 or
// holds a control character.
func checkText(t *testing.T, s string, n int) {
	t.Helper()
	if s == "" || utf8.RuneCountInString(s) > n+1 || !utf8.ValidString(s) || strings.ContainsAny(s, "\x00\n\r\t") {
		t.Fatalf("kept text %q", s)
	}
}

func okNumber(v float64, lo, hi float64) bool { return !math.IsNaN(v) && v >= lo && v <= hi }

func FuzzTranscript(f *testing.F) {
	f.Add([]byte(`{"language":"en","words":[{"text":"hello","start":0.2,"end":0.5,"confidence":0.9}]}`), 60.0)
	f.Add([]byte(`{"words":[{"text":"x","start":-1,"end":1e309},{"text":"\u0000","start":1,"end":0}]}`), 0.0)
	f.Fuzz(func(t *testing.T, b []byte, duration float64) {
		var tr Transcript
		if json.Unmarshal(b, &tr) != nil {
			return
		}
		lang, words := tr.Clean(duration)
		if lang != Language(lang) || len(words) > MaxWords {
			t.Fatalf("language %q, %d words", lang, len(words))
		}
		prev := 0.0
		for _, w := range words {
			checkText(t, w.Text, maxWordText)
			if !okNumber(w.Start, prev, math.MaxFloat64) || !okNumber(w.End, w.Start, math.MaxFloat64) || !okNumber(w.Confidence, 0, 1) ||
				(duration > 0 && w.End > duration) {
				t.Fatalf("word %+v after %v (duration %v)", w, prev, duration)
			}
			prev = w.Start
		}
	})
}

func FuzzRecognition(f *testing.F) {
	f.Add([]byte(`{"labels":[{"name":"dog","confidence":0.9,"time":1}],"people":[{"name":"Ada","time":2}],"source":"x"}`))
	f.Add([]byte(`{"labels":[{"name":"","confidence":2}],"people":[{"name":"a\u0000b","start":3,"end":1}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Recognition
		if json.Unmarshal(b, &r) != nil {
			return
		}
		labels, people := r.Clean(100)
		for _, l := range append(labels, people...) {
			checkText(t, l.Name, maxLabelName)
			if !okNumber(l.conf(), 0, 1) || !okTime(l.Time, 100) || !okTime(l.Start, 100) || !okTime(l.End, 100) {
				t.Fatalf("kept %+v", l)
			}
			if _, err := json.Marshal(l.Data()); err != nil {
				t.Fatal(err)
			}
		}
		if s := Source(r.Source); utf8.RuneCountInString(s) > maxSource+1 {
			t.Fatalf("source %q", s)
		}
	})
}

func FuzzLogos(f *testing.F) {
	f.Add([]byte(`{"logos":[{"name":"Acme","confidence":0.8,"time":1,"box":{"left":0.1,"top":0.1,"width":0.2,"height":0.2}}]}`))
	f.Add([]byte(`{"logos":[{"name":"x","box":{"left":-1,"top":2,"width":1e308,"height":0}},{"name":"y","time":-3}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a LogoAnswer
		if json.Unmarshal(b, &a) != nil {
			return
		}
		got := a.Clean(100)
		if len(got) > MaxLogos {
			t.Fatalf("%d logos", len(got))
		}
		for _, l := range got {
			checkText(t, l.Name, maxLabelName)
			if !okNumber(conf(l.Confidence), 0, 1) || !okTime(l.Time, 100) {
				t.Fatalf("kept %+v", l)
			}
			if l.Box != nil {
				for _, p := range l.Box.Quadrilateral() {
					if !okNumber(p[0], 0, 1) || !okNumber(p[1], 0, 1) {
						t.Fatalf("box %+v: %v", *l.Box, p)
					}
				}
				if _, err := json.Marshal(l.Box.Quadrilateral()); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

func FuzzNSFW(f *testing.F) {
	f.Add([]byte(`{"results":[{"nsfw_score":0.9,"categories":{"porn":0.8,"sexy":0.1}},{"nsfw_score":0.1}]}`), 2)
	f.Add([]byte(`{"results":[{"nsfw_score":-1,"categories":{"PORN":7,"x":0.5}}]}`), 1)
	known := []string{"drawing", "hentai", "neutral", "porn", "sexy"}
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		var a NSFWAnswer
		if json.Unmarshal(b, &a) != nil || n < 0 || n > 1000 {
			return
		}
		got, err := a.Clean(n, known)
		if err != nil {
			if len(a.Results) == n {
				t.Fatalf("refused %d results for %d: %v", len(a.Results), n, err)
			}
			return
		}
		if len(got) != n {
			t.Fatalf("%d verdicts for %d", len(got), n)
		}
		for _, v := range got {
			if !okNumber(v.Score, 0, 1) || (!v.OK && (v.Score != 0 || v.Categories != nil)) {
				t.Fatalf("verdict %+v", v)
			}
			for c, p := range v.Categories {
				if !contains(known, c) || !okNumber(p, 0, 1) {
					t.Fatalf("category %s %v", c, p)
				}
			}
		}
	})
}

func FuzzNLP(f *testing.F) {
	f.Add([]byte(`{"language":{"code":"en","confidence":0.9},"sentiment":[{"name":"positive","confidence":0.8}],
		"key_phrases":[{"name":"a b","appearances":2}],"entities":[{"name":"Paris","type":"place"}]}`))
	f.Add([]byte(`{"language":{"code":"xx-yy-zz-ww-vv"},"key_phrases":[{"name":"a","appearances":1e300},{"name":"a","appearances":1e6}],
		"entities":[{"name":"b","appearances":-1,"confidence":7}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a NLPAnswer
		if json.Unmarshal(b, &a) != nil {
			return
		}
		got := a.Clean()
		if l := got.Language; l != nil && (Language(l.Code) != l.Code || l.Code == "" || !okNumber(l.Confidence, 0, 1)) {
			t.Fatalf("language %+v", *l)
		}
		seen := map[string]bool{}
		for i, s := range got.Sentiment {
			if !contains(Sentiments, s.Name) || seen[s.Name] || !okNumber(s.Confidence, 0, 1) || (i > 0 && s.Confidence > got.Sentiment[i-1].Confidence) {
				t.Fatalf("sentiment %+v", got.Sentiment)
			}
			seen[s.Name] = true
		}
		if len(got.KeyPhrases) > MaxPhrases || len(got.Entities) > MaxEntities {
			t.Fatalf("%d phrases, %d entities", len(got.KeyPhrases), len(got.Entities))
		}
		for _, p := range got.KeyPhrases {
			checkText(t, p.Name, maxLabelName)
			if p.Appearances < 1 || p.Appearances > maxAppearances || !okNumber(p.Score, 0, maxAppearances) {
				t.Fatalf("phrase %+v", p)
			}
		}
		for _, e := range got.Entities {
			checkText(t, e.Name, maxLabelName)
			if e.Appearances < 1 || e.Appearances > maxAppearances || !okNumber(e.Confidence, 0, 1) ||
				!contains([]string{"person", "place", "organization", "other"}, e.Type) {
				t.Fatalf("entity %+v", e)
			}
		}
	})
}
