package vendor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/av"
)

// Bounds of the samples.
const (
	maxAudioSeconds = 120
	maxFrames       = 16
	frameWidth      = 640
	maxFrameBytes   = 2 << 20
	// wavBytesPerSecond is mono 16 kHz 16-bit.
	wavBytesPerSecond = 16000 * 2
)

// audioClip cuts seconds of the first audio stream, from the middle of the
// item, as WAV. It returns the clip and where it starts in the item.
func audioClip(ctx context.Context, run *extractors.Runner, in *extractors.Input, probe *av.Probe, seconds int) ([]byte, float64, float64, error) {
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
		MaxOutput: seconds*wavBytesPerSecond + 64<<10, MaxMemory: 2 << 30})
	if err != nil {
		return nil, 0, 0, wrapRun(ctx, "cut the audio sample", err)
	}
	if len(out) <= 44 {
		return nil, 0, 0, fmt.Errorf("%w: no audio decoded", extractors.ErrUnsupported)
	}
	if dur <= 0 {
		length = float64(len(out)-44) / wavBytesPerSecond
	}
	return out, start, length, nil
}

// frame is one image sent, and its time in the item.
type frame struct {
	time float64
	jpeg []byte
}

// frames returns n frames spread over the video: video_main_frames' when
// it ran, else decoded here.
func frames(ctx context.Context, run *extractors.Runner, in *extractors.Input, probe *av.Probe, n int) ([]frame, error) {
	if fs := mainFrames(in, n); len(fs) > 0 {
		return fs, nil
	}
	dur := probe.Duration()
	var out []frame
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, extractors.Transient(err)
		}
		t := 0.0
		if dur > 0 {
			t = dur * (float64(i) + 0.5) / float64(n)
		}
		args := []string{"-nostdin", "-nostats", "-v", "error", "-ss", ff(t)}
		args = append(args, av.InputArgs(in.Path)...)
		args = append(args, "-map", "0:v:0", "-frames:v", "1", "-an", "-sn", "-dn",
			"-vf", "scale='min("+strconv.Itoa(frameWidth)+",iw)':-2", "-c:v", "mjpeg", "-q:v", "5", "-f", "image2pipe", "pipe:1")
		img, err := run.Run(ctx, extractors.Cmd{Name: "ffmpeg", Args: args, Heavy: true, MaxOutput: maxFrameBytes, MaxMemory: 2 << 30})
		if err != nil {
			return nil, wrapRun(ctx, "take a frame", err)
		}
		if len(img) == 0 {
			continue // past the last frame (a duration longer than the stream)
		}
		out = append(out, frame{time: t, jpeg: img})
		if dur <= 0 {
			break // a still: one frame is all there is
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no frame decoded", extractors.ErrUnsupported)
	}
	return out, nil
}

// mainFrames picks n of video_main_frames' JPEG frames, evenly; nil when
// it did not run or its frames cannot be used.
func mainFrames(in *extractors.Input, n int) []frame {
	var d struct {
		Frames []struct {
			Time float64 `json:"time"`
			Path string  `json:"path"`
		} `json:"frames"`
	}
	raw := in.Prior["video_main_frames"]
	if len(raw) == 0 || json.Unmarshal(raw, &d) != nil || len(d.Frames) == 0 {
		return nil
	}
	dir := in.ArtifactsOf("video_main_frames")
	var out []frame
	for i := 0; i < n && i < len(d.Frames); i++ {
		f := d.Frames[i*len(d.Frames)/min(n, len(d.Frames))]
		ext := strings.ToLower(filepath.Ext(f.Path))
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) || (ext != ".jpg" && ext != ".jpeg") || f.Time < 0 {
			return nil
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		fi, err := os.Stat(p)
		if err != nil || fi.Size() > maxFrameBytes || !fi.Mode().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		out = append(out, frame{time: f.Time, jpeg: b})
	}
	return out
}

// wrapRun words an ffmpeg failure: transient when the harvest ended it.
func wrapRun(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return extractors.Transient(fmt.Errorf("%s: %w", what, err))
	}
	return fmt.Errorf("%s: %w", what, err)
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// setting reads a bounded positive number setting.
func setting(env extractors.Env, name, envName string, max int) (int, error) {
	n, err := strconv.Atoi(env.Get(name))
	if err != nil || n < 1 || n > max {
		return 0, fmt.Errorf("%s %q: want a number from 1 to %d", envName, env.Get(name), max)
	}
	return n, nil
}
