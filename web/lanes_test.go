package web

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// walkMeta's rows for an extractor's data: sorted, a list of scalars one
// row, a list of objects a count, the extractor's own value "value".
func TestWalkMeta(t *testing.T) {
	rows := func(name, data string) []string {
		t.Helper()
		var v any
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			t.Fatal(err)
		}
		var out []string
		walkMeta(name, v, func(field, rel, value string, entries int) {
			out = append(out, fmt.Sprintf("%s|%s|%s|%d", field, rel, value, entries))
		})
		return out
	}
	for _, tc := range []struct{ name, data, want string }{
		{"probe", `{"video": {"width": 1920, "codec": "h264", "hdr": false, "none": null},
			"streams": [{"index": 0}, {"index": 1}], "one": [{"a": 1}], "nested": [[1]],
			"tags": ["b", null, "a"], "lang": ["en"], "empty": [], "nothing": null}`,
			"probe.lang|lang|en|0\n" +
				"probe.nested|nested|1 entry (in the raw data)|1\n" +
				"probe.one|one|1 entry (in the raw data)|1\n" +
				"probe.streams|streams|2 entries (in the raw data)|2\n" +
				"probe.tags|tags|b, a|-2\n" +
				"probe.video.codec|video.codec|h264|0\n" +
				"probe.video.hdr|video.hdr|false|0\n" +
				"probe.video.width|video.width|1920|0"},
		{"mime_type", `"image/png"`, "mime_type|value|image/png|0"},
		{"tags", `["x", 2]`, "tags||x, 2|-2"},
		{"json", `{"": {"": "v", "k": "w"}}`, "json..|value|v|0\njson..k|k|w|0"},
		{"json", `{"": "v", "a": [""]}`, "json.|value|v|0\njson.a|a||0"},
		{"json", `null`, ""},
	} {
		if got := strings.Join(rows(tc.name, tc.data), "\n"); got != tc.want {
			t.Errorf("%s %s:\n%s\nwant\n%s", tc.name, tc.data, got, tc.want)
		}
	}
	// The same rows every time (members in key order).
	data := `{"c": 1, "a": 2, "b": {"z": 3, "y": 4}}`
	first := rows("x", data)
	for range 20 {
		if got := rows("x", data); !reflect.DeepEqual(got, first) {
			t.Fatalf("rows changed: %q then %q", first, got)
		}
	}
}
