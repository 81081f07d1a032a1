package extractors

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestOrderAlwaysThenAfter(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	for _, name := range []string{"store", "mime_type"} {
		info, _ := Default.Get(name)
		r.MustRegister(info)
	}
	mk := func(name string, after ...string) {
		r.MustRegister(Info{Name: name, Family: FamilyTechnical, Implemented: true, After: after, New: func(Env) (Extractor, error) { return hashes{}, nil }})
	}
	mk("faces", "frames")
	mk("ocr", "frames", "pdf")
	mk("frames")
	mk("summary", "faces", "ocr")
	got := r.Order([]string{"summary", "faces", "store", "ocr", "frames", "faces", "mime_type", "unknown"})
	want := []string{"store", "mime_type", "frames", "faces", "ocr", "summary", "unknown"}
	if !slices.Equal(got, want) {
		t.Errorf("Order = %v, want %v", got, want)
	}
	// An extractor named in After but not requested does not join the run.
	if got := r.Order([]string{"faces"}); !slices.Equal(got, []string{"faces"}) {
		t.Errorf("Order(faces) = %v", got)
	}
	// A cycle keeps every member once.
	mk("x", "y")
	mk("y", "x")
	if got := r.Order([]string{"x", "y"}); len(got) != 2 {
		t.Errorf("Order of a cycle = %v", got)
	}
}

func TestRunSkipsFilesNotAccepted(t *testing.T) {
	t.Parallel()
	r := testRegistry(t, nil)
	var ran atomic.Int32
	r.MustRegister(Info{Name: "videoonly", Family: FamilyTechnical, Implemented: true, Accept: AcceptMIME([]string{"video/"}),
		New: func(Env) (Extractor, error) {
			return funcExtractor(func(ctx context.Context, in *Input) (*Result, error) { ran.Add(1); return &Result{}, nil }), nil
		}})
	var sawMIME string
	r.MustRegister(Info{Name: "jpegs", Family: FamilyTechnical, Implemented: true, Accept: AcceptMIME([]string{"image/jpeg"}),
		New: func(Env) (Extractor, error) {
			return funcExtractor(func(ctx context.Context, in *Input) (*Result, error) { sawMIME = in.MIME; return &Result{}, nil }), nil
		}})
	// The name says .mp4; the content is a JPEG: Accept judges the content's type.
	in := sampleInput(t)
	in.Name = "clip.mp4"
	outs := Run(context.Background(), r, []string{"videoonly", "jpegs", "mime_type"}, in, time.Minute)
	var names []string
	for _, o := range outs {
		names = append(names, o.Name)
	}
	if !slices.Equal(names, []string{"mime_type", "jpegs"}) || ran.Load() != 0 || sawMIME != "image/jpeg" {
		t.Errorf("ran %v (videoonly %d times), jpegs saw %q", names, ran.Load(), sawMIME)
	}
	if f := (File{Ext: "srt"}); !AcceptMIME(nil, "srt", "vtt")(f) || AcceptMIME(nil, "vtt")(f) {
		t.Error("AcceptMIME by extension")
	}
}

func TestSharedComputesOncePerFile(t *testing.T) {
	t.Parallel()
	var probes atomic.Int32
	probe := func(ctx context.Context, in *Input) (*Result, error) {
		v, err := in.Shared("probe", func() (any, error) { probes.Add(1); return len(in.Requested), nil })
		if err != nil {
			return nil, err
		}
		return &Result{Data: map[string]any{"n": v}}, nil
	}
	r := testRegistry(t, map[string]funcExtractor{"a": probe, "b": probe})
	outs := Run(context.Background(), r, []string{"a", "b"}, sampleInput(t), time.Minute)
	if probes.Load() != 1 {
		t.Errorf("probe computed %d times for one file", probes.Load())
	}
	for _, o := range outs {
		if o.Err != nil || o.Data["n"] != 2 {
			t.Errorf("%s: %+v", o.Name, o)
		}
	}
	Run(context.Background(), r, []string{"a", "b"}, sampleInput(t), time.Minute)
	if probes.Load() != 2 {
		t.Errorf("a second file reused the first one's probe (%d computations)", probes.Load())
	}

	// A computation cut by its caller's time limit is not kept.
	calls := 0
	in := &Input{shared: &sharedWork{vals: map[string]*sharedVal{}}}
	_, err := in.Shared("k", func() (any, error) { calls++; return nil, context.DeadlineExceeded })
	v, err2 := in.Shared("k", func() (any, error) { calls++; return "ok", nil })
	if !errors.Is(err, context.DeadlineExceeded) || err2 != nil || v != "ok" || calls != 2 {
		t.Errorf("after a deadline: %v, %v, %v, %d calls", err, v, err2, calls)
	}
	// Other errors are kept.
	_, e1 := in.Shared("bad", func() (any, error) { return nil, errors.New("corrupt") })
	_, e2 := in.Shared("bad", func() (any, error) { t.Error("computed again after a kept error"); return nil, nil })
	if e1 == nil || e2 == nil {
		t.Error("error not kept")
	}
}

