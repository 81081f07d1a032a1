package broadcast

import (
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// names are the analyses of this package.
var names = []string{"black_scenes", "vendor_silence", "vendor_color_bars", "vendor_start_end", "audiopeak", "volumedetect"}

// registry holds the base extractors and this package's, as the Default
// registry has them.
func registry(t *testing.T) *extractors.Registry {
	return extractortest.Registry(t, nil, append([]string{"store", "mime_type"}, names...)...)
}

// makeClip renders a lavfi graph of one video and one audio source into
// an MP4 (H.264/AAC) in a temporary directory.
func makeClip(t *testing.T, name, video, audio string) string {
	t.Helper()
	var args []string
	if video != "" {
		args = append(args, "-f", "lavfi", "-i", video)
	}
	if audio != "" {
		args = append(args, "-f", "lavfi", "-i", audio)
	}
	if video != "" {
		args = append(args, "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p")
	}
	if audio != "" {
		args = append(args, "-c:a", "aac", "-b:a", "128k")
	}
	return extractortest.Clip(t, name, args...)
}

// qcClip is the test programme, 11 s at 320x240, 25 fps:
//
//	0-2   SMPTE colour bars, 1 kHz tone at -20 dBFS
//	2-4   black, silence
//	4-6   a still slate (plain colour card), silence
//	6-9   testsrc (the programme), 440 Hz tone at -12 dBFS
//	9-11  black, silence
func qcClip(t *testing.T) string {
	t.Helper()
	const v = "smptebars=d=2:s=320x240:r=25[a];color=black:d=2:s=320x240:r=25[b];" +
		"color=c=0x336699:d=2:s=320x240:r=25[c];testsrc=d=3:s=320x240:r=25[d];color=black:d=2:s=320x240:r=25[e];" +
		"[a][b][c][d][e]concat=n=5:v=1:a=0[out0]"
	const a = "sine=f=1000:d=2:r=48000,volume=-2dB[a];anullsrc=r=48000:cl=mono,atrim=0:4[b];" +
		"sine=f=440:d=3:r=48000,volume=6dB[c];anullsrc=r=48000:cl=mono,atrim=0:2[d];" +
		"[a][b][c][d]concat=n=4:v=0:a=1[out0]"
	return makeClip(t, "qc.mp4", v, a)
}
