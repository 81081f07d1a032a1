package ocr

import (
	"context"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// frameAnalysis is one analysis of the text of a video's frames (slates,
// credits, vendor_digital_slates, vendor_texted, vendor_textless). They
// read the frames alike (videoText) and store the same facts about them
// (frameFacts); they differ by their rule, which each keeps in its own
// file with its registration.
type frameAnalysis struct {
	e    *engine
	rule func(in *extractors.Input, vr *videoReading) map[string]any
}

var _ extractors.Extractor = frameAnalysis{}

func (x frameAnalysis) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	vr, err := x.e.videoText(ctx, in)
	if err != nil {
		return nil, err
	}
	return &extractors.Result{Data: frameFacts(vr, x.rule(in, vr))}, nil
}

// registerAnalysis registers a frame analysis: info names it and declares
// the fields its rule writes; what the analyses share (their tools, After,
// Accept, time limit and settings, the engine, and the frame facts with
// their fields) is set here.
func registerAnalysis(info extractors.Info, rule func(in *extractors.Input, vr *videoReading) map[string]any) {
	info.Implemented = true
	info.Tools = []string{"tesseract", "ffmpeg", "ffprobe"}
	info.After = analysisAfter
	info.Accept = acceptVideo()
	info.Timeout = time.Hour
	info.Settings = settings
	info.Fields = frameFactFields(info.Fields...)
	info.New = func(env extractors.Env) (extractors.Extractor, error) {
		e, err := newEngine(env)
		if err != nil {
			return nil, err
		}
		return frameAnalysis{e: e, rule: rule}, nil
	}
	extractors.MustRegister(info)
}

// acceptVideo is what the frame analyses accept: videos.
func acceptVideo() func(extractors.File) bool {
	return extractors.AcceptMIME([]string{"video/", "application/mxf"}, videoExts...)
}

// analysisAfter: the analyses read tesseract's frames when it ran, else the
// frames of video_main_frames, and the still-and-silent slates of
// vendor_start_end.
var analysisAfter = []string{"tesseract", "video_main_frames", "vendor_start_end"}