func TestSettingsProvidersAndSetUp(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	var made atomic.Int32
	var gotEnv Env
	r.MustRegister(Info{Name: "weather", Family: FamilyTechnical, Implemented: true, Provider: "weather",
		Settings: []Setting{
			{Name: "key", Env: "TEST_WEATHER_KEY", Kind: KindText, Secret: true, Required: true},
			{Name: "url", Env: "TEST_WEATHER_URL", Kind: KindText, Default: "https://weather.example"},
		},
		New: func(env Env) (Extractor, error) { made.Add(1); gotEnv = env; return hashes{}, nil }})
	r.MustRegister(Info{Name: "broken", Family: FamilyTechnical, Implemented: true,
		New: func(Env) (Extractor, error) { made.Add(1); return nil, errors.New("model file missing") }})

	if ok, reason := r.Available("weather"); ok || reason != "weather provider setting TEST_WEATHER_KEY not set" {
		t.Errorf("Available without key = %v, %q", ok, reason)
	}
	outs := Run(context.Background(), r, []string{"weather"}, sampleInput(t), time.Minute)
	if len(outs) != 1 || outs[0].Err == nil || outs[0].Err.Error() != "not available: weather provider setting TEST_WEATHER_KEY not set" ||
		!errors.Is(outs[0].Err, ErrUnavailable) {
		t.Errorf("outcome without key: %+v", outs)
	}
	env := map[string]string{"TEST_WEATHER_KEY": " s3cret "}
	r.Configure(Config{Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if ok, reason := r.Available("weather"); !ok {
		t.Fatalf("Available with key = false, %q", reason)
	}
	for range 3 {
		outs = Run(context.Background(), r, []string{"weather", "broken"}, sampleInput(t), time.Minute)
	}
	if made.Load() != 2 {
		t.Errorf("New called %d times for two extractors over three runs", made.Load())
	}
	if gotEnv.Get("key") != "s3cret" || gotEnv.Get("url") != "https://weather.example" || gotEnv.Runner == nil || gotEnv.Logger == nil {
		t.Errorf("env = %+v", gotEnv)
	}
	if outs[0].Err != nil || outs[1].Err == nil || outs[1].Err.Error() != "not available: set-up failed: model file missing" {
		t.Errorf("outcomes: %v / %v", outs[0].Err, outs[1].Err)
	}
	if s := r.Settings("weather"); s["key"] != "<set>" || s["url"] != "https://weather.example" {
		t.Errorf("Settings hides secrets: %v", s)
	}
}

type closer struct {
	hashes
	closed *atomic.Int32
}

func (c closer) Close() error { c.closed.Add(1); return nil }

func TestRegistryCloseAndPlaceholders(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	var closed atomic.Int32
	r.MustRegister(Info{Name: "held", Family: FamilyTechnical, DisplayName: "Held"})
	if ok, _ := r.Available("held"); ok {
		t.Fatal("placeholder available")
	}
	if err := r.Register(Info{Name: "held", Family: FamilyTechnical, Implemented: true, New: func(Env) (Extractor, error) { return closer{closed: &closed}, nil }}); err != nil {
		t.Fatalf("implementation does not replace its placeholder: %v", err)
	}
	if err := r.Register(Info{Name: "held", Family: FamilyTechnical, Implemented: true, New: func(Env) (Extractor, error) { return hashes{}, nil }}); err == nil {
		t.Error("a second implementation replaced the first")
	}
	if err := r.Register(Info{Name: "held", Family: FamilyTechnical}); err == nil {
		t.Error("a placeholder replaced an implementation")
	}
	Run(context.Background(), r, []string{"held"}, sampleInput(t), time.Minute)
	if err := r.Close(); err != nil || closed.Load() != 1 {
		t.Errorf("Close: %v, closed %d", err, closed.Load())
	}
	for _, bad := range []Info{
		{Name: "f1", Family: FamilyTechnical, Fields: []Field{{Path: "Video.Duration", Type: TypeNumber}}},
		{Name: "f2", Family: FamilyTechnical, Fields: []Field{{Path: "a", Type: "float"}}},
		{Name: "f3", Family: FamilyTechnical, Fields: []Field{{Path: "a", Type: TypeText}, {Path: "a", Type: TypeText}}},
		{Name: "f4", Family: FamilyTechnical, After: []string{"f4"}},
	} {
		if err := r.Register(bad); err == nil {
			t.Errorf("Register(%+v) accepted", bad)
		}
	}
	r.MustRegister(Info{Name: "m", Family: FamilyTechnical, Fields: []Field{{Path: "video.duration", Type: TypeNumber, Doc: "seconds"}}})
	if got := r.Fields(); len(got) != 1 || got[0].Path != "m.video.duration" || got[0].Type != TypeNumber {
		t.Errorf("Fields = %+v", got)
	}
}

func TestRunnerCapsHeavyPrograms(t *testing.T) {
	t.Parallel()
	r := NewRunner(2)
	var wg sync.WaitGroup
	start := time.Now()
	var mu sync.Mutex
	var errs []error
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.Run(context.Background(), Cmd{Name: "sleep", Args: []string{"0.3"}, Heavy: true})
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if took := time.Since(start); took < 550*time.Millisecond {
		t.Errorf("4 heavy programs on 2 slots took %s, want two rounds", took)
	}
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	// Waiting for a slot ends with ctx. The slot is held by a program
	// that has started (it said so) and runs until its input closes: a
	// holder slept for and given 50 ms to take the slot did not always
	// have it on a busy machine.
	hold := NewRunner(1)
	in, feed := io.Pipe()
	up := &firstWrite{c: make(chan struct{})}
	held := make(chan struct{})
	go func() {
		defer close(held)
		hold.Run(context.Background(), Cmd{Name: "sh", Args: []string{"-c", "echo up; cat >/dev/null"}, Stdin: in, Stdout: up, Heavy: true})
	}()
	select {
	case <-up.c:
	case <-held:
		t.Fatal("the holder of the slot ended before it said it was up")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := hold.Run(ctx, Cmd{Name: "true", Heavy: true}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting for a slot: %v", err)
	}
	feed.Close()
	<-held
}

// firstWrite closes c on the first write to it.
type firstWrite struct {
	once sync.Once
	c    chan struct{}
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.c) })
	return len(p), nil
}

