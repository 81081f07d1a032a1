package captions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// registry holds the extractors of this package, as the Default registry
// has them.
func registry(t *testing.T) *extractors.Registry {
	return extractortest.Registry(t, nil, "caption_files", "captions", "captionsv2")
}

const (
	englishSRT = "1\n00:00:00,500 --> 00:00:01,250\nHello world\n\n2\n00:00:01,500 --> 00:00:02,750\nSecond <i>line</i>\ntwo\n"
	frenchSRT  = "1\n00:00:00,400 --> 00:00:01,300\nBonjour le monde\n\n2\n00:00:01,600 --> 00:00:02,900\nDeuxième ligne\n"
	helloSCC   = "Scenarist_SCC V1.0\n\n00:00:01:00\t9420 9420 94ae 94ae 94d0 94d0 c845 4c4c 4f80 942f 942f\n\n00:00:03:00\t942c 942c\n\n"
)

var (
	englishCues = []extractors.Cue{cue(0.5, 1.25, "Hello world"), cue(1.5, 2.75, "Second line\ntwo")}
	frenchCues  = []extractors.Cue{cue(0.4, 1.3, "Bonjour le monde"), cue(1.6, 2.9, "Deuxième ligne")}
)

// clips are the clips generated once for all tests of the package.
var clips extractortest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	clips.Remove()
	os.Exit(code)
}

func write(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// media generates a 3 s clip with two subtitle tracks made from the SRTs
// above: MP4 with mov_text (eng, fra) and MKV with SubRip (eng) and ASS
// (fre).
func media(t *testing.T) (mp4, mkv string) {
	t.Helper()
	mp4 = clips.File(t, "clip.mp4", makeMedia)
	return mp4, strings.TrimSuffix(mp4, ".mp4") + ".mkv"
}

func makeMedia(t testing.TB, mp4 string) {
	dir := filepath.Dir(mp4)
	en, fr := write(t, dir, "en.srt", englishSRT), write(t, dir, "fr.srt", frenchSRT)
	video := []string{"-f", "lavfi", "-i", "testsrc=d=3:s=64x48:r=10", "-i", en, "-i", fr, "-map", "0", "-map", "1", "-map", "2",
		"-c:v", "libx264", "-pix_fmt", "yuv420p"}
	extractortest.FFmpeg(t, append(video, "-c:s", "mov_text", "-metadata:s:s:0", "language=eng", "-metadata:s:s:1", "language=fra", mp4)...)
	extractortest.FFmpeg(t, append(video, "-c:s:0", "srt", "-c:s:1", "ass", "-metadata:s:s:0", "language=eng", "-metadata:s:s:1", "language=fre",
		"-disposition:s:1", "forced", filepath.Join(dir, "clip.mkv"))...)
}

// ccMOV muxes the SCC above as a CEA-608 caption track (c608) of a
// QuickTime file.
func ccMOV(t *testing.T) string {
	t.Helper()
	return clips.File(t, "cc.mov", makeCCMOV)
}

func makeCCMOV(t testing.TB, p string) {
	scc := write(t, filepath.Dir(p), "hello.scc", helloSCC)
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=d=4:s=64x48:r=30", "-i", scc, "-map", "0", "-map", "1", "-c:v", "libx264",
		"-pix_fmt", "yuv420p", "-c:s", "copy", "-metadata:s:s:0", "language=eng", p)
}

// run runs one extractor on the file at path; in, when not nil, says what
// the harvest knows besides the file (its name, its siblings).
func run(t *testing.T, reg *extractors.Registry, name, path string, in *extractors.Input) extractors.Outcome {
	t.Helper()
	if in == nil {
		in = &extractors.Input{}
	}
	work := extractortest.Input(t, path)
	if in.Name != "" {
		work.Name = in.Name
	}
	work.Siblings = in.Siblings
	return extractortest.Run(t, reg, name, work)
}

func TestSuite(t *testing.T) {
	t.Parallel()
	mp4, mkv := media(t)
	// The clips with closed captions have tests of their own.
	samples := []string{"testdata/srt.srt", "testdata/vtt.vtt", "testdata/vtt.eof.vtt", "testdata/not.srt.txt", mp4, mkv}
	got := extractortest.Suite(t, registry(t), samples)
	if o := got["caption_files"]["srt.srt"]; o.Err != nil || len(o.Captions) != 1 || len(o.Captions[0].Cues) != 5 {
		t.Errorf("caption_files on srt.srt: %+v", o)
	}
	if o := got["captions"]["clip.mkv"]; o.Err != nil || len(o.Captions) != 2 {
		t.Errorf("captions on clip.mkv: %+v", o)
	}
}

