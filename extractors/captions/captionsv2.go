package captions

import (
	"context"
	"slices"
	"strconv"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

func init() {
	fields := slices.Clone(trackSummaryFields)
	fields = append(fields,
		extractors.Field{Path: "closed_captions", Type: extractors.TypeBool, Doc: "a video stream carries CEA-608/708 closed captions"},
		extractors.Field{Path: "bitmap_tracks", Type: extractors.TypeNumber, Doc: "subtitle tracks that are pictures (DVD, DVB, PGS): found, not read"},
		extractors.Field{Path: "streams.index", Type: extractors.TypeNumber, Doc: "stream index in the file"},
		extractors.Field{Path: "streams.label", Type: extractors.TypeString, Doc: "label of its caption: the index, or cc:<index> for the closed captions of a video stream"},
		extractors.Field{Path: "streams.codec", Type: extractors.TypeString, Doc: "ffmpeg codec name (subrip, ass, mov_text, eia_608, hdmv_pgs_subtitle...)"},
		extractors.Field{Path: "streams.kind", Type: extractors.TypeString, Doc: "text, closed_captions, bitmap, teletext or other"},
		extractors.Field{Path: "streams.language", Type: extractors.TypeString, Doc: "language tag of the stream"},
		extractors.Field{Path: "streams.title", Type: extractors.TypeString, Doc: "title tag of the stream"},
		extractors.Field{Path: "streams.default", Type: extractors.TypeBool, Doc: "default track"},
		extractors.Field{Path: "streams.forced", Type: extractors.TypeBool, Doc: "forced subtitles (foreign dialogue only)"},
		extractors.Field{Path: "streams.hearing_impaired", Type: extractors.TypeBool, Doc: "subtitles for the deaf and hard of hearing"},
		extractors.Field{Path: "streams.cues", Type: extractors.TypeNumber, Doc: "cues read from it (absent when not read)"},
		extractors.Field{Path: "streams.error", Type: extractors.TypeString, Doc: "why it could not be read"},
	)
	extractors.MustRegister(extractors.Info{
		Name:           "captionsv2",
		DisplayName:    "Embedded Captions v2",
		Family:         extractors.FamilyCaptions,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Tools:          []string{"ffprobe", "ffmpeg"},
		Accept:         extractors.AcceptMIME([]string{"video/", "audio/"}, mediaExts...),
		Fields:         fields,
		New:            func(env extractors.Env) (extractors.Extractor, error) { return &captionsV2{run: env.Runner}, nil },
	})
}

var _ extractors.Extractor = (*captionsV2)(nil)

// captionsV2 reads what captions (v1) reads, and besides: CEA-608 caption
// tracks (c608 in QuickTime, eia_608 streams), the closed captions carried
// inside the main video stream (ATSC A/53 in H.264, HEVC and MPEG-2; found
// by decoding its first frames, read by decoding it whole), and it lists
// every subtitle stream with its metadata (codec, kind, language, title,
// default, forced, hearing impaired), bitmap and teletext subtitles
// included, which it does not read (no OCR, no teletext decoding).
type captionsV2 struct {
	run *extractors.Runner
}

func (x *captionsV2) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	e, err := readEmbedded(ctx, x.run, in)
	if err != nil {
		return nil, err
	}
	tracks := slices.Clone(e.tracks)
	probe, err := av.Read(ctx, x.run, in) // shared: read once per file
	if err != nil {
		return nil, err
	}
	cc := false
	if v := probe.Video(); v != nil && !probe.IsStill() {
		if demuxer, ok := demuxerName(probe.Format.FormatName); ok {
			found, err := hasA53(ctx, x.run, in.Path, v.Index)
			if err != nil && ctx.Err() != nil {
				return nil, err
			}
			if found {
				cc = true
				t := &track{Index: v.Index, Codec: "eia_608", Kind: kindCC, Label: "cc:" + strconv.Itoa(v.Index)}
				t.Parsed, t.Err = readA53(ctx, x.run, in.Path, demuxer, v.Index)
				if t.Err != nil && ctx.Err() != nil {
					return nil, t.Err
				}
				tracks = append(tracks, t)
			}
		}
	}
	if len(tracks) == 0 {
		return nil, extractors.ErrUnsupported
	}
	data := summary(tracks)
	bitmaps := 0
	streams := make([]any, 0, len(tracks))
	res := &extractors.Result{Data: data}
	for _, t := range tracks {
		if t.Kind == kindCC {
			cc = true
		}
		if t.Kind == kindBitmap {
			bitmaps++
		}
		s := map[string]any{"index": t.Index, "label": t.Label, "codec": t.Codec, "kind": t.Kind, "language": t.Language,
			"title": t.Title, "default": t.Default, "forced": t.Forced, "hearing_impaired": t.HearingImpaired}
		if t.Parsed != nil {
			s["cues"] = len(t.Parsed.Cues)
			if len(t.Parsed.Cues) > 0 {
				res.Captions = append(res.Captions, t.caption())
			}
		}
		if t.Err != nil {
			s["error"] = t.Err.Error()
		}
		streams = append(streams, s)
	}
	data["closed_captions"], data["bitmap_tracks"], data["streams"] = cc, bitmaps, streams
	return res, nil
}
