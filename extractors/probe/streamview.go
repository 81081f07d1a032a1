package probe

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// What the ffprobe-based extractors of the family say alike of a stream:
// the usual names of codecs and levels, aspect ratios, which audio stream
// is the main one, and bit rates and durations where the container keeps
// them in tags.

// formatNames are the usual names of codecs (as MediaInfo and broadcast
// specifications call them) for ffprobe's codec names.
var formatNames = map[string]string{
	// video
	"h264": "AVC", "hevc": "HEVC", "vvc": "VVC", "av1": "AV1", "vp8": "VP8", "vp9": "VP9",
	"mpeg1video": "MPEG Video", "mpeg2video": "MPEG Video", "mpeg4": "MPEG-4 Visual", "h263": "H.263", "h261": "H.261",
	"flv1": "Sorenson Spark", "theora": "Theora", "prores": "ProRes", "dnxhd": "VC-3", "mjpeg": "JPEG",
	"jpeg2000": "JPEG 2000", "vc1": "VC-1", "wmv1": "WMV1", "wmv2": "WMV2", "wmv3": "VC-1", "ffv1": "FFV1",
	"dvvideo": "DV", "cfhd": "CineForm", "rv10": "RealVideo 1", "rv20": "RealVideo 2", "rv30": "RealVideo 3",
	"rv40": "RealVideo 4", "rawvideo": "YUV", "v210": "YUV", "dirac": "Dirac", "huffyuv": "HuffYUV",
	"utvideo": "Ut Video", "qtrle": "QuickTime Animation", "png": "PNG", "gif": "GIF", "dpx": "DPX",
	// audio
	"aac": "AAC", "aac_latm": "AAC", "mp3": "MPEG Audio", "mp2": "MPEG Audio", "mp1": "MPEG Audio", "ac3": "AC-3",
	"eac3": "E-AC-3", "ac4": "AC-4", "dts": "DTS", "truehd": "MLP FBA", "mlp": "MLP", "flac": "FLAC", "alac": "ALAC",
	"opus": "Opus", "vorbis": "Vorbis", "speex": "Speex", "amr_nb": "AMR", "amr_wb": "AMR-WB", "wmav1": "WMA",
	"wmav2": "WMA", "wmapro": "WMA Pro", "wmalossless": "WMA Lossless", "ape": "Monkey's Audio", "wavpack": "WavPack",
	"tta": "TTA", "atrac3": "ATRAC3", "cook": "Cooker", "gsm": "GSM", "adpcm_ima_wav": "ADPCM",
	"pcm_alaw": "A-law", "pcm_mulaw": "U-law", "dsd_lsbf": "DSD", "dsd_msbf": "DSD",
	// subtitles
	"subrip": "SubRip", "srt": "SubRip", "ass": "ASS", "ssa": "SSA", "webvtt": "WebVTT", "mov_text": "Timed Text",
	"dvd_subtitle": "VobSub", "hdmv_pgs_subtitle": "PGS", "dvb_subtitle": "DVB Subtitle", "dvb_teletext": "Teletext",
	"eia_608": "EIA-608", "ttml": "TTML",
}

// formatName is the usual name of a stream's codec ("AVC", "AAC", "PCM"),
// its long name when it has no usual one.
func formatName(s *av.Stream) string {
	if n, ok := formatNames[s.CodecName]; ok {
		return n
	}
	if strings.HasPrefix(s.CodecName, "pcm_") {
		return "PCM"
	}
	if strings.HasPrefix(s.CodecName, "adpcm_") {
		return "ADPCM"
	}
	if s.CodecLongName != "" {
		return s.CodecLongName
	}
	return s.CodecName
}

// maxStreamsListed bounds the streams listed in the data; stream_count
// says how many there are.
const maxStreamsListed = 64

// mainAudio is the audio stream marked default, else the first.
func mainAudio(p *av.Probe) *av.Stream {
	for i := range p.Streams {
		if s := &p.Streams[i]; s.CodecType == "audio" && s.IsDefault() {
			return s
		}
	}
	return p.Audio()
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