func TestEmbeddedTracks(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	mp4, mkv := media(t)
	for _, c := range []struct {
		path              string
		formats           []string
		langEN, langFR    string
		formatEN, formatF string
	}{
		{mp4, []string{"mov_text"}, "eng", "fra", "mov_text", "mov_text"},
		{mkv, []string{"srt", "ass"}, "eng", "fre", "srt", "ass"},
	} {
		for _, name := range []string{"captions", "captionsv2"} {
			o := run(t, reg, name, c.path, nil)
			if o.Err != nil {
				t.Fatalf("%s on %s: %v", name, c.path, o.Err)
			}
			if len(o.Captions) != 2 {
				t.Fatalf("%s on %s: %d captions", name, c.path, len(o.Captions))
			}
			en, fr := o.Captions[0], o.Captions[1]
			if en.Source != "embedded" || en.Language != c.langEN || en.Label != "1" || en.Format != c.formatEN || en.Confidence != 1 ||
				fr.Language != c.langFR || fr.Label != "2" || fr.Format != c.formatF {
				t.Errorf("%s on %s: captions %+v / %+v", name, filepath.Base(c.path), en, fr)
			}
			sameCues(t, name+" english", en.Cues, englishCues)
			sameCues(t, name+" french", fr.Cues, frenchCues)
			if o.Data["tracks"] != 2 || o.Data["cues"] != 4 || len(o.Data["languages"].([]any)) != 2 ||
				len(o.Data["formats"].([]any)) != len(c.formats) {
				t.Errorf("%s on %s: data %v", name, filepath.Base(c.path), o.Data)
			}
		}
	}
	o := run(t, reg, "captionsv2", mkv, nil)
	streams := o.Data["streams"].([]any)
	fre := streams[1].(map[string]any)
	if len(streams) != 2 || fre["codec"] != "ass" || fre["kind"] != "text" || fre["forced"] != true || fre["cues"] != 2 ||
		o.Data["closed_captions"] != false || o.Data["bitmap_tracks"] != 0 {
		t.Errorf("captionsv2 streams %v", o.Data)
	}
}

// A CEA-608 caption track (c608): captionsv2 reads it, captions (text
// tracks only) has nothing to do. Expected cue from the bare tool:
// ffmpeg -i cc.mov -map 0:s:0 -f srt - gives 00:00:01,000 --> 00:00:02,000 HELLO.
func TestClosedCaptionTrack(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	mov := ccMOV(t)
	if o := run(t, reg, "captions", mov, nil); !errors.Is(o.Err, extractors.ErrUnsupported) {
		t.Errorf("captions on a caption track only: %+v", o)
	}
	o := run(t, reg, "captionsv2", mov, nil)
	if o.Err != nil || len(o.Captions) != 1 {
		t.Fatalf("captionsv2: %+v", o)
	}
	c := o.Captions[0]
	if c.Format != "eia_608" || c.Language != "eng" || c.Label != "1" || o.Data["closed_captions"] != true {
		t.Errorf("caption %+v data %v", c, o.Data)
	}
	sameCues(t, "c608", c.Cues, []extractors.Cue{cue(1, 2, "HELLO")})
}

// Closed captions inside the video stream (ATSC A/53 in H.264 SEI): the
// test writes them into a raw H.264 stream itself. Expected cue from the
// bare tool: ffmpeg -f lavfi -i "movie=a53.mp4[out0+subcc]" -map 0:1 -f srt -
// gives 00:00:01,300 --> 00:00:03,000 HELLO.
func TestClosedCaptionsInVideo(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	p := a53Clip(t)
	if o := run(t, reg, "captions", p, nil); !errors.Is(o.Err, extractors.ErrUnsupported) {
		t.Errorf("captions: %+v", o)
	}
	o := run(t, reg, "captionsv2", p, nil)
	if o.Err != nil || len(o.Captions) != 1 {
		t.Fatalf("captionsv2: %+v", o)
	}
	c := o.Captions[0]
	if c.Format != "eia_608" || c.Label != "cc:0" || c.Source != "embedded" || o.Data["closed_captions"] != true {
		t.Errorf("caption %+v data %v", c, o.Data)
	}
	sameCues(t, "a53", c.Cues, []extractors.Cue{cue(1.3, 3, "HELLO")})
	// A clip without captions in its video has none.
	mp4, _ := media(t)
	if o := run(t, reg, "captionsv2", mp4, nil); o.Err != nil || o.Data["closed_captions"] != false {
		t.Errorf("clip without closed captions: %v %v", o.Err, o.Data)
	}
}

