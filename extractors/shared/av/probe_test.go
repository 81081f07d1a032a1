package av_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// clip makes a 2 s 160x120 H.264 video with a 1 kHz AAC tone.
func clip(t *testing.T) string {
	t.Helper()
	return extractortest.Clip(t, "clip.mp4", "-f", "lavfi", "-i", "testsrc=d=2:s=160x120:r=25",
		"-f", "lavfi", "-i", "sine=f=1000:d=2:r=48000", "-shortest", "-c:v", "libx264", "-pix_fmt", "yuv420p",
		"-c:a", "aac", "-ac", "2")
}

func TestReadGeneratedClip(t *testing.T) {
	t.Parallel()
	p, err := av.Read(context.Background(), extractors.NewRunner(1), &extractors.Input{Path: clip(t)})
	if err != nil {
		t.Fatal(err)
	}
	v, a := p.Video(), p.Audio()
	if v == nil || a == nil || v.CodecName != "h264" || v.Width != 160 || v.Height != 120 || v.FrameRate() != 25 ||
		a.CodecName != "aac" || av.Int(a.SampleRate) != 48000 || a.Channels != 2 {
		t.Fatalf("streams: %+v / %+v", v, a)
	}
	if d := p.Duration(); d < 1.95 || d > 2.1 {
		t.Errorf("duration %v", d)
	}
	if p.IsStill() || !strings.Contains(p.Format.FormatName, "mp4") {
		t.Errorf("format %q still %v", p.Format.FormatName, p.IsStill())
	}
}

func TestReadIsSharedPerFile(t *testing.T) {
	t.Parallel()
	reg := extractors.NewRegistry()
	var reads atomic.Int32
	probe := func(name string, after ...string) {
		reg.MustRegister(extractors.Info{Name: name, Family: extractors.FamilyTechnical, Implemented: true, After: after, New: func(env extractors.Env) (extractors.Extractor, error) {
			return extractFunc(func(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
				if _, err := av.Read(ctx, env.Runner, in); err != nil {
					return nil, err
				}
				reads.Add(1)
				return &extractors.Result{}, nil
			}), nil
		}})
	}
	probe("one")
	probe("two")
	// The first extractor's reading serves the second even once the file
	// is gone.
	path := clip(t)
	reg.MustRegister(extractors.Info{Name: "remover", Family: extractors.FamilyTechnical, Implemented: true, After: []string{"one"}, New: func(extractors.Env) (extractors.Extractor, error) {
		return extractFunc(func(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
			return &extractors.Result{}, os.Remove(path)
		}), nil
	}})
	probe("three", "remover")
	outs := extractors.Run(context.Background(), reg, []string{"three", "two", "remover", "one"}, &extractors.Input{Path: path, ArtifactDir: t.TempDir()}, time.Minute)
	for _, o := range outs {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
	}
	if reads.Load() != 3 {
		t.Fatalf("reads %d", reads.Load())
	}
}

type extractFunc func(ctx context.Context, in *extractors.Input) (*extractors.Result, error)

func (f extractFunc) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	return f(ctx, in)
}

// A playlist disguised as .mp4 that points at a local HTTP server and at a
// local file fetches nothing and is refused.
func TestDisguisedPlaylistFetchesNothing(t *testing.T) {
	t.Parallel()
	url := extractortest.NoRequestURL(t)
	dir := t.TempDir()
	for name, body := range map[string]string{
		"hls.mp4":    "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n" + url + "/seg.ts\n#EXT-X-ENDLIST\n",
		"concat.mp4": "ffconcat version 1.0\nfile /etc/passwd\n",
		"sdp.mp4":    "v=0\no=- 0 0 IN IP4 127.0.0.1\ns=x\nc=IN IP4 127.0.0.1\nt=0 0\nm=video 5004 RTP/AVP 96\na=rtpmap:96 H264/90000\n",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		_, err := av.Read(context.Background(), extractors.NewRunner(1), &extractors.Input{Path: p})
		if err == nil {
			t.Errorf("%s: read", name)
		}
	}
}

func TestParseRefusesOddOutput(t *testing.T) {
	t.Parallel()
	if _, err := av.Parse([]byte(`{"format":{},"streams":[]}`)); !errors.Is(err, extractors.ErrUnsupported) {
		t.Errorf("no streams: %v", err)
	}
	if _, err := av.Parse([]byte(`{"streams":`)); err == nil {
		t.Error("truncated JSON parsed")
	}
	for in, want := range map[string]float64{"30000/1001": 29.97002997002997, "25/1": 25, "0/0": 0, "": 0, "x/y": 0, "12.5": 12.5} {
		if got := av.Ratio(in); got != want {
			t.Errorf("Ratio(%q) = %v, want %v", in, got, want)
		}
	}
	if av.Seconds("NaN") != 0 || av.Seconds("-1") != 0 || av.Seconds("1e20") != 0 {
		t.Error("Seconds accepts odd values")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"format":{"duration":"2.0"},"streams":[{"codec_type":"video","avg_frame_rate":"25/1","disposition":{"attached_pic":0}}]}`))
	f.Add([]byte(`{"streams":[{"codec_type":"audio","sample_rate":"x"}],"chapters":[{"tags":{"title":"a"}}]}`))
	f.Add([]byte(`{"streams":[{"codec_type":"video","pix_fmt":"yuv420p10le","field_order":"tb","side_data_list":[{"rotation":-450.5}],` +
		`"tags":{"timecode":"01:00:00:00","rotate":"1e400"}}],"format":{"tags":{"creation_time":"99999-01-01"}},"programs":[{"tags":null}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := av.Parse(b)
		if err != nil {
			return
		}
		_ = p.Duration()
		if v := p.Video(); v != nil {
			_ = v.FrameRate()
		}
		_, _ = p.Audio(), p.Subtitles()
		_ = p.IsStill()
		_, _, _ = p.Timecode(), p.CreationTime(), p.Languages()
		for i := range p.Streams {
			s := &p.Streams[i]
			_, _, _, _ = s.Rotation(), s.ChromaSubsampling(), s.BitDepth(), s.AudioBitDepth()
			_, _ = s.ScanType()
			_, _, _ = s.HDR(), s.Language(), s.Title()
		}
	})
}

// The readings of the extractors that need a stream: the stream, or
// ErrUnsupported for a file without it.
func TestReadTheStreamNeeded(t *testing.T) {
	t.Parallel()
	run := extractors.NewRunner(1)
	read := map[string]func(context.Context, *extractors.Runner, *extractors.Input) (*av.Probe, *av.Stream, error){
		"video": av.ReadVideo, "moving": av.ReadMoving, "audio": av.ReadAudio,
	}
	for _, c := range []struct {
		path string
		has  map[string]bool
	}{
		{clip(t), map[string]bool{"video": true, "moving": true, "audio": true}},
		{"../../testdata/pluck-pcm16.wav", map[string]bool{"audio": true}},
		{"../../testdata/video-001.png", map[string]bool{"video": true}},
	} {
		for what, f := range read {
			_, s, err := f(context.Background(), run, &extractors.Input{Path: c.path})
			switch {
			case c.has[what] && (err != nil || s == nil):
				t.Errorf("%s of %s: %v", what, c.path, err)
			case !c.has[what] && !errors.Is(err, extractors.ErrUnsupported):
				t.Errorf("%s of %s: %v, want ErrUnsupported", what, c.path, err)
			}
		}
	}
}
