package images

import (
	"context"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

var benchFiles = []string{"testdata/goexif-sample1.jpg", "testdata/goexif-has-lens-info.jpg", "testdata/goexif-geodegrees_as_string.jpg"}

// BenchmarkExiftoolStayOpen is the cost of one file through a running
// exiftool (go test -bench Exiftool -benchtime 200x): compare with
// BenchmarkExiftoolPerFile, a new exiftool per file.
func BenchmarkExiftoolStayOpen(b *testing.B) {
	s := newStayOpen(extractors.NewRunner(1), nil, 1, exiftoolArgs())
	defer s.Close()
	files := benchPaths(b)
	if _, err := s.Query(context.Background(), files[0]); err != nil { // start-up outside the timing
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Query(context.Background(), files[i%len(files)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExiftoolPerFile(b *testing.B) {
	run := extractors.NewRunner(1)
	files := benchPaths(b)
	for i := range b.N {
		cmd := ExiftoolCommand(files[i%len(files)])
		if _, err := run.Run(context.Background(), extractors.Cmd{Name: cmd[0], Args: cmd[1:]}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkThumbnailJPEG is the thumbnailer on a 500x375 JPEG (decode,
// two sizes, encode).
func BenchmarkThumbnailJPEG(b *testing.B) {
	reg := registry(b, nil)
	for range b.N {
		if o, _ := run(b, reg, "thumbnailer", "testdata/goexif-sample1.jpg", "image/jpeg"); o.Err != nil {
			b.Fatal(o.Err)
		}
	}
}

func benchPaths(b *testing.B) []string {
	var out []string
	for _, f := range benchFiles {
		out = append(out, absPath(b, f))
	}
	return out
}

// BenchmarkThumbnailVideo is the thumbnailer on sample.mov (5.5 s,
// 560x320 H.264): ffprobe, the representative frame, the sprite.
func BenchmarkThumbnailVideo(b *testing.B) {
	reg := registry(b, nil)
	for range b.N {
		if o, _ := run(b, reg, "thumbnailer", "testdata/sample.mov", "video/quicktime"); o.Err != nil {
			b.Fatal(o.Err)
		}
	}
}