// a53Clip encodes 4 s of video without B-frames (so that decode order is
// display order) and puts an SEI message with one CEA-608 byte pair
// before each frame: padding, then at frame 30 a pop-on caption "HELLO"
// (resume caption loading, erase, row 15, the letters, end of caption),
// cleared at frame 90.
func a53Clip(t *testing.T) string {
	t.Helper()
	return clips.File(t, "a53.mp4", makeA53Clip)
}

func makeA53Clip(t testing.TB, p string) {
	dir := filepath.Dir(p)
	raw := filepath.Join(dir, "raw.h264")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=d=4:s=64x48:r=30", "-c:v", "libx264", "-bf", "0", "-pix_fmt", "yuv420p", "-f", "h264", raw)
	in, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	pairs := make([][2]byte, 200)
	for i := range pairs {
		pairs[i] = [2]byte{0x80, 0x80}
	}
	for i, w := range []uint16{0x9420, 0x9420, 0x94ae, 0x94ae, 0x94d0, 0x94d0, 0xc845, 0x4c4c, 0x4f80, 0x942f, 0x942f} {
		pairs[30+i] = [2]byte{byte(w >> 8), byte(w)}
	}
	pairs[90], pairs[91] = [2]byte{0x94, 0x2c}, [2]byte{0x94, 0x2c}
	sei := func(p [2]byte) []byte {
		// itu_t_t35 country (USA), provider (ATSC), "GA94", cc_data with
		// process_cc_data_flag and one field-1 pair.
		payload := []byte{0xB5, 0x00, 0x31, 'G', 'A', '9', '4', 0x03, 0x40 | 1, 0xFF, 0xFC, p[0], p[1], 0xFF}
		return append(append([]byte{0, 0, 0, 1, 0x06, 0x04, byte(len(payload))}, payload...), 0x80)
	}
	var starts []int
	for i := 0; i+3 <= len(in); i++ {
		if in[i] == 0 && in[i+1] == 0 && in[i+2] == 1 {
			starts = append(starts, i)
		}
	}
	starts = append(starts, len(in))
	var out bytes.Buffer
	out.Write(in[:starts[0]])
	frame := 0
	for k := 0; k+1 < len(starts); k++ {
		nal := in[starts[k]:starts[k+1]]
		if typ := nal[3] & 0x1f; (typ == 1 || typ == 5) && frame < len(pairs) {
			out.Write(sei(pairs[frame]))
			frame++
		}
		out.Write(nal)
	}
	cc := filepath.Join(dir, "cc.h264")
	if err := os.WriteFile(cc, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	extractortest.FFmpeg(t, "-framerate", "30", "-i", cc, "-c", "copy", p)
}

func TestCaptionFileItems(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	o := run(t, reg, "caption_files", "testdata/srt.srt", &extractors.Input{Name: "movie.en.srt"})
	if o.Err != nil || len(o.Captions) != 1 {
		t.Fatalf("srt.srt: %+v", o)
	}
	c := o.Captions[0]
	if c.Source != "file" || c.Language != "en" || c.Format != "srt" || c.Label != "" || len(c.Cues) != 5 {
		t.Errorf("caption %+v", c)
	}
	if o.Data["format"] != "srt" || o.Data["cues"] != 5 || o.Data["duration"] != 202.671 || o.Data["encoding"] != "utf-8" {
		t.Errorf("data %v", o.Data)
	}
	o = run(t, reg, "caption_files", "testdata/vtt.vtt", nil)
	if o.Err != nil || o.Captions[0].Language != "en" || len(o.Captions[0].Cues) != 14 {
		t.Errorf("vtt.vtt: %+v", o)
	}
	// An empty WebVTT is read, and has no caption.
	if o := run(t, reg, "caption_files", "testdata/vtt.eof.vtt", nil); o.Err != nil || len(o.Captions) != 0 || o.Data["cues"] != 0 {
		t.Errorf("vtt.eof.vtt: %+v", o)
	}
	// Text that only looks like SubRip fails as a recorded error.
	o = run(t, reg, "caption_files", "testdata/not.srt.txt", &extractors.Input{Name: "not.srt"})
	if o.Err == nil || extractors.IsTransient(o.Err) || !strings.Contains(o.Err.Error(), "not a SRT file") {
		t.Errorf("not.srt.txt as .srt: %v", o.Err)
	}
}

// SCC is decoded by ffmpeg. Expected cue from the bare tool:
// ffmpeg -i hello.scc -f srt - gives 00:00:01,000 --> 00:00:03,000 HELLO.
func TestSCC(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	dir := t.TempDir()
	o := run(t, reg, "caption_files", write(t, dir, "hello.scc", helloSCC), nil)
	if o.Err != nil || len(o.Captions) != 1 || o.Data["format"] != "scc" {
		t.Fatalf("hello.scc: %+v", o)
	}
	sameCues(t, "scc", o.Captions[0].Cues, []extractors.Cue{cue(1, 3, "HELLO")})
	// Bad codes (not hex, parity errors, unknown commands, a timecode
	// out of range): a recorded error or whatever ffmpeg makes of them,
	// never a hang or a crash.
	bad := "Scenarist_SCC V1.0\n\n00:00:01:00\tzzzz 9420 ffff 0000 1234 9f9f\n\n99:99:99:99\t942f\n\nnot a line\n"
	o = run(t, reg, "caption_files", write(t, dir, "bad.scc", bad), nil)
	if o.Err != nil && extractors.IsTransient(o.Err) {
		t.Errorf("bad.scc: transient %v", o.Err)
	}
	var pe *extractors.PanicError
	if errors.As(o.Err, &pe) {
		t.Errorf("bad.scc: panic %v", pe)
	}
}

// siblingsOf serves Input.Siblings from a directory, as the worker does
// for local containers.
func siblingsOf(dir string, sizes map[string]int64) func(context.Context, []string) ([]extractors.Sibling, error) {
	return func(ctx context.Context, exts []string) ([]extractors.Sibling, error) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		var out []extractors.Sibling
		for _, e := range ents {
			if !extractors.IsSibling("clip.mp4", e.Name(), exts) {
				continue
			}
			fi, _ := e.Info()
			p, size := filepath.Join(dir, e.Name()), fi.Size()
			if s, ok := sizes[e.Name()]; ok {
				size = s
			}
			out = append(out, extractors.Sibling{Name: e.Name(), Size: size, Open: func() (io.ReadCloser, error) { return os.Open(p) }})
		}
		return out, nil
	}
}

