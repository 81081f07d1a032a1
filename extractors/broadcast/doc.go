// Package broadcast is the broadcast quality-control family: black_scenes,
// vendor_silence, vendor_color_bars, vendor_start_end, audiopeak and
// volumedetect. The vendor_* names are the reference's vendor-branded
// analyses; they run here, locally, with ffmpeg, and need no provider.
//
// # One decode per file
//
// Every analysis of a harvest reads one decode pass (pass.go), made by
// whichever runs first and kept in Input.Shared for the others: one ffmpeg
// process whose filter graph holds what the requested analyses need
// (Input.Requested) on the streams the file has (the shared ffprobe
// reading, av.Read):
//
//	video: blackdetect=d=0.5:pix_th=0.10:pic_th=0.98, then four samples a
//	       second scaled to 96x48 RGB and piped to Go (colour bars, slates)
//	audio: ebur128=peak=true+sample, silencedetect=n=-60dB:d=0.5, volumedetect
//
// Each analysis registers through analysis.go (the probe, the stream it
// needs, the pass) and keeps in its own file its registration and what it
// reads of the pass.
//
// The filters' reports are read from ffmpeg's log as it comes, by a parser
// that keeps only the measurements (log.go). Only the first video and the
// first audio stream are analysed; the decode stops after four hours
// (-t 14400) and each analysis has 30 minutes.
//
// The bare-tool equivalent of a full pass, for benchmarks:
//
//	ffmpeg -nostdin -nostats -t 14400 -i FILE -filter_complex \
//	  "[0:v:0]blackdetect=d=0.5:pix_th=0.10:pic_th=0.98,fps=4:start_time=0,scale=96:48:flags=area,format=rgb24[s];
//	   [0:a:0]ebur128=peak=true+sample:framelog=verbose,silencedetect=n=-60dB:d=0.5,volumedetect[a]" \
//	  -map '[s]' -fps_mode passthrough -f rawvideo - -map '[a]' -f null - >/dev/null
//
// and of the sound analyses alone (what audiopeak, volumedetect and
// vendor_silence cost on a video):
//
//	ffmpeg -nostdin -nostats -i FILE -map 0:a:0 -af ebur128=peak=true+sample:framelog=verbose,silencedetect=n=-60dB:d=0.5,volumedetect -f null -
//
// # Rules
//
// Colour bars: bars.go (vertical saturated bands yellow, cyan, green,
// magenta, red, blue, of even widths, in the top half of the picture).
// Programme start and end: vendor_start_end.go (chains of bars, black
// and still-and-silent slates from each end; silence for audio files).
//
// # Output
//
// Time ranges are lists of {start, end, duration} in seconds to three
// decimals, with their count and total duration; a list holds the first
// 1000 ranges, the count and total all of them. Levels are in dB, LU or
// LUFS as ffmpeg prints them (to 0.1).
package broadcast
