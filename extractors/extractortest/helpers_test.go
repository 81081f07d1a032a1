package extractortest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

// recorder is a testing.TB whose failures are recorded instead of failing
// the test, to check that the helpers fail when they must.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	failures []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// failures runs f with a recorder in a goroutine of its own (a Fatalf
// ends it) and returns what failed.
func failures(t *testing.T, f func(tb testing.TB)) []string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.failures
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	reg := Registry(t, map[string]string{"HASHES_UNUSED": "x"}, "store", "mime_type", "hashes")
	if got := reg.Names(); !slices.Equal(got, []string{"hashes", "mime_type", "store"}) {
		t.Errorf("names %v", got)
	}
	if ok, why := reg.Available("hashes"); !ok {
		t.Errorf("hashes: %s", why)
	}
	got := failures(t, func(tb testing.TB) { Registry(tb, nil, "store", "no_such_extractor") })
	if len(got) != 1 || !strings.Contains(got[0], "no_such_extractor") {
		t.Errorf("unknown name: %v", got)
	}
	// A placeholder (an API name whose implementation has not landed) is
	// not implemented: a test of it would test nothing.
	extractors.MustRegister(extractors.Info{Name: "extractortest_placeholder", Family: extractors.FamilyTechnical, Version: "1"})
	if got := failures(t, func(tb testing.TB) { Registry(tb, nil, "extractortest_placeholder") }); len(got) != 1 {
		t.Errorf("placeholder: %v", got)
	}
}

func TestRunDetectsTheMIMEType(t *testing.T) {
	t.Parallel()
	reg := Registry(t, nil, "store", "mime_type", "hashes")
	in := Input(t, "../testdata/exif.jpg")
	if in.ItemID != ItemID || in.Name != "exif.jpg" || in.Size <= 0 || filepath.Base(in.ArtifactDir) != "artifacts" {
		t.Errorf("input %+v", in)
	}
	d := Data(t, Run(t, reg, "hashes", in))
	if in.MIME != "image/jpeg" {
		t.Errorf("MIME %q", in.MIME)
	}
	if d["sha256"] != "c3034419772b425134fd69f5cdc43143038b36c9202d8a93ca74d207da09aa2e" {
		t.Errorf("hashes %v", d)
	}
	// Without mime_type in the registry, the MIME type stays unknown.
	bare := Registry(t, nil, "hashes")
	in = Input(t, "../testdata/exif.jpg")
	if o := Run(t, bare, "hashes", in); o.Err != nil || in.MIME != "" {
		t.Errorf("without mime_type: %v %q", o.Err, in.MIME)
	}
	if got := failures(t, func(tb testing.TB) { Input(tb, "../testdata/no-such-file") }); len(got) != 1 {
		t.Errorf("missing file: %v", got)
	}
}

func TestHarvestRunsTheBaseExtractorsFirst(t *testing.T) {
	t.Parallel()
	reg := Registry(t, nil, "store", "mime_type", "hashes")
	outs := Harvest(t, reg, Input(t, "../testdata/sample.json"), "hashes")
	if len(outs) != 3 {
		t.Fatalf("outcomes %v", outs)
	}
	if d := Data(t, outs["mime_type"]); d["mime_type"] != "application/json" {
		t.Errorf("mime_type %v", d)
	}
	if d := Data(t, outs["hashes"]); d["sha256"] == nil {
		t.Errorf("hashes %v", d)
	}
}

func TestDataFailsOnAnError(t *testing.T) {
	t.Parallel()
	o := extractors.Outcome{Name: "x", Err: extractors.ErrUnsupported}
	if got := failures(t, func(tb testing.TB) { Data(tb, o) }); len(got) != 1 || !strings.HasPrefix(got[0], "x: ") {
		t.Errorf("failures %v", got)
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	p := Clip(t, "tone.wav", "-f", "lavfi", "-i", "sine=f=440:d=0.2", "-ar", "8000")
	b, err := os.ReadFile(p)
	if err != nil || !bytes.HasPrefix(b, []byte("RIFF")) || filepath.Base(p) != "tone.wav" {
		t.Errorf("clip %s: %v %q", p, err, b[:min(len(b), 12)])
	}
	got := failures(t, func(tb testing.TB) {
		FFmpeg(tb, "-f", "lavfi", "-i", "no_such_source", filepath.Join(t.TempDir(), "x.wav"))
	})
	if len(got) != 1 || !strings.Contains(got[0], "no_such_source") {
		t.Errorf("failing ffmpeg: %v", got)
	}
}

func TestSamplesAndCopyFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"b.wav", "a.jpg", "README.md", "a.golden"} {
		os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644)
	}
	os.Mkdir(filepath.Join(dir, "output"), 0o755)
	want := []string{filepath.Join(dir, "a.jpg"), filepath.Join(dir, "b.wav")}
	if got := Samples(t, dir); !slices.Equal(got, want) {
		t.Errorf("samples %v, want %v", got, want)
	}
	if got := failures(t, func(tb testing.TB) { Samples(tb, filepath.Join(dir, "output")) }); len(got) != 1 {
		t.Errorf("no samples: %v", got)
	}
	to := filepath.Join(t.TempDir(), "deep", "copy.jpg")
	CopyFile(t, want[0], to)
	if b, err := os.ReadFile(to); err != nil || string(b) != "a.jpg" {
		t.Errorf("copy: %v %q", err, b)
	}
}

