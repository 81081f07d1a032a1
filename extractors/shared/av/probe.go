package av

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// Probe is what ffprobe reads of a file: its container (Format), streams,
// chapters and programs (MPEG transport streams). Numbers are kept as ffprobe
// writes them (strings for durations and rates); the methods convert.
type Probe struct {
	Format   Format    `json:"format"`
	Streams  []Stream  `json:"streams"`
	Chapters []Chapter `json:"chapters"`
	Programs []Program `json:"programs"`
}

// Format is the container.
type Format struct {
	FormatName     string            `json:"format_name"`
	FormatLongName string            `json:"format_long_name"`
	StartTime      string            `json:"start_time"`
	Duration       string            `json:"duration"`
	Size           string            `json:"size"`
	BitRate        string            `json:"bit_rate"`
	ProbeScore     int               `json:"probe_score"`
	NbStreams      int               `json:"nb_streams"`
	Tags           map[string]string `json:"tags"`
}

// Stream is one stream of the container.
type Stream struct {
	Index int `json:"index"`
	// ID is the container's own id of the stream: the PID of an MPEG-TS
	// stream ("0x100"), the track id of an MP4 ("0x1").
	ID             string `json:"id"`
	CodecType      string `json:"codec_type"` // video, audio, subtitle, data, attachment
	CodecName      string `json:"codec_name"`
	CodecLongName  string `json:"codec_long_name"`
	CodecTagString string `json:"codec_tag_string"`
	// CodecTag is the tag as a number ("0x001b"): for MPEG-TS, the PMT's
	// stream_type.
	CodecTag           string            `json:"codec_tag"`
	Profile            string            `json:"profile"`
	Level              int               `json:"level"`
	Width              int               `json:"width"`
	Height             int               `json:"height"`
	SampleAspectRatio  string            `json:"sample_aspect_ratio"`
	DisplayAspectRatio string            `json:"display_aspect_ratio"`
	PixFmt             string            `json:"pix_fmt"`
	FieldOrder         string            `json:"field_order"`
	ColorRange         string            `json:"color_range"`
	ColorSpace         string            `json:"color_space"`
	ColorTransfer      string            `json:"color_transfer"`
	ColorPrimaries     string            `json:"color_primaries"`
	ChromaLocation     string            `json:"chroma_location"`
	RFrameRate         string            `json:"r_frame_rate"`
	AvgFrameRate       string            `json:"avg_frame_rate"`
	TimeBase           string            `json:"time_base"`
	StartTime          string            `json:"start_time"`
	Duration           string            `json:"duration"`
	BitRate            string            `json:"bit_rate"`
	NbFrames           string            `json:"nb_frames"`
	SampleFmt          string            `json:"sample_fmt"`
	SampleRate         string            `json:"sample_rate"`
	Channels           int               `json:"channels"`
	ChannelLayout      string            `json:"channel_layout"`
	BitsPerSample      int               `json:"bits_per_sample"`
	BitsPerRawSample   string            `json:"bits_per_raw_sample"`
	Disposition        map[string]int    `json:"disposition"`
	Tags               map[string]string `json:"tags"`
	SideDataList       []map[string]any  `json:"side_data_list"`
}

// Program is a program of an MPEG transport stream (its PMT).
type Program struct {
	ProgramID  int               `json:"program_id"`
	ProgramNum int               `json:"program_num"`
	NbStreams  int               `json:"nb_streams"`
	PMTPID     int               `json:"pmt_pid"`
	PCRPID     int               `json:"pcr_pid"`
	Tags       map[string]string `json:"tags"` // service_name, service_provider
	Streams    []struct {
		Index int `json:"index"`
	} `json:"streams"`
}

// Chapter is a chapter mark of the container.
type Chapter struct {
	StartTime string            `json:"start_time"`
	EndTime   string            `json:"end_time"`
	Tags      map[string]string `json:"tags"`
}

// ProbeTimeLimit bounds one ffprobe reading. ffprobe stops probing a
// stream without headers (MPEG-TS, MPEG-PS, FLV, raw streams) after
// -analyzeduration of content or -probesize bytes of packets; bytes it
// skips looking for sync count for neither, so a short stream followed by
// gigabytes of garbage is read to its end (about 10 s per GiB here). A real
// file is read in well under a second.
const ProbeTimeLimit = time.Minute

// probeTimeLimit is ProbeTimeLimit, lowered by this package's tests.
var probeTimeLimit atomic.Int64

func init() { probeTimeLimit.Store(int64(ProbeTimeLimit)) }

// maxProbeOutput bounds ffprobe's JSON: a file with thousands of streams or
// chapters is refused rather than read whole.
const maxProbeOutput = 4 << 20

// ProbeArgs are ffprobe's arguments for Read: format, streams, chapters
// and the programs of a transport stream (their ids, PIDs and service
// names; their streams only by index, as the streams are listed already).
// The integrator's benchmark runs the same command as the bare baseline.
func ProbeArgs(path string) []string {
	return append([]string{"-v", "error", "-print_format", "json", "-show_format", "-show_streams", "-show_chapters",
		"-show_entries", "program=program_id,program_num,nb_streams,pmt_pid,pcr_pid:program_tags:program_stream=index"},
		InputArgs(path)...)
}

