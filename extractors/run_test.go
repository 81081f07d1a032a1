package extractors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// funcExtractor adapts a function to Extractor for tests.
type funcExtractor func(ctx context.Context, in *Input) (*Result, error)

func (f funcExtractor) Extract(ctx context.Context, in *Input) (*Result, error) { return f(ctx, in) }

// testRegistry holds the real store and mime_type plus the given test extractors.
func testRegistry(t *testing.T, fns map[string]funcExtractor) *Registry {
	t.Helper()
	r := NewRegistry()
	for _, name := range []string{"store", "mime_type", "hashes"} {
		info, _ := Default.Get(name)
		r.MustRegister(info)
	}
	for name, fn := range fns {
		r.MustRegister(Info{Name: name, Family: FamilyTechnical, DisplayName: name, Version: "1", Implemented: true, New: func(Env) (Extractor, error) { return fn, nil }})
	}
	r.MustRegister(Info{Name: "later", Family: FamilyTechnical, DisplayName: "Later", Version: "1"})
	return r
}

func sampleInput(t *testing.T) *Input {
	t.Helper()
	return &Input{ItemID: "item1", Name: "exif.jpg", Path: "testdata/exif.jpg", Size: 80603, ArtifactDir: t.TempDir()}
}

func TestRunOrderAndPrior(t *testing.T) {
	t.Parallel()
	var seen []string
	r := testRegistry(t, map[string]funcExtractor{
		"probe": func(ctx context.Context, in *Input) (*Result, error) {
			seen = slices.Sorted(maps.Keys(in.Prior))
			var mt struct {
				MimeType string `json:"mime_type"`
			}
			if err := json.Unmarshal(in.Prior["mime_type"], &mt); err != nil {
				return nil, err
			}
			return &Result{Data: map[string]any{"saw": mt.MimeType}}, nil
		},
	})
	in := sampleInput(t)
	in.Prior = map[string]json.RawMessage{"earlier": json.RawMessage(`{"x":1}`)}
	outs := Run(context.Background(), r, []string{"probe", "nosuch", "mime_type", "store", "probe", "later"}, in, time.Minute)

	var order []string
	for _, o := range outs {
		order = append(order, o.Name)
	}
	if want := []string{"store", "mime_type", "probe", "nosuch", "later"}; !slices.Equal(order, want) {
		t.Fatalf("order = %v, want %v", order, want)
	}
	if want := []string{"earlier", "mime_type", "store"}; !slices.Equal(seen, want) {
		t.Errorf("probe saw Prior %v, want %v", seen, want)
	}
	if got := outs[2]; got.Err != nil || got.Data["saw"] != "image/jpeg" {
		t.Errorf("probe outcome = %+v", got)
	}
	if len(in.Prior) != 1 {
		t.Errorf("Run modified the caller's Prior: %v", in.Prior)
	}
	for _, o := range outs[3:] {
		if !errors.Is(o.Err, ErrUnavailable) || IsTransient(o.Err) {
			t.Errorf("%s: err = %v, want deterministic ErrUnavailable", o.Name, o.Err)
		}
	}
	if !strings.Contains(outs[4].Err.Error(), "not implemented in this release") {
		t.Errorf("later: err = %v", outs[4].Err)
	}
}

func TestRunRecoversPanic(t *testing.T) {
	t.Parallel()
	r := testRegistry(t, map[string]funcExtractor{
		"crash": func(ctx context.Context, in *Input) (*Result, error) {
			var s []int
			return &Result{Data: map[string]any{"v": s[3]}}, nil
		},
	})
	outs := Run(context.Background(), r, []string{"crash", "store"}, sampleInput(t), time.Minute)
	var pe *PanicError
	crash := outs[1]
	if !errors.As(crash.Err, &pe) || pe.Name != "crash" || len(pe.Stack) == 0 || IsTransient(crash.Err) {
		t.Fatalf("crash: err = %#v", crash.Err)
	}
	if !strings.HasPrefix(crash.Err.Error(), "extractor crash panicked: runtime error: index out of range") {
		t.Errorf("message = %q", crash.Err.Error())
	}
	if outs[0].Err != nil {
		t.Errorf("store after a panic: %v", outs[0].Err)
	}
}