func TestRunnerBoundsMemory(t *testing.T) {
	t.Parallel()
	// A program that tries to map 1 GiB under a 256 MiB bound fails.
	_, err := NewRunner(1).Run(context.Background(), Cmd{Name: "sh", Args: []string{"-c", `x=$(head -c 600000000 /dev/zero | tr '\0' a); echo ${#x}`},
		MaxMemory: 256 << 20})
	if err == nil {
		t.Error("a program over its memory bound succeeded")
	}
	var sb strings.Builder
	out, err := NewRunner(1).Run(context.Background(), Cmd{Name: "echo", Args: []string{"streamed"}, Stdout: &sb})
	if err != nil || len(out) != 0 || sb.String() != "streamed\n" {
		t.Errorf("Stdout: %q, %q, %v", out, sb.String(), err)
	}
}

func TestRunRefusesBadMedia(t *testing.T) {
	t.Parallel()
	r := testRegistry(t, map[string]funcExtractor{
		"negative": func(ctx context.Context, in *Input) (*Result, error) {
			return &Result{Segments: []Segment{{Time: -1}}}, nil
		},
		"escape": func(ctx context.Context, in *Input) (*Result, error) {
			return &Result{Segments: []Segment{{Time: 1, Thumbnail: &Thumbnail{Path: "/etc/passwd"}}}}, nil
		},
		"cue": func(ctx context.Context, in *Input) (*Result, error) {
			return &Result{Captions: []Caption{{Cues: []Cue{{Start: 2, End: 1, Text: "x"}}}}}, nil
		},
		"good": func(ctx context.Context, in *Input) (*Result, error) {
			return &Result{Segments: []Segment{{Time: 1.5, Thumbnail: &Thumbnail{Path: "frames/1.jpg", Type: "image"}}},
				Captions: []Caption{{Source: "embedded", Language: "en", Cues: []Cue{{Start: 1, End: 2, Text: "hi"}}}}}, nil
		},
	})
	outs := Run(context.Background(), r, []string{"negative", "escape", "cue", "good"}, sampleInput(t), time.Minute)
	for _, o := range outs[:3] {
		if o.Err == nil {
			t.Errorf("%s: accepted", o.Name)
		}
	}
	if g := outs[3]; g.Err != nil || len(g.Segments) != 1 || len(g.Captions) != 1 || string(g.JSON) != "{}" {
		t.Errorf("good: %+v", g)
	}
}