// Read returns the ffprobe reading of the file, made once per harvest of
// the file whichever extractor asks first (Input.Shared). A file ffprobe
// cannot read gives an error wrapping extractors.ErrUnsupported when it has
// no stream at all, a plain (deterministic) error otherwise.
func Read(ctx context.Context, run *extractors.Runner, in *extractors.Input) (*Probe, error) {
	v, err := in.Shared("av.probe", func() (any, error) {
		limit := time.Duration(probeTimeLimit.Load())
		pctx, cancel := context.WithTimeout(ctx, limit)
		defer cancel()
		out, err := run.Run(pctx, extractors.Cmd{Name: "ffprobe", Args: ProbeArgs(in.Path), MaxOutput: maxProbeOutput, MaxMemory: 1 << 30})
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			if pctx.Err() != nil {
				// Not the caller's limit but the file's doing: an error of
				// the file (not wrapping the deadline), kept for the other
				// extractors of the file so that none pays it again.
				return nil, fmt.Errorf("ffprobe gave up after %s: the file makes it read without end (garbage after a short stream?)", limit)
			}
			// ffprobe names the input in its messages: the temporary path
			// (or a remote object's loopback URL) would make every file's
			// error text (and error_hash) unique.
			msg := strings.ReplaceAll(strings.ReplaceAll(err.Error(), "file:"+in.Path, "input"), in.Path, "input")
			return nil, &toolError{msg: "ffprobe: " + msg, err: err}
		}
		return Parse(out)
	})
	if err != nil {
		return nil, err
	}
	return v.(*Probe), nil
}

// toolError is a tool's failure with a message of its own (the input's path
// taken out) that still unwraps to the Runner's error.
type toolError struct {
	msg string
	err error
}

func (e *toolError) Error() string { return e.msg }
func (e *toolError) Unwrap() error { return e.err }

// Parse reads ffprobe's JSON output.
func Parse(out []byte) (*Probe, error) {
	var p Probe
	if err := json.Unmarshal(out, &p); err != nil {
		return nil, fmt.Errorf("read ffprobe output: %w", err)
	}
	if len(p.Streams) == 0 {
		return nil, fmt.Errorf("no audio, video or subtitle stream: %w", extractors.ErrUnsupported)
	}
	return &p, nil
}

// Duration is the container's duration in seconds (0 when unknown).
func (p *Probe) Duration() float64 {
	if d := Seconds(p.Format.Duration); d > 0 {
		return d
	}
	var longest float64
	for _, s := range p.Streams {
		longest = max(longest, Seconds(s.Duration))
	}
	return longest
}

// Video returns the first video stream that is not a cover picture.
func (p *Probe) Video() *Stream {
	for i := range p.Streams {
		s := &p.Streams[i]
		if s.CodecType == "video" && s.Disposition["attached_pic"] == 0 {
			return s
		}
	}
	return nil
}

// Audio returns the first audio stream.
func (p *Probe) Audio() *Stream { return p.first("audio") }

// Subtitles returns the subtitle streams.
func (p *Probe) Subtitles() []Stream {
	var out []Stream
	for _, s := range p.Streams {
		if s.CodecType == "subtitle" {
			out = append(out, s)
		}
	}
	return out
}

func (p *Probe) first(kind string) *Stream {
	for i := range p.Streams {
		if p.Streams[i].CodecType == kind {
			return &p.Streams[i]
		}
	}
	return nil
}

// IsStill reports whether the file is a picture read by an image demuxer
// (jpeg_pipe, png_pipe, ...) rather than a moving video.
func (p *Probe) IsStill() bool {
	return strings.HasSuffix(p.Format.FormatName, "_pipe")
}

// FrameRate is the stream's frame rate in frames per second (0 when unknown).
func (s *Stream) FrameRate() float64 {
	if r := Ratio(s.AvgFrameRate); r > 0 {
		return r
	}
	return Ratio(s.RFrameRate)
}

// Seconds parses a decimal number of seconds ("12.345000"); 0 when absent
// or malformed.
func Seconds(s string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f != f || f < 0 || f > 1e9 {
		return 0
	}
	return f
}

// Ratio parses "num/den" ("30000/1001"); 0 when absent, malformed or zero.
func Ratio(s string) float64 {
	n, d, ok := strings.Cut(s, "/")
	if !ok {
		return Seconds(s)
	}
	a, err1 := strconv.ParseFloat(n, 64)
	b, err2 := strconv.ParseFloat(d, 64)
	if err1 != nil || err2 != nil || b == 0 || a != a || b != b {
		return 0
	}
	return a / b
}

// Int parses a decimal integer ("48000"); 0 when absent or malformed.
func Int(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0
	}
	return n
}
