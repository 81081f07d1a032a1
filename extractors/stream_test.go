package extractors

import (
	"bytes"
	"context"
	"io"
	"reflect"
	"testing"
)

// An object streamed in (Input.Stream, no Path) gives the hashes and the
// type its bytes in memory give, and mime_type asks for its first bytes
// only.
func TestStreamedContent(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("%PDF-1.4\n"), 400_000) // several hash chunks
	var limits []int64
	stream := func(_ context.Context, limit int64) (io.ReadCloser, error) {
		limits = append(limits, limit)
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	for _, x := range []Extractor{mimeType{}, hashes{}} {
		want, err := x.Extract(context.Background(), &Input{Name: "a.bin", Size: int64(len(data)), Content: data})
		if err != nil {
			t.Fatal(err)
		}
		got, err := x.Extract(context.Background(), &Input{Name: "a.bin", Size: int64(len(data)), Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Data, want.Data) {
			t.Errorf("%T: streamed %v, in memory %v", x, got.Data, want.Data)
		}
	}
	if len(limits) != 2 || limits[0] != sniffLimit || limits[1] >= 0 {
		t.Errorf("stream limits asked for: %v, want [%d, <0]", limits, sniffLimit)
	}
}