func TestSidecars(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	dir := t.TempDir()
	mp4, _ := media(t)
	write(t, dir, "clip.en.srt", englishSRT)
	write(t, dir, "clip.fre.forced.vtt", "WEBVTT\n\n00:00.400 --> 00:01.300\nBonjour le monde\n")
	write(t, dir, "clip.srt", englishSRT)
	write(t, dir, "clip.part2.srt", englishSRT)
	write(t, dir, "clip.de.srt", "\x00\x01binary garbage")
	write(t, dir, "clip.it.srt", englishSRT)
	o := run(t, reg, "caption_files", mp4, &extractors.Input{Name: "clip.mp4",
		Siblings: siblingsOf(dir, map[string]int64{"clip.it.srt": MaxFileSize + 1})})
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	var got []string
	for _, c := range o.Captions {
		if c.Source != "sidecar" || len(c.Cues) == 0 {
			t.Errorf("caption %+v", c)
		}
		got = append(got, c.Label+":"+c.Language+":"+c.Format)
	}
	if strings.Join(got, " ") != "clip.en.srt:en:srt clip.fre.forced.vtt:fre:vtt clip.srt::srt" {
		t.Errorf("sidecar captions %v", got)
	}
	sameCues(t, "clip.en.srt", o.Captions[0].Cues, englishCues)
	list := o.Data["sidecars"].([]any)
	errs := 0
	for _, e := range list {
		if m := e.(map[string]any); m["error"] != nil {
			errs++
			if m["name"] != "clip.de.srt" && m["name"] != "clip.it.srt" {
				t.Errorf("unexpected error entry %v", m)
			}
		}
	}
	if len(list) != 5 || errs != 2 {
		t.Errorf("sidecars data %v", list)
	}
	// No siblings (remote storage) or none named like the clip: nothing
	// to report.
	if o := run(t, reg, "caption_files", mp4, &extractors.Input{Name: "clip.mp4"}); !errors.Is(o.Err, extractors.ErrUnsupported) {
		t.Errorf("without Siblings: %v", o.Err)
	}
	if o := run(t, reg, "caption_files", mp4, &extractors.Input{Name: "clip.mp4", Siblings: siblingsOf(t.TempDir(), nil)}); !errors.Is(o.Err, extractors.ErrUnsupported) {
		t.Errorf("no sidecars: %v", o.Err)
	}
}

