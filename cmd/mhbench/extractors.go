package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/metaharvest/metaharvest/extractors/images"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	_ "github.com/metaharvest/metaharvest/search/postgres" // the engine the suites search with
)

// The extractor suite (issues 12 and 13): each extractor harvested alone
// over copies of the project's real sample files, against the bare tool it
// runs, started by `xargs -P2` on the same files (the worker's heavy-tool
// slots are the two CPUs); then the cost of a full video harvest per
// minute of footage, and the end-to-end searchable rate of a folder of
// mixed documents.

// extractorCase is one extractor and its bare-tool baseline. The baseline
// is a shell script run once per file with the file as $1: bare, or, when
// the commands depend on the file's streams (which stream index, how many
// channels, how long), bareFor made from the sample's ffprobe reading.
//
// A baseline is the commands the extractor itself runs on that file, with
// the same arguments (read off its code), one after the other as the
// extractor runs them: the shared ffprobe reading (av.ProbeArgs) where the
// extractor starts from it, then its ffmpeg, tesseract, poppler or
// pocketsphinx runs. What the extractor does in Go (parsing, the DPX
// header) has no bare counterpart and counts on its side; pigo's face
// cascade, run in Go by vendor_faces, is matched in its baseline by
// pigo's command-line tool (facesBare).
type extractorCase struct {
	name    string   // extractor API name
	samples []string // sample files (relative to the repository root; gen/ and ocr-pages/: made by the suite)
	copies  int      // how many copies of the samples make the set
	bare    string   // sh -c script, $1 = the file
	bareFor func(p *av.Probe) (string, error)
}

// Placeholders in the arguments given to sh: the file ($1) and the
// script's temporary directory ($d).
const (
	fileArg = "\x00f"
	dirArg  = "\x00d"
)

// sh quotes a command line for sh, fileArg and dirArg becoming "$1" and
// "$d".
func sh(args ...string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		lit := ""
		flush := func() {
			if lit != "" {
				b.WriteString("'" + strings.ReplaceAll(lit, "'", `'\''`) + "'")
				lit = ""
			}
		}
		for j := 0; j < len(a); j++ {
			if a[j] == 0 && j+1 < len(a) {
				flush()
				b.WriteString(map[byte]string{'f': `"$1"`, 'd': `"$d"`}[a[j+1]])
				j++
				continue
			}
			lit += string(a[j])
		}
		if lit == "" && a == "" {
			b.WriteString("''")
		}
		flush()
	}
	return b.String()
}

func cmdline(name string, args ...string) string { return sh(append([]string{name}, args...)...) }

// probeBare is the shared ffprobe reading of the ffprobe family
// (mediainfo, audioinfo, m2ts, drm), exactly as av.Read runs it: every
// extractor of the family harvested alone runs it once, or not at all
// (drm on MP4/QuickTime, m2ts on a file without TS packets, dpx).
var probeBare = cmdline("ffprobe", av.ProbeArgs(fileArg)...) + " >/dev/null"

// inTmp wraps commands in a temporary directory $d, removed after.
func inTmp(cmds ...string) string {
	return `d=$(mktemp -d) && ` + strings.Join(cmds, " && ") + `; s=$?; rm -rf "$d"; exit $s`
}

// Samples of the families (real files from Debian packages, see each
// testdata/README.md).
var (
	videoSamples = []string{"extractors/video/testdata/mp4.mp4", "extractors/video/testdata/webm.webm", "extractors/video/testdata/ogg.ogv"}
	audioSamples = []string{"extractors/probe/testdata/Front_Center.wav", "extractors/probe/testdata/bell.oga",
		"extractors/probe/testdata/audio-channel-front-left.oga", "extractors/video/testdata/complete.oga"}
	probeSamples = []string{"extractors/probe/testdata/mp4.mp4", "extractors/probe/testdata/mov.mov", "extractors/probe/testdata/webm.webm",
		"extractors/probe/testdata/3gp.3gp", "extractors/probe/testdata/Front_Center.wav", "extractors/probe/testdata/bell.oga"}
)

