package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

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
// is a shell command run once per file with the file as $1.
type extractorCase struct {
	name    string   // extractor API name
	samples []string // sample files (relative to the repository root)
	copies  int      // how many copies of the samples make the set
	bare    string   // sh -c script, $1 = the file
}

var extractorCases = []extractorCase{
	{"mediainfo", []string{"extractors/probe/testdata/mp4.mp4", "extractors/probe/testdata/mov.mov", "extractors/probe/testdata/webm.webm",
		"extractors/probe/testdata/3gp.3gp", "extractors/probe/testdata/Front_Center.wav"}, 40,
		`ffprobe -v error -print_format json -show_format -show_streams -show_chapters "$1" >/dev/null`},
	{"exiv2", []string{"extractors/images/testdata/goexif-sample1.jpg", "extractors/images/testdata/goexif-has-lens-info.jpg",
		"extractors/images/testdata/goexif-geodegrees_as_string.jpg", "extractors/images/testdata/orientation_6.jpg"}, 50,
		`exiftool -json -n "$1" >/dev/null`},
	{"thumbnailer", []string{"extractors/images/testdata/goexif-sample1.jpg", "extractors/images/testdata/orientation_6.jpg",
		"extractors/images/testdata/tux.png"}, 30,
		`d=$(mktemp -d); for s in 320 1280; do ffmpeg -nostdin -v error -i "$1" -vf "scale=w='min($s,iw)':h='min($s,ih)':force_original_aspect_ratio=decrease" -frames:v 1 "$d/t$s.jpg"; done; rm -r "$d"`},
	{"video_main_frames", []string{"extractors/video/testdata/mp4.mp4", "extractors/video/testdata/webm.webm",
		"extractors/video/testdata/ogg.ogv"}, 10,
		`d=$(mktemp -d); ffmpeg -nostdin -v error -threads 2 -i "$1" -an -vf "select='gt(scene,0.3)+not(mod(n,250))',scale=640:-2" -fps_mode passthrough -q:v 4 -f image2 "$d/%09d.jpg"; rm -r "$d"`},
	{"audiopeak", []string{"extractors/broadcast/testdata/Front_Center.wav", "extractors/broadcast/testdata/bell.oga",
		"extractors/broadcast/testdata/audio-test-signal.oga"}, 20,
		`ffmpeg -nostdin -nostats -i "$1" -map 0:a:0 -af ebur128=peak=true+sample:framelog=verbose,silencedetect=n=-60dB:d=0.5,volumedetect -f null - 2>/dev/null`},
	{"caption_files", []string{"extractors/captions/testdata/srt.srt", "extractors/captions/testdata/vtt.vtt"}, 100,
		`ffmpeg -nostdin -v error -i "$1" -f srt - >/dev/null`},
	{"pdf", []string{"extractors/pdf/testdata/basic.pdf", "extractors/pdf/testdata/multicell.pdf", "extractors/pdf/testdata/addpage.pdf",
		"extractors/pdf/testdata/image.pdf"}, 40,
		`pdfinfo -isodates "$1" >/dev/null; pdftotext -enc UTF-8 "$1" - >/dev/null; pdfimages -list -f 1 -l 50 "$1" >/dev/null`},
	{"officex", []string{"extractors/office/testdata/sample-docx.docx", "extractors/office/testdata/sample-pptx.pptx",
		"extractors/office/testdata/sample-odt.odt"}, 60,
		`unzip -p "$1" word/document.xml ppt/slides/slide1.xml content.xml 2>/dev/null | sed 's/<[^>]*>//g' >/dev/null`},
	{"tesseract", []string{"ocr-pages/page1.png", "ocr-pages/page2.png"}, 4,
		`tesseract "$1" - -l eng >/dev/null 2>&1`},
}

func benchExtractors(ctx context.Context, e *env) error {
	repo, err := repoRoot()
	if err != nil {
		return err
	}
	fmt.Println("extractors: each harvested alone (with store and mime_type) over copies of the sample files,")
	fmt.Println("            against its bare tool run by xargs -P2 on the same files (target >= 0.8x)")
	pages, err := ocrPages(e.dir, repo)
	if err != nil {
		return err
	}
	for _, c := range extractorCases {
		root := filepath.Join(e.dir, "ext-"+c.name)
		dir := filepath.Join(root, "media")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		n := 0
		for i := 0; i < c.copies; i++ {
			for _, s := range c.samples {
				src := filepath.Join(repo, s)
				if strings.HasPrefix(s, "ocr-pages/") {
					src = filepath.Join(pages, filepath.Base(s))
				}
				dst := filepath.Join(dir, fmt.Sprintf("%04d-%s", i, filepath.Base(s)))
				if err := copyFile(src, dst); err != nil {
					return err
				}
				n++
			}
		}
		script := `find "$0" -type f -print0 | xargs -0 -P2 -n1 sh -c '` + strings.ReplaceAll(c.bare, `'`, `'\''`) + `' sh`
		c0 := childCPU()
		base, err := timeCmd("sh", "-c", script, dir)
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
		failed, err := extractorFailures(e, c.name)
		if err != nil {
			return err
		}
		bfs, ofs := float64(n)/base.Seconds(), float64(n)/ours.Seconds()
		note := ""
		if failed > 0 {
			note = fmt.Sprintf("  (%d extractor errors)", failed)
		}
		fmt.Printf("  %-18s %4d files: bare %7.1f files/s (%.2f CPU-s); metaharvest %7.1f files/s (%.2f CPU-s); ratio %.2fx%s\n",
			c.name, n, bfs, baseCPU, ofs, ourCPU, ofs/bfs, note)
	}
	fmt.Println()
	if err := benchVideoMinute(ctx, e); err != nil {
		return err
	}
	return benchDocuments(ctx, e, repo)
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

func extractorFailures(e *env, name string) (int64, error) {
	var n int64
	err := e.db.Raw(`SELECT count(*) FROM activity_rows WHERE kind = 'extractor' AND name = ? AND error <> ''`, name).Scan(&n).Error
	return n, err
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