func TestRunTimeLimit(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var abandoned sync.WaitGroup
	abandoned.Add(1)
	r := testRegistry(t, map[string]funcExtractor{
		"slow": func(ctx context.Context, in *Input) (*Result, error) {
			<-ctx.Done()
			return nil, fmt.Errorf("waiting: %w", ctx.Err())
		},
		"stuck": func(ctx context.Context, in *Input) (*Result, error) {
			defer abandoned.Done()
			<-release // ignores ctx, as a parser in an endless loop would
			return &Result{}, nil
		},
		"tool": func(ctx context.Context, in *Input) (*Result, error) {
			_, err := NewRunner(1).Run(ctx, Cmd{Name: "sleep", Args: []string{"100"}})
			return nil, err
		},
	})
	outs := Run(context.Background(), r, []string{"slow", "stuck", "tool", "store"}, sampleInput(t), 100*time.Millisecond)
	if outs[0].Name != "store" || outs[0].Err != nil {
		t.Errorf("store: %+v", outs[0])
	}
	outs = outs[1:]
	for _, o := range outs {
		if !errors.Is(o.Err, context.DeadlineExceeded) || IsTransient(o.Err) || o.Data != nil {
			t.Errorf("%s: err = %v (transient %v), data %v; want deterministic deadline exceeded", o.Name, o.Err, IsTransient(o.Err), o.Data)
		}
		if o.Duration < 100*time.Millisecond {
			t.Errorf("%s: duration %s shorter than the limit", o.Name, o.Duration)
		}
	}
	if !strings.Contains(outs[0].Err.Error(), "exceeded its time limit of 100ms") {
		t.Errorf("slow: %v", outs[0].Err)
	}
	if !strings.Contains(outs[1].Err.Error(), "did not stop after its time limit") {
		t.Errorf("stuck: %v", outs[1].Err)
	}
	close(release)
	abandoned.Wait()
}

func TestRunParentCancelIsTransient(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	r := testRegistry(t, map[string]funcExtractor{
		"cancels": func(c context.Context, in *Input) (*Result, error) {
			cancel()
			<-c.Done()
			return nil, c.Err()
		},
	})
	outs := Run(ctx, r, []string{"cancels", "hashes"}, sampleInput(t), time.Minute)
	for _, o := range outs {
		if !errors.Is(o.Err, context.Canceled) || !IsTransient(o.Err) {
			t.Errorf("%s: err = %v, want transient canceled", o.Name, o.Err)
		}
	}
}

func TestRunChecksResults(t *testing.T) {
	t.Parallel()
	r := testRegistry(t, map[string]funcExtractor{
		"badjson": func(ctx context.Context, in *Input) (*Result, error) {
			return &Result{Data: map[string]any{"c": make(chan int)}}, nil
		},
		"escape": func(ctx context.Context, in *Input) (*Result, error) {
			return &Result{Data: map[string]any{}, Artifacts: []Artifact{{Path: "../x.jpg", Kind: "thumbnail"}}}, nil
		},
		"empty": func(ctx context.Context, in *Input) (*Result, error) { return nil, nil },
		"unsupported": func(ctx context.Context, in *Input) (*Result, error) {
			return nil, fmt.Errorf("no video stream: %w", ErrUnsupported)
		},
		"flaky": func(ctx context.Context, in *Input) (*Result, error) {
			return nil, Transient(errors.New("provider answered 503"))
		},
		"thumb": func(ctx context.Context, in *Input) (*Result, error) {
			return &Result{Data: map[string]any{"n": 1}, Artifacts: []Artifact{{Path: "t/1.jpg", Kind: "thumbnail", Width: 8, Height: 6}}}, nil
		},
	})
	outs := Run(context.Background(), r, []string{"badjson", "escape", "empty", "unsupported", "flaky", "thumb"}, sampleInput(t), time.Minute)
	if outs[0].Err == nil || !strings.Contains(outs[0].Err.Error(), "does not encode as JSON") {
		t.Errorf("badjson: %v", outs[0].Err)
	}
	if outs[1].Err == nil || !strings.Contains(outs[1].Err.Error(), "not inside the artifact directory") {
		t.Errorf("escape: %v", outs[1].Err)
	}
	if outs[2].Err != nil || outs[2].Data == nil {
		t.Errorf("empty: %+v", outs[2])
	}
	if !errors.Is(outs[3].Err, ErrUnsupported) || IsTransient(outs[3].Err) {
		t.Errorf("unsupported: %v", outs[3].Err)
	}
	if !IsTransient(outs[4].Err) || outs[4].Err.Error() != "extractor flaky: provider answered 503" {
		t.Errorf("flaky: %v", outs[4].Err)
	}
	if o := outs[5]; o.Err != nil || len(o.Artifacts) != 1 || o.Artifacts[0].Width != 8 {
		t.Errorf("thumb: %+v", o)
	}
}

