package probe

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// BenchmarkFamily runs extractors on every sample as a harvest does (one
// file at a time, one shared ffprobe reading), to compare with the bare
// tool on the same files:
//
//	for f in testdata/*.*; do ffprobe -v error -print_format json -show_format -show_streams \
//	  -show_chapters -show_entries program=... "$f" >/dev/null; done
func BenchmarkFamily(b *testing.B) {
	reg := registry(b)
	mime, _ := extractors.Default.Get("mime_type")
	reg.MustRegister(mime)
	files := extractortest.Samples(b, "testdata")
	for _, set := range []struct {
		name  string
		names []string
	}{
		{"mediainfo", []string{"mime_type", "mediainfo"}},
		{"all", []string{"mime_type", "mediainfo", "audioinfo", "m2ts", "dpx", "drm"}},
	} {
		b.Run(set.name, func(b *testing.B) {
			for b.Loop() {
				for _, f := range files {
					fi, _ := os.Stat(f)
					in := &extractors.Input{ItemID: "item", Name: filepath.Base(f), Path: f, Size: fi.Size(), ArtifactDir: b.TempDir()}
					for _, o := range extractors.Run(context.Background(), reg, set.names, in, time.Minute) {
						if o.Err != nil && !errorsIsUnsupported(o.Err) {
							b.Fatalf("%s on %s: %v", o.Name, f, o.Err)
						}
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(files))/1e6, "ms/file")
		})
	}
}
