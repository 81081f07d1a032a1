package nsfw

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors/shared/vision"
)

// BenchmarkPicture measures the cost of one picture: through the
// extractor (Go decodes and squeezes it, writes the PPM, asks the pool)
// and, as the baseline, the bare sidecar (node server.js fed the PPM of
// the same picture on its standard input), with the sidecar's resident
// memory once it has served them.
//
//	go test -run XXX -bench Picture -benchtime 50x ./extractors/nsfw
func BenchmarkPicture(b *testing.B) {
	requireSidecar(b)
	b.Run("extractor", func(b *testing.B) {
		ctx := context.Background()
		in := input(b, "testdata/goexif-sample1.jpg", "image/jpeg")
		if _, err := sharedX.Extract(ctx, in); err != nil { // the model is loaded
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			if _, err := sharedX.Extract(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/picture")
		rss := int64(0)
		for _, pid := range sharedX.client.Pids() {
			rss = max(rss, vision.ResidentBytes(pid))
		}
		b.ReportMetric(float64(rss>>20), "sidecar_MB")
	})
	b.Run("video_frame", func(b *testing.B) {
		ctx := context.Background()
		in := input(b, slideshow(b), "video/mp4")
		frames := 0
		for range b.N {
			res, err := sharedX.Extract(ctx, in)
			if err != nil {
				b.Fatal(err)
			}
			frames += len(res.Segments)
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(frames), "ms/frame")
	})
	b.Run("bare_sidecar", func(b *testing.B) {
		pic, err := sharedX.load.Load(context.Background(), "testdata/goexif-sample1.jpg", 448)
		if err != nil {
			b.Fatal(err)
		}
		ppm := filepath.Join(b.TempDir(), "picture.ppm")
		if err := os.WriteFile(ppm, append([]byte("P6\n224 224\n255\n"), squeeze(pic.Image, 224)...), 0o644); err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command("node", filepath.Join(sidecarDir, "server.js"))
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { stdin.Close(); cmd.Wait() }()
		out := bufio.NewReader(stdout)
		start := time.Now()
		if _, err := out.ReadString('\n'); err != nil { // ready
			b.Fatal(err)
		}
		load := time.Since(start)
		b.ResetTimer()
		for i := range b.N {
			fmt.Fprintf(stdin, "{\"id\":\"%d\",\"path\":%q}\n", i, ppm)
			if _, err := out.ReadString('\n'); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/picture")
		b.ReportMetric(float64(vision.ResidentBytes(cmd.Process.Pid)>>20), "sidecar_MB")
		b.ReportMetric(float64(peakResident(cmd.Process.Pid)>>20), "sidecar_peak_MB")
		b.ReportMetric(load.Seconds(), "load_s")
	})
}

// peakResident is the highest resident memory of process pid (VmHWM), or
// 0 when it cannot be read.
func peakResident(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	var kb int64
	for _, line := range strings.Split(string(b), "\n") {
		if _, err := fmt.Sscanf(line, "VmHWM: %d kB", &kb); err == nil {
			return kb << 10
		}
	}
	return 0
}