// Hostile caption files end as recorded errors, quickly and without
// reading more than the size limit.
func TestHostileCaptionFiles(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	dir := t.TempDir()
	// 50 MB: refused on its size before any read (a sparse file).
	big := filepath.Join(dir, "big.srt")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(50 << 20)
	f.Close()
	// 10^6 cues (29 MB): over the size limit too.
	var sb strings.Builder
	for i := range 1_000_000 {
		sb.WriteString(srtClock(int64(i))[1:])
		sb.WriteString("-->")
		sb.WriteString(srtClock(int64(i + 1))[1:])
		sb.WriteString("\na\n\n")
	}
	million := write(t, dir, "million.srt", sb.String())
	garbage := make([]byte, 1<<20)
	for i := range garbage {
		garbage[i] = byte(i*7919 + i/3)
	}
	junk := write(t, dir, "junk.srt", string(garbage))
	// Quickly: refused on their size before any parsing, or on their first
	// bytes (read from the reason, not timed beside parallel tests).
	for p, why := range map[string]string{big: "caption file of 52428800 bytes, larger than 16777216",
		million: "caption file of 29000000 bytes, larger than 16777216", junk: "binary content, not a caption file"} {
		o := run(t, reg, "caption_files", p, nil)
		if o.Err == nil || extractors.IsTransient(o.Err) || !strings.Contains(o.Err.Error(), why) {
			t.Errorf("%s: %v, want %q", filepath.Base(p), o.Err, why)
		}
	}
}

// A caption file that declares no language gets the one identified in its
// words (below confidence 1, which stays for declared languages); a
// declared one wins; cues without words stay unknown.
func TestCaptionLanguageIdentified(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	dir := t.TempDir()
	lines := []string{"Benim adım Deniz ve bu akşam İstanbul'a dönüyorum.", "Başka seçeneğim yoktu, biliyorsun.",
		"Yarın sabah erkenden limana gideceğiz.", "Çantanı hazırla ve kimseye bir şey söyleme.",
		"Neden bana hiç güvenmiyorsun?", "Çünkü her seferinde yalan söylüyorsun."}
	var srt strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&srt, "%d\n00:00:%02d,000 --> 00:00:%02d,500\n%s\n\n", i+1, 2*i, 2*i+1, l)
	}
	p := write(t, dir, "film.srt", srt.String())
	o := run(t, reg, "caption_files", p, nil)
	if o.Err != nil || len(o.Captions) != 1 {
		t.Fatalf("film.srt: %+v", o)
	}
	if c := o.Captions[0]; c.Language != "tr" || c.Confidence <= 0.8 || c.Confidence >= 1 ||
		o.Data["language"] != "tr" || o.Data["language_identified"] != true {
		t.Errorf("undeclared Turkish: caption %s %v, data %v", c.Language, c.Confidence, o.Data)
	}
	o = run(t, reg, "caption_files", p, &extractors.Input{Name: "film.de.srt"})
	if c := o.Captions[0]; c.Language != "de" || c.Confidence != 1 || o.Data["language_identified"] != false {
		t.Errorf("declared by the name: caption %s %v, data %v", c.Language, c.Confidence, o.Data)
	}
	o = run(t, reg, "caption_files", write(t, dir, "music.srt", "1\n00:00:01,000 --> 00:00:02,000\n♪ ♪\n\n2\n00:00:03,000 --> 00:00:04,000\n1 2 3\n"), nil)
	if c := o.Captions[0]; c.Language != "" || c.Confidence != 0 || o.Data["language"] != "" {
		t.Errorf("no words: caption %s %v, data %v", c.Language, c.Confidence, o.Data)
	}
	// A sidecar whose name gives no language, beside a video.
	side := t.TempDir()
	write(t, side, "clip.srt", srt.String())
	mp4, _ := media(t)
	o = run(t, reg, "caption_files", mp4, &extractors.Input{Name: "clip.mp4", Siblings: siblingsOf(side, nil)})
	if o.Err != nil || len(o.Captions) != 1 {
		t.Fatalf("sidecar: %+v", o)
	}
	entry := o.Data["sidecars"].([]any)[0].(map[string]any)
	if c := o.Captions[0]; c.Language != "tr" || c.Confidence <= 0.8 || c.Confidence >= 1 ||
		entry["language"] != "tr" || entry["language_identified"] != true {
		t.Errorf("undeclared Turkish sidecar: caption %s %v, data %v", c.Language, c.Confidence, entry)
	}
}
