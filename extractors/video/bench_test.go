package video

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// benchClip is a minute of 1280x720 at 25 frames a second with sound and a
// cut every 10 seconds (six sources in turn), made once per benchmark run.
func benchClip(b *testing.B) string {
	b.Helper()
	srcs := []string{"testsrc2", "smptehdbars", "mandelbrot", "testsrc", "rgbtestsrc", "cellauto"}
	var args []string
	filter := ""
	for i, s := range srcs {
		src := s + "=s=1280x720:r=25"
		if s == "cellauto" {
			src = "cellauto=s=1280x720:r=25:rule=110"
		}
		args = append(args, "-f", "lavfi", "-t", "10", "-i", src)
		filter += "[" + string(rune('0'+i)) + ":v]format=yuv420p[v" + string(rune('0'+i)) + "];"
	}
	for i := range srcs {
		filter += "[v" + string(rune('0'+i)) + "]"
	}
	filter += "concat=n=6:v=1:a=0[v]"
	args = append(args, "-f", "lavfi", "-i", "sine=f=440:d=60", "-filter_complex", filter, "-map", "[v]", "-map", "6:a",
		"-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac")
	return extractortest.Clip(b, "minute-720p.mp4", args...)
}

func childCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPerMinute reports what each extractor costs per minute of 720p
// footage: wall seconds and CPU seconds of the programs it ran.
//
//	go test -run XXX -bench PerMinute -benchtime 3x ./extractors/video
func BenchmarkPerMinute(b *testing.B) {
	clip := benchClip(b)
	for _, name := range familyNames {
		b.Run(name, func(b *testing.B) {
			reg := extractors.NewRegistry()
			info, _ := extractors.Default.Get(name)
			reg.MustRegister(info)
			reg.Configure(extractors.Config{Runner: extractors.NewRunner(1)})
			b.ResetTimer()
			cpu := childCPU()
			start := time.Now()
			for range b.N {
				dir := b.TempDir()
				in := &extractors.Input{Name: "minute-720p.mp4", Path: clip, Size: -1, ArtifactDir: filepath.Join(dir, "a")}
				o := extractors.RunOne(context.Background(), reg, name, in, time.Hour)
				if o.Err != nil && name != "audio_previews" {
					b.Fatal(o.Err)
				}
				os.RemoveAll(dir)
			}
			b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "wall-s/min")
			b.ReportMetric((childCPU()-cpu).Seconds()/float64(b.N), "cpu-s/min")
		})
	}
}
