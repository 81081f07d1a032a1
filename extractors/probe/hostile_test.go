package probe

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// survives runs every extractor of the family on a file whatever its type
// (as if mime_type had been fooled) and checks that each ends, within its
// limit, with a deterministic error or data, never a panic or a time-out.
func survives(t *testing.T, reg *extractors.Registry, name, path string) map[string]extractors.Outcome {
	t.Helper()
	out := map[string]extractors.Outcome{}
	for _, x := range names {
		in := extractortest.Input(t, path)
		in.Name = name
		out[x] = extractortest.Survives(t, reg, x, in)
	}
	return out
}

// A truncated MP4 (cut at half: its moov, at the end, is gone) is an error
// for ffprobe's extractors and a partial walk for drm.
func TestHostileTruncatedMP4(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	b, err := os.ReadFile("testdata/mp4.mp4")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "half.mp4")
	os.WriteFile(p, b[:len(b)/2], 0o644)
	got := survives(t, reg, "half.mp4", p)
	if got["mediainfo"].Err == nil || !strings.Contains(got["mediainfo"].Err.Error(), "moov atom not found") {
		t.Errorf("mediainfo: %v %v", got["mediainfo"].Err, got["mediainfo"].Data)
	}
	if strings.Contains(got["mediainfo"].Err.Error(), p) {
		t.Errorf("the error names the temporary path: %v", got["mediainfo"].Err)
	}
	if d := got["drm"].Data; got["drm"].Err != nil || d["partial"] != true || d["protected"] != false {
		t.Errorf("drm: %v %v", got["drm"].Err, d)
	}
}

// A file of zeros named .mp4 is nothing any extractor reads.
func TestHostileZeros(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	p := filepath.Join(t.TempDir(), "zeros.mp4")
	os.WriteFile(p, make([]byte, 256<<10), 0o644)
	for x, o := range survives(t, reg, "zeros.mp4", p) {
		if o.Err == nil {
			t.Errorf("%s read zeros: %v", x, o.Data)
		}
	}
}

// An HLS playlist (and other reference formats) named .mp4 that point at a
// local HTTP server fetch nothing, whether the harvest runs the family as
// the worker does or each is forced on it. In a harvest, mediainfo refuses
// an HLS playlist named as a media file (a recorded error, nothing read);
// the other formats are text to mime_type, and none of the family runs.
func TestHostilePlaylistFetchesNothing(t *testing.T) {
	t.Parallel()
	url := extractortest.NoRequestURL(t)

	reg := registry(t)
	mime, _ := extractors.Default.Get("mime_type")
	reg.MustRegister(mime)
	dir := t.TempDir()
	for name, body := range map[string]string{
		"hls.mp4":  "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n" + url + "/seg.ts\n#EXTINF:10,\n../testdata/mp4.mp4\n#EXT-X-ENDLIST\n",
		"m3u8.ts":  "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n" + url + "/variant.m3u8\n",
		"dash.mp4": `<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011"><Period><AdaptationSet><Representation><BaseURL>` + url + `/v.mp4</BaseURL></Representation></AdaptationSet></Period></MPD>`,
		"pls.mp4":  "[playlist]\nFile1=" + url + "/a.mp3\nNumberOfEntries=1\n",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		in := &extractors.Input{ItemID: "item", Name: name, Path: p, Size: int64(len(body)), ArtifactDir: t.TempDir()}
		hls := strings.HasPrefix(body, "#EXTM3U")
		ran := 0
		for _, o := range extractors.Run(context.Background(), reg, append([]string{"mime_type"}, names...), in, time.Minute) {
			switch {
			case o.Name == "mime_type":
			case o.Name == "mediainfo" && hls:
				ran++
				if o.Err == nil || extractors.IsTransient(o.Err) || !strings.Contains(o.Err.Error(), "a playlist (application/vnd.apple.mpegurl) named .") {
					t.Errorf("%s: mediainfo: %v %v", name, o.Err, o.Data)
				}
			default:
				t.Errorf("%s: %s ran on a %s file", name, o.Name, in.MIME)
			}
		}
		if hls && ran != 1 {
			t.Errorf("%s: mediainfo did not refuse the %s file", name, in.MIME)
		}
		// Forced, ffprobe may read a text as lyrics (lrc) or fail: either
		// way it opens nothing else.
		survives(t, reg, name, p)
	}
}

