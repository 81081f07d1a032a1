package broadcast

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// The detectors' settings, fixed so that every item is measured alike
// (and documented in doc.go).
const (
	// maxDecodeSeconds caps the decode (ffmpeg -t): a longer file is
	// analysed over its first four hours, and an endless stream ends.
	maxDecodeSeconds = 4 * 60 * 60
	// timeout is each analysis's time limit: the decode is the cost, at
	// worst a few times faster than real time on one core.
	timeout = 30 * time.Minute

	blackFilter   = "blackdetect=d=0.5:pix_th=0.10:pic_th=0.98"
	silenceFilter = "silencedetect=n=-60dB:d=0.5"
	// framelog=verbose keeps ebur128's ten lines a second out of the log
	// at level info; its summary stays.
	loudnessFilter = "ebur128=peak=true+sample:framelog=verbose"
	volumeFilter   = "volumedetect"
)

// samplesFilter makes the samples frameSink reads (see frames.go).
var samplesFilter = fmt.Sprintf("fps=%d:start_time=0,scale=%d:%d:flags=area,format=rgb24", frameRate, frameWidth, frameHeight)

// What the analyses accept: a picture analysis needs a video, a sound
// analysis takes audio files and the sound of videos. MXF and Ogg are
// detected as application/*.
var (
	videoTypes = []string{"video/", "application/mxf"}
	soundTypes = []string{"audio/", "video/", "application/mxf", "application/ogg"}
)

// needs are the measurements of one decode pass.
type needs struct {
	black, silence, samples, loudness, volume bool
}

func (n needs) or(o needs) needs {
	return needs{n.black || o.black, n.silence || o.silence, n.samples || o.samples, n.loudness || o.loudness, n.volume || o.volume}
}

func (n needs) covers(o needs) bool { return n.or(o) == n }

// needsOf are what each analysis reads of the pass.
func needsOf(name string) needs {
	switch name {
	case "black_scenes":
		return needs{black: true}
	case "vendor_silence":
		return needs{silence: true}
	case "vendor_color_bars":
		return needs{samples: true}
	case "vendor_start_end":
		return needs{black: true, silence: true, samples: true}
	case "audiopeak":
		return needs{loudness: true}
	case "volumedetect":
		return needs{volume: true}
	}
	return needs{}
}

// pass is one decode of a file and what it measured.
type pass struct {
	asked   needs // what the pass was built for
	video   bool  // the video stream was decoded
	audio   bool  // the audio stream was decoded
	report  *Report
	samples []sampleInfo
	// end is how much of the file was decoded, in seconds.
	end float64
	// frameRate of the video stream (0 unknown), to close black
	// stretches that run to the end.
	videoRate float64
}

// passKey is the Input.Shared key of the pass.
const passKey = "broadcast.pass"

// analyse returns the decode pass of the file for the analysis self: one
// ffmpeg run per harvest of the file, measuring what every broadcast
// analysis requested in the harvest needs (Input.Requested), whichever
// runs first.
func analyse(ctx context.Context, run *extractors.Runner, in *extractors.Input, probe *av.Probe, self string) (*pass, error) {
	want := needsOf(self)
	for _, name := range in.Requested {
		want = want.or(needsOf(name))
	}
	v, err := in.Shared(passKey, func() (any, error) { return decode(ctx, run, in.Path, probe, want, maxDecodeSeconds) })
	if err == nil && !v.(*pass).asked.covers(needsOf(self)) {
		// Only when the caller was not among Requested (a direct call).
		v, err = in.Shared(passKey+"."+self, func() (any, error) {
			return decode(ctx, run, in.Path, probe, needsOf(self), maxDecodeSeconds)
		})
	}
	if err != nil {
		return nil, err
	}
	return v.(*pass), nil
}

// hasVideo: the file has a moving picture (not only a cover or a still).
func hasVideo(p *av.Probe) bool { return p.Video() != nil && !p.IsStill() }

func hasAudio(p *av.Probe) bool { return p.Audio() != nil }