var extractorCases = []extractorCase{
	{"mediainfo", probeSamples, 30, probeBare, nil},
	{"audioinfo", append(slices.Clone(audioSamples), "extractors/probe/testdata/mp4.mp4", "extractors/probe/testdata/webm.webm"), 25, probeBare, nil},
	// m2ts: transport streams remuxed (-c copy) from the Debian samples,
	// with 188- and 192-byte packets; the packet scan is Go's.
	{"m2ts", []string{"gen/mp4.ts", "gen/mov.m2ts", "gen/webm.ts"}, 50, probeBare, nil},
	// dpx reads the header in Go and runs no tool: its baseline is the
	// family's ffprobe reading of the same DPX files (what a tool-based
	// reading of them costs), frames of Debian's sample pictures written
	// by ffmpeg at 8, 10 and 16 bits.
	{"dpx", []string{"gen/sample1-8bit.dpx", "gen/sample1-10bit.dpx", "gen/tux-16bit.dpx"}, 50, probeBare, nil},
	// drm walks MP4 boxes in Go (no tool) and asks the shared ffprobe
	// reading only of other containers; the baseline reads every file with
	// ffprobe, the tool a protection check would otherwise need.
	{"drm", probeSamples, 30, probeBare, nil},
	{"exiv2", []string{"extractors/images/testdata/goexif-sample1.jpg", "extractors/images/testdata/goexif-has-lens-info.jpg",
		"extractors/images/testdata/goexif-geodegrees_as_string.jpg", "extractors/images/testdata/orientation_6.jpg"}, 50,
		`exiftool -json -n "$1" >/dev/null`, nil},
	{"thumbnailer", []string{"extractors/images/testdata/goexif-sample1.jpg", "extractors/images/testdata/orientation_6.jpg",
		"extractors/images/testdata/tux.png"}, 30,
		`d=$(mktemp -d); for s in 320 1280; do ffmpeg -nostdin -v error -i "$1" -vf "scale=w='min($s,iw)':h='min($s,ih)':force_original_aspect_ratio=decrease" -frames:v 1 "$d/t$s.jpg"; done; rm -r "$d"`, nil},
	{"video_main_frames", videoSamples, 10, "", mainFramesBare},
	{"video_previews", videoSamples, 4, "", videoPreviewBare},
	{"audio_previews", audioSamples, 10, "", audioPreviewBare},
	// vendor_faces on videos harvested without video_main_frames samples
	// frames itself with ffmpeg (the pictures of images are decoded in Go:
	// no tool), then runs pigo's cascade in Go on the frames. Its baseline
	// is the same ffmpeg sampling, the frames written to files, then
	// pigo's command-line tool on each frame with the extractor's cascade
	// and settings (facesBare); the sampling alone, labelled so, when the
	// tool could not be installed.
	{"vendor_faces", videoSamples, 6, "", facesBare},
	// The broadcast family: one ffmpeg decode pass per file holding what
	// the harvest's analyses need (here each alone), on the Debian
	// samples and a generated clip with black, colour bars and silence.
	{"black_scenes", append(slices.Clone(videoSamples), "gen/qc.mp4"), 6, "", passBare(needs{black: true})},
	{"vendor_color_bars", append(slices.Clone(videoSamples), "gen/qc.mp4"), 6, "", passBare(needs{samples: true})},
	{"vendor_start_end", append(slices.Clone(videoSamples), "gen/qc.mp4", "extractors/broadcast/testdata/Front_Center.wav"), 5, "",
		passBare(needs{black: true, samples: true, silence: true})},
	{"vendor_silence", []string{"extractors/broadcast/testdata/Front_Center.wav", "extractors/broadcast/testdata/bell.oga",
		"extractors/broadcast/testdata/audio-test-signal.oga", "gen/qc.mp4"}, 15, "", passBare(needs{silence: true})},
	{"volumedetect", []string{"extractors/broadcast/testdata/Front_Center.wav", "extractors/broadcast/testdata/bell.oga",
		"extractors/broadcast/testdata/audio-test-signal.oga", "gen/qc.mp4"}, 15, "", passBare(needs{volume: true})},
	{"audiopeak", []string{"extractors/broadcast/testdata/Front_Center.wav", "extractors/broadcast/testdata/bell.oga",
		"extractors/broadcast/testdata/audio-test-signal.oga"}, 20, "", passBare(needs{loudness: true})},
	{"caption_files", []string{"extractors/captions/testdata/srt.srt", "extractors/captions/testdata/vtt.vtt"}, 100,
		`ffmpeg -nostdin -v error -i "$1" -f srt - >/dev/null`, nil},
	// Embedded subtitles: the Debian samples with the caption samples muxed
	// in as SubRip (Matroska), mov_text (MP4) and WebVTT (WebM).
	{"captions", []string{"gen/subtitled.mkv", "gen/subtitled.mp4", "gen/subtitled.webm"}, 15, "", captionsBare(false)},
	{"captionsv2", []string{"gen/subtitled.mkv", "gen/subtitled.mp4", "gen/subtitled.webm"}, 15, "", captionsBare(true)},
	{"pdf", []string{"extractors/pdf/testdata/basic.pdf", "extractors/pdf/testdata/multicell.pdf", "extractors/pdf/testdata/addpage.pdf",
		"extractors/pdf/testdata/image.pdf"}, 40,
		`pdfinfo -isodates "$1" >/dev/null; pdftotext -enc UTF-8 "$1" - >/dev/null; pdfimages -list -f 1 -l 50 "$1" >/dev/null`, nil},
	{"document_pages", []string{"extractors/pdf/testdata/basic.pdf", "extractors/pdf/testdata/multicell.pdf", "extractors/pdf/testdata/addpage.pdf",
		"extractors/pdf/testdata/image.pdf"}, 8, inTmp(
		cmdline("pdfinfo", "-isodates", "-enc", "UTF-8", "-f", "1", "-l", "50", fileArg)+" >/dev/null",
		cmdline("pdftoppm", "-jpeg", "-jpegopt", "quality=85", "-scale-to", "1024", "-f", "1", "-l", "50", fileArg, dirArg+"/page"),
		cmdline("pdftoppm", "-jpeg", "-jpegopt", "quality=80", "-scale-to", "256", "-f", "1", "-l", "1", "-singlefile", fileArg, dirArg+"/thumbnail")), nil},
	// officex reads the XML parts of the zip with encoding/xml. No
	// Office text tool (docx2txt, odt2txt, xmlstarlet) is installed here;
	// the baseline does the same reading with the Debian python3's zipfile
	// and ElementTree (the parts officex reads, parsed, their text walked),
	// closer than unzip | sed, which parsed no XML and read one slide.
	{"officex", []string{"extractors/office/testdata/sample-docx.docx", "extractors/office/testdata/sample-pptx.pptx",
		"extractors/office/testdata/sample-odt.odt"}, 60, officeBare, nil},
	// As ocr's engine.read runs it: one OpenMP thread (the Runner's heavy
	// slot is one CPU; two tesseracts with a thread per CPU each spend
	// three times the CPU here), TSV out.
	{"tesseract", []string{"ocr-pages/page1.png", "ocr-pages/page2.png"}, 4,
		`OMP_THREAD_LIMIT=1 tesseract "$1" - -l eng --psm 3 -c tessedit_page_number=0 tsv >/dev/null 2>&1`, nil},
	// The OCR analyses of videos (slates, credits, vendor_digital_slates,
	// vendor_texted, vendor_textless) read one shared reading (ocr's
	// videoKey): frames sampled by ffmpeg, each read by tesseract. Each
	// harvested alone runs the same tools, so one of them stands for all.
	{"vendor_texted", []string{"extractors/video/testdata/mp4.mp4", "gen/printed.mp4"}, 4, "", ocrVideoBare},
	{"speech_to_text", []string{"extractors/speech/testdata/amiable.wav", "extractors/speech/testdata/ill-disposed.wav",
		"extractors/speech/testdata/front-center.wav"}, 4, "", speechBare},
}

// officeBare: python3 -I (no site, no user paths) reads the parts officex
// reads (document, workbook and sheets, shared strings, presentation and
// slides, properties; content.xml and meta.xml of OpenDocument) and walks
// their text.
const officeBare = `python3 -I -S -c '
import re, sys, zipfile, xml.etree.ElementTree as ET
parts = re.compile(r"^(word/document|xl/workbook|xl/sharedStrings|xl/worksheets/sheet[0-9]+|ppt/presentation|ppt/slides/slide[0-9]+|docProps/core|docProps/app|content|meta)\.xml$")
z = zipfile.ZipFile(sys.argv[1])
n = 0
for name in z.namelist():
    if parts.match(name):
        for el in ET.fromstring(z.read(name)).iter():
            n += len(el.text or "")
' "$1"`

// The rules below copy the extractors' argument building for the samples
// of the suite; a sample outside what they cover is refused, not measured
// against a different command.

func needVideo(p *av.Probe) (*av.Stream, error) {
	v := p.Video()
	if v == nil || p.IsStill() {
		return nil, fmt.Errorf("no moving picture")
	}
	return v, nil
}

