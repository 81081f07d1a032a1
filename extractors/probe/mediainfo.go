package probe

import (
	"context"
	"fmt"
	"math"
	"path"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// mediainfo is the technical description of an audio or video file: its
// container, every stream, and the main video and audio streams in detail.
// It reads the file's shared ffprobe reading (extractors/shared/av) and, for
// MP4/MOV files, the shared box walk for what ffprobe does not say (whether
// the frame rate is constant).
//
// The MediaInfo program itself is not run. Measured here (MediaInfo 23.04,
// ffprobe 5.1, ten runs each) it would add 30 to 50 % to ffprobe's cost per
// file (21 ms to 72 ms on mp4.mp4, 41 to 98 ms on a 50 MB 1080p MP4, 36 to
// 73 ms on an MPEG-2 transport stream), and it follows references to other
// files and URLs: an HLS playlist named .mp4 made it fetch its segment
// over HTTP and open a local file it named; QuickTime and MXF references
// open other local files too. A harvest of untrusted files must do
// neither. What it alone gave is derived from ffprobe's reading and the box
// walk instead: frame rate mode, scan order, usual codec names.
func init() {
	extractors.MustRegister(mediainfoInfo)
}

var mediainfoInfo = extractors.Info{
	Name:           "mediainfo",
	DisplayName:    "Media Info",
	Family:         extractors.FamilyTechnical,
	Version:        "1.0.0",
	Implemented:    true,
	RangeReads:     true,
	DefaultEnabled: true,
	Tools:          []string{"ffprobe"},
	Accept:         acceptMediainfo,
	Fields: []extractors.Field{
		{Path: "format", Type: extractors.TypeString, Doc: "container format as ffprobe names it (\"mov,mp4,m4a,3gp,3g2,mj2\", \"matroska,webm\", \"mpegts\")"},
		{Path: "format_long_name", Type: extractors.TypeString, Doc: "container format in words (\"QuickTime / MOV\")", Label: "Container"},
		{Path: "duration", Type: extractors.TypeNumber, Doc: "seconds, 3 decimals"},
		{Path: "start_time", Type: extractors.TypeNumber, Doc: "seconds of the first timestamp, 3 decimals"},
		{Path: "bit_rate", Type: extractors.TypeNumber, Doc: "overall bit rate, bits per second", Label: "Overall bit rate"},
		{Path: "size", Type: extractors.TypeNumber, Doc: "bytes"},
		{Path: "stream_count", Type: extractors.TypeNumber, Doc: "streams of every kind"},
		{Path: "video_stream_count", Type: extractors.TypeNumber, Doc: "video streams, cover pictures excluded"},
		{Path: "audio_stream_count", Type: extractors.TypeNumber, Doc: "audio streams"},
		{Path: "subtitle_stream_count", Type: extractors.TypeNumber, Doc: "subtitle and caption streams"},
		{Path: "chapter_count", Type: extractors.TypeNumber, Doc: "chapter marks"},
		{Path: "title", Type: extractors.TypeString, Doc: "title tag of the container"},
		{Path: "encoder", Type: extractors.TypeString, Doc: "encoder or writing application tag"},
		{Path: "creation_time", Type: extractors.TypeDate, Doc: "when the container says the file was made (UTC)", Label: "Recorded"},
		{Path: "timecode", Type: extractors.TypeString, Doc: "start timecode HH:MM:SS:FF (\";\" before FF for drop frame)", Label: "Start timecode"},
		{Path: "languages", Type: extractors.TypeString, Doc: "list of the streams' languages as tagged (ISO 639-2 in most containers)"},
		{Path: "streams.index", Type: extractors.TypeNumber, Doc: "stream index in the container (list of the first 64 streams)"},
		{Path: "streams.id", Type: extractors.TypeString, Doc: "container's id of the stream (MPEG-TS PID, MP4 track id), hexadecimal"},
		{Path: "streams.type", Type: extractors.TypeString, Doc: "video, audio, subtitle, data or attachment"},
		{Path: "streams.codec", Type: extractors.TypeString, Doc: "codec as ffprobe names it (h264, aac)"},
		{Path: "streams.format", Type: extractors.TypeString, Doc: "usual name of the codec (AVC, AAC)"},
		{Path: "streams.profile", Type: extractors.TypeString, Doc: "codec profile (High, LC)"},
		{Path: "streams.level", Type: extractors.TypeString, Doc: "codec level (\"4.1\", \"Main\")"},
		{Path: "streams.language", Type: extractors.TypeString, Doc: "language tag"},
		{Path: "streams.title", Type: extractors.TypeString, Doc: "title tag"},
		{Path: "streams.default", Type: extractors.TypeBool, Doc: "marked default"},
		{Path: "streams.forced", Type: extractors.TypeBool, Doc: "marked forced"},
		{Path: "streams.cover_art", Type: extractors.TypeBool, Doc: "an attached picture (cover art), not a video"},
		{Path: "video.codec", Type: extractors.TypeString, Doc: "codec of the main video stream as ffprobe names it"},
		{Path: "video.codec_long_name", Type: extractors.TypeString, Doc: "codec in words"},
		{Path: "video.format", Type: extractors.TypeString, Doc: "usual name of the codec (AVC, HEVC, MPEG Video, ProRes)", Label: "Video codec"},
		{Path: "video.profile", Type: extractors.TypeString, Doc: "codec profile"},
		{Path: "video.level", Type: extractors.TypeString, Doc: "codec level"},
		{Path: "video.width", Type: extractors.TypeNumber, Doc: "pixels"},
		{Path: "video.height", Type: extractors.TypeNumber, Doc: "pixels"},
		{Path: "video.resolution", Type: extractors.TypeString, Doc: "WIDTHxHEIGHT in pixels (\"1920x1080\")"},
		{Path: "video.aspect_ratio", Type: extractors.TypeString, Doc: "display aspect ratio, reduced (\"16:9\")"},
		{Path: "video.sample_aspect_ratio", Type: extractors.TypeString, Doc: "pixel aspect ratio (\"1:1\", \"64:45\")"},
		{Path: "video.frame_rate", Type: extractors.TypeNumber, Doc: "frames per second, 3 decimals", Label: "Frame rate (fps)"},
		{Path: "video.frame_rate_mode", Type: extractors.TypeString, Doc: "CFR (constant) or VFR (variable); MP4/MOV only, from the sample durations", Label: "Frame rate mode"},
		{Path: "video.scan_type", Type: extractors.TypeString, Doc: "progressive or interlaced", Label: "Scan"},
		{Path: "video.field_order", Type: extractors.TypeString, Doc: "tff or bff: the field shown first of interlaced video"},
		{Path: "video.bit_depth", Type: extractors.TypeNumber, Doc: "bits per sample"},
		{Path: "video.pixel_format", Type: extractors.TypeString, Doc: "decoder pixel format (yuv420p10le)"},
		{Path: "video.chroma_subsampling", Type: extractors.TypeString, Doc: "4:2:0, 4:2:2, 4:4:4 ... (absent for RGB)", Label: "Chroma subsampling"},
		{Path: "video.color_space", Type: extractors.TypeString, Doc: "matrix coefficients (bt709, bt2020nc)", Label: "Colour matrix"},
		{Path: "video.color_primaries", Type: extractors.TypeString, Doc: "colour primaries (bt709, bt2020)", Label: "Colour primaries"},
		{Path: "video.color_transfer", Type: extractors.TypeString, Doc: "transfer characteristics (bt709, smpte2084, arib-std-b67)", Label: "Transfer characteristics"},
		{Path: "video.color_range", Type: extractors.TypeString, Doc: "limited or full"},
		{Path: "video.hdr", Type: extractors.TypeString, Doc: "HDR format signalled: Dolby Vision, HDR10, PQ, HLG (absent for SDR)", Label: "HDR"},
		{Path: "video.bit_rate", Type: extractors.TypeNumber, Doc: "bits per second", Label: "Video bit rate"},
		{Path: "video.frame_count", Type: extractors.TypeNumber, Doc: "frames: the container's count, else duration x frame rate"},
		{Path: "video.rotation", Type: extractors.TypeNumber, Doc: "degrees clockwise to turn the picture for display (0, 90, 180, 270)"},
		{Path: "video.duration", Type: extractors.TypeNumber, Doc: "seconds, 3 decimals"},
		{Path: "audio.codec", Type: extractors.TypeString, Doc: "codec of the main audio stream as ffprobe names it"},
		{Path: "audio.codec_long_name", Type: extractors.TypeString, Doc: "codec in words"},
		{Path: "audio.format", Type: extractors.TypeString, Doc: "usual name of the codec (AAC, AC-3, PCM, MPEG Audio)", Label: "Audio codec"},
		{Path: "audio.profile", Type: extractors.TypeString, Doc: "codec profile (LC, HE-AAC)"},
		{Path: "audio.channels", Type: extractors.TypeNumber, Doc: "channel count"},
		{Path: "audio.channel_layout", Type: extractors.TypeString, Doc: "channel layout (stereo, 5.1(side))", Label: "Channel layout"},
		{Path: "audio.sample_rate", Type: extractors.TypeNumber, Doc: "samples per second (Hz)", Label: "Sample rate (Hz)"},
		{Path: "audio.bit_depth", Type: extractors.TypeNumber, Doc: "bits per sample (PCM and lossless codecs)"},
		{Path: "audio.bit_rate", Type: extractors.TypeNumber, Doc: "bits per second", Label: "Audio bit rate"},
		{Path: "audio.language", Type: extractors.TypeString, Doc: "language tag"},
		{Path: "audio.duration", Type: extractors.TypeNumber, Doc: "seconds, 3 decimals"},
	},
	New: newReader(readMediainfo),
}

// acceptMediainfo takes audio and video files, and playlists named as
// media files: those are refused (readMediainfo), so that a "video" that
// is an HLS playlist pointing at URLs and local files is a recorded error
// of the item, not a file no extractor explained.
func acceptMediainfo(f extractors.File) bool {
	return acceptMIME(mediaMIME, mediaExts...)(f) || disguisedPlaylist(f.MIME, f.Ext)
}

// readMediainfo describes the shared ffprobe reading of the item, with the
// box walk of an MP4 or QuickTime file. A playlist named as a media file
// is refused before any tool reads it.
func readMediainfo(ctx context.Context, run *extractors.Runner, in *extractors.Input) (map[string]any, error) {
	if ext := strings.ToLower(strings.TrimPrefix(path.Ext(in.Name), ".")); disguisedPlaylist(in.MIME, ext) {
		return nil, fmt.Errorf("a playlist (%s) named .%s, not a media file: refused, nothing it names is opened or fetched", in.MIME, ext)
	}
	p, err := av.Read(ctx, run, in)
	if err != nil {
		return nil, err
	}
	var boxes *mp4Info
	if strings.Contains(p.Format.FormatName, "mp4") || strings.Contains(p.Format.FormatName, "mov") {
		if boxes, err = mp4Of(ctx, in); err != nil {
			return nil, err
		}
	}
	return describeMedia(p, boxes), nil
}

// describeMedia turns an ffprobe reading (and the box walk of an MP4, or
// nil) into mediainfo's data.
func describeMedia(p *av.Probe, boxes *mp4Info) map[string]any {
	d := obj{}
	d.str("format", p.Format.FormatName)
	d.str("format_long_name", p.Format.FormatLongName)
	d.seconds("duration", p.Duration())
	if st := av.Seconds(p.Format.StartTime); st > 0 {
		d.seconds("start_time", st)
	}
	d.count("bit_rate", av.Int(p.Format.BitRate))
	d.count("size", av.Int(p.Format.Size))
	counts := map[string]int{}
	var streams []any
	for i := range p.Streams {
		s := &p.Streams[i]
		kind := s.CodecType
		if kind == "video" && s.Disposition["attached_pic"] != 0 {
			kind = "cover"
		}
		counts[kind]++
		if len(streams) < maxStreamsListed {
			streams = append(streams, describeStream(s))
		}
	}
	d["stream_count"] = len(p.Streams)
	d["video_stream_count"] = counts["video"]
	d["audio_stream_count"] = counts["audio"]
	d["subtitle_stream_count"] = counts["subtitle"]
	d["chapter_count"] = len(p.Chapters)
	if len(streams) > 0 {
		d["streams"] = streams
	}
	d.str("title", av.Tag(p.Format.Tags, "title"))
	enc := av.Tag(p.Format.Tags, "encoder")
	if enc == "" {
		enc = av.Tag(p.Format.Tags, "encoded_by")
	}
	d.str("encoder", enc)
	if t := p.CreationTime(); !t.IsZero() {
		d["creation_time"] = t.Format(time.RFC3339)
	}
	d.str("timecode", p.Timecode())
	if langs := p.Languages(); len(langs) > 0 {
		d["languages"] = langs
	}
	if v := p.Video(); v != nil && !p.IsStill() {
		d["video"] = describeVideo(p, v, boxes)
	}
	if a := mainAudio(p); a != nil {
		d["audio"] = describeAudio(p, a)
	}
	return d
}

func describeStream(s *av.Stream) obj {
	o := obj{"index": s.Index, "type": s.CodecType}
	o.str("id", s.ID)
	o.str("codec", s.CodecName)
	if s.CodecName != "" {
		o.str("format", formatName(s))
	}
	o.str("profile", s.Profile)
	o.str("level", levelName(s))
	o.str("language", s.Language())
	o.str("title", s.Title())
	o["default"] = s.IsDefault()
	o["forced"] = s.IsForced()
	if s.Disposition["attached_pic"] != 0 {
		o["cover_art"] = true
	}
	return o
}

func describeVideo(p *av.Probe, v *av.Stream, boxes *mp4Info) obj {
	o := obj{}
	o.str("codec", v.CodecName)
	o.str("codec_long_name", v.CodecLongName)
	o.str("format", formatName(v))
	o.str("profile", v.Profile)
	o.str("level", levelName(v))
	if v.Width > 0 && v.Height > 0 {
		o["width"], o["height"] = v.Width, v.Height
		o["resolution"] = fmt.Sprintf("%dx%d", v.Width, v.Height)
		o.str("aspect_ratio", displayAspect(v))
	}
	if sar, ok := ratioOf(v.SampleAspectRatio); ok {
		o["sample_aspect_ratio"] = sar
	}
	fps := v.FrameRate()
	if fps > 0 && fps < 1000 {
		o["frame_rate"] = round3(fps)
	}
	if boxes != nil {
		for i := range boxes.Tracks {
			if boxes.Tracks[i].Handler == "vide" {
				o.str("frame_rate_mode", boxes.Tracks[i].FrameRateMode())
				break
			}
		}
	}
	scan, order := v.ScanType()
	o.str("scan_type", scan)
	o.str("field_order", order)
	o.count("bit_depth", int64(v.BitDepth()))
	o.str("pixel_format", v.PixFmt)
	o.str("chroma_subsampling", v.ChromaSubsampling())
	o.str("color_space", v.ColorSpace)
	o.str("color_primaries", v.ColorPrimaries)
	o.str("color_transfer", v.ColorTransfer)
	switch v.ColorRange {
	case "tv":
		o["color_range"] = "limited"
	case "pc":
		o["color_range"] = "full"
	}
	o.str("hdr", v.HDR())
	o.count("bit_rate", streamBitRate(v))
	dur := streamDuration(p, v)
	o.seconds("duration", dur)
	frames := av.Int(v.NbFrames)
	if frames <= 0 {
		frames = av.Int(av.Tag(v.Tags, "NUMBER_OF_FRAMES"))
	}
	if frames <= 0 && fps > 0 && fps < 1000 && dur > 0 {
		frames = int64(math.Round(dur * fps))
	}
	o.count("frame_count", frames)
	o["rotation"] = v.Rotation()
	return o
}

func describeAudio(p *av.Probe, a *av.Stream) obj {
	o := obj{}
	o.str("codec", a.CodecName)
	o.str("codec_long_name", a.CodecLongName)
	o.str("format", formatName(a))
	o.str("profile", a.Profile)
	o.count("channels", int64(a.Channels))
	o.str("channel_layout", a.ChannelLayout)
	o.count("sample_rate", av.Int(a.SampleRate))
	o.count("bit_depth", int64(a.AudioBitDepth()))
	o.count("bit_rate", streamBitRate(a))
	o.str("language", a.Language())
	o.seconds("duration", streamDuration(p, a))
	return o
}
