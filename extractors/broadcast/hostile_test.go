package broadcast

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// survive runs every analysis on path alone and checks that each ends
// with data or a recorded, deterministic error: no panic, no hang, nothing
// to retry.
func survive(t *testing.T, reg *extractors.Registry, path string) map[string]extractors.Outcome {
	t.Helper()
	outs := map[string]extractors.Outcome{}
	for _, n := range names {
		outs[n] = extractortest.Survives(t, reg, n, extractortest.Input(t, path))
	}
	return outs
}

// TestTruncatedMP4: an MP4 cut in half. Without its index (moov written
// last) every analysis fails with ffprobe's error; with the index first
// the analyses cover what is left or fail, never more.
func TestTruncatedMP4(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	clip := qcClip(t)
	dir := t.TempDir()
	cut := func(src, name string) string {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b[:len(b)/2], 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for n, o := range survive(t, reg, cut(clip, "moov-last.mp4")) {
		if o.Err == nil || errors.Is(o.Err, extractors.ErrUnsupported) {
			t.Errorf("%s on a truncated MP4 without index: %v", n, o.Err)
		}
	}
	fast := filepath.Join(dir, "fast.mp4")
	extractortest.FFmpeg(t, "-i", clip, "-c", "copy", "-movflags", "+faststart", fast)
	for n, o := range survive(t, reg, cut(fast, "moov-first.mp4")) {
		if o.Err == nil {
			if d, ok := o.Data["analysed_duration"].(float64); !ok || d > 11 {
				t.Errorf("%s on a truncated MP4: analysed %v", n, o.Data["analysed_duration"])
			}
		}
	}
}

// TestAbsurdDuration: an MP4 whose movie header declares 13 hours holds
// 5.6 s: the analyses measure what is there, in the time the content
// takes.
func TestAbsurdDuration(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/mp4.mp4")
	if err != nil {
		t.Fatal(err)
	}
	// mvhd (version 0): size, "mvhd", version and flags, creation and
	// modification times, time scale, then the duration.
	i := bytes.Index(b, []byte("mvhd"))
	if i < 0 || b[i+4] != 0 {
		t.Fatal("no version 0 mvhd")
	}
	binary.BigEndian.PutUint32(b[i+20:], 0xFFFFFFF0)
	p := filepath.Join(t.TempDir(), "absurd.mp4")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	declared, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", p).Output()
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := strconv.ParseFloat(strings.TrimSpace(string(declared)), 64); d < 40000 {
		t.Fatalf("declared duration %s: the patch did not take", declared)
	}
	for n, o := range survive(t, registry(t), p) {
		if o.Err != nil {
			t.Errorf("%s: %v", n, o.Err)
			continue
		}
		near(t, n+" analysed", o.Data["analysed_duration"], 5.57)
	}
}

// TestGarbageWithMediaNames: random bytes named as media fail with a
// recorded error from every analysis.
func TestGarbageWithMediaNames(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	junk := make([]byte, 256<<10)
	for i := range junk {
		junk[i] = byte(i*7919 + i/253)
	}
	for _, name := range []string{"junk.mp4", "junk.wav", "junk.mxf"} {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, junk, 0o644); err != nil {
			t.Fatal(err)
		}
		for n, o := range survive(t, reg, p) {
			if o.Err == nil {
				t.Errorf("%s on %s: data %v", n, name, o.Data)
			}
		}
	}
}