func TestTransient(t *testing.T) {
	t.Parallel()
	base := errors.New("disk went away")
	if Transient(nil) != nil {
		t.Error("Transient(nil) != nil")
	}
	if IsTransient(base) || IsTransient(nil) {
		t.Error("plain error reported transient")
	}
	wrapped := fmt.Errorf("read item: %w", Transient(base))
	if !IsTransient(wrapped) || !errors.Is(wrapped, base) || wrapped.Error() != "read item: disk went away" {
		t.Errorf("wrapped = %v", wrapped)
	}
}

// TestRunDefaultGolden runs the implemented extractors of the Default registry
// on real files; expected values were computed with md5sum, sha1sum,
// sha256sum, file --mime-type and ls -l (see testdata/README.md).
func TestRunDefaultGolden(t *testing.T) {
	t.Parallel()
	in := &Input{ItemID: "i", Name: "Holiday.JPG", Path: "testdata/exif.jpg", Size: 80603, ArtifactDir: t.TempDir()}
	outs := Run(context.Background(), nil, []string{"hashes", "mime_type", "store"}, in, time.Minute)
	got := map[string]map[string]any{}
	for _, o := range outs {
		if o.Err != nil {
			t.Fatalf("%s: %v", o.Name, o.Err)
		}
		got[o.Name] = o.Data
	}
	gotJSON, _ := json.Marshal(got)
	want := `{"hashes":{"md5":"28a4232dc45b24e87d4e7597a872c559","sha1":"4ebf54db04f335ff66bfc1fd982be62bf23fc967","sha256":"c3034419772b425134fd69f5cdc43143038b36c9202d8a93ca74d207da09aa2e"},` +
		`"mime_type":{"extension":"jpg","mime_type":"image/jpeg"},` +
		`"store":{"extension":"jpg","name":"Holiday.JPG","size":80603}}`
	if string(gotJSON) != want {
		t.Errorf("got  %s\nwant %s", gotJSON, want)
	}
}

// An Inline extractor runs in the caller's goroutine on content in memory
// (and in its own, with its time limit, on a file on disk); a panic is
// recovered either way.
func TestRunInline(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	var inlineGoroutine, diskGoroutine bool
	caller := goroutineID()
	r.MustRegister(Info{Name: "quick", Family: FamilyTechnical, DisplayName: "quick", Version: "1", Implemented: true, Inline: true,
		New: func(Env) (Extractor, error) {
			return funcExtractor(func(ctx context.Context, in *Input) (*Result, error) {
				if in.Content != nil {
					inlineGoroutine = goroutineID() == caller
				} else {
					diskGoroutine = goroutineID() == caller
				}
				if in.Name == "boom" {
					panic("quick exploded")
				}
				return &Result{Data: map[string]any{"n": len(in.Content)}}, nil
			}), nil
		}})
	in := &Input{ItemID: "i", Name: "a.txt", Content: []byte("abc"), Size: 3, ArtifactDir: t.TempDir()}
	if o := Run(context.Background(), r, []string{"quick"}, in, time.Minute)[0]; o.Err != nil || o.Data["n"] != 3 || string(o.JSON) != `{"n":3}` {
		t.Fatalf("inline: %+v", o)
	}
	onDisk := &Input{ItemID: "i", Name: "exif.jpg", Path: "testdata/exif.jpg", Size: 80603, ArtifactDir: t.TempDir()}
	if o := Run(context.Background(), r, []string{"quick"}, onDisk, time.Minute)[0]; o.Err != nil {
		t.Fatalf("on disk: %+v", o)
	}
	if !inlineGoroutine || diskGoroutine {
		t.Fatalf("in memory in the caller's goroutine: %v; on disk in the caller's: %v", inlineGoroutine, diskGoroutine)
	}
	in.Name = "boom"
	var pe *PanicError
	if o := Run(context.Background(), r, []string{"quick"}, in, time.Minute)[0]; !errors.As(o.Err, &pe) || IsTransient(o.Err) {
		t.Fatalf("inline panic: %v", o.Err)
	}
}

// goroutineID is the current goroutine's number, from its stack header.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	return strings.Fields(string(buf))[1]
}
