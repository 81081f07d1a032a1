package images

import (
	"image"
	"os"
	"path/filepath"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// inkColumns counts the columns of img, in its left and right halves,
// holding a pixel of the waveform's blue (the background is grey).
func inkColumns(img image.Image) (left, right int) {
	b := img.Bounds()
	for x := b.Min.X; x < b.Max.X; x++ {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			r, _, bl, _ := img.At(x, y).RGBA()
			if bl>>8 > r>>8+60 {
				if x < b.Min.X+b.Dx()/2 {
					left++
				} else {
					right++
				}
				break
			}
		}
	}
	return left, right
}

// A recording without a cover is drawn as its waveform: two seconds of a
// tone, then two of silence, give peaks over the left half only.
func TestRecordingThumbnailIsItsWaveform(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "tone-then-silence.wav")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-f", "lavfi", "-i", "anullsrc=r=44100:cl=mono",
		"-filter_complex", "[1:a]atrim=duration=2[s];[0:a][s]concat=n=2:v=0:a=1", p)
	o, dir := run(t, registry(t, nil), "thumbnailer", p, "audio/wav")
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if o.Data["picture"] != pictureWaveform || lookup(o.Data, "source.format") != "pcm_s16le" ||
		lookup(o.Data, "thumbnail.width") != 320 || lookup(o.Data, "thumbnail.height") != 120 {
		t.Errorf("data %v", o.Data)
	}
	kinds := map[string]string{}
	for _, a := range o.Artifacts {
		kinds[a.Kind] = a.Path
	}
	if kinds["thumbnail"] != "thumb_320.jpg" || kinds["thumbnail_large"] != "thumb_1280.jpg" {
		t.Errorf("artifacts %v", o.Artifacts)
	}
	large := decodeFile(t, filepath.Join(dir, "thumb_1280.jpg"))
	if b := large.Bounds(); b.Dx() != waveformWidth || b.Dy() != waveformHeight {
		t.Fatalf("large thumbnail %v", b)
	}
	left, right := inkColumns(large)
	if left < waveformWidth/2*9/10 || right > waveformWidth/2/20 {
		t.Errorf("waveform ink in %d of the left half's columns and %d of the right's: want the tone on the left, silence on the right", left, right)
	}
}

// A recording with cover art is shown by its cover.
func TestRecordingThumbnailIsItsCoverArt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cover := filepath.Join(dir, "cover.png")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "color=c=red:s=600x400", "-frames:v", "1", cover)
	p := filepath.Join(dir, "song.mp3")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-i", cover, "-map", "0:a", "-map", "1:v",
		"-c:a", "libmp3lame", "-c:v", "mjpeg", "-disposition:v", "attached_pic", "-id3v2_version", "3", p)
	o, adir := run(t, registry(t, nil), "thumbnailer", p, "audio/mpeg")
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if o.Data["picture"] != pictureCoverArt || lookup(o.Data, "source.width") != 600 || lookup(o.Data, "source.height") != 400 ||
		lookup(o.Data, "source.format") != "mjpeg" || lookup(o.Data, "thumbnail.width") != 320 || lookup(o.Data, "thumbnail.height") != 213 {
		t.Errorf("data %v", o.Data)
	}
	thumb := decodeFile(t, filepath.Join(adir, "thumb_320.jpg"))
	if r, g, b, _ := thumb.At(160, 100).RGBA(); r>>8 < 200 || g>>8 > 60 || b>>8 > 60 {
		t.Errorf("thumbnail centre (%d,%d,%d): not the red cover", r>>8, g>>8, b>>8)
	}
}

// A real recording (a plucked string, 16-bit PCM): its waveform.
func TestRecordingThumbnailOfARealSample(t *testing.T) {
	t.Parallel()
	o, dir := run(t, registry(t, nil), "thumbnailer", "../testdata/pluck-pcm16.wav", "audio/wav")
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if o.Data["picture"] != pictureWaveform || lookup(o.Data, "source.format") != "pcm_s16le" {
		t.Errorf("data %v", o.Data)
	}
	if left, _ := inkColumns(decodeFile(t, filepath.Join(dir, "thumb_1280.jpg"))); left == 0 {
		t.Error("no waveform drawn")
	}
}

// What is not a recording is refused or not taken: garbage named MP3 is a
// recorded error (or nothing, for a file without sound), MIDI is not
// taken at all.
func TestRecordingThumbnailHostile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	garbage := filepath.Join(dir, "noise.mp3")
	os.WriteFile(garbage, []byte("ID3\x03\x00\x00\x00\x00\x00\x00 this is no audio at all"), 0o644)
	o, _ := run(t, registry(t, nil), "thumbnailer", garbage, "audio/mpeg")
	if o.Err == nil || extractors.IsTransient(o.Err) {
		t.Errorf("garbage mp3: err %v, data %v: want a deterministic error", o.Err, o.Data)
	}
	if acceptThumbnailable(extractors.File{MIME: "audio/midi", Ext: "mid"}) || !acceptThumbnailable(extractors.File{MIME: "audio/flac", Ext: "flac"}) {
		t.Error("accept: MIDI taken or FLAC refused")
	}
}

// A recording in a video container (an audio-only WebM) has no frame to
// show: it is drawn as its waveform.
func TestAudioOnlyVideoContainerIsDrawnAsItsWaveform(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "talk.webm")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "sine=frequency=300:duration=3", "-c:a", "libopus", p)
	o, dir := run(t, registry(t, nil), "thumbnailer", p, "video/webm")
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if o.Data["picture"] != pictureWaveform || lookup(o.Data, "source.format") != "opus" || o.Data["sprite"] != nil {
		t.Errorf("data %v", o.Data)
	}
	if left, right := inkColumns(decodeFile(t, filepath.Join(dir, "thumb_1280.jpg"))); left == 0 || right == 0 {
		t.Errorf("waveform ink %d, %d: want the tone across", left, right)
	}
}
