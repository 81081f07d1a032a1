package ocr

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// names are the extractors of this package.
var names = []string{"tesseract", "slates", "credits", "vendor_digital_slates", "vendor_texted", "vendor_textless"}

// registry holds the base extractors and this package's, as the Default
// registry has them, configured with env (nil: nothing set).
func registry(t *testing.T, env map[string]string) *extractors.Registry {
	return extractortest.Registry(t, env, append([]string{"store", "mime_type"}, names...)...)
}

// font is the DejaVu font of Debian's fonts-dejavu-core, which ffmpeg's
// drawtext renders the test pictures with.
const font = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

func needFont(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(font); err != nil {
		t.Skipf("font for drawing test text: %v (fonts-dejavu-core)", err)
	}
}

// textFile writes text for drawtext's textfile option.
func textFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// drawText is a drawtext filter writing the file's text in white.
func drawText(file string, size int, x, y string) string {
	return "drawtext=fontfile=" + font + ":textfile=" + file + ":expansion=none:fontcolor=white:fontsize=" +
		itoa(size) + ":line_spacing=12:x=" + x + ":y=" + y
}

func itoa(n int) string { return strconv.Itoa(n) }

// picture renders text in white on black into a PNG of w x h pixels.
func picture(t *testing.T, name, text string, w, h, size int) string {
	t.Helper()
	needFont(t)
	dir := t.TempDir()
	tf := textFile(t, dir, "text.txt", text)
	p := filepath.Join(dir, name)
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "color=c=black:s="+itoa(w)+"x"+itoa(h)+":d=1", "-vf", drawText(tf, size, "40", "40"),
		"-frames:v", "1", p)
	return p
}

// The programme clip of the frame analyses, 24 s at 640x360, 25 fps:
//
//	 0-5   slate: TITLE: HARBOUR / SCENE 12 TAKE 3 / DATE: 2024-05-17 / DURATION: 30s
//	 5-15  textless programme (a moving Sierpinski fractal)
//	15-19  a credit card: Directed by / ANNA BERG / Produced by / JON SMITH / Music by / LENA HOLM
//	19-24  scrolling credits, names going up
const (
	slateEnd, programmeEnd, cardEnd, clipEnd = 5.0, 15.0, 19.0, 24.0
)

func programmeClip(t *testing.T) string {
	t.Helper()
	needFont(t)
	return clips.File(t, "programme.mp4", func(t testing.TB, p string) {
		dir := t.TempDir()
		slate := textFile(t, dir, "slate.txt", "TITLE: HARBOUR\nSCENE 12 TAKE 3\nDATE: 2024-05-17\nDURATION: 30s")
		card := textFile(t, dir, "card.txt", "Directed by\nANNA BERG\nProduced by\nJON SMITH\nMusic by\nLENA HOLM")
		scroll := textFile(t, dir, "scroll.txt", "Camera\nPETER NOLAN\nEditor\nMARIA LUND\nSound\nOSKAR VIK\nCast\nEMMA STONE\nCARL BERG\nIDA NORD")
		graph := "color=c=black:s=640x360:r=25:d=5," + drawText(slate, 34, "40", "60") + "[a];" +
			"sierpinski=s=640x360:r=25,trim=duration=10,setpts=PTS-STARTPTS[b];" +
			"color=c=black:s=640x360:r=25:d=4," + drawText(card, 28, "200", "30") + "[c];" +
			"color=c=black:s=640x360:r=25:d=5," + drawText(scroll, 28, "200", "h-t*90") + "[d];" +
			"[a][b][c][d]concat=n=4:v=1:a=0[out0]"
		extractortest.FFmpeg(t, "-f", "lavfi", "-i", graph, "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", p)
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "") == s }

var execLookPath = exec.LookPath
