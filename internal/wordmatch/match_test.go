package wordmatch

import (
	"reflect"
	"strings"
	"testing"
)

func TestFold(t *testing.T) {
	f := NewFolder()
	for in, want := range map[string]string{
		"Paris":      "paris",
		"CAFÉ":       "cafe",
		"café":       "cafe", // precomposed é
		"cafe\u0301": "cafe", // e + combining acute
		"Straße":     "strasse",
		"ﬁlm":        "film",
		"İstanbul":   "istanbul",
		"Ærø":        "ærø", // letters of their own, not accented letters
		"ΣΟΦΊΑ":      "σοφια",
		"東京":         "東京",
	} {
		if got := f.Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWords(t *testing.T) {
	f := NewFolder()
	for in, want := range map[string][]string{
		"Hello, World!":          {"hello", "world"},
		"  don't   stop  ":       {"don", "t", "stop"},
		"New-York\n2024":         {"new", "york", "2024"},
		"e\u0301te\u0301 \u0301": {"ete"},             // a lone accent is no word
		"½ price":                {"1", "2", "price"}, // folded into several words
		"":                       nil,
		"...":                    nil,
	} {
		if got := f.Words(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
	if k := f.Key("  Café   au-LAIT "); k != "cafe au lait" {
		t.Errorf("Key: %q", k)
	}
}

func TestScan(t *testing.T) {
	phrases := []string{"cat", "New York", "café", "ha ha", "!!!", "", "Straße"}
	m := New(phrases)
	cases := []struct {
		text string
		want map[int]int
	}{
		{"The cat sat on the category mat; CAT!", map[int]int{0: 2}},
		{"Flights to NEW-YORK, new york and New\nYork", map[int]int{1: 3}},
		{"un cafe, un CAFÉ, un cafétéria", map[int]int{2: 2}},
		{"ha ha ha", map[int]int{3: 2}},
		{"new", map[int]int{}},
		{"die strasse und die STRASSE", map[int]int{6: 2}},
		{"!!! nothing", map[int]int{}},
	}
	for _, c := range cases {
		if got := m.Count(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Count(%q) = %v, want %v", c.text, got, c.want)
		}
	}
	// Single words take another path: same answers.
	single := New([]string{"cat", "café"})
	if got := single.Count("cat CAFE category Cat"); !reflect.DeepEqual(got, map[int]int{0: 2, 1: 1}) {
		t.Errorf("single words: %v", got)
	}
	// Overlapping phrases both hit, in text order.
	var order []int
	New([]string{"york", "new york", "new"}).Scan("new york", func(p int) { order = append(order, p) })
	if !reflect.DeepEqual(order, []int{1, 2, 0}) {
		t.Errorf("order %v", order)
	}
	if got := New(nil).Count("anything"); len(got) != 0 {
		t.Errorf("no phrases: %v", got)
	}
}

// Any run of a text's own words, however it is written, is found in it.
func FuzzScan(f *testing.F) {
	f.Add("The cat sat on the mat", 1, 3)
	f.Add("Café au lait, s'il vous plaît", 0, 2)
	f.Add("ΣΟΦΊΑ και Straße\x00\xff", 0, 3)
	f.Add("", 0, 0)
	f.Fuzz(func(t *testing.T, text string, from, n int) {
		fo := NewFolder()
		words := fo.Words(text)
		for _, w := range words {
			if w == "" {
				t.Fatalf("empty word in %q", text)
			}
		}
		if len(words) == 0 || from < 0 || n <= 0 {
			New([]string{text}).Count(text)
			return
		}
		from %= len(words)
		to := min(from+n, len(words))
		phrase := strings.Join(words[from:to], " ")
		if got := New([]string{phrase}).Count(text)[0]; got < 1 {
			t.Fatalf("phrase %q not found in %q (words %q)", phrase, text, words)
		}
		if got := New([]string{strings.ToUpper(phrase)}).Count(text)[0]; got < 1 && fo.Key(strings.ToUpper(phrase)) == phrase {
			t.Fatalf("upper-case phrase %q not found in %q", phrase, text)
		}
	})
}
