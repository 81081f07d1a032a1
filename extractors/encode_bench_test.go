package extractors

import (
	"encoding/json"
	"testing"
)

var benchData = []map[string]any{
	{"name": "f001206.bin", "extension": "bin", "size": int64(4096)},
	{"mime_type": "application/octet-stream", "extension": ""},
	{"md5": "6440e7fc9f9132035657d33f16d5e442", "sha1": "a1a73c978f2bd0040d62439c2ec15f567a3a6284", "sha256": "851221f07dc5793555ec17cbdbb7603fa3f1acbf2d8157b8fb20e50100baa98b"},
}

// BenchmarkEncodeData: the data of a small file's three base extractors,
// encoded for its row (encodeData, and json.Marshal as the baseline).
func BenchmarkEncodeData(b *testing.B) {
	b.Run("encodeData", func(b *testing.B) {
		for b.Loop() {
			for _, d := range benchData {
				encodeData(d)
			}
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			for _, d := range benchData {
				json.Marshal(d)
			}
		}
	})
}