func TestNoRequestURL(t *testing.T) {
	t.Parallel()
	for _, fetch := range []bool{false, true} {
		r := &recorder{}
		t.Run(fmt.Sprint("fetch=", fetch), func(t *testing.T) {
			r.TB = t
			url := NoRequestURL(r)
			if fetch {
				if resp, err := http.Get(url + "/seg.ts"); err == nil {
					resp.Body.Close()
				}
			}
		})
		if fetch != (len(r.failures) == 1) {
			t.Errorf("fetch=%v: failures %v", fetch, r.failures)
		}
	}
}

func TestSharedMakesOnce(t *testing.T) {
	t.Parallel()
	var s Shared
	defer s.Remove()
	made := 0
	render := func(t testing.TB, path string) {
		made++
		os.WriteFile(filepath.Join(filepath.Dir(path), "sidecar.srt"), nil, 0o644)
		os.WriteFile(path, []byte("clip"), 0o644)
	}
	var wg sync.WaitGroup
	paths := make([]string, 4)
	for i := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			paths[i] = s.File(t, "clip.mp4", render)
		}()
	}
	wg.Wait()
	if made != 1 || paths[0] == "" || slices.ContainsFunc(paths, func(p string) bool { return p != paths[0] }) {
		t.Errorf("made %d times: %v", made, paths)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(paths[0]), "sidecar.srt")); err != nil {
		t.Error(err)
	}
	broken := func(t testing.TB, path string) { t.Fatal("cannot render") }
	for range 2 {
		if got := failures(t, func(tb testing.TB) { s.File(tb, "broken.mp4", broken) }); len(got) != 1 {
			t.Errorf("broken: %v", got)
		}
	}
	dir := filepath.Dir(filepath.Dir(paths[0]))
	s.Remove()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("after Remove: %v", err)
	}
}

// Not parallel: Allocated counts every goroutine's allocations.
func TestAllocated(t *testing.T) {
	var keep []byte
	n := Allocated(func() { keep = make([]byte, 8<<20) })
	if n < 8<<20 || n > 9<<20 || len(keep) != 8<<20 {
		t.Errorf("allocated %d bytes", n)
	}
}

type extractFunc func(ctx context.Context, in *extractors.Input) (*extractors.Result, error)

func (f extractFunc) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	return f(ctx, in)
}

func TestSurvives(t *testing.T) {
	t.Parallel()
	reg := extractors.NewRegistry()
	add := func(name string, f extractFunc) {
		reg.MustRegister(extractors.Info{Name: name, Family: extractors.FamilyTechnical, Implemented: true,
			Fields: []extractors.Field{{Path: "n", Type: extractors.TypeNumber}},
			New:    func(extractors.Env) (extractors.Extractor, error) { return f, nil }})
	}
	add("refuses", func(context.Context, *extractors.Input) (*extractors.Result, error) {
		return nil, errors.New("not a file of mine")
	})
	add("declared", func(context.Context, *extractors.Input) (*extractors.Result, error) {
		return &extractors.Result{Data: map[string]any{"n": 1}}, nil
	})
	add("panics", func(context.Context, *extractors.Input) (*extractors.Result, error) { panic("index out of range") })
	add("transient", func(context.Context, *extractors.Input) (*extractors.Result, error) {
		return nil, extractors.Transient(errors.New("read: i/o error"))
	})
	add("undeclared", func(context.Context, *extractors.Input) (*extractors.Result, error) {
		return &extractors.Result{Data: map[string]any{"m": 1}}, nil
	})
	in := &extractors.Input{Name: "junk.mp4", Path: "/dev/null", ArtifactDir: t.TempDir()}
	for name, fails := range map[string]bool{"refuses": false, "declared": false, "panics": true, "transient": true, "undeclared": true} {
		got := failures(t, func(tb testing.TB) { Survives(tb, reg, name, in) })
		if fails != (len(got) == 1) {
			t.Errorf("%s: failures %v", name, got)
		}
	}
}
