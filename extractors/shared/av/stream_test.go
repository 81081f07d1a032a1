package av_test

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

func TestStreamHelpers(t *testing.T) {
	t.Parallel()
	for pix, want := range map[string][2]any{
		"yuv420p": {"4:2:0", 8}, "yuvj420p": {"4:2:0", 8}, "nv12": {"4:2:0", 8}, "p010le": {"4:2:0", 10},
		"yuv420p10le": {"4:2:0", 10}, "yuv422p10le": {"4:2:2", 10}, "uyvy422": {"4:2:2", 8}, "y210le": {"4:2:2", 10},
		"yuv444p12le": {"4:4:4", 12}, "yuv411p": {"4:1:1", 8}, "yuv410p": {"4:1:0", 8}, "yuv440p": {"4:4:0", 8},
		"gbrp10le": {"", 10}, "rgb24": {"", 8}, "rgb48be": {"", 16}, "gray16le": {"", 16}, "gray": {"", 8},
		"": {"", 0}, "weird": {"", 0},
	} {
		s := av.Stream{PixFmt: pix}
		if got := [2]any{s.ChromaSubsampling(), s.BitDepth()}; got != want {
			t.Errorf("%q: %v, want %v", pix, got, want)
		}
	}
	if s := (av.Stream{PixFmt: "yuv420p", BitsPerRawSample: "10"}); s.BitDepth() != 10 {
		t.Error("bits_per_raw_sample not preferred")
	}
	for in, want := range map[string][2]string{"progressive": {"progressive", ""}, "tt": {"interlaced", "tff"},
		"bb": {"interlaced", "bff"}, "tb": {"interlaced", "bff"}, "bt": {"interlaced", "tff"}, "unknown": {"", ""}} {
		s := av.Stream{FieldOrder: in}
		if a, b := s.ScanType(); [2]string{a, b} != want {
			t.Errorf("ScanType(%q) = %q %q", in, a, b)
		}
	}
	rot := func(v any) av.Stream {
		return av.Stream{SideDataList: []map[string]any{{"side_data_type": "Display Matrix", "rotation": v}}}
	}
	for _, c := range []struct {
		s    av.Stream
		want int
	}{{rot(-90.0), 90}, {rot(90.0), 270}, {rot(180.0), 180}, {rot(-180.0), 180}, {rot("x"), 0},
		{av.Stream{Tags: map[string]string{"rotate": "90"}}, 90}, {av.Stream{}, 0}} {
		if got := c.s.Rotation(); got != c.want {
			t.Errorf("Rotation(%v) = %d, want %d", c.s.SideDataList, got, c.want)
		}
	}
	hdr := func(trc string, sd ...string) string {
		s := av.Stream{ColorTransfer: trc}
		for _, t := range sd {
			s.SideDataList = append(s.SideDataList, map[string]any{"side_data_type": t})
		}
		return s.HDR()
	}
	if hdr("smpte2084") != "PQ" || hdr("smpte2084", "Mastering display metadata") != "HDR10" || hdr("arib-std-b67") != "HLG" ||
		hdr("bt709", "DOVI configuration record") != "Dolby Vision" || hdr("bt709") != "" {
		t.Error("HDR")
	}
	a := av.Stream{CodecName: "pcm_s24le", BitsPerSample: 24}
	if a.AudioBitDepth() != 24 || (&av.Stream{CodecName: "aac", BitsPerSample: 16}).AudioBitDepth() != 0 {
		t.Error("AudioBitDepth")
	}
}

func TestProbeHelpers(t *testing.T) {
	t.Parallel()
	p, err := av.Parse([]byte(`{"format":{"tags":{"CREATION_TIME":"2019-02-03 04:05:06","timecode":"01:00:00:00"}},
		"streams":[{"codec_type":"video","tags":{"language":"und"}},{"codec_type":"audio","tags":{"language":"fra"}},
		{"codec_type":"data","codec_tag_string":"tmcd","tags":{"timecode":"10:00:00;00"}},{"codec_type":"subtitle","tags":{"LANGUAGE":"eng"}},
		{"codec_type":"audio","tags":{"language":"fra"}}],
		"programs":[{"program_num":1,"pmt_pid":4096,"pcr_pid":256,"tags":{"service_name":"S"},"streams":[{"index":0}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Timecode() != "10:00:00;00" {
		t.Errorf("timecode %q", p.Timecode())
	}
	if got := p.CreationTime(); !got.Equal(time.Date(2019, 2, 3, 4, 5, 6, 0, time.UTC)) {
		t.Errorf("creation %v", got)
	}
	if got := p.Languages(); !reflect.DeepEqual(got, []string{"fra", "eng"}) {
		t.Errorf("languages %v", got)
	}
	if len(p.Programs) != 1 || p.Programs[0].PMTPID != 4096 || p.Programs[0].Streams[0].Index != 0 || av.Tag(p.Programs[0].Tags, "SERVICE_NAME") != "S" {
		t.Errorf("programs %+v", p.Programs)
	}
	zero, _ := av.Parse([]byte(`{"format":{"tags":{"creation_time":"1970-01-01T00:00:00.000000Z"}},"streams":[{"codec_type":"audio"}]}`))
	if !zero.CreationTime().IsZero() {
		t.Error("the epoch is no creation time")
	}
}

// A short transport stream followed by gigabytes of nothing (a sparse
// file) makes ffprobe read to the end; Read gives up after its limit with
// an error of the file, which the other extractors of the file share
// instead of paying the limit again. Not parallel: it lowers the limit of
// every Read.
func TestReadGivesUpOnGarbageTail(t *testing.T) {
	ts := extractortest.Clip(t, "tail.ts", "-f", "lavfi", "-i", "testsrc=d=1:s=64x48:r=25", "-c:v", "mpeg2video", "-f", "mpegts")
	if err := os.Truncate(ts, 64<<30); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	defer av.SetProbeTimeLimit(time.Second)()
	reg := extractors.NewRegistry()
	var errs []error
	for _, name := range []string{"one", "two"} {
		reg.MustRegister(extractors.Info{Name: name, Family: extractors.FamilyTechnical, Implemented: true, New: func(env extractors.Env) (extractors.Extractor, error) {
			return extractFunc(func(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
				_, err := av.Read(ctx, env.Runner, in)
				errs = append(errs, err)
				return nil, err
			}), nil
		}})
	}
	outs := extractors.Run(context.Background(), reg, []string{"one", "two"}, &extractors.Input{Path: ts, ArtifactDir: t.TempDir()}, time.Minute)
	for _, o := range outs {
		if o.Err == nil || extractors.IsTransient(o.Err) || !strings.Contains(o.Err.Error(), "ffprobe gave up after 1s") {
			t.Errorf("%s: %v", o.Name, o.Err)
		}
	}
	// One reading, shared (the same error value): the limit was paid once.
	if len(errs) != 2 || errs[0] != errs[1] {
		t.Errorf("the second extractor did not share the first's reading: %v", errs)
	}
}