// An endless stream (a FIFO a writer keeps filling with transport stream
// packets) ends every extractor: the Go parsers refuse what is not a
// regular file, ffprobe reads its probe size and stops.
func TestHostileEndlessStream(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed.ts")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=d=1:s=64x48:r=25", "-c:v", "mpeg2video", "-f", "mpegts", seed)
	packets, err := os.ReadFile(seed)
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "endless.ts")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			// Each reader opens the FIFO anew; a writer that finds no reader
			// waits in open, so open without blocking and retry.
			f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				select {
				case <-ctx.Done():
				case <-time.After(10 * time.Millisecond):
				}
				continue
			}
			for ctx.Err() == nil {
				if _, err := f.Write(packets); err != nil && !errors.Is(err, syscall.EAGAIN) {
					break
				}
			}
			f.Close()
		}
	}()
	got := survives(t, reg, "endless.ts", fifo)
	stop()
	<-done
	for _, x := range []string{"m2ts", "dpx", "drm"} {
		if !errors.Is(got[x].Err, extractors.ErrUnsupported) {
			t.Errorf("%s on a FIFO: %v %v", x, got[x].Err, got[x].Data)
		}
	}
}

// Files that declare sizes they do not have: a WAV whose RIFF and data
// chunks claim 4 GiB, an MP4 whose mdat claims 2^62 bytes, a transport
// stream that is a sparse 128 MiB file (ffprobe reads its nothing to the
// end: av.Read's own limit bounds that, see av's tests). Each ends with
// data or an error.
func TestHostileDeclaredSizes(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	dir := t.TempDir()

	wav, err := os.ReadFile("testdata/Front_Center.wav")
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(wav[4:], 0xffffffff)
	if i := bytes.Index(wav, []byte("data")); i > 0 {
		binary.LittleEndian.PutUint32(wav[i+4:], 0xffffffff)
	}
	huge := filepath.Join(dir, "huge.wav")
	os.WriteFile(huge, wav, 0o644)
	got := survives(t, reg, "huge.wav", huge)
	if a := got["audioinfo"]; a.Err != nil || a.Data["sample_rate"] != int64(48000) {
		t.Errorf("audioinfo of a WAV claiming 4 GiB: %v %v", a.Err, a.Data)
	}

	mdat := append(box("ftyp", []byte("isom\x00\x00\x02\x00isom")), 0, 0, 0, 1, 'm', 'd', 'a', 't')
	mdat = binary.BigEndian.AppendUint64(mdat, 1<<62)
	mdat = append(mdat, make([]byte, 4096)...)
	p := filepath.Join(dir, "mdat.mp4")
	os.WriteFile(p, mdat, 0o644)
	got = survives(t, reg, "mdat.mp4", p)
	if d := got["drm"].Data; got["drm"].Err != nil || d["partial"] != true {
		t.Errorf("drm of an mdat claiming 2^62 bytes: %v %v", got["drm"].Err, d)
	}

	seed := filepath.Join(dir, "seed.ts")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=d=1:s=64x48:r=25", "-c:v", "mpeg2video", "-f", "mpegts", seed)
	b, _ := os.ReadFile(seed)
	sparse := filepath.Join(dir, "sparse.ts")
	os.WriteFile(sparse, b, 0o644)
	if err := os.Truncate(sparse, 128<<20); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	in := &extractors.Input{ItemID: "item", Name: "sparse.ts", Path: sparse, Size: 128 << 20, ArtifactDir: t.TempDir()}
	for _, o := range extractors.Run(context.Background(), reg, names, in, time.Minute) {
		if o.Name == "m2ts" && (o.Err != nil || o.Data["packet_size"] != 188) {
			t.Errorf("m2ts of a sparse stream: %v %v", o.Err, o.Data)
		}
	}
}

// An MP4 of a million tiny boxes: the walk stops at its cap and says so.
func TestHostileMillionBoxes(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	var buf bytes.Buffer
	buf.Write(box("ftyp", []byte("isom\x00\x00\x02\x00isom")))
	free := box("free")
	for i := 0; i < 1_000_000; i++ {
		buf.Write(free)
	}
	buf.Write(box("moov"))
	p := filepath.Join(t.TempDir(), "boxes.mp4")
	os.WriteFile(p, buf.Bytes(), 0o644)
	got := survives(t, reg, "boxes.mp4", p)
	if d := got["drm"].Data; got["drm"].Err != nil || d["partial"] != true || d["protected"] != false {
		t.Errorf("drm: %v %v", got["drm"].Err, d)
	}
	info, err := readMP4(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil || info.Boxes != maxBoxes || !info.Partial {
		t.Errorf("walk: %v boxes, partial %v, %v", info.Boxes, info.Partial, err)
	}
}
