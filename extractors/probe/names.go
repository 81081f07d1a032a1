package probe

import (
	"strings"

	"github.com/metaharvest/metaharvest/extractors/av"
)

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
