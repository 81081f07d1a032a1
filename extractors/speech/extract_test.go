package speech

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// registry holds speech_to_text as the Default registry has it.
func registry(t *testing.T) *extractors.Registry {
	return extractortest.Registry(t, nil, Name)
}

// newTestExtractor is the extractor with a small audio bound.
func newTestExtractor(maxSeconds float64) *Extractor {
	run := extractors.NewRunner(2)
	return &Extractor{Recognizer: &Pocketsphinx{Run: run, Model: ModelDir}, Run: run, MaxSeconds: maxSeconds}
}

func extract(t *testing.T, x *Extractor, ctx context.Context, path string) (*extractors.Result, error) {
	t.Helper()
	return x.Extract(ctx, extractortest.Input(t, path))
}

// clips are the files generated once for all tests of the package.
var clips extractortest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	clips.Remove()
	os.Exit(code)
}

// The LibriVox transcription of the recordings (pocketsphinx-testdata's
// librivox/transcription), and the words and times the bare tool gives on
// them (testdata/output/*.out).
const (
	illDisposedTruth = "he was not an ill disposed young man"
	amiableTruth     = "he might even have been made amiable himself"
)

func words(res *extractors.Result) []string {
	var out []string
	for _, c := range res.Captions {
		for _, c := range c.Cues {
			out = append(out, strings.Fields(c.Text)...)
		}
	}
	return out
}

// recall is the share of the true words found, in order.
func recall(got []string, truth string) float64 {
	want := strings.Fields(truth)
	found, i := 0, 0
	for _, w := range want {
		if j := slices.Index(got[i:], w); j >= 0 {
			found++
			i += j + 1
		}
	}
	return float64(found) / float64(len(want))
}

// bareWords is the bare tool's output on a file, parsed.
func bareWords(t *testing.T, name string) []Word {
	t.Helper()
	b, err := os.ReadFile("testdata/output/" + name + ".out")
	if err != nil {
		t.Fatal(err)
	}
	return ParsePocketsphinx(b)
}

func TestRecordingsGiveTheirWordsAndTimes(t *testing.T) {
	t.Parallel()
	x := newTestExtractor(3600)
	for _, tc := range []struct {
		file, out, truth string
		minRecall        float64
	}{
		{"ill-disposed.wav", "ill-disposed", illDisposedTruth, 0.6},
		{"amiable.wav", "amiable", amiableTruth, 0.5},
		{"front-center.wav", "front-center", "front center", 0.5},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			res, err := extract(t, x, context.Background(), filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got := words(res)
			if r := recall(got, tc.truth); r < tc.minRecall {
				t.Errorf("heard %q: %.0f%% of %q", got, 100*r, tc.truth)
			}
			// The pipeline hears what the bare tool hears, at the same times.
			bare := bareWords(t, tc.out)
			var texts []string
			for _, w := range bare {
				texts = append(texts, w.Text)
			}
			if !slices.Equal(got, texts) {
				t.Fatalf("words %q, the bare tool %q", got, texts)
			}
			cues := res.Captions[0].Cues
			if d := cues[0].Start - bare[0].Start; d < -0.05 || d > 0.05 {
				t.Errorf("first word at %v, the bare tool %v", cues[0].Start, bare[0].Start)
			}
			if d := cues[len(cues)-1].End - bare[len(bare)-1].End; d < -0.05 || d > 0.05 {
				t.Errorf("last word ends at %v, the bare tool %v", cues[len(cues)-1].End, bare[len(bare)-1].End)
			}
			c := res.Captions[0]
			if c.Source != "speech" || c.Language != "en" || c.Format != "speech" {
				t.Errorf("caption %+v", c)
			}
			d := res.Data
			if d["words"] != len(bare) || d["complete"] != true || d["engine"] != "pocketsphinx" || d["language"] != "en" ||
				d["text"] != strings.Join(texts, " ") || d["stream"] != 0 {
				t.Errorf("data %v", d)
			}
			if s := d["seconds"].(float64); s < 1 || s > 8 {
				t.Errorf("seconds %v", s)
			}
		})
	}
}

