package ocr

import "github.com/metaharvest/metaharvest/extractors"

// frameFactFields declares what frameFacts writes, after fields.
func frameFactFields(fields ...extractors.Field) []extractors.Field {
	return append(fields,
		extractors.Field{Path: "frames_source", Type: extractors.TypeString, Doc: "where the frames read came from: video_main_frames, or sampled (every 2 s in the first and last minute, evenly between)"},
		extractors.Field{Path: "frame_interval", Type: extractors.TypeNumber, Doc: "seconds between regular frames: times are exact to it"},
		extractors.Field{Path: "analysed_duration", Type: extractors.TypeNumber, Doc: "seconds of video the frames cover"},
		extractors.Field{Path: "frames_read", Type: extractors.TypeNumber, Doc: "frames whose text was read"},
	)
}

// rangeFields declares a list of ranges under key.
func rangeFields(key string) []extractors.Field {
	return []extractors.Field{
		{Path: key + ".start", Type: extractors.TypeNumber, Doc: "seconds"},
		{Path: key + ".end", Type: extractors.TypeNumber, Doc: "seconds"},
		{Path: key + ".duration", Type: extractors.TypeNumber, Doc: "seconds"},
	}
}

// acceptVideo is what the frame analyses accept: videos.
func acceptVideo() func(extractors.File) bool {
	return extractors.AcceptMIME([]string{"video/", "application/mxf"}, videoExts...)
}

// analysisAfter: the analyses read tesseract's frames when it ran, else the
// frames of video_main_frames, and the still-and-silent slates of
// vendor_start_end.
var analysisAfter = []string{"tesseract", "video_main_frames", "vendor_start_end"}

// newAnalysis makes a frame analysis around the package's engine.
func newAnalysis(make func(e *engine) extractors.Extractor) func(extractors.Env) (extractors.Extractor, error) {
	return func(env extractors.Env) (extractors.Extractor, error) {
		e, err := newEngine(env)
		if err != nil {
			return nil, err
		}
		return make(e), nil
	}
}
