package nsfw

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/extractors/images"
)

// Bad files end as a recorded error before the sidecar is asked anything.
func TestGarbagePicture(t *testing.T) {
	requireSidecar(t)
	dir := t.TempDir()
	garbage := make([]byte, 32<<10)
	r := rand.New(rand.NewPCG(7, 7))
	for i := range garbage {
		garbage[i] = byte(r.UintN(256))
	}
	copy(garbage, "\xff\xd8\xff\xe0") // a JPEG start, then noise
	path := filepath.Join(dir, "garbage.jpg")
	if err := os.WriteFile(path, garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	asked := sharedX.client.Asked.Load()
	o := run(t, shared, path, "image/jpeg", nil, "")
	if o.Err == nil || extractors.IsTransient(o.Err) {
		t.Fatalf("err = %v, want a deterministic error", o.Err)
	}
	if sharedX.client.Asked.Load() != asked {
		t.Error("the sidecar was asked about garbage")
	}
}

func TestPixelFlood(t *testing.T) {
	requireSidecar(t)
	path := filepath.Join(t.TempDir(), "flood.png")
	if err := os.WriteFile(path, extractortest.PNGHeader(60000, 60000), 0o644); err != nil {
		t.Fatal(err)
	}
	asked := sharedX.client.Asked.Load()
	o := run(t, shared, path, "image/png", nil, "")
	if !errors.Is(o.Err, images.ErrTooLarge) || extractors.IsTransient(o.Err) {
		t.Fatalf("err = %v, want the pixel limit", o.Err)
	}
	if sharedX.client.Asked.Load() != asked {
		t.Error("the sidecar was asked about a pixel flood")
	}
}

// A sidecar killed while it works on a picture: the error is recorded
// (transient: nothing in the file caused it) and the next picture gets a
// new process. A request past its deadline kills the process.
func TestSidecarCrashAndDeadline(t *testing.T) {
	requireSidecar(t)
	x := direct(t, map[string]string{"processes": "1"})
	var killed atomic.Int64
	x.client.Sent = func(pid int) {
		if killed.Add(1) == 1 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	o := x.extract(t, "testdata/video-001.png", "image/png")
	if o.err == nil || !extractors.IsTransient(o.err) || !strings.Contains(o.err.Error(), "output ended") {
		t.Fatalf("killed mid-request: err = %v", o.err)
	}
	t.Logf("recorded: %v", o.err)
	if o = x.extract(t, "testdata/video-001.png", "image/png"); o.err != nil || o.res.Data["category"] != "neutral" {
		t.Fatalf("after the crash: %v, %v", o.err, o.res)
	}
	if n := x.client.Started(); n != 2 {
		t.Errorf("%d processes started, want 2", n)
	}

	x.client.RequestTimeout = time.Nanosecond
	o = x.extract(t, "testdata/video-001.png", "image/png")
	if o.err == nil || !extractors.IsTransient(o.err) || !strings.Contains(o.err.Error(), "no answer within") {
		t.Fatalf("late: err = %v", o.err)
	}
	if len(x.client.Pids()) != 0 {
		t.Errorf("%d processes alive after the late answer", len(x.client.Pids()))
	}
}

type extracted struct {
	res *extractors.Result
	err error
}

func (x *nsfw) extract(t *testing.T, path, mime string) extracted {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := x.Extract(ctx, input(t, path, mime))
	return extracted{res, err}
}

// A video over the pixel limit is refused before any frame is decoded.
func TestVideoPixelLimit(t *testing.T) {
	requireSidecar(t)
	x := direct(t, map[string]string{"max_pixels": "10000"})
	o := x.extract(t, slideshow(t), "video/mp4")
	if !errors.Is(o.err, images.ErrTooLarge) || x.client.Asked.Load() != 0 {
		t.Fatalf("err = %v, %d pictures asked", o.err, x.client.Asked.Load())
	}
}

// Without the sidecar, or without node, the extractor is not available,
// and says where it looked.
func TestSidecarAbsent(t *testing.T) {
	empty := t.TempDir()
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"NSFW_SIDECAR_DIR": empty}, "not available: vision sidecar not installed at " + empty + " (no server.js)"},
		{map[string]string{"NSFW_SIDECAR_DIR": sidecarDir, "NSFW_NODE": "/nonexistent/node"}, `node program "/nonexistent/node" not found`},
		{map[string]string{"NSFW_SIDECAR_DIR": sidecarDir, "NSFW_MODEL": "ResNet"}, `not available: setting NSFW_MODEL = "ResNet": want one of MobileNetV2, MobileNetV2Mid, InceptionV3`},
	} {
		o := run(t, registry(t, c.env), "testdata/video-001.png", "image/png", nil, "")
		if !errors.Is(o.Err, extractors.ErrUnavailable) || !strings.Contains(o.Err.Error(), c.want) {
			t.Errorf("err = %v, want %q", o.Err, c.want)
		}
	}
}
