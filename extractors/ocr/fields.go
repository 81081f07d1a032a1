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
