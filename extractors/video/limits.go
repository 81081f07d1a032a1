package video

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

const (
	// maxPixels bounds the pictures decoded (40 MP: 8K UHD is 33 MP). A
	// stream declaring more is refused before decoding; the decoder is given
	// the same bound for pictures that grow mid-stream.
	maxPixels = 40_000_000
	// maxSide bounds each side, so that a 1 x 40M picture is refused too.
	maxSide = 16384
	// decodeMemory is the address-space bound of a decoding ffmpeg: a 40 MP
	// stream with its reference frames and two decoding threads fits; a
	// decompression bomb fails its allocation.
	decodeMemory = 3 << 30
	// decodeThreads is the decoder's and encoder's thread count: the
	// Runner's Heavy slots count programs, one per CPU, so each uses about
	// one, with a second hiding I/O and entropy-decoding stalls.
	decodeThreads = "2"
	// overshoot is how far past its max_duration a stream is decoded to
	// learn whether it goes on: seconds.
	overshoot = 5.0
)

// movingPicture reads the file's shared ffprobe reading and returns it with
// the video stream the picture extractors decode: a file without a moving
// picture (audio, a still, a cover) is not theirs (ErrUnsupported), and
// pictures over the bounds are refused before anything decodes them.
func movingPicture(ctx context.Context, run *extractors.Runner, in *extractors.Input) (*av.Probe, *av.Stream, error) {
	probe, v, err := av.ReadMoving(ctx, run, in)
	if err != nil {
		return nil, nil, err
	}
	if err := checkPicture(v); err != nil {
		return nil, nil, err
	}
	return probe, v, nil
}

// checkPicture refuses a video stream whose declared pictures are over the
// bounds, before anything decodes them.
func checkPicture(v *av.Stream) error {
	w, h := int64(v.Width), int64(v.Height)
	if w > maxSide || h > maxSide || w*h > maxPixels {
		return fmt.Errorf("video of %dx%d pixels is over the limit (%d pixels, %d a side): not decoded", w, h, maxPixels, maxSide)
	}
	return nil
}

// decodeArgs are the ffmpeg arguments up to and including the input: quiet,
// no stdin, the pixel bound for the decoder, at most seconds of input, and
// av.InputArgs. The path is made absolute: ffmpeg runs in the directory it
// writes to.
func decodeArgs(path string, seconds float64) []string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	args := []string{"-nostdin", "-v", "error", "-nostats", "-threads", decodeThreads,
		"-max_pixels", strconv.Itoa(maxPixels), "-t", num(seconds)}
	return append(args, av.InputArgs(path)...)
}

// declaredDuration is how long the stream says it is: the stream's own
// duration when the container gives one (audio may run longer than video),
// else the container's; 0 when unknown.
func declaredDuration(p *av.Probe, s *av.Stream) float64 {
	if s != nil {
		if d := av.Seconds(s.Duration); d > 0 {
			return d
		}
	}
	return p.Duration()
}

// checkExtent compares how far a stream was decoded with what it declares
// and with the limit: a stream that ends well before its declared duration
// is truncated or damaged; one that goes on past the limit although it
// declares less (or nothing) is endless as far as we are concerned. A file
// honestly longer than the limit is analysed up to the limit.
func checkExtent(declared, decoded, limit float64) error {
	if decoded >= limit {
		if declared >= limit-1 {
			return nil
		}
		if declared <= 0 {
			return fmt.Errorf("the stream declares no duration and goes on past the limit of %s s: not analysed", num(limit))
		}
		return fmt.Errorf("the stream goes on past the limit of %s s although it declares %s s: not analysed", num(limit), num(declared))
	}
	if declared > 0 {
		want := min(declared, limit)
		if want-decoded > max(2, 0.2*want) {
			return fmt.Errorf("the stream ends at %s s although it declares %s s: the file is truncated or damaged", num(decoded), num(declared))
		}
	}
	return nil
}

// fitScale is the filter that fits the picture, in display pixels (sample
// aspect ratio applied), into a box of boxW x boxH without enlarging it,
// with even sides (the encoders want them) of at least 2, and square
// pixels.
func fitScale(boxW, boxH int) string {
	f := fmt.Sprintf("min(1,min(%d/(iw*sar),%d/ih))", boxW, boxH)
	return fmt.Sprintf("scale=w='max(2,trunc(%s*iw*sar/2)*2)':h='max(2,trunc(%s*ih/2)*2)',setsar=1", f, f)
}

// num formats seconds and rates for ffmpeg and messages: no exponent, no
// trailing zeros.
func num(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// acceptMedia takes files whose MIME type starts with one of prefixes, and
// non-empty files with one of exts, except that ".ts" and ".mts" files
// whose content is text are TypeScript, not transport streams. (The
// content of raw streams is often untyped, and a YUV4MPEG2 file, a text
// header before raw pictures, may be typed text/plain.)
func acceptMedia(prefixes, exts []string) func(extractors.File) bool {
	byType := extractors.AcceptMIME(prefixes)
	byExt := extractors.AcceptMIME(nil, exts...)
	return func(f extractors.File) bool {
		switch {
		case byType(f):
			return true
		case !byExt(f) || f.MIME == "inode/x-empty":
			return false
		case f.Ext == "ts" || f.Ext == "mts":
			return !strings.HasPrefix(f.MIME, "text/")
		}
		return true
	}
}

// unsupported wraps extractors.ErrUnsupported with the reason.
func unsupported(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, extractors.ErrUnsupported)...)
}