// Speech starting one second into a video is heard one second later: the
// decode is padded to the file's timeline.
func TestTimesFollowTheFileTimeline(t *testing.T) {
	t.Parallel()
	path := clips.File(t, "delayed.mkv", func(t testing.TB, p string) {
		extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=d=5:s=64x48:r=10", "-itsoffset", "1", "-i", "testdata/ill-disposed.wav",
			"-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "flac", p)
	})
	res, err := extract(t, newTestExtractor(3600), context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	bare := bareWords(t, "ill-disposed")
	if len(res.Captions) != 1 {
		t.Fatalf("captions %+v", res.Captions)
	}
	cue := res.Captions[0].Cues[0]
	if d := cue.Start - (bare[0].Start + 1); d < -0.1 || d > 0.1 {
		t.Errorf("first word at %v, want about %v", cue.Start, bare[0].Start+1)
	}
	if r := recall(words(res), illDisposedTruth); r < 0.6 {
		t.Errorf("heard %q", words(res))
	}
	if res.Data["stream"] != 1 {
		t.Errorf("stream %v", res.Data["stream"])
	}
}

func TestSilenceAndNoiseGiveNoCaption(t *testing.T) {
	t.Parallel()
	silence := clips.File(t, "silence.wav", func(t testing.TB, p string) {
		extractortest.FFmpeg(t, "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "5", p)
	})
	noise := clips.File(t, "noise.wav", func(t testing.TB, p string) {
		extractortest.FFmpeg(t, "-f", "lavfi", "-i", "anoisesrc=r=44100:a=0.5:d=5:seed=7", "-ac", "2", p)
	})
	x := newTestExtractor(3600)
	res, err := extract(t, x, context.Background(), silence)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Captions) != 0 || res.Data["words"] != 0 || res.Data["text"] != "" || res.Data["complete"] != true ||
		res.Data["seconds"] != 5.0 {
		t.Errorf("silence: %v %+v", res.Data, res.Captions)
	}
	res, err = extract(t, x, context.Background(), noise)
	if err != nil {
		t.Fatal(err)
	}
	// White noise may make the engine hear a word or two; never much.
	if n := res.Data["words"].(int); n > 5 || res.Data["seconds"] != 5.0 {
		t.Errorf("noise: %v", res.Data)
	}
}

// A three-hour stream is recognised up to the bound, and its words from
// the start are kept.
func TestLongStreamIsBounded(t *testing.T) {
	t.Parallel()
	long := clips.File(t, "three-hours.flac", func(t testing.TB, p string) {
		extractortest.FFmpeg(t, "-i", "testdata/ill-disposed.wav", "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono:d=10800",
			"-filter_complex", "[0][1]concat=n=2:v=0:a=1", "-c:a", "flac", p)
	})
	res, err := extract(t, newTestExtractor(12), context.Background(), long)
	if err != nil {
		t.Fatal(err)
	}
	if res.Data["seconds"] != 12.0 || res.Data["complete"] != false || res.Data["stopped_by"] != "max_seconds" {
		t.Errorf("data %v", res.Data)
	}
	if r := recall(words(res), illDisposedTruth); r < 0.6 {
		t.Errorf("heard %q", words(res))
	}
}

// A WAV whose header declares three hours but holds three seconds is read
// for what it holds.
func TestDeclaredDurationIsNotTrusted(t *testing.T) {
	t.Parallel()
	path := clips.File(t, "declared.wav", func(t testing.TB, p string) {
		b, err := os.ReadFile("testdata/ill-disposed.wav")
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(b, []byte("data"))
		if i < 0 {
			t.Fatal("no data chunk")
		}
		declared := uint32(3 * 3600 * bytesPerSecond)
		binary.LittleEndian.PutUint32(b[4:], declared+uint32(i))
		binary.LittleEndian.PutUint32(b[i+4:], declared)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	res, err := extract(t, newTestExtractor(3600), context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Data["seconds"].(float64); s < 2.9 || s > 3.1 || res.Data["complete"] != true {
		t.Errorf("data %v", res.Data)
	}
}

func TestNoAudioIsUnsupported(t *testing.T) {
	t.Parallel()
	path := clips.File(t, "silent-video.mp4", func(t testing.TB, p string) {
		extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=d=1:s=64x48:r=10", "-c:v", "libx264", "-pix_fmt", "yuv420p", p)
	})
	_, err := extract(t, newTestExtractor(3600), context.Background(), path)
	if !errors.Is(err, extractors.ErrUnsupported) {
		t.Fatalf("err %v", err)
	}
}

// When the time limit draws near, recognition stops and keeps what it
// heard; it never runs past the limit.
func TestTimeLimitKeepsWhatWasHeard(t *testing.T) {
	t.Parallel()
	// Ten minutes of speech: five minutes of a core to recognise.
	long := clips.File(t, "ten-minutes.flac", func(t testing.TB, p string) {
		extractortest.FFmpeg(t, "-stream_loop", "200", "-i", "testdata/ill-disposed.wav", "-t", "600", "-c:a", "flac", p)
	})
	// The stop comes 20 s in and the limit 100 s after it. Under a limit
	// of 30 s, stopBefore's rule (TestStopBefore) leaves 10 s between the
	// stop and the limit, and with three copies of this test at a load of
	// 12 on 2 cores the recogniser took 4 to 5 s to finish the audio it
	// had been fed and exit (logged below): only twice that margin.
	x := newTestExtractor(600)
	var stopAt time.Time
	x.Recognizer.(*Pocketsphinx).stopAt = func(_, now time.Time) time.Time {
		stopAt = now.Add(20 * time.Second)
		return stopAt
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := extract(t, x, ctx, long)
	t.Logf("returned %s after the stop", time.Since(stopAt).Round(time.Millisecond))
	switch {
	case err != nil:
		// Only a machine too busy to decode the audio in 20 s.
		if !extractors.IsTransient(err) {
			t.Fatalf("err %v", err)
		}
	case res.Data["stopped_by"] != "time_limit" || res.Data["complete"] != false || res.Data["seconds"].(float64) >= 600:
		t.Fatalf("data %v", res.Data)
	}
	if ctx.Err() != nil {
		t.Error("returned after the time limit")
	}
}

// A run stops feeding audio a tenth of its time before its limit, at
// least 10 s and at most 2 min before.
func TestStopBefore(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for left, want := range map[time.Duration]time.Duration{
		30 * time.Second: 20 * time.Second, 5 * time.Minute: 270 * time.Second,
		time.Hour: 58 * time.Minute, 5 * time.Second: -5 * time.Second,
	} {
		if got := stopBefore(now.Add(left), now).Sub(now); got != want {
			t.Errorf("%s before the limit: stops after %s, want %s", left, got, want)
		}
	}
}

func TestFailuresAreWorded(t *testing.T) {
	t.Parallel()
	// A model directory without a model: pocketsphinx fails at start.
	dir := t.TempDir()
	run := extractors.NewRunner(1)
	p := &Pocketsphinx{Run: run, Model: dir}
	if err := p.checkModel(); err == nil {
		t.Error("empty model directory accepted")
	}
	_, err := p.Recognize(context.Background(), Audio{Path: "testdata/front-center.wav", Stream: 0, MaxSeconds: 10})
	if err == nil || !strings.HasPrefix(err.Error(), "pocketsphinx failed: exit status") || strings.Contains(err.Error(), "INFO") {
		t.Errorf("err %v", err)
	}
	// A cancelled harvest is transient.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := extract(t, newTestExtractor(10), ctx, "testdata/front-center.wav"); !extractors.IsTransient(err) {
		t.Errorf("cancelled: %v", err)
	}
	// SPEECH_MAX_SECONDS is checked.
	for _, v := range []string{"0", "x", "NaN", "100000"} {
		if _, err := newExtractor(extractors.Env{Settings: map[string]string{"max_seconds": v}, Declared: []extractors.Setting{maxSecondsSetting}, Runner: run}); err == nil {
			t.Errorf("max seconds %q accepted", v)
		}
	}
}

func TestSuite(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	outs := extractortest.Suite(t, reg, []string{"testdata/ill-disposed.wav", "testdata/front-center.wav"})
	if o := outs[Name]["ill-disposed.wav"]; o.Err != nil || len(o.Captions) != 1 {
		t.Errorf("ill-disposed.wav: %v %+v", o.Err, o.Captions)
	}
}
