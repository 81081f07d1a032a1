package av

import (
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
)

// Demuxers are the container and stream formats ffmpeg and ffprobe may open
// for an extractor: audio, video, image and subtitle formats. Formats that
// read other files or the network (hls, dash, concat, image2 sequences,
// rtsp, sdp, lavfi, ffmetadata, tedcaptions, devices) are left out.
var Demuxers = []string{
	// video containers and elementary streams
	"mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "avi", "flv", "mpegts", "mpegtsraw", "mpeg", "mpegvideo",
	"mxf", "gxf", "lxf", "asf", "asf_o", "rm", "nut", "nsv", "dv", "ivf", "obu", "yuv4mpegpipe", "wtv", "mjpeg",
	"mjpeg_2000", "h261", "h263", "h264", "hevc", "m4v", "vc1", "av1", "dirac", "dnxhd", "cavsvideo", "avs2",
	"avs3", "r3d", "swf", "bink", "smk", "thp", "mtv", "vivo", "xmv", "rawvideo", "v210", "v210x",
	// audio
	"wav", "w64", "aiff", "caf", "mp3", "ogg", "flac", "aac", "ac3", "eac3", "dts", "dtshd", "truehd", "mlp",
	"amr", "amrnb", "amrwb", "ape", "wv", "tta", "tak", "shn", "au", "voc", "dsf", "mpc", "mpc8", "oma", "qcp",
	"gsm", "g722", "g723_1", "g726", "g726le", "g729", "ilbc", "sbc", "aptx", "aptx_hd", "loas", "spdif",
	"s337m", "alaw", "mulaw", "s16le", "s16be", "s24le", "s24be", "s32le", "s32be", "f32le", "f32be",
	"f64le", "f64be", "u8", "s8", "ircam", "nistsphere", "sox", "xwma", "mmf", "iff", "wsaud", "xa", "rso",
	// images
	"bmp_pipe", "dds_pipe", "dpx_pipe", "exr_pipe", "gif", "gif_pipe", "j2k_pipe", "jpeg_pipe", "jpegls_pipe",
	"jpegxl_pipe", "pam_pipe", "pbm_pipe", "pcx_pipe", "pgm_pipe", "pgmyuv_pipe", "png_pipe", "ppm_pipe",
	"psd_pipe", "qoi_pipe", "sgi_pipe", "sunrast_pipe", "tiff_pipe", "webp_pipe", "xbm_pipe", "xpm_pipe",
	"xwd_pipe", "pfm_pipe", "phm_pipe", "apng", "ico",
	// subtitles and captions
	"srt", "webvtt", "ass", "scc", "subviewer", "subviewer1", "microdvd", "mpl2", "mpsub", "sami", "jacosub",
	"lrc", "stl", "realtext", "pjs", "vplayer", "aqtitle", "mcc", "sup", "vobsub", "dvbsub", "dvbtxt",
}

// InputArgs are the arguments that open path as the input of ffmpeg or
// ffprobe safely: no protocol but file, only the demuxers above, and the
// path given as a file: URL so that no part of a name is read as a
// protocol or an option. (The Runner gives programs /dev/null as stdin;
// ffmpeg callers add -nostdin, which ffprobe does not know.)
//
// A remote object the worker serves by ranges on loopback
// (extractors.IsRangeURL) is read over HTTP instead: only the http and tcp
// protocols, so that the program fetches the ranges it seeks to rather
// than the worker downloading the whole object first.
func InputArgs(path string) []string {
	if extractors.IsRangeURL(path) {
		return []string{"-hide_banner", "-protocol_whitelist", "http,tcp",
			"-format_whitelist", strings.Join(Demuxers, ","), "-i", path}
	}
	return []string{"-hide_banner", "-protocol_whitelist", "file",
		"-format_whitelist", strings.Join(Demuxers, ","), "-i", "file:" + path}
}