// fitScale is video.fitScale.
func fitScale(boxW, boxH int) string {
	f := fmt.Sprintf("min(1,min(%d/(iw*sar),%d/ih))", boxW, boxH)
	return fmt.Sprintf("scale=w='max(2,trunc(%s*iw*sar/2)*2)':h='max(2,trunc(%s*ih/2)*2)',setsar=1", f, f)
}

// previewDecode is video.decodeArgs for a 4-hour max_duration.
func previewDecode() []string {
	return append([]string{"-nostdin", "-v", "error", "-nostats", "-threads", "2", "-max_pixels", "40000000", "-t", "14405"},
		av.InputArgs(fileArg)...)
}

// previewAudio is video.audioArgs.
func previewAudio(a *av.Stream, rate int) []string {
	args := []string{"-map", fmt.Sprintf("0:%d", a.Index), "-c:a", "aac", "-b:a", fmt.Sprint(rate)}
	if a.Channels == 0 || a.Channels > 2 {
		args = append(args, "-ac", "2")
	}
	if sr := av.Int(a.SampleRate); sr < 8000 || sr > 48000 {
		args = append(args, "-ar", "48000")
	}
	return args
}

var previewContainer = []string{"-map_metadata", "-1", "-map_chapters", "-1", "-sn", "-dn",
	"-max_muxing_queue_size", "1024", "-movflags", "+faststart", "-f", "mp4"}

// previewEncode: ffmpeg writes the preview in $d, ffprobe reads it back.
func previewEncode(args []string, tmp string) string {
	return inTmp(`cd "$d"`, cmdline("ffmpeg", args...),
		cmdline("ffprobe", append([]string{"-v", "error", "-print_format", "json", "-show_format", "-show_streams"},
			av.InputArgs(dirArg+"/"+tmp)...)...)+" >/dev/null")
}

func videoPreviewBare(p *av.Probe) (string, error) {
	v, err := needVideo(p)
	if err != nil {
		return "", err
	}
	switch {
	case p.Duration() <= 0 || p.Duration() > 1800:
		return "", fmt.Errorf("duration %v: not a short preview", p.Duration())
	case v.FrameRate() > 30.5:
		return "", fmt.Errorf("%v frames/s: would be halved", v.FrameRate())
	case strings.Contains("tt bb tb bt", v.FieldOrder) && v.FieldOrder != "":
		return "", fmt.Errorf("interlaced: would be deinterlaced")
	}
	args := append(previewDecode(), "-map", fmt.Sprintf("0:%d", v.Index),
		"-vf", fitScale(854, 480)+",format=yuv420p",
		"-c:v", "libx264", "-preset", "veryfast", "-profile:v", "main", "-level:v", "3.1",
		"-threads", "2", "-crf", "26", "-maxrate", "1000000", "-bufsize", "2000000",
		"-force_key_frames", "expr:gte(t,n_forced*2)")
	if a := p.Audio(); a != nil {
		args = append(args, previewAudio(a, 96_000)...)
	}
	args = append(append(args, previewContainer...), "file:preview.tmp.mp4")
	return ffprobeThen(previewEncode(args, "preview.tmp.mp4")), nil
}

func audioPreviewBare(p *av.Probe) (string, error) {
	a := p.Audio()
	if a == nil || p.Video() != nil && !p.IsStill() {
		return "", fmt.Errorf("not an audio file")
	}
	if p.Duration() <= 0 || p.Duration() > 3600 {
		return "", fmt.Errorf("duration %v: not a short recording", p.Duration())
	}
	rate := 128_000
	if a.Channels == 1 {
		rate = 64_000
	}
	args := append(append(previewDecode(), "-vn"), previewAudio(a, rate)...)
	args = append(append(args, previewContainer...), "file:preview.tmp.m4a")
	return ffprobeThen(previewEncode(args, "preview.tmp.m4a")), nil
}

// mainFramesBare is video_main_frames' decoding pass with the default
// settings (300 frames, 10 s, scene 0.3, 4 hours): video.planFrames,
// filterGraph and outputArgs, run in a directory with an output folder
// per reason.
func mainFramesBare(p *av.Probe) (string, error) {
	v, err := needVideo(p)
	if err != nil {
		return "", err
	}
	declared := av.Seconds(v.Duration)
	if declared <= 0 {
		declared = p.Duration()
	}
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	span := min(declared, 14400)
	interval := max(10, math.Ceil(span/150))
	sceneGap := max(0.5, span/150)
	keyGap := max(sceneGap, interval/2)
	expr := strings.NewReplacer("LIMIT", "14400", "INTERVAL", num(interval), "THRESHOLD", "0.3",
		"SCENEGAP", num(sceneGap), "KEYGAP", num(keyGap), "DUP", "0.5").Replace(
		"if(eq(n,0),st(2,-1e9)+st(3,-1e9));if(isnan(t)+lt(t,0)+gte(t,LIMIT),0,st(4,gte(t,ld(0)));" +
			"if(ld(4),st(0,(floor(t/INTERVAL)+1)*INTERVAL));st(5,gt(scene,THRESHOLD)*gte(t-ld(2),SCENEGAP));" +
			"st(6,key*gte(t-ld(2),KEYGAP)*gte(t-ld(3),DUP));st(7,ld(4)*gte(t-ld(3),DUP));" +
			"st(8,if(ld(5),1,if(ld(6),2,if(ld(7),3,0))));if(between(ld(8),1,2),st(2,t));if(ld(8),st(3,t));ld(8))")
	reasons := []string{"scene", "keyframe", "interval"}
	graph := fmt.Sprintf("[0:%d]split=2[main][tap];[main]select=outputs=3:expr='%s'[scene][keyframe][interval]", v.Index, expr)
	args := append(previewDecode(), "-filter_threads", "1")
	var outputs []string
	for _, o := range reasons {
		graph += fmt.Sprintf(";[%s]%s,metadata=mode=print:file=%s.txt[%s_out]", o, fitScale(640, 640), o, o)
		outputs = append(outputs, "-map", "["+o+"_out]", "-fps_mode", "passthrough", "-enc_time_base", "1/1000",
			"-frames:v", "152", "-c:v", "mjpeg", "-q:v", "4", "-f", "image2", "-frame_pts", "1", "file:"+o+"/%09d.jpg")
	}
	graph += ";[tap]select=expr='if(gte(t,ld(0)),st(0,floor(t)+1),0)',metadata=mode=add:key=tap:value=1,metadata=mode=print:file=progress.txt[progress_out]"
	args = append(append(args, "-filter_complex", graph), outputs...)
	args = append(args, "-map", "[progress_out]", "-fps_mode", "passthrough", "-f", "null", "-")
	return ffprobeThen(inTmp(`cd "$d"`, "mkdir scene keyframe interval", cmdline("ffmpeg", args...))), nil
}

