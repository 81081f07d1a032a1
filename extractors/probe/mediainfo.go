package probe

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/av"
)

// mediainfo is the technical description of an audio or video file: its
// container, every stream, and the main video and audio streams in detail.
// It reads the file's shared ffprobe reading (extractors/av) and, for
// MP4/MOV files, the shared box walk for what ffprobe does not say (whether
// the frame rate is constant).
//
// The MediaInfo program itself is not run: on the sample set it adds 30 to
// 40 % to ffprobe's cost per file, and it follows references to other
// files and URLs (an HLS playlist named .mp4 makes it fetch its segments
// over HTTP; QuickTime and MXF references open other local files), which a
// harvest of untrusted files must not do. What it alone gave (frame rate
// mode, scan order, commercial names) is derived here.
func init() {
	extractors.MustRegister(mediainfoInfo)
}

var mediainfoInfo = extractors.Info{
	Name:           "mediainfo",
	DisplayName:    "Media Info",
	Version:        "1.0.0",
	Implemented:    true,
	DefaultEnabled: true,
	Tools:          []string{"ffprobe"},
	Accept:         acceptMIME(mediaMIME, mediaExts...),
	Fields: []extractors.Field{
		{Path: "format", Type: extractors.TypeString, Doc: "container format as ffprobe names it (\"mov,mp4,m4a,3gp,3g2,mj2\", \"matroska,webm\", \"mpegts\")"},
		{Path: "format_long_name", Type: extractors.TypeString, Doc: "container format in words (\"QuickTime / MOV\")"},
		{Path: "duration", Type: extractors.TypeNumber, Doc: "seconds, 3 decimals"},
		{Path: "start_time", Type: extractors.TypeNumber, Doc: "seconds of the first timestamp, 3 decimals"},
		{Path: "bit_rate", Type: extractors.TypeNumber, Doc: "overall bit rate, bits per second"},
		{Path: "size", Type: extractors.TypeNumber, Doc: "bytes"},
		{Path: "stream_count", Type: extractors.TypeNumber, Doc: "streams of every kind"},
		{Path: "video_stream_count", Type: extractors.TypeNumber, Doc: "video streams, cover pictures excluded"},
		{Path: "audio_stream_count", Type: extractors.TypeNumber, Doc: "audio streams"},
		{Path: "subtitle_stream_count", Type: extractors.TypeNumber, Doc: "subtitle and caption streams"},
		{Path: "chapter_count", Type: extractors.TypeNumber, Doc: "chapter marks"},
		{Path: "title", Type: extractors.TypeString, Doc: "title tag of the container"},
		{Path: "encoder", Type: extractors.TypeString, Doc: "encoder or writing application tag"},
		{Path: "creation_time", Type: extractors.TypeDate, Doc: "when the container says the file was made (UTC)"},
		{Path: "timecode", Type: extractors.TypeString, Doc: "start timecode HH:MM:SS:FF (\";\" before FF for drop frame)"},
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
		{Path: "video.format", Type: extractors.TypeString, Doc: "usual name of the codec (AVC, HEVC, MPEG Video, ProRes)"},
		{Path: "video.profile", Type: extractors.TypeString, Doc: "codec profile"},
		{Path: "video.level", Type: extractors.TypeString, Doc: "codec level"},
		{Path: "video.width", Type: extractors.TypeNumber, Doc: "pixels"},
		{Path: "video.height", Type: extractors.TypeNumber, Doc: "pixels"},
		{Path: "video.resolution", Type: extractors.TypeString, Doc: "WIDTHxHEIGHT in pixels (\"1920x1080\")"},
		{Path: "video.aspect_ratio", Type: extractors.TypeString, Doc: "display aspect ratio, reduced (\"16:9\")"},
		{Path: "video.sample_aspect_ratio", Type: extractors.TypeString, Doc: "pixel aspect ratio (\"1:1\", \"64:45\")"},
		{Path: "video.frame_rate", Type: extractors.TypeNumber, Doc: "frames per second, 3 decimals"},
		{Path: "video.frame_rate_mode", Type: extractors.TypeString, Doc: "CFR (constant) or VFR (variable); MP4/MOV only, from the sample durations"},
		{Path: "video.scan_type", Type: extractors.TypeString, Doc: "progressive or interlaced"},
		{Path: "video.field_order", Type: extractors.TypeString, Doc: "tff or bff: the field shown first of interlaced video"},
		{Path: "video.bit_depth", Type: extractors.TypeNumber, Doc: "bits per sample"},
		{Path: "video.pixel_format", Type: extractors.TypeString, Doc: "decoder pixel format (yuv420p10le)"},
		{Path: "video.chroma_subsampling", Type: extractors.TypeString, Doc: "4:2:0, 4:2:2, 4:4:4 ... (absent for RGB)"},
		{Path: "video.color_space", Type: extractors.TypeString, Doc: "matrix coefficients (bt709, bt2020nc)"},
		{Path: "video.color_primaries", Type: extractors.TypeString, Doc: "colour primaries (bt709, bt2020)"},
		{Path: "video.color_transfer", Type: extractors.TypeString, Doc: "transfer characteristics (bt709, smpte2084, arib-std-b67)"},
		{Path: "video.color_range", Type: extractors.TypeString, Doc: "limited or full"},
		{Path: "video.hdr", Type: extractors.TypeString, Doc: "HDR format signalled: Dolby Vision, HDR10, PQ, HLG (absent for SDR)"},
		{Path: "video.bit_rate", Type: extractors.TypeNumber, Doc: "bits per second"},
		{Path: "video.frame_count", Type: extractors.TypeNumber, Doc: "frames: the container's count, else duration x frame rate"},
		{Path: "video.rotation", Type: extractors.TypeNumber, Doc: "degrees clockwise to turn the picture for display (0, 90, 180, 270)"},
		{Path: "video.duration", Type: extractors.TypeNumber, Doc: "seconds, 3 decimals"},
		{Path: "audio.codec", Type: extractors.TypeString, Doc: "codec of the main audio stream as ffprobe names it"},
		{Path: "audio.codec_long_name", Type: extractors.TypeString, Doc: "codec in words"},
		{Path: "audio.format", Type: extractors.TypeString, Doc: "usual name of the codec (AAC, AC-3, PCM, MPEG Audio)"},
		{Path: "audio.profile", Type: extractors.TypeString, Doc: "codec profile (LC, HE-AAC)"},
		{Path: "audio.channels", Type: extractors.TypeNumber, Doc: "channel count"},
		{Path: "audio.channel_layout", Type: extractors.TypeString, Doc: "channel layout (stereo, 5.1(side))"},
		{Path: "audio.sample_rate", Type: extractors.TypeNumber, Doc: "samples per second (Hz)"},
		{Path: "audio.bit_depth", Type: extractors.TypeNumber, Doc: "bits per sample (PCM and lossless codecs)"},
		{Path: "audio.bit_rate", Type: extractors.TypeNumber, Doc: "bits per second"},
		{Path: "audio.language", Type: extractors.TypeString, Doc: "language tag"},
		{Path: "audio.duration", Type: extractors.TypeNumber, Doc: "seconds, 3 decimals"},
	},
	New: func(env extractors.Env) (extractors.Extractor, error) { return &mediainfo{run: env.Runner}, nil },
}