// decode runs the pass: one ffmpeg process, one filter graph holding the
// filters want asks for on the streams the file has, its log parsed as it
// comes and its video samples piped to Go.
func decode(ctx context.Context, run *extractors.Runner, path string, probe *av.Probe, want needs, capSeconds int) (*pass, error) {
	p := &pass{asked: want}
	var graph []string
	var outputs []string
	var nullMaps []string
	if v := probe.Video(); v != nil && !probe.IsStill() && (want.black || want.samples) {
		p.video, p.videoRate = true, v.FrameRate()
		chain := []string{}
		if want.black {
			chain = append(chain, blackFilter)
		}
		if want.samples {
			chain = append(chain, samplesFilter)
			graph = append(graph, fmt.Sprintf("[0:%d]%s[samples]", v.Index, strings.Join(chain, ",")))
			outputs = append(outputs, "-map", "[samples]", "-fps_mode", "passthrough", "-f", "rawvideo", "pipe:1")
		} else {
			graph = append(graph, fmt.Sprintf("[0:%d]%s[video]", v.Index, strings.Join(chain, ",")))
			nullMaps = append(nullMaps, "-map", "[video]")
		}
	}
	if a := probe.Audio(); a != nil && (want.silence || want.loudness || want.volume) {
		p.audio = true
		var chain []string
		if want.loudness {
			chain = append(chain, loudnessFilter)
		}
		if want.silence {
			chain = append(chain, silenceFilter)
		}
		if want.volume {
			chain = append(chain, volumeFilter)
		}
		graph = append(graph, fmt.Sprintf("[0:%d]%s[audio]", a.Index, strings.Join(chain, ",")))
		nullMaps = append(nullMaps, "-map", "[audio]")
	}
	if len(graph) == 0 {
		return nil, fmt.Errorf("no stream to analyse: %w", extractors.ErrUnsupported)
	}
	if len(nullMaps) > 0 {
		outputs = append(outputs, append(nullMaps, "-f", "null", "-")...)
	}
	args := []string{"-nostdin", "-nostats", "-v", "info", "-t", strconv.Itoa(capSeconds)}
	args = append(args, av.InputArgs(path)...)
	args = append(args, "-filter_complex", strings.Join(graph, ";"))
	args = append(args, outputs...)

	maxSamples := capSeconds*frameRate + 64
	log, frames := newLogParser(), newFrameSink(maxSamples)
	cmd := extractors.Cmd{Name: "ffmpeg", Args: args, Heavy: true, Stderr: log,
		MaxOutput: (maxSamples + 1) * frameBytes}
	if want.samples && p.video {
		cmd.Stdout = frames
	}
	_, err := run.Run(ctx, cmd)
	if err != nil {
		if ctx.Err() != nil && log.seen > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// ffmpeg ran (it always speaks first) until the time limit:
			// the same file would again, so the failure is kept for the
			// other analyses of the file instead of each decoding anew.
			return nil, fmt.Errorf("decode did not finish within the analyses' limit (%s)", ctx.Err())
		}
		return nil, fmt.Errorf("ffmpeg decode: %w", err)
	}
	p.report = log.finish()
	p.samples = frames.samples
	p.end = p.report.End
	if p.end <= 0 {
		// No progress line (an older ffmpeg): the declared duration,
		// within the cap.
		p.end = min(probe.Duration(), float64(capSeconds))
	}
	p.end = max(p.end, sampleTime(len(p.samples)))
	p.end = min(p.end, float64(capSeconds))
	return p, nil
}

// blackRanges are blackdetect's stretches. blackdetect ends a stretch
// that runs to the end of the file at the start of its last frame: such a
// stretch is closed at the end of the decode.
func (p *pass) blackRanges() []Range {
	rs := clip(p.report.Black, p.end)
	if n := len(rs); n > 0 {
		frame := 0.1
		if p.videoRate > 0 {
			frame = 1 / p.videoRate
		}
		if rs[n-1].End >= p.end-1.5*frame {
			rs[n-1].End = p.end
		}
	}
	return rs
}

// silenceRanges are silencedetect's stretches.
func (p *pass) silenceRanges() []Range { return clip(p.report.Silence, p.end) }