// ffprobeThen is the shared ffprobe reading, then script.
func ffprobeThen(script string) string { return probeBare + " && " + script }

// The vendor_faces baseline's face detector: pigo's command-line tool at
// the version of go.mod, installed in the bench's temporary directory by
// installPigo ("" when it could not be), and the cascade the extractor
// embeds (extractors/faces/cascade/facefinder).
var pigoCLI, facesCascade string

// bareLabels name a baseline that is not the extractor's whole work (a
// tool that could not be installed), printed with its figure.
var bareLabels = map[string]string{}

// facesBare is vendor_faces on a video harvested without
// video_main_frames (faces.sample, then faces.detect on each frame): the
// shared ffprobe reading; ffmpeg's sampling with the same filter,
// interval and frame cap (30 frames, every max(2 s, duration/30), at most
// 960 pixels), the uncompressed RGB PNGs written to files in $d instead of
// a pipe; then pigo's command-line tool on each frame, one run per frame,
// with the extractor's cascade and RunCascade and ClusterDetections
// settings: minimum face 20 pixels, shift 0.1, scale 1.1, IoU 0.2, angle
// 0, and no output picture (-out empty). The extractor's maximum face is
// the frame's short side; no window larger than it fits in the frame, so
// -max 960 (the long side's bound) tries the same windows. What the tool
// does besides (decoding to NRGBA, a drawing canvas, rectangles drawn on
// it and not written, a process and a cascade read per frame) is its
// cost; what the extractor does besides (the score threshold, tracking,
// face crops) is ours. Without the tool (pigoCLI ""), the sampling alone.
func facesBare(p *av.Probe) (string, error) {
	if p.Video() == nil {
		return "", fmt.Errorf("no video")
	}
	interval := math.Max(2, math.Ceil(p.Duration()/30))
	args := []string{"-nostdin", "-v", "error"}
	if interval >= 4 {
		args = append(args, "-skip_frame", "nokey")
	}
	args = append(args, av.InputArgs(fileArg)...)
	filter := fmt.Sprintf("scale=w='trunc(iw*sar/2)*2':h=ih,setsar=1,fps=1/%s,%s",
		strconv.FormatFloat(interval, 'f', -1, 64), images.FitFilter(960))
	args = append(args, "-map", "0:v:0", "-an", "-sn", "-dn", "-vf", filter, "-frames:v", "30",
		"-c:v", "png", "-compression_level", "0", "-pix_fmt", "rgb24")
	if pigoCLI == "" {
		return ffprobeThen(cmdline("ffmpeg", append(args, "-f", "image2pipe", "pipe:1")...) + " >/dev/null"), nil
	}
	sample := cmdline("ffmpeg", append(args, "-f", "image2", "file:"+dirArg+"/%06d.png")...)
	detect := `(for f in "$d"/*.png; do ` + cmdline(pigoCLI, "-cf", facesCascade, "-min", "20", "-max", "960",
		"-shift", "0.1", "-scale", "1.1", "-iou", "0.2", "-angle", "0", "-out", "empty") +
		` -in "$f" >/dev/null 2>&1 || exit 1; done)`
	return ffprobeThen(inTmp(sample, detect)), nil
}

// installPigo installs pigo's command-line tool, at the version go.mod
// requires, below dir with go install, for the vendor_faces baseline, and
// says so; when it cannot, it says that the baseline is the sampling
// alone. go install of a module@version asks the proxy for the module's
// latest version (a deprecation check); a proxy that refuses the list is
// asked again after the local module cache (file://, which holds pigo at
// go.mod's version, the repository being built with it).
func installPigo(dir, repo string) {
	pigoCLI, facesCascade = "", filepath.Join(repo, "extractors", "faces", "cascade", "facefinder")
	delete(bareLabels, "vendor_faces")
	fail := func(why string) {
		bareLabels["vendor_faces"] = "ffmpeg sampling only, no face detection"
		fmt.Printf("  vendor_faces: pigo's command-line tool could not be installed (%s): its baseline below is the ffmpeg sampling only, without face detection\n", why)
	}
	list := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/esimov/pigo")
	list.Dir = repo
	out, err := list.Output()
	version := strings.TrimSpace(string(out))
	if err != nil || version == "" {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		fail(fmt.Sprintf("go list -m github.com/esimov/pigo: %v: %s", err, firstLine(stderr)))
		return
	}
	bin := filepath.Join(dir, "pigo-bin")
	pkg := "github.com/esimov/pigo/cmd/pigo@" + version
	install := func(env ...string) ([]byte, error) {
		cmd := exec.Command("go", "install", pkg)
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), "GOBIN="+bin), env...)
		return cmd.CombinedOutput()
	}
	how := "go install " + pkg
	out, err = install()
	if err != nil {
		goenv, e2 := exec.Command("go", "env", "GOMODCACHE", "GOPROXY").Output()
		vals := strings.Split(strings.TrimSpace(string(goenv)), "\n")
		if e2 != nil || len(vals) != 2 {
			fail(fmt.Sprintf("%s: %v: %s", how, err, firstLine(out)))
			return
		}
		proxy := "file://" + filepath.ToSlash(filepath.Join(vals[0], "cache", "download"))
		if p := strings.TrimSpace(vals[1]); p != "" && p != "off" {
			proxy += "," + p
		}
		first := firstLine(out)
		if out, err = install("GOPROXY=" + proxy); err != nil {
			fail(fmt.Sprintf("%s: %s; again with GOPROXY=%s: %v: %s", how, first, proxy, err, firstLine(out)))
			return
		}
		how += " with GOPROXY=" + proxy + " (without the module cache it failed: " + first + ")"
	}
	pigoCLI = filepath.Join(bin, "pigo")
	fmt.Printf("  vendor_faces: baseline's face detector: pigo %s command-line tool, by %s\n", version, how)
}

// needs are what a broadcast decode pass measures (broadcast.needs).
type needs struct{ black, samples, silence, loudness, volume bool }