var _ extractors.Extractor = (*mediainfo)(nil)

type mediainfo struct{ run *extractors.Runner }

func (m *mediainfo) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	p, err := av.Read(ctx, m.run, in)
	if err != nil {
		return nil, err
	}
	var boxes *mp4Info
	if strings.Contains(p.Format.FormatName, "mp4") || strings.Contains(p.Format.FormatName, "mov") {
		if boxes, err = mp4Of(ctx, in); err != nil {
			return nil, err
		}
	}
	return &extractors.Result{Data: describeMedia(p, boxes)}, nil
}

// maxStreamsListed bounds the streams listed in the data; stream_count
// says how many there are.
const maxStreamsListed = 64

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

// mainAudio is the audio stream marked default, else the first.
func mainAudio(p *av.Probe) *av.Stream {
	for i := range p.Streams {
		if s := &p.Streams[i]; s.CodecType == "audio" && s.IsDefault() {
			return s
		}
	}
	return p.Audio()
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

// streamBitRate is the stream's bit rate, or the statistics tag Matroska
// muxers write (BPS) when the container has none.
func streamBitRate(s *av.Stream) int64 {
	if n := av.Int(s.BitRate); n > 0 {
		return n
	}
	if n := av.Int(av.Tag(s.Tags, "BPS")); n > 0 {
		return n
	}
	return av.Int(av.Tag(s.Tags, "BPS-eng"))
}

// streamDuration is the stream's duration, else the Matroska statistics
// tag (DURATION "00:00:03.600000000"), else the container's.
func streamDuration(p *av.Probe, s *av.Stream) float64 {
	if d := av.Seconds(s.Duration); d > 0 {
		return d
	}
	if d := clockSeconds(av.Tag(s.Tags, "DURATION")); d > 0 {
		return d
	}
	return p.Duration()
}

// clockSeconds reads "HH:MM:SS.fraction"; 0 when malformed.
func clockSeconds(s string) float64 {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return 0
	}
	h, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	sec := av.Seconds(parts[2])
	if err1 != nil || err2 != nil || h < 0 || m < 0 || m > 59 || sec >= 60 {
		return 0
	}
	return float64(h)*3600 + float64(m)*60 + sec
}

