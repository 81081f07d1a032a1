package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/images"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// What the provider-backed extractors send is cut here, on the local file
// only (av.InputArgs), and bounded: a sound clip of mono 16 kHz WAV, JPEG
// pictures of at most FrameSide pixels. The provider never reads the item
// itself.

// Bounds of the samples.
const (
	// MaxAudioSeconds bounds one sound clip.
	MaxAudioSeconds = 300
	// MaxFrames bounds the pictures of one item.
	MaxFrames = 100
	// FrameSide is the width of a video frame sent, and the long side of a
	// picture sent, at most.
	FrameSide = 640
	// MaxFrameBytes bounds one picture sent.
	MaxFrameBytes = 2 << 20
	// WAVBytesPerSecond is mono 16 kHz 16-bit.
	WAVBytesPerSecond = 16000 * 2
	// BatchBytes bounds the pictures of one request (before base64): a
	// call sends the pictures in as many requests as they need.
	BatchBytes = 8 << 20
	// jpegQuality of the pictures made here.
	jpegQuality = 85
)

// AudioClip cuts seconds of the first audio stream, from the middle of the
// item (the whole item when shorter), as WAV. It returns the clip, where
// it starts in the item and its length, seconds.
func AudioClip(ctx context.Context, run *extractors.Runner, in *extractors.Input, probe *av.Probe, seconds int) ([]byte, float64, float64, error) {
	dur := probe.Duration()
	start := 0.0
	if dur > float64(seconds) {
		start = dur/2 - float64(seconds)/2
	}
	length := float64(seconds)
	if dur > 0 && dur-start < length {
		length = dur - start
	}
	args := []string{"-nostdin", "-nostats", "-v", "error", "-ss", ff(start)}
	args = append(args, av.InputArgs(in.Path)...)
	args = append(args, "-map", "0:a:0", "-t", ff(float64(seconds)), "-vn", "-sn", "-dn",
		"-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-f", "wav", "pipe:1")
	out, err := run.Run(ctx, extractors.Cmd{Name: "ffmpeg", Args: args, Heavy: true,
		MaxOutput: seconds*WAVBytesPerSecond + 64<<10, MaxMemory: 2 << 30})
	if err != nil {
		return nil, 0, 0, WrapRun(ctx, "cut the audio sample", err)
	}
	if len(out) <= 44 {
		return nil, 0, 0, fmt.Errorf("%w: no audio decoded", extractors.ErrUnsupported)
	}
	if dur <= 0 {
		length = float64(len(out)-44) / WAVBytesPerSecond
	}
	return out, start, length, nil
}

// Frame is one picture sent: a JPEG, and its time in the item (nil for a
// picture item).
type Frame struct {
	Time *float64
	JPEG []byte
}

// Media is the frame as sent.
func (f Frame) Media() Media { return Media{Type: "image/jpeg", Time: f.Time, Data: f.JPEG} }

// Frames sources.
const (
	FramesImage     = "image"             // the item is a picture
	FramesMain      = "video_main_frames" // that extractor's frames
	FramesSampled   = "sampled"           // decoded here
	mainFramesField = "video_main_frames"
)

// Sample is what a picture analysis sends of an item.
type Sample struct {
	Frames []Frame
	// Source is FramesImage, FramesMain or FramesSampled.
	Source string
	// Duration of a video, seconds (0 for a picture, or when unknown).
	Duration float64
}

// Video says whether the pictures are frames of a video.
func (s *Sample) Video() bool { return s.Source != FramesImage }

// Media is the frames as sent.
func (s *Sample) Media() []Media {
	out := make([]Media, len(s.Frames))
	for i, f := range s.Frames {
		out[i] = f.Media()
	}
	return out
}

// Pictures returns what a picture analysis sends of an item: a picture
// item itself (decoded by load: its pixel limit, EXIF orientation), or n
// frames spread over a video (Frames).
func Pictures(ctx context.Context, run *extractors.Runner, load *images.Loader, in *extractors.Input, n int) (*Sample, error) {
	still := func() (*Sample, error) {
		jpg, err := Picture(ctx, load, in.Path)
		if err != nil {
			return nil, err
		}
		return &Sample{Frames: []Frame{{JPEG: jpg}}, Source: FramesImage}, nil
	}
	if !strings.HasPrefix(in.MIME, "video/") {
		return still()
	}
	probe, err := av.Read(ctx, run, in)
	if err != nil {
		return nil, WrapRun(ctx, "read the streams", err)
	}
	if probe.Video() == nil {
		return nil, fmt.Errorf("%w: no video stream", extractors.ErrUnsupported)
	}
	if probe.IsStill() { // a picture with a video type
		return still()
	}
	fs, source, err := Frames(ctx, run, in, probe, n)
	if err != nil {
		return nil, err
	}
	return &Sample{Frames: fs, Source: source, Duration: probe.Duration()}, nil
}

