package jsonleaf

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

func decode(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// lines writes each leaf as "path=value [keys]".
func lines(w Walker, v any) []string {
	var out []string
	w.Walk(v, func(l Leaf) {
		out = append(out, fmt.Sprintf("%s=%v %q", l.Path, l.Value, l.Keys))
	})
	return out
}

func TestWalkPaths(t *testing.T) {
	doc := decode(t, `{
		"name": "a.mp4",
		"video": {"width": 1920, "hdr": false, "codec": null},
		"tags": ["x", "y", null, ["z"]],
		"faces": [{"age": 30}, {"age": 41, "box": {"w": 3}}],
		"empty": {}, "none": [],
		"a.b": {"c": "dotted"},
		"": "blank",
		"e": {"": {"f": 1}}
	}`)
	got := lines(Walker{Sorted: true}, doc)
	want := []string{
		`=blank [""]`,
		`a.b.c=dotted ["a.b" "c"]`,
		`e..f=1 ["e" "" "f"]`,
		`faces.age=30 ["faces" "age"]`,
		`faces.age=41 ["faces" "age"]`,
		`faces.box.w=3 ["faces" "box" "w"]`,
		`name=a.mp4 ["name"]`,
		`tags=x ["tags"]`,
		`tags=y ["tags"]`,
		`tags=z ["tags"]`,
		`video.hdr=false ["video" "hdr"]`,
		`video.width=1920 ["video" "width"]`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sorted walk:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Unsorted: the same leaves, an array's elements still in order.
	plain := lines(Walker{}, doc)
	var viaWalk []string
	Walk(doc, func(l Leaf) { viaWalk = append(viaWalk, fmt.Sprintf("%s=%v %q", l.Path, l.Value, l.Keys)) })
	sort.Strings(plain)
	sort.Strings(viaWalk)
	if !reflect.DeepEqual(plain, want) || !reflect.DeepEqual(viaWalk, want) {
		t.Errorf("unsorted walk, sorted afterwards:\n%s\n%s", strings.Join(plain, "\n"), strings.Join(viaWalk, "\n"))
	}
}

func TestWalkRoots(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want []string
	}{
		{"s", []string{`=s []`}},
		{json.Number("1.5"), []string{`=1.5 []`}},
		{nil, nil},
		{[]any{"a", nil, []any{"b"}}, []string{`=a []`, `=b []`}},
		{map[string]any{}, nil},
		// Below an empty key at the top, a path starts afresh.
		{map[string]any{"": map[string]any{"k": "v"}}, []string{`k=v ["" "k"]`}},
		// Other Go values are leaves too, as they come.
		{map[string]any{"n": 3, "l": []string{"x"}}, []string{`l=[x] ["l"]`, `n=3 ["n"]`}},
	} {
		if got := lines(Walker{Sorted: true}, tc.v); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%#v: %q, want %q", tc.v, got, tc.want)
		}
	}
}

// Deep and wide objects: the sorted-keys stack and the keys stack grow
// under a walk that is using them.
func TestWalkSortedDeep(t *testing.T) {
	root := map[string]any{}
	var want []string
	for i := range 40 {
		m := root
		var keys []string
		for d := range 12 {
			k := fmt.Sprintf("k%02d", (i*7+d*3)%40)
			keys = append(keys, k)
			next, _ := m[k].(map[string]any)
			if next == nil {
				next = map[string]any{}
				m[k] = next
			}
			m = next
		}
		leaf := fmt.Sprintf("z%02d", i)
		m[leaf] = float64(i)
		keys = append(keys, leaf)
		want = append(want, strings.Join(keys, ".")+"="+fmt.Sprint(i))
	}
	sort.Strings(want)
	var got []string
	Walker{Sorted: true}.Walk(root, func(l Leaf) {
		if strings.Join(l.Keys, ".") != l.Path {
			t.Fatalf("keys %q for path %s", l.Keys, l.Path)
		}
		got = append(got, fmt.Sprintf("%s=%v", l.Path, l.Value))
	})
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWalkArray(t *testing.T) {
	doc := decode(t, `{"a": [1, 2], "b": [{"c": [3]}, {"c": 4}], "d": 5}`)
	var arrays []string
	w := Walker{Sorted: true, Array: func(l Leaf) bool {
		arrays = append(arrays, fmt.Sprintf("%s:%d %q", l.Path, len(l.Value.([]any)), l.Keys))
		return l.Path != "a" // a is taken whole
	}}
	got := lines(w, doc)
	want := []string{`b.c=3 ["b" "c"]`, `b.c=4 ["b" "c"]`, `d=5 ["d"]`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("leaves %q, want %q", got, want)
	}
	if want := []string{`a:2 ["a"]`, `b:2 ["b"]`, `b.c:1 ["b" "c"]`}; !reflect.DeepEqual(arrays, want) {
		t.Errorf("arrays %q, want %q", arrays, want)
	}
}

func BenchmarkWalkSorted(b *testing.B) {
	doc := decode(b, `{"name": "IMG_0001.JPG", "mime_type": "image/jpeg", "size": 123456,
		"hashes": {"md5": "0123", "sha1": "4567", "sha256": "89ab"},
		"exif": {"make": "Canon", "model": "EOS", "iso": 200, "created": "2024-01-02T03:04:05Z",
			"gps": {"lat": 1.5, "lon": 2.5}},
		"faces": [{"age": 30, "box": {"x": 1, "y": 2}}, {"age": 41, "box": {"x": 3, "y": 4}}],
		"tags": ["a", "b", "c"]}`)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		Walker{Sorted: true}.Walk(doc, func(Leaf) { n++ })
	}
}