// displayAspect is the display aspect ratio, reduced ("16:9"): ffprobe's
// when it gives one, else the picture's shape times its pixel aspect.
func displayAspect(v *av.Stream) string {
	if r, ok := ratioOf(v.DisplayAspectRatio); ok {
		return r
	}
	w, h := int64(v.Width), int64(v.Height)
	if n, d, ok := ratioParts(v.SampleAspectRatio); ok {
		w, h = w*n, h*d
	}
	if w <= 0 || h <= 0 {
		return ""
	}
	g := gcd(w, h)
	return fmt.Sprintf("%d:%d", w/g, h/g)
}

// ratioOf checks and reduces "N:M"; false for absent, zero or malformed
// ratios ("0:1", "N/A").
func ratioOf(s string) (string, bool) {
	n, d, ok := ratioParts(s)
	if !ok {
		return "", false
	}
	g := gcd(n, d)
	return fmt.Sprintf("%d:%d", n/g, d/g), true
}

func ratioParts(s string) (n, d int64, ok bool) {
	a, b, found := strings.Cut(s, ":")
	if !found {
		return 0, 0, false
	}
	n, err1 := strconv.ParseInt(a, 10, 64)
	d, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || n <= 0 || d <= 0 || n > 1<<30 || d > 1<<30 {
		return 0, 0, false
	}
	return n, d, true
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// levelName writes a codec level as its specification names it: H.264
// "4.1" (ffprobe's 41), HEVC "5.1" (153), MPEG-2 "Main"; other codecs'
// levels as numbers; "" when unknown.
func levelName(s *av.Stream) string {
	l := s.Level
	if l <= 0 {
		return ""
	}
	switch s.CodecName {
	case "h264":
		if l == 9 {
			return "1b"
		}
		return strconv.FormatFloat(float64(l)/10, 'f', -1, 64)
	case "hevc":
		return strconv.FormatFloat(math.Round(float64(l)/30*10)/10, 'f', -1, 64)
	case "mpeg2video":
		switch l {
		case 4:
			return "High"
		case 6:
			return "High 1440"
		case 8:
			return "Main"
		case 10:
			return "Low"
		}
	case "aac", "mp3", "mp2", "ac3", "eac3", "opus", "vorbis", "flac":
		return "" // audio codecs report no level worth showing
	}
	return strconv.Itoa(l)
}

// obj is a data object whose setters leave out unknown values.
type obj map[string]any

func (o obj) str(k, v string) {
	if v = strings.TrimSpace(v); v != "" {
		o[k] = strings.ToValidUTF8(v, "\uFFFD")
	}
}

// count sets a positive integer.
func (o obj) count(k string, v int64) {
	if v > 0 {
		o[k] = v
	}
}

// seconds sets a positive duration rounded to the millisecond.
func (o obj) seconds(k string, v float64) {
	if v > 0 && !math.IsInf(v, 0) {
		o[k] = round3(v)
	}
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