// passBare is the broadcast family's decode pass (broadcast.decode) for
// one analysis harvested alone.
func passBare(want needs) func(p *av.Probe) (string, error) {
	return func(p *av.Probe) (string, error) {
		var graph, outputs, nullMaps []string
		if v := p.Video(); v != nil && !p.IsStill() && (want.black || want.samples) {
			var chain []string
			if want.black {
				chain = append(chain, "blackdetect=d=0.5:pix_th=0.10:pic_th=0.98")
			}
			if want.samples {
				chain = append(chain, "fps=4:start_time=0,scale=96:48:flags=area,format=rgb24")
				graph = append(graph, fmt.Sprintf("[0:%d]%s[samples]", v.Index, strings.Join(chain, ",")))
				outputs = append(outputs, "-map", "[samples]", "-fps_mode", "passthrough", "-f", "rawvideo", "pipe:1")
			} else {
				graph = append(graph, fmt.Sprintf("[0:%d]%s[video]", v.Index, strings.Join(chain, ",")))
				nullMaps = append(nullMaps, "-map", "[video]")
			}
		}
		if a := p.Audio(); a != nil && (want.silence || want.loudness || want.volume) {
			var chain []string
			if want.loudness {
				chain = append(chain, "ebur128=peak=true+sample:framelog=verbose")
			}
			if want.silence {
				chain = append(chain, "silencedetect=n=-60dB:d=0.5")
			}
			if want.volume {
				chain = append(chain, "volumedetect")
			}
			graph = append(graph, fmt.Sprintf("[0:%d]%s[audio]", a.Index, strings.Join(chain, ",")))
			nullMaps = append(nullMaps, "-map", "[audio]")
		}
		if len(graph) == 0 {
			return "", fmt.Errorf("no stream to analyse")
		}
		if len(nullMaps) > 0 {
			outputs = append(outputs, append(nullMaps, "-f", "null", "-")...)
		}
		args := append([]string{"-nostdin", "-nostats", "-v", "info", "-t", "14400"}, av.InputArgs(fileArg)...)
		args = append(append(args, "-filter_complex", strings.Join(graph, ";")), outputs...)
		return ffprobeThen(cmdline("ffmpeg", args...) + " >/dev/null 2>&1"), nil
	}
}

// captionsBare is the embedded reading (captions.readEmbedded): ffmpeg
// converts every text subtitle stream to SubRip in one run; captionsv2
// then looks for closed captions in the first 60 frames of the video
// (captions.hasA53). The samples carry none, so readA53 does not run.
func captionsBare(v2 bool) func(p *av.Probe) (string, error) {
	text := []string{"subrip", "srt", "ass", "ssa", "mov_text", "webvtt", "text"}
	return func(p *av.Probe) (string, error) {
		args := append([]string{"-nostdin", "-y", "-v", "error"}, av.InputArgs(fileArg)...)
		n := 0
		for _, s := range p.Subtitles() {
			if !slices.Contains(text, s.CodecName) {
				return "", fmt.Errorf("subtitle codec %s not covered", s.CodecName)
			}
			args = append(args, "-map", fmt.Sprintf("0:%d", s.Index), "-fs", "33554432",
				"-f", "srt", fmt.Sprintf("file:%s/%d.srt", dirArg, s.Index))
			n++
		}
		if n == 0 {
			return "", fmt.Errorf("no subtitle stream")
		}
		cmds := []string{cmdline("ffmpeg", args...)}
		if v := p.Video(); v2 && v != nil && !p.IsStill() {
			cmds = append(cmds, cmdline("ffprobe", append([]string{"-v", "error", "-select_streams", strconv.Itoa(v.Index),
				"-read_intervals", "%+#60", "-show_entries", "frame_side_data=side_data_type", "-of", "csv=p=0"},
				av.InputArgs(fileArg)...)...)+" >/dev/null")
		}
		return ffprobeThen(inTmp(cmds...)), nil
	}
}

// ocrVideoBare is ocr.sampleFrames for a video of at most a minute (every
// 2 s from the start: the dense zones cover it), then tesseract on each
// frame as engine.read runs it.
func ocrVideoBare(p *av.Probe) (string, error) {
	v, err := needVideo(p)
	if err != nil {
		return "", err
	}
	d := av.Seconds(v.Duration)
	if d <= 0 {
		d = p.Duration()
	}
	if d <= 0 || d > 60 {
		return "", fmt.Errorf("duration %v: the suite's copy of the plan covers up to a minute", d)
	}
	lim := strconv.FormatFloat(d, 'f', -1, 64)
	expr := strings.NewReplacer("LIMIT", lim, "HEAD", lim, "TAIL", lim, "DENSE", "2", "SPARSE", "2").Replace(
		"if(isnan(t)+lt(t,0)+gte(t,LIMIT),0,if(lt(t,ld(0)),0," +
			"st(0,if(lt(t,HEAD),min((floor(t/DENSE)+1)*DENSE,HEAD)," +
			"if(lt(t,TAIL),min(HEAD+(floor((t-HEAD)/SPARSE)+1)*SPARSE,TAIL)," +
			"TAIL+(floor((t-TAIL)/DENSE)+1)*DENSE)));1))")
	args := append([]string{"-nostdin", "-v", "error", "-nostats", "-threads", "2", "-t", lim}, av.InputArgs(fileArg)...)
	args = append(args, "-map", fmt.Sprintf("0:%d", v.Index), "-an", "-sn", "-dn",
		"-vf", fmt.Sprintf("select='%s',scale=w='min(960,iw)':h='min(960,ih)':force_original_aspect_ratio=decrease,format=gray", expr),
		"-fps_mode", "passthrough", "-enc_time_base", "1/1000", "-frames:v", "200",
		"-c:v", "png", "-f", "image2", "-frame_pts", "1", "file:"+dirArg+"/%09d.png")
	read := `for f in "$d"/*.png; do OMP_THREAD_LIMIT=1 tesseract "$f" - -l eng --psm 3 -c tessedit_page_number=0 tsv >/dev/null 2>&1 || exit 1; done`
	return ffprobeThen(inTmp(cmdline("ffmpeg", args...), read)), nil
}

// speechBare is speech_to_text with pocketsphinx: the stream decoded to
// 16 kHz PCM in a file, then fed to pocketsphinx_continuous.
func speechBare(p *av.Probe) (string, error) {
	a := p.Audio()
	if a == nil {
		return "", fmt.Errorf("no audio")
	}
	model := "/usr/share/pocketsphinx/model/en-us"
	decode := append(append([]string{"-nostdin", "-nostats", "-v", "error"}, av.InputArgs(fileArg)...),
		"-map", fmt.Sprintf("0:%d", a.Index), "-vn", "-sn", "-dn", "-af", "aresample=async=1:first_pts=0",
		"-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-t", "3600.000", "-fs", "115200000",
		"-f", "s16le", "-y", "file:"+dirArg+"/audio.pcm")
	recognise := cmdline("pocketsphinx_continuous", "-infile", "/dev/stdin", "-time", "yes", "-fwdflat", "no", "-samprate", "16000",
		"-hmm", model+"/en-us", "-lm", model+"/en-us.lm.bin", "-dict", model+"/cmudict-en-us.dict") +
		` <"$d/audio.pcm" >/dev/null 2>&1`
	return ffprobeThen(inTmp(cmdline("ffmpeg", decode...), recognise)), nil
}

