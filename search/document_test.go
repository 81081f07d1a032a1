package search

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestExtension(t *testing.T) {
	for name, want := range map[string]string{"IMG_1.JPG": "jpg", "a.tar.gz": "gz", ".bashrc": "", "README": "", `dir\file.Mp4`: "mp4"} {
		if got := Extension(name); got != want {
			t.Errorf("Extension(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestPrepare(t *testing.T) {
	long := strings.Repeat("word ", 100)
	p, err := PrepareItem(Document{
		"_id": "d1", "name": "holiday_video.MP4", "mime_type": "video/mp4", "size": int64(1) << 40,
		"last_modified":    "2024-01-02T03:04:05Z",
		"_location_groups": []string{"g1"}, "_container_groups": []any{},
		"_secret": "internal",
		"mediainfo": map[string]any{
			"video":  map[string]any{"duration": 12.5, "codec": "h264"},
			"tracks": []any{map[string]any{"lang": "en"}, map[string]any{"lang": "fr"}, map[string]any{"lang": "en"}},
		},
		"exif":      map[string]any{"Odd Key": "v", "a.b": "dotted", "ok": "2021:01:02 10:00:00", "flag": false, "empty": "", "nothing": nil},
		"text":      map[string]any{"body": long, "nul": "a\x00b"},
		"locations": []any{"x", "y", 3.5, true},
		"deep":      map[string]any{"a": map[string]any{"b": map[string]any{"c": map[string]any{"d": map[string]any{"e": map[string]any{"f": map[string]any{"g": map[string]any{"h": map[string]any{"i": "too deep"}}}}}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != "d1" || !reflect.DeepEqual(p.LocationGroups, []string{"g1"}) || len(p.ContainerGroups) != 0 {
		t.Fatalf("id/groups: %+v", p)
	}
	for _, k := range []string{"_location_groups", "_container_groups", "_secret"} {
		if _, ok := p.Public[k]; ok {
			t.Fatalf("public document keeps %s", k)
		}
	}
	if p.Public["type"] != "video" || p.Public["extension"] != "mp4" {
		t.Fatalf("derived: %v %v", p.Public["type"], p.Public["extension"])
	}
	if raw, _ := json.Marshal(p.Public); !strings.Contains(string(raw), `"size":1099511627776`) {
		t.Fatalf("number kept exactly: %s", raw)
	}
	want := map[string][]any{
		"mediainfo.video.duration": {12.5},
		"mediainfo.tracks.lang":    {"en", "fr"},
		"exif.ok":                  {"2021:01:02 10:00:00"},
		"exif.flag":                {false},
		"locations":                {"x", "y", 3.5, true},
		"text.nul":                 {"ab"},
	}
	for path, vals := range want {
		if !reflect.DeepEqual(p.Flat[path], vals) {
			t.Errorf("Flat[%s] = %v, want %v", path, p.Flat[path], vals)
		}
	}
	for _, path := range []string{"exif.Odd Key", "exif.a.b", "exif.empty", "exif.nothing", "deep.a.b.c.d.e.f.g.h.i", "_secret", "_location_groups"} {
		if _, ok := p.Flat[path]; ok {
			t.Errorf("Flat has %s", path)
		}
	}
	if body := p.Flat["text.body"][0].(string); len(body) > maxValueLength+len("…") || !strings.HasSuffix(body, "…") {
		t.Errorf("long value kept as %q", body)
	}
	if p.Kinds["locations"] != KindString|KindNumber|KindBool || p.Kinds["exif.ok"] != KindDate || p.Kinds["last_modified"] != KindDate {
		t.Errorf("kinds: %v %v %v", p.Kinds["locations"], p.Kinds["exif.ok"], p.Kinds["last_modified"])
	}
	if p.Dates["exif.ok"][0] != 1609581600 || p.Dates["last_modified"][0] != 1704164645 {
		t.Errorf("dates: %v", p.Dates)
	}
	if p.NameText != "holiday_video.MP4" || strings.Contains(p.BodyText, "holiday_video") ||
		!strings.Contains(p.BodyText, "too deep") || !strings.Contains(p.BodyText, "dotted") || strings.Contains(p.BodyText, "internal") {
		t.Errorf("text: name %q body %q", p.NameText, p.BodyText)
	}
	if _, err := Prepare(Document{"name": "no id"}); err == nil {
		t.Fatal("a document without _id was prepared")
	}
}

func TestCatalogue(t *testing.T) {
	cat := NewCatalogue(ScopeItems)
	if k, ok := cat.Kind("size"); !ok || k != KindNumber {
		t.Fatal("base field missing")
	}
	p, _ := Prepare(Document{"_id": "a", "m": map[string]any{"v": map[string]any{"d": 1, "c": "x"}}, "_internal": 1})
	added := cat.Merge(p)
	if len(added) != 2 || !cat.IsParent("m") || !cat.IsParent("m.v") || cat.IsParent("m.v.d") || cat.Known("_internal") {
		t.Fatalf("merge: %v", added)
	}
	if !reflect.DeepEqual(cat.Leaves("m"), []string{"m.v.c", "m.v.d"}) || !reflect.DeepEqual(cat.Leaves("m.v.d"), []string{"m.v.d"}) {
		t.Fatalf("leaves: %v", cat.Leaves("m"))
	}
	if len(cat.Merge(p)) != 0 {
		t.Fatal("merging twice added again")
	}
	c := cat.Clone()
	c.Add("m.v.d", KindString)
	if k, _ := cat.Kind("m.v.d"); k != KindNumber {
		t.Fatal("clone shares state")
	}
	if k, _ := c.Kind("m.v.d"); k.String() != "string|number" {
		t.Fatalf("kind %v", k)
	}
}

func TestProjectAndTextFields(t *testing.T) {
	var doc map[string]any
	_ = json.Unmarshal([]byte(`{"_id":"1","name":"n","size":3,"tags":{"items":[{"name":"a","conf":1},{"name":"b","conf":2},"x"]},"m":{"v":{"d":1,"c":"h"},"a":{"x":1}}}`), &doc)
	got := Project(doc, []string{"name", "tags.items.name", "m.v", "missing", "name.deeper"})
	want := map[string]any{
		"_id": "1", "name": "n",
		"tags": map[string]any{"items": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}},
		"m":    map[string]any{"v": map[string]any{"d": 1.0, "c": "h"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Project = %v", got)
	}
	got = Project(doc, []string{"tags.items.name", "tags.items.conf"})
	items := got["tags"].(map[string]any)["items"].([]any)
	if !reflect.DeepEqual(items[1], map[string]any{"name": "b", "conf": 2.0}) {
		t.Fatalf("two paths through one array: %v", items)
	}
	if !reflect.DeepEqual(Project(doc, nil), doc) {
		t.Fatal("no only must keep everything")
	}
	tf := TextFields(doc, nil, 100)
	if len(tf) != 4 || tf[0] != (FieldText{"m.v.c", "h"}) || tf[1] != (FieldText{"name", "n"}) ||
		tf[2] != (FieldText{"tags.items", "x"}) || tf[3] != (FieldText{"tags.items.name", "a\nb"}) {
		t.Fatalf("TextFields = %v", tf)
	}
	if tf := TextFields(doc, []string{"name"}, 100); len(tf) != 1 {
		t.Fatalf("TextFields(only) = %v", tf)
	}
}

func TestVisibility(t *testing.T) {
	for _, tc := range []struct {
		vis    Visibility
		lg, cg []string
		want   bool
	}{
		{Visibility{All: true}, []string{"x"}, []string{"y"}, true},
		{Visibility{}, nil, nil, true},
		{Visibility{}, []string{"x"}, nil, false},
		{Visibility{GroupIDs: []string{"x"}}, []string{"x", "z"}, nil, true},
		{Visibility{GroupIDs: []string{"x"}}, []string{"x"}, []string{"y"}, false},
		{Visibility{GroupIDs: []string{"x", "y"}}, []string{"x"}, []string{"y"}, true},
		{Visibility{GroupIDs: []string{"y"}}, nil, []string{"y"}, true},
	} {
		if got := tc.vis.Allows(tc.lg, tc.cg); got != tc.want {
			t.Errorf("%+v.Allows(%v, %v) = %v", tc.vis, tc.lg, tc.cg, got)
		}
	}
}

// AppendJSON writes what encoding/json would read back as the same value.
func TestAppendJSON(t *testing.T) {
	v := map[string]any{"s": "quote \" back \\ nl \n tab \t ctl \x01 é ✓ <&>", "n": json.Number("1.5e3"), "b": true, "z": nil,
		"l": []any{json.Number("1"), "two", false, map[string]any{"deep": []any{}}}, "empty": map[string]any{}, "odd": []string{"x"}}
	raw, err := AppendJSON(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var back map[string]any
	if err := dec.Decode(&back); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	want, _ := json.Marshal(v)
	got, _ := json.Marshal(back)
	if string(want) != string(got) {
		t.Fatalf("round trip:\n got %s\nwant %s", got, want)
	}
}

// Prepare cleans strings and keys (NUL, invalid UTF-8) and turns Go numbers
// into JSON numbers in its own copies: the caller's document is left as it
// was, and what needed no change is shared, not copied.
func TestPrepareLeavesTheDocumentAlone(t *testing.T) {
	clean := map[string]any{"md5": "6440e7fc9f9132035657d33f16d5e442", "n": json.Number("3")}
	dirty := map[string]any{"ok": "fine", "bad\x00key": "v", "text": "a\xffb", "list": []any{"x", "y\x00", int64(2)}}
	doc := Document{"_id": "d1", "name": "f.bin", "size": int64(7), "_secret": "s", "hashes": clean, "exif": dirty}
	before, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(doc)
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := json.Marshal(doc); string(after) != string(before) {
		t.Fatalf("Prepare changed the document:\n%s\n%s", before, after)
	}
	if _, ok := doc["_secret"]; !ok {
		t.Fatal("Prepare removed _secret from the caller's document")
	}
	if dirty["bad\x00key"] != "v" || dirty["text"] != "a\xffb" {
		t.Fatalf("nested map changed: %q", dirty)
	}
	exif := p.Public["exif"].(map[string]any)
	want := map[string]any{"ok": "fine", "badkey": "v", "text": "a\uFFFDb", "list": []any{"x", "y", json.Number("2")}}
	if !reflect.DeepEqual(exif, want) {
		t.Fatalf("public exif = %#v, want %#v", exif, want)
	}
	if p.Public["size"] != json.Number("7") {
		t.Fatalf("size = %#v", p.Public["size"])
	}
	if reflect.ValueOf(p.Public["hashes"]).Pointer() != reflect.ValueOf(clean).Pointer() {
		t.Error("a clean nested map was copied")
	}
	if reflect.ValueOf(exif).Pointer() == reflect.ValueOf(dirty).Pointer() {
		t.Error("a nested map with values to clean was not copied")
	}

	// Nothing to clean at all: the internal fields still leave the public
	// document only.
	tidy := Document{"_id": "d2", "name": "g.bin", "_secret": "s", "hashes": clean}
	p, err = Prepare(tidy)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tidy["_secret"]; !ok {
		t.Fatal("Prepare removed _secret from the caller's document")
	}
	if _, ok := p.Public["_secret"]; ok {
		t.Fatal("the public document keeps _secret")
	}
}
