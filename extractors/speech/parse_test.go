package speech

import (
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

func TestParsePocketsphinxGolden(t *testing.T) {
	t.Parallel()
	extractortest.Golden(t, "testdata/output", ".out", func(t *testing.T, name string, in []byte) (any, error) {
		words := ParsePocketsphinx(in)
		return map[string]any{"words": words, "cues": Cues(words)}, nil
	})
}

// The words and times of the bare tool's output, read by hand.
func TestParsePocketsphinxWords(t *testing.T) {
	t.Parallel()
	out, err := os.ReadFile("testdata/output/two-utterances.out")
	if err != nil {
		t.Fatal(err)
	}
	words := ParsePocketsphinx(out)
	var texts []string
	for _, w := range words {
		texts = append(texts, w.Text)
	}
	want := "he was not an illness those young man he might even have been made amiable himself"
	if got := strings.Join(texts, " "); got != want {
		t.Fatalf("words %q\nwant  %q", got, want)
	}
	// "was(2) 0.330 0.540 0.999400" and "he 5.210 5.370 0.997303"
	if w := words[1]; w.Start != 0.33 || w.End != 0.54 || w.Confidence != 0.9994 || w.Utterance != 0 {
		t.Errorf("was: %+v", w)
	}
	if w := words[8]; w.Text != "he" || w.Start != 5.21 || w.End != 5.37 || w.Utterance != 1 {
		t.Errorf("second he: %+v", w)
	}
	cues := Cues(words)
	if len(cues) != 2 || cues[0].Start != 0.21 || cues[0].End != 2.79 || cues[1].Start != 5.21 || cues[1].End != 8 ||
		cues[1].Text != "he might even have been made amiable himself" {
		t.Errorf("cues %+v", cues)
	}
}

func TestParsePocketsphinxOddLines(t *testing.T) {
	t.Parallel()
	in := "hyp line here\n" +
		"<s> 0.000 0.100 1.000100\n" +
		"a(2) 0.1 0.2 0.5\n" +
		"b 0.3 nan 0.5\n" + // not a word line
		"c -1 0.4 0.5\n" + // negative time
		"d 0.5 0.4 7\n" + // end before start, confidence above 1
		"++NOISE++ 0.6 0.7 0.5\n" +
		"e\x00\x01 0.8 0.9 -1\r\n" +
		"f 1e400 2 0.5\n" +
		"g 0.9 1.0\n"
	got := ParsePocketsphinx([]byte(in))
	want := []Word{
		{Text: "a", Start: 0.1, End: 0.2, Confidence: 0.5},
		{Text: "d", Start: 0.5, End: 0.5, Confidence: 1},
		{Text: "e", Start: 0.8, End: 0.9, Confidence: 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestCuesCutAtPausesAndLength(t *testing.T) {
	t.Parallel()
	var words []Word
	// 16 words of 0.5 s back to back (8 s of speech): cut at 6 s.
	for i := range 16 {
		words = append(words, Word{Text: "word", Start: float64(i) * 0.5, End: float64(i)*0.5 + 0.5})
	}
	// a pause of 1 s, then one word; then a word of another utterance
	// right after it; then a word going back in time.
	words = append(words, Word{Text: "after", Start: 9, End: 9.5},
		Word{Text: "next", Start: 9.5, End: 9.8, Utterance: 1},
		Word{Text: "back", Start: 9.0, End: 9.2, Utterance: 1},
		Word{Text: "bad", Start: math.NaN(), End: 1, Utterance: 1})
	cues := Cues(words)
	want := []extractors.Cue{
		{Start: 0, End: 6, Text: strings.TrimSpace(strings.Repeat("word ", 12))},
		{Start: 6, End: 8, Text: "word word word word"},
		{Start: 9, End: 9.5, Text: "after"},
		{Start: 9.5, End: 9.8, Text: "next back"},
	}
	if !reflect.DeepEqual(cues, want) {
		t.Fatalf("cues\n%+v\nwant\n%+v", cues, want)
	}
	long := []Word{}
	for i := range 30 {
		long = append(long, Word{Text: "extraordinarily", Start: float64(i) * 0.1, End: float64(i)*0.1 + 0.1})
	}
	for _, c := range Cues(long) {
		if len(c.Text) > cueMaxChars {
			t.Errorf("cue of %d characters", len(c.Text))
		}
	}
}

func FuzzParsePocketsphinx(f *testing.F) {
	for _, name := range []string{"two-utterances.out", "noise.out", "front-center.out"} {
		b, err := os.ReadFile("testdata/output/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("x 1 2 3\n<s> 0 0 0\n[NOISE] 1 1 1\nwas(2) 1 2 0.5\n(3) 1 2 1\n"))
	f.Add([]byte(strings.Repeat("a", 70000) + " 1 2 3\nb 1 2 3"))
	f.Fuzz(func(t *testing.T, in []byte) {
		words := ParsePocketsphinx(in)
		if len(words) > maxWords {
			t.Fatalf("%d words", len(words))
		}
		for _, w := range words {
			if w.Text == "" || len(w.Text) > maxWordBytes || w.End < w.Start || !validTime(w.Start) || !validTime(w.End) ||
				w.Confidence < 0 || w.Confidence > 1 {
				t.Fatalf("word %+v", w)
			}
		}
		cues := Cues(words)
		res := Result(&Transcript{Language: "en", Words: words}, "pocketsphinx")
		prev := 0.0
		for _, c := range cues {
			if c.Start < prev || c.End < c.Start || c.Text == "" {
				t.Fatalf("cue %+v after %v", c, prev)
			}
			prev = c.End
		}
		if len(words) > 0 && len(res.Captions) != 1 {
			t.Fatalf("words but %d captions", len(res.Captions))
		}
	})
}
