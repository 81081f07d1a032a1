package extractors

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

// encodeData must write what json.Marshal writes, byte for byte: the row's
// metadata and the search document made from it agree on it.
func TestEncodeDataIsJSONMarshal(t *testing.T) {
	type probe struct {
		Codec string  `json:"codec"`
		Rate  float64 `json:"rate"`
	}
	cases := []map[string]any{
		nil,
		{},
		{"name": "f001206.bin", "extension": "bin", "size": int64(4096)},
		{"md5": "6440e7fc9f9132035657d33f16d5e442", "n": 3, "small": int32(-7), "u": uint64(math.MaxUint64), "u32": uint32(7)},
		{"html": "<b>Bold</b> & co", "quote": `say "hi" \ back`, "ctl": "a\x00b\x01c\n\r\t\b\f", "ok": true, "no": false, "none": nil},
		{"latin": "café ünïcode ✓", "broken": "caf\xe9 \xff\xfe", "sep": "a\u2028b\u2029c", "emoji": "🎬"},
		{"nested": map[string]any{"deep": map[string]any{"list": []any{1, "two", 3.5, true, nil, []string{"x", "<y>"}}}},
			"empty": map[string]any{}, "nilmap": map[string]any(nil), "nillist": []any(nil), "nilstrs": []string(nil)},
		{"floats": []any{1e21, 1e-7, 0.1, 1.0 / 3, float32(0.25)}, "num": json.Number("12.50"),
			"typed": map[string]string{"lang": "en"}, "structs": []probe{{"h264", 29.97}},
			"when": time.Date(2023, 5, 6, 7, 8, 9, 123456789, time.FixedZone("x", 3600))},
		{"<key>": "v", "k\xffey": 1, "z": 1, "a": 2, "M": 3},
	}
	for i, c := range cases {
		want, werr := json.Marshal(c)
		got, gerr := encodeData(c)
		if (werr != nil) != (gerr != nil) || string(got) != string(want) {
			t.Errorf("case %d:\nencodeData   %s (%v)\njson.Marshal %s (%v)", i, got, gerr, want, werr)
		}
	}
	for _, bad := range []map[string]any{{"nan": math.NaN()}, {"ch": make(chan int)}, {"num": json.Number("1x")}} {
		if _, err := encodeData(bad); err == nil {
			t.Errorf("encodeData(%v) succeeded; json.Marshal refuses it", bad)
		}
	}
}

// FuzzEncodeData: any string, as a key or a value, is encoded as
// json.Marshal encodes it.
func FuzzEncodeData(f *testing.F) {
	for _, s := range []string{"", "plain", "<&>", "a\x00", "\xff", "é", "\u2028", `"\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := map[string]any{s: s, "list": []any{s, int64(len(s))}, "strs": []string{s}}
		want, _ := json.Marshal(m)
		got, err := encodeData(m)
		if err != nil || string(got) != string(want) {
			t.Fatalf("%q:\nencodeData   %s (%v)\njson.Marshal %s", s, got, err, want)
		}
	})
}
