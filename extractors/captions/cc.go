package captions

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// ccProbeFrames is how many frames of a video stream are decoded to look
// for closed captions. Broadcast video carries its caption channel in
// every frame (padding when nobody speaks), so the first frames tell.
// ffprobe's own closed_captions flag is not used: it is set only when its
// stream analysis happens to decode a frame with captions, which for an
// MP4 it often does not.
const ccProbeFrames = 60

// hasA53 reports whether the first frames of a video stream carry ATSC
// A/53 closed captions (CEA-608/708 in H.264/HEVC SEI or MPEG-2 user
// data): ffprobe decodes ccProbeFrames of them and lists their side data.
func hasA53(ctx context.Context, run *extractors.Runner, path string, stream int) (bool, error) {
	args := append([]string{"-v", "error", "-select_streams", strconv.Itoa(stream),
		"-read_intervals", "%+#" + strconv.Itoa(ccProbeFrames), "-show_entries", "frame_side_data=side_data_type",
		"-of", "csv=p=0"}, av.InputArgs(path)...)
	out, err := run.Run(ctx, extractors.Cmd{Name: "ffprobe", Args: args, MaxOutput: 1 << 20, MaxMemory: 2 << 30, Heavy: true})
	if err != nil {
		if ctx.Err() != nil {
			return false, extractors.Transient(err)
		}
		return false, fmt.Errorf("look for closed captions: %w", err)
	}
	return sideDataHasA53(out), nil
}

// sideDataHasA53 reads ffprobe's list of frame side data types.
func sideDataHasA53(out []byte) bool {
	return bytes.Contains(out, []byte("A53 Part 4 Closed Captions"))
}

// demuxerName is the ffmpeg demuxer of a format_name ffprobe reported
// ("mov,mp4,m4a,3gp,3g2,mj2" is read by "mov"), if it is one of the media
// demuxers extractors may use.
func demuxerName(formatName string) (string, bool) {
	for _, d := range av.Demuxers {
		if d == formatName {
			first, _, _ := strings.Cut(d, ",")
			return first, true
		}
	}
	return "", false
}

// readA53 decodes the video stream and returns the closed captions of its
// frames (CC1, as ffmpeg's cc_dec decodes them) as SubRip, parsed. The
// only way ffmpeg 5.1 exposes them is the subcc output of the movie
// source, so the input is a filter graph: the movie source opens a
// symlink named "in" in a temporary directory (no path to escape in the
// graph), with the demuxer forced to the one ffprobe found (no probing,
// so no playlist demuxer can be picked and fetch anything).
func readA53(ctx context.Context, run *extractors.Runner, path, demuxer string, stream int) (*Parsed, error) {
	dir, err := os.MkdirTemp("", "captions-cc-*")
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("temporary directory: %w", err))
	}
	defer os.RemoveAll(dir)
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, extractors.Transient(err)
	}
	if err := os.Symlink(abs, filepath.Join(dir, "in")); err != nil {
		return nil, extractors.Transient(fmt.Errorf("link input: %w", err))
	}
	if !validDemuxer(demuxer) {
		return nil, fmt.Errorf("demuxer %q cannot be forced", demuxer)
	}
	graph := fmt.Sprintf("movie=filename=in:format_name=%s:stream_index=%d[out0+subcc]", demuxer, stream)
	args := []string{"-nostdin", "-hide_banner", "-v", "error", "-format_whitelist", "lavfi", "-f", "lavfi", "-i", graph,
		"-map", "0:s:0", "-fs", strconv.Itoa(maxTrackOutput), "-f", "srt", "pipe:1"}
	out, err := run.Run(ctx, extractors.Cmd{Name: "ffmpeg", Args: args, Dir: dir, Heavy: true,
		MaxOutput: maxTrackOutput + 1<<20, MaxMemory: 2 << 30})
	if err != nil {
		if ctx.Err() != nil {
			return nil, extractors.Transient(err)
		}
		return nil, fmt.Errorf("decode closed captions: %w", err)
	}
	p, err := parseFFmpegSRT(out)
	if err != nil {
		return nil, fmt.Errorf("decode closed captions: %w", err)
	}
	p.Format = "eia_608"
	return p, nil
}

func validDemuxer(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return slices.ContainsFunc(av.Demuxers, func(d string) bool {
		first, _, _ := strings.Cut(d, ",")
		return first == name
	})
}
