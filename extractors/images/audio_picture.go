package images

import (
	"context"
	"fmt"
	"image"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/office"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// A recording's picture is its cover art (the picture tagged in an MP3,
// FLAC, M4A or Ogg file) when it has one ffmpeg decodes, and otherwise
// its waveform: the whole recording, mixed to mono, drawn as peaks over
// white, so that a search page of recordings shows which are
// speech, music or silence before anyone plays them.

// Audio picture kinds (the thumbnailer's field picture).
const (
	pictureCoverArt = "cover_art"
	pictureWaveform = "waveform"
)

// Waveform geometry and colour: 8:3, as wide as the large thumbnail, the
// peaks in the UI's link blue, amplitudes on a square root scale (quiet
// passages stay visible). ffmpeg draws them over a transparent ground,
// which Fit lays over white (compositing in ffmpeg's overlay filter
// depends on the stream's timestamps: an Opus WebM came out blank).
const (
	waveformWidth  = 1280
	waveformHeight = 480
	waveformColor  = "0x1f4e8c"
)

// acceptThumbnailable takes the pictures and videos AcceptPictures takes,
// recordings (audio/*) but MIDI, which holds no sound to draw, and office
// documents.
func acceptThumbnailable(f extractors.File) bool {
	if strings.HasPrefix(f.MIME, "audio/") {
		return !strings.Contains(f.MIME, "midi")
	}
	return AcceptPictures(f) || office.Accept(f)
}

// audio makes the picture of a recording. A file without an audio stream
// is not one (ErrUnsupported: nothing recorded).
func (t *thumbnailer) audio(ctx context.Context, in *extractors.Input, res *extractors.Result, maxSide int) (*Picture, error) {
	probe, a, err := av.ReadAudio(ctx, t.run, in)
	if err != nil {
		return nil, err
	}
	if cover := coverArt(probe); cover != nil && t.load.check(cover.Width, cover.Height) == nil {
		img, err := t.cover(ctx, in.Path, maxSide)
		if err == nil {
			res.Data["picture"] = pictureCoverArt
			res.Data["source"] = map[string]any{"width": cover.Width, "height": cover.Height, "decoder": "ffmpeg", "format": doctext.Cut(cover.CodecName, 64)}
			return &Picture{Image: img, Width: cover.Width, Height: cover.Height, Orientation: 1, Format: cover.CodecName, Decoder: "ffmpeg"}, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		// A cover ffmpeg cannot decode: the waveform stands for the file.
	}
	img, err := t.waveform(ctx, in.Path, maxSide)
	if err != nil {
		return nil, err
	}
	res.Data["picture"] = pictureWaveform
	res.Data["source"] = map[string]any{"width": waveformWidth, "height": waveformHeight, "decoder": "ffmpeg", "format": doctext.Cut(a.CodecName, 64)}
	return &Picture{Image: img, Width: waveformWidth, Height: waveformHeight, Orientation: 1, Format: a.CodecName, Decoder: "ffmpeg"}, nil
}

// coverArt is the picture attached to a recording, if any.
func coverArt(p *av.Probe) *av.Stream {
	for i, s := range p.Streams {
		if s.CodecType == "video" && s.Disposition["attached_pic"] != 0 {
			return &p.Streams[i]
		}
	}
	return nil
}

// cover decodes the attached picture (ffmpeg's first video stream).
func (t *thumbnailer) cover(ctx context.Context, path string, maxSide int) (*image.RGBA, error) {
	b, err := FFmpegPNG(ctx, t.run, nil, path, FitFilter(maxSide), maxSide)
	if err != nil {
		return nil, err
	}
	return DecodePNG(b, maxSide)
}

// waveform draws the first audio stream of path, decoded in full.
func (t *thumbnailer) waveform(ctx context.Context, path string, maxSide int) (*image.RGBA, error) {
	graph := fmt.Sprintf("[0:a:0]aformat=channel_layouts=mono,showwavespic=s=%dx%d:colors=%s:scale=sqrt,%s[v]",
		waveformWidth, waveformHeight, waveformColor, FitFilter(maxSide))
	args := append([]string{"-nostdin"}, av.InputArgs(path)...)
	out, err := ffmpegFrame(ctx, t.run, append(args, "-filter_complex", graph, "-map", "[v]"), "rgba", maxSide)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("waveform: %w", err)
	}
	img, err := DecodePNG(out, maxSide)
	if err != nil {
		return nil, fmt.Errorf("waveform: %w", err)
	}
	return img, nil
}
