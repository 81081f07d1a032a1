package captions

import (
	"context"

	"github.com/metaharvest/metaharvest/extractors"
)

// mediaExts are container extensions that may hold subtitle tracks, for
// files whose MIME type mime_type does not know.
var mediaExts = []string{"mkv", "mka", "mks", "mp4", "m4v", "mov", "ts", "m2ts", "mts", "mxf", "webm", "avi", "ogv", "3gp"}

// Fields both embedded-caption extractors write.
var trackSummaryFields = []extractors.Field{
	{Path: "tracks", Type: extractors.TypeNumber, Doc: "subtitle tracks read into captions"},
	{Path: "languages", Type: extractors.TypeString, Doc: "languages of those tracks, from their tags (eng, fre)"},
	{Path: "formats", Type: extractors.TypeString, Doc: "their formats: srt, ass, mov_text, vtt, eia_608..."},
	{Path: "cues", Type: extractors.TypeNumber, Doc: "cues of those tracks in all"},
}

func init() {
	extractors.MustRegister(extractors.Info{
		Name:        "captions",
		DisplayName: "Embedded Captions",
		Family:      extractors.FamilyCaptions,
		Version:     "1.0.0",
		Implemented: true,
		// captionsv2 reads the same tracks and more; enabling both would
		// index every subtitle twice.
		DefaultEnabled: false,
		Tools:          []string{"ffprobe", "ffmpeg"},
		Accept:         extractors.AcceptMIME([]string{"video/", "audio/"}, mediaExts...),
		Fields:         trackSummaryFields,
		New:            func(env extractors.Env) (extractors.Extractor, error) { return &captionsV1{run: env.Runner}, nil },
	})
}

var _ extractors.Extractor = (*captionsV1)(nil)

// captionsV1 reads the text subtitle tracks of a file (SubRip, ASS/SSA and
// WebVTT in Matroska, mov_text in MP4/MOV, and the other text codecs
// ffmpeg decodes) into one Caption per track, labelled with the stream
// index, its language from the stream's tags. Closed captions and bitmap
// subtitles are left to captionsv2.
type captionsV1 struct {
	run *extractors.Runner
}

func (x *captionsV1) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	e, err := readEmbedded(ctx, x.run, in)
	if err != nil {
		return nil, err
	}
	var text []*track
	for _, t := range e.tracks {
		if t.Kind == kindText {
			text = append(text, t)
		}
	}
	if len(text) == 0 {
		return nil, extractors.ErrUnsupported
	}
	res := &extractors.Result{Data: summary(text)}
	for _, t := range text {
		if t.Parsed != nil && len(t.Parsed.Cues) > 0 {
			res.Captions = append(res.Captions, t.caption())
		}
	}
	if len(res.Captions) == 0 {
		if err := trackErrors(text); err != nil {
			return nil, err
		}
	}
	return res, nil
}