// Picture decodes the picture at path with load and encodes it as a JPEG
// of at most FrameSide pixels on its long side.
func Picture(ctx context.Context, load *images.Loader, path string) ([]byte, error) {
	pic, err := load.Load(ctx, path, FrameSide)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, pic.Image, &jpeg.Options{Quality: jpegQuality}); err != nil {
		return nil, fmt.Errorf("encode the picture: %w", err)
	}
	if b.Len() > MaxFrameBytes {
		return nil, fmt.Errorf("picture of %d bytes once encoded, at most %d", b.Len(), MaxFrameBytes)
	}
	return b.Bytes(), nil
}

// Frames returns n frames spread evenly over a video, and where they come
// from: video_main_frames' when it ran (its JPEG files of at most
// MaxFrameBytes, picked evenly), else decoded here, one ffmpeg seek each,
// at most FrameSide pixels wide.
func Frames(ctx context.Context, run *extractors.Runner, in *extractors.Input, probe *av.Probe, n int) ([]Frame, string, error) {
	if fs := mainFrames(in, n); len(fs) > 0 {
		return fs, FramesMain, nil
	}
	dur := probe.Duration()
	var out []Frame
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, "", extractors.Transient(err)
		}
		t := 0.0
		if dur > 0 {
			t = dur * (float64(i) + 0.5) / float64(n)
		}
		args := []string{"-nostdin", "-nostats", "-v", "error", "-ss", ff(t)}
		args = append(args, av.InputArgs(in.Path)...)
		args = append(args, "-map", "0:v:0", "-frames:v", "1", "-an", "-sn", "-dn",
			"-vf", "scale='min("+strconv.Itoa(FrameSide)+",iw)':-2", "-c:v", "mjpeg", "-q:v", "5", "-f", "image2pipe", "pipe:1")
		img, err := run.Run(ctx, extractors.Cmd{Name: "ffmpeg", Args: args, Heavy: true, MaxOutput: MaxFrameBytes, MaxMemory: 2 << 30})
		if err != nil {
			return nil, "", WrapRun(ctx, "take a frame", err)
		}
		if len(img) == 0 {
			continue // past the last frame (a duration longer than the stream)
		}
		out = append(out, Frame{Time: &t, JPEG: img})
		if dur <= 0 {
			break // a still: one frame is all there is
		}
	}
	if len(out) == 0 {
		return nil, "", fmt.Errorf("%w: no frame decoded", extractors.ErrUnsupported)
	}
	return out, FramesSampled, nil
}

// mainFrames picks n of video_main_frames' JPEG frames, evenly; nil when
// it did not run or its frames cannot be used.
func mainFrames(in *extractors.Input, n int) []Frame {
	var d struct {
		Frames []struct {
			Time float64 `json:"time"`
			Path string  `json:"path"`
		} `json:"frames"`
	}
	raw := in.Prior[mainFramesField]
	if len(raw) == 0 || json.Unmarshal(raw, &d) != nil || len(d.Frames) == 0 {
		return nil
	}
	dir := in.ArtifactsOf(mainFramesField)
	var out []Frame
	for i := 0; i < n && i < len(d.Frames); i++ {
		f := d.Frames[i*len(d.Frames)/min(n, len(d.Frames))]
		ext := strings.ToLower(filepath.Ext(f.Path))
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) || (ext != ".jpg" && ext != ".jpeg") || !(f.Time >= 0) {
			return nil
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		fi, err := os.Stat(p)
		if err != nil || fi.Size() > MaxFrameBytes || !fi.Mode().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		t := f.Time
		out = append(out, Frame{Time: &t, JPEG: b})
	}
	return out
}

// Batches cuts media into runs of at most BatchBytes of data each (one
// item over it is a run of its own), in order.
func Batches(media []Media) [][]Media {
	var out [][]Media
	var cur []Media
	size := 0
	for _, m := range media {
		if len(cur) > 0 && size+len(m.Data) > BatchBytes {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, m)
		size += len(m.Data)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// WrapRun words a tool's failure: transient when the harvest ended it.
func WrapRun(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return extractors.Transient(fmt.Errorf("%s: %w", what, err))
	}
	return fmt.Errorf("%s: %w", what, err)
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