func benchExtractors(ctx context.Context, e *env) error {
	repo, err := repoRoot()
	if err != nil {
		return err
	}
	fmt.Println("extractors: each harvested alone (with store and mime_type) over copies of the sample files,")
	fmt.Println("            against the bare commands it runs, by xargs -P2 on the same files (target >= 0.8x)")
	pages, err := ocrPages(e.dir, repo)
	if err != nil {
		return err
	}
	gen, err := generateSamples(filepath.Join(e.dir, "gen"), repo, pages)
	if err != nil {
		return err
	}
	// MHBENCH_EXTRACTORS=name,name runs those cases only (and not the
	// minute of footage or the documents), to look at one extractor.
	only := strings.FieldsFunc(os.Getenv("MHBENCH_EXTRACTORS"), func(r rune) bool { return r == ',' })
	if len(only) == 0 || slices.Contains(only, "vendor_faces") {
		installPigo(e.dir, repo)
	}
	for _, c := range extractorCases {
		if len(only) > 0 && !slices.Contains(only, c.name) {
			continue
		}
		if err := benchExtractor(ctx, e, c, repo, pages, gen); err != nil {
			return err
		}
	}
	if len(only) == 0 || slices.Contains(only, "nsfw") {
		if err := benchNSFW(ctx, e, repo); err != nil {
			return err
		}
	}
	if len(only) == 0 || slices.Contains(only, "vision") {
		if err := benchVision(ctx, e, repo); err != nil {
			return err
		}
	}
	if len(only) > 0 {
		return nil
	}
	fmt.Println()
	if err := benchVideoMinute(ctx, e); err != nil {
		return err
	}
	return benchDocuments(ctx, e, repo)
}

// benchExtractor times one case: the bare commands over the copies, then a
// harvest of the same files with the extractor alone.
func benchExtractor(ctx context.Context, e *env, c extractorCase, repo, pages, gen string) error {
	root := filepath.Join(e.dir, "ext-"+c.name)
	dir := filepath.Join(root, "media")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The baseline's list: script, $0 and $1 of each run, NUL-separated,
	// read by xargs -0 -n3 (sh -c SCRIPT sh FILE).
	var list bytes.Buffer
	n := 0
	for _, s := range c.samples {
		src := filepath.Join(repo, s)
		switch {
		case strings.HasPrefix(s, "ocr-pages/"):
			src = filepath.Join(pages, filepath.Base(s))
		case strings.HasPrefix(s, "gen/"):
			src = filepath.Join(gen, filepath.Base(s))
		}
		script := c.bare
		if c.bareFor != nil {
			p, err := probeFile(src)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", c.name, s, err)
			}
			if script, err = c.bareFor(p); err != nil {
				return fmt.Errorf("%s: %s: %w", c.name, s, err)
			}
		}
		for i := 0; i < c.copies; i++ {
			dst := filepath.Join(dir, fmt.Sprintf("%04d-%s", i, filepath.Base(s)))
			if err := copyFile(src, dst); err != nil {
				return err
			}
			list.WriteString(script + "\x00sh\x00" + dst + "\x00")
			n++
		}
	}
	listFile := filepath.Join(root, "bare.list")
	if err := os.WriteFile(listFile, list.Bytes(), 0o644); err != nil {
		return err
	}
	restore, err := enable(e, c.name)
	if err != nil {
		return err
	}
	defer restore()
	c0 := childCPU()
	base, err := timeCmd("sh", "-c", `xargs -0 -n3 -P2 sh -c <"$0"`, listFile)
	if err != nil {
		return fmt.Errorf("%s baseline: %w", c.name, err)
	}
	baseCPU := childCPU() - c0
	cpu0, ch0 := readCPU(), childCPU()
	ours, err := e.harvest(ctx, root, []string{c.name}, int64(n))
	if err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	ourCPU := readCPU().sub(cpu0).self + childCPU() - ch0
	note, err := runNote(e, c.name, n)
	if err != nil {
		return err
	}
	bfs, ofs := float64(n)/base.Seconds(), float64(n)/ours.Seconds()
	bare := "bare"
	if l := bareLabels[c.name]; l != "" {
		bare += " [" + l + "]"
	}
	fmt.Printf("  %-18s %4d files: %s %7.1f files/s (%.2f CPU-s); metaharvest %7.1f files/s (%.2f CPU-s); ratio %.2fx%s\n",
		c.name, n, bare, bfs, baseCPU, ofs, ourCPU, ofs/bfs, note)
	return nil
}

// probeFile is the ffprobe reading of a sample, as av.Read makes it.
func probeFile(path string) (*av.Probe, error) {
	out, err := exec.Command("ffprobe", av.ProbeArgs(path)...).Output()
	if err != nil {
		return nil, fmt.Errorf("ffprobe: %w", err)
	}
	return av.Parse(out)
}

