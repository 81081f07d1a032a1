package video

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// What the two preview extractors share: the encode into a temporary file
// of the extractor's artifact directory, the reading of what was written,
// the extent check, and the data reported.

// previewFields are the fields both preview extractors write.
var previewFields = []extractors.Field{
	{Path: "path", Type: extractors.TypeString, Doc: "preview file relative to the extractor's artifact directory", Internal: true},
	{Path: "format", Type: extractors.TypeString, Doc: "container of the preview (mp4)"},
	{Path: "mime_type", Type: extractors.TypeString, Doc: "MIME type the preview is served with"},
	{Path: "duration", Type: extractors.TypeNumber, Doc: "seconds"},
	{Path: "bit_rate", Type: extractors.TypeNumber, Doc: "bits per second, all streams"},
	{Path: "size", Type: extractors.TypeNumber, Doc: "bytes"},
	{Path: "audio_codec", Type: extractors.TypeString, Doc: "aac; absent without sound"},
}

// encodePreview runs ffmpeg (args end with the output file:tmp) in dir,
// reads the file it wrote, checks that it covers what the source declares
// (checkExtent), and renames it to final. On any failure nothing is left.
func encodePreview(ctx context.Context, run *extractors.Runner, dir, tmp, final string, args []string, declared, limit float64) (*av.Probe, int64, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, extractors.Transient(fmt.Errorf("make preview directory: %w", err))
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(dir)
		}
	}()
	if _, err := run.Run(ctx, extractors.Cmd{Name: "ffmpeg", Args: args, Dir: dir, Heavy: true,
		MaxMemory: decodeMemory, MaxOutput: 1 << 20}); err != nil {
		if ctx.Err() != nil {
			return nil, 0, err
		}
		return nil, 0, fmt.Errorf("encode preview: %w", err)
	}
	path := filepath.Join(dir, tmp)
	out, err := run.Run(ctx, extractors.Cmd{Name: "ffprobe", MaxOutput: 1 << 20, MaxMemory: 1 << 30,
		Args: append([]string{"-v", "error", "-print_format", "json", "-show_format", "-show_streams"}, av.InputArgs(path)...)})
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, err
		}
		return nil, 0, fmt.Errorf("read preview: %w", err)
	}
	p, err := av.Parse(out)
	if err != nil {
		return nil, 0, fmt.Errorf("read preview: %w", err)
	}
	if err := checkExtent(declared, p.Duration(), limit); err != nil {
		return nil, 0, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, extractors.Transient(fmt.Errorf("stat preview: %w", err))
	}
	if err := os.Rename(path, filepath.Join(dir, final)); err != nil {
		return nil, 0, extractors.Transient(fmt.Errorf("keep preview: %w", err))
	}
	ok = true
	return p, fi.Size(), nil
}

// previewData is the Data of a preview read back by ffprobe.
func previewData(p *av.Probe, size int64, rel, mime string) map[string]any {
	d := map[string]any{
		"path": rel, "format": "mp4", "mime_type": mime, "size": size,
		"duration": math.Round(p.Duration()*1000) / 1000,
		"bit_rate": av.Int(p.Format.BitRate),
	}
	if v := p.Video(); v != nil {
		d["width"], d["height"], d["video_codec"] = v.Width, v.Height, v.CodecName
	}
	if a := p.Audio(); a != nil {
		d["audio_codec"] = a.CodecName
	}
	return d
}

// audioArgs encode the audio stream at index to AAC at bitRate bits per
// second, down-mixed to stereo and at most 48 kHz (what every browser
// plays).
func audioArgs(a *av.Stream, bitRate int) []string {
	args := []string{"-map", fmt.Sprintf("0:%d", a.Index), "-c:a", "aac", "-b:a", fmt.Sprint(bitRate)}
	if a.Channels == 0 || a.Channels > 2 {
		args = append(args, "-ac", "2")
	}
	if sr := av.Int(a.SampleRate); sr < 8000 || sr > 48000 {
		args = append(args, "-ar", "48000")
	}
	return args
}

// lengthArgs cap the output: a source honestly longer than the limit gets
// a preview of its first limit seconds; any other is read up to overshoot
// past the limit (decodeArgs) so that checkExtent sees one that goes on.
func lengthArgs(declared, limit float64) []string {
	if declared >= limit-1 {
		return []string{"-t", num(limit)}
	}
	return nil
}

// containerArgs write an MP4 whose index comes first, so that a browser
// starts playing before the whole file has arrived, without the source's
// tags and chapters.
var containerArgs = []string{"-map_metadata", "-1", "-map_chapters", "-1", "-sn", "-dn",
	"-max_muxing_queue_size", "1024", "-movflags", "+faststart", "-f", "mp4"}