// benchNSFW: the nsfw extractor against the bare sidecar. The baseline is
// the nsfw package's own BenchmarkPicture/bare_sidecar (node server.js
// fed a PPM of the picture, one request after the other: one process, as
// the worker's NSFW_PROCESSES=1), run by go test and read here, rather
// than a second driver of the sidecar protocol. The harvest side decodes
// the pictures in Go first; the sidecar's start and model load are left
// out of both (the harvest is timed after a first one).
func benchNSFW(ctx context.Context, e *env, repo string) error {
	samples := []string{"extractors/nsfw/testdata/goexif-sample1.jpg", "extractors/nsfw/testdata/video-001.png",
		"extractors/nsfw/testdata/text-x-script.png"}
	// 90 pictures: the harvest's fixed start (request, walk, first task) is
	// part of its figure, not of the benchmark's per-picture time.
	const copies = 30
	root := filepath.Join(e.dir, "ext-nsfw")
	warm := filepath.Join(e.dir, "ext-nsfw-warm")
	for _, d := range []string{filepath.Join(root, "media"), filepath.Join(warm, "media")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := copyFile(filepath.Join(repo, samples[0]), filepath.Join(warm, "media", "warm.jpg")); err != nil {
		return err
	}
	n := 0
	for i := 0; i < copies; i++ {
		for _, s := range samples {
			if err := copyFile(filepath.Join(repo, s), filepath.Join(root, "media", fmt.Sprintf("%04d-%s", i, filepath.Base(s)))); err != nil {
				return err
			}
			n++
		}
	}
	bench := exec.Command("go", "test", "-run", "^$", "-bench", "Picture/bare_sidecar", "-benchtime", fmt.Sprintf("%dx", n), "./extractors/nsfw")
	bench.Dir = repo
	out, err := bench.CombinedOutput()
	m := regexp.MustCompile(`([0-9.]+) ms/picture`).FindSubmatch(out)
	if err != nil || m == nil {
		fmt.Printf("  %-18s bare sidecar benchmark did not run (%v): %s\n", "nsfw", err, lastLine(out))
		return nil
	}
	ms, _ := strconv.ParseFloat(string(m[1]), 64)
	restore, err := enable(e, "nsfw")
	if err != nil {
		return err
	}
	defer restore()
	if _, err := e.harvest(ctx, warm, []string{"nsfw"}, 1); err != nil {
		return fmt.Errorf("nsfw: %w", err)
	}
	cpu0, ch0 := readCPU(), childCPU()
	ours, err := e.harvest(ctx, root, []string{"nsfw"}, int64(n))
	if err != nil {
		return fmt.Errorf("nsfw: %w", err)
	}
	ourCPU := readCPU().sub(cpu0).self + childCPU() - ch0
	note, err := runNote(e, "nsfw", n+1)
	if err != nil {
		return err
	}
	bfs, ofs := 1000/ms, float64(n)/ours.Seconds()
	// The sidecar is a long-lived child: its CPU is not in the harvest's
	// figure until it exits.
	fmt.Printf("  %-18s %4d files: bare sidecar %7.1f files/s (BenchmarkPicture); metaharvest %7.1f files/s (%.2f CPU-s without node); ratio %.2fx%s\n",
		"nsfw", n, bfs, ofs, ourCPU, ofs/bfs, note)
	return nil
}

// firstLine is the first line of a command's output that says something.
func firstLine(b []byte) string {
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// generateSamples makes, from the Debian samples, the files the sample
// set lacks: transport streams (remuxed, not re-encoded), DPX frames,
// files with subtitle tracks, a clip with black, colour bars and silence
// for the broadcast analyses, and a clip of printed text for the OCR
// analyses (a rendered page of a real PDF).
func generateSamples(dir, repo, pages string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	r := func(p string) string { return filepath.Join(repo, p) }
	o := func(name string) string { return filepath.Join(dir, name) }
	jobs := [][]string{
		{"-i", r("extractors/probe/testdata/mp4.mp4"), "-map", "0", "-c", "copy", "-metadata", "service_name=metaharvest bench",
			"-metadata", "service_provider=Debian samples", "-f", "mpegts", o("mp4.ts")},
		{"-i", r("extractors/probe/testdata/mov.mov"), "-map", "0", "-c", "copy", "-mpegts_m2ts_mode", "1", "-f", "mpegts", o("mov.m2ts")},
		{"-i", r("extractors/probe/testdata/webm.webm"), "-map", "0", "-c", "copy", "-f", "mpegts", o("webm.ts")},
		{"-i", r("extractors/images/testdata/goexif-sample1.jpg"), "-pix_fmt", "rgb24", o("sample1-8bit.dpx")},
		{"-i", r("extractors/images/testdata/goexif-sample1.jpg"), "-pix_fmt", "gbrp10le", o("sample1-10bit.dpx")},
		{"-i", r("extractors/images/testdata/tux.png"), "-pix_fmt", "rgb48le", o("tux-16bit.dpx")},
		{"-i", r("extractors/video/testdata/mp4.mp4"), "-i", r("extractors/captions/testdata/srt.srt"), "-map", "0", "-map", "1",
			"-c", "copy", "-c:s", "srt", "-metadata:s:s:0", "language=eng", o("subtitled.mkv")},
		{"-i", r("extractors/probe/testdata/mov.mov"), "-i", r("extractors/captions/testdata/srt.srt"), "-map", "0", "-map", "1",
			"-c", "copy", "-c:s", "mov_text", "-metadata:s:s:0", "language=eng", o("subtitled.mp4")},
		{"-i", r("extractors/video/testdata/webm.webm"), "-i", r("extractors/captions/testdata/vtt.vtt"), "-map", "0", "-map", "1",
			"-c", "copy", "-c:s", "webvtt", o("subtitled.webm")},
		// 12 s at 320x240: 3 s black, 3 s SMPTE bars, 6 s test pattern;
		// 3 s of silence, then a tone.
		{"-f", "lavfi", "-i", "color=c=black:s=320x240:r=25:d=3", "-f", "lavfi", "-i", "smptebars=s=320x240:r=25:d=3",
			"-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=6", "-f", "lavfi", "-i", "anullsrc=r=48000:cl=mono:d=3",
			"-f", "lavfi", "-i", "sine=f=440:r=48000:d=9",
			"-filter_complex", "[0:v][1:v][2:v]concat=n=3:v=1:a=0,format=yuv420p[v];[3:a][4:a]concat=n=2:v=0:a=1[a]",
			"-map", "[v]", "-map", "[a]", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", o("qc.mp4")},
		// 6 s of the top of a rendered page of gofpdf's sample PDF, 640
		// pixels wide.
		{"-loop", "1", "-framerate", "25", "-t", "6", "-i", filepath.Join(pages, "page1.png"),
			"-vf", "crop=iw:ih/3:0:0,scale=640:-2,format=yuv420p", "-c:v", "libx264", "-preset", "veryfast", o("printed.mp4")},
	}
	for _, args := range jobs {
		args = append([]string{"-nostdin", "-v", "error", "-y"}, args...)
		if out, err := exec.Command("ffmpeg", args...).CombinedOutput(); err != nil {
			return "", fmt.Errorf("make %s: %v: %s", filepath.Base(args[len(args)-1]), err, out)
		}
	}
	return dir, nil
}

// benchVideoMinute harvests one generated minute of 720p footage (a cut
// every 10 s, a tone) with every extractor enabled by default and reports
// what it costs.
func benchVideoMinute(ctx context.Context, e *env) error {
	root := filepath.Join(e.dir, "minute")
	dir := filepath.Join(root, "media")
	os.MkdirAll(dir, 0o755)
	clip := filepath.Join(dir, "minute.mp4")
	var parts []string
	srcs := []string{"testsrc2", "smptehdbars", "mandelbrot", "rgbtestsrc", "testsrc", "cellauto"}
	for _, s := range srcs {
		// -t, not the sources' d option: mandelbrot has none.
		parts = append(parts, "-f", "lavfi", "-t", "10", "-i", fmt.Sprintf("%s=s=1280x720:r=25", s))
	}
	parts = append(parts, "-f", "lavfi", "-i", "sine=f=440:d=60")
	filter := ""
	for i := range srcs {
		filter += fmt.Sprintf("[%d:v]format=yuv420p,setsar=1[v%d];", i, i)
	}
	for i := range srcs {
		filter += fmt.Sprintf("[v%d]", i)
	}
	filter += fmt.Sprintf("concat=n=%d:v=1:a=0[v]", len(srcs))
	args := append([]string{"-nostdin", "-v", "error"}, parts...)
	args = append(args, "-filter_complex", filter, "-map", "[v]", "-map", fmt.Sprintf("%d:a", len(srcs)),
		"-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", "-shortest", clip)
	if out, err := exec.Command("ffmpeg", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("make the minute clip: %v: %s", err, out)
	}
	cpu0, ch0 := readCPU(), childCPU()
	took, err := e.harvest(ctx, root, nil, 1)
	if err != nil {
		return err
	}
	cpu := readCPU().sub(cpu0)
	tools := childCPU() - ch0
	var ran []string
	e.db.Raw(`SELECT name FROM activity_rows WHERE kind = 'extractor' AND item_id IN (SELECT id FROM items WHERE name = 'minute.mp4') ORDER BY name`).Scan(&ran)
	fmt.Printf("full video harvest, default profile, 1 minute of 720p25 H.264 + AAC (%d extractors: %s)\n", len(ran), strings.Join(ran, ", "))
	fmt.Printf("  wall %.1f s per minute of footage; CPU %.1f s (tools %.1f s, metaharvest %.1f s, postgres %.1f s)\n\n",
		took.Seconds(), tools+cpu.self+cpu.postgres, tools, cpu.self, cpu.postgres)
	return nil
}

// benchDocuments: a folder of mixed documents, default profile, from the
// harvest request until a search counts every file.
func benchDocuments(ctx context.Context, e *env, repo string) error {
	samples := []string{"extractors/pdf/testdata/basic.pdf", "extractors/pdf/testdata/multicell.pdf",
		"extractors/office/testdata/sample-docx.docx", "extractors/office/testdata/sample-xlsx.xlsx",
		"extractors/documents/testdata/utf8.txt", "extractors/documents/testdata/debian.csv",
		"extractors/documents/testdata/plain.eml", "extractors/documents/testdata/exiftool-under.html",
		"extractors/documents/testdata/person.json", "extractors/documents/testdata/simple-ns.xml"}
	root := filepath.Join(e.dir, "docs")
	dir := filepath.Join(root, "media")
	os.MkdirAll(dir, 0o755)
	n := 0
	for i := 0; i < 30; i++ {
		for _, s := range samples {
			if err := copyFile(filepath.Join(repo, s), filepath.Join(dir, fmt.Sprintf("%03d-%s", i, filepath.Base(s)))); err != nil {
				return err
			}
			n++
		}
	}
	engine, err := search.Open(search.Config{DB: e.db})
	if err != nil {
		return err
	}
	start := time.Now()
	locID, _, err := e.startHarvest(ctx, root, nil)
	if err != nil {
		return err
	}
	for {
		res, err := engine.Search(ctx, search.Request{Limit: 1, Filters: &search.Filters{
			Terms: []search.Term{{Field: search.FieldLocationID, Value: search.FlexString(locID)}}}}, search.Visibility{All: true})
		if err == nil && res.TotalHits >= int64(n) {
			break
		}
		if time.Since(start) > 20*time.Minute {
			return fmt.Errorf("mixed documents not searchable after 20 min")
		}
		time.Sleep(50 * time.Millisecond)
	}
	took := time.Since(start)
	fmt.Printf("mixed documents (pdf, docx, xlsx, txt, csv, eml, html, json, xml), default profile: %d files searchable in %.1f s, %.1f files/s end to end\n\n",
		n, took.Seconds(), float64(n)/took.Seconds())
	return nil
}

// ocrPages renders two pages of a real PDF (gofpdf's sample, in the OCR
// tests' testdata) to PNG at 150 dpi, the pictures the tesseract case reads.
func ocrPages(dir, repo string) (string, error) {
	out := filepath.Join(dir, "ocr-pages")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	for i, pdf := range []string{"extractors/ocr/testdata/multicell.pdf", "extractors/ocr/testdata/addpage.pdf"} {
		prefix := filepath.Join(out, fmt.Sprintf("p%d", i+1))
		if b, err := exec.Command("pdftoppm", "-png", "-r", "150", "-f", "1", "-l", "1", "-singlefile", filepath.Join(repo, pdf), prefix).CombinedOutput(); err != nil {
			return "", fmt.Errorf("pdftoppm: %v: %s", err, b)
		}
		if err := os.Rename(prefix+".png", filepath.Join(out, fmt.Sprintf("page%d.png", i+1))); err != nil {
			return "", err
		}
	}
	return out, nil
}

// enable enables an extractor on the bench's platform: a harvest request
// naming an extractor disabled by default (captions, vendor_faces,
// speech_to_text, nsfw) runs it only once it is enabled. restore puts the
// platform back as it was, so that the default profile of the suites
// after stays the registry's.
func enable(e *env, name string) (restore func(), err error) {
	var before []models.ExtractorSetting
	if err := e.db.Where("name = ?", name).Find(&before).Error; err != nil {
		return nil, err
	}
	now := time.Now()
	if err := e.db.Save(&models.ExtractorSetting{Name: name, Enabled: true, EnabledAt: &now, UpdatedAt: now}).Error; err != nil {
		return nil, err
	}
	return func() {
		if len(before) > 0 {
			e.db.Save(&before[0])
		} else {
			e.db.Where("name = ?", name).Delete(&models.ExtractorSetting{})
		}
	}, nil
}

// runNote says how many of the files want the extractor did not run on
// without error (a harvest in which it did not run, or failed, measures
// nothing of it).
func runNote(e *env, name string, want int) (string, error) {
	var r struct{ Ran, Failed int }
	err := e.db.Raw(`SELECT count(*) AS ran, count(*) FILTER (WHERE error <> '') AS failed FROM activity_rows WHERE kind = 'extractor' AND name = ?`, name).Scan(&r).Error
	switch {
	case err != nil:
		return "", err
	case r.Failed > 0:
		return fmt.Sprintf("  (%d extractor errors)", r.Failed), nil
	case r.Ran < want:
		return fmt.Sprintf("  (ran on %d of %d files)", r.Ran, want), nil
	}
	return "", nil
}

// childCPU is the CPU seconds used by the waited-for children of this
// process (the tools the extractors and the baselines ran).
func childCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("mhbench: run it inside the repository (no go.mod above %s)", dir)
		}
		dir = parent
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
