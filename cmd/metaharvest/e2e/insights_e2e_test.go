package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/testproc"
)

// dejavuBold is the font ffmpeg's drawtext prints the test warning with
// (Debian's fonts-dejavu-core).
const dejavuBold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

// A video with English subtitles, a tone, and a warning printed on its
// frames from 2 s to 4 s is harvested by an api and a worker process with
// the real extractors. Through HTTP, as a client sees it: the keyword hits
// of a group fall at the subtitles' times and at the frames showing the
// warning; the item summary carries the clip's technical facts and the
// group's hits; a word of the subtitles finds the clip through search,
// highlighted in transcript.text.
func TestInsightsOfAHarvestedVideo(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"ffmpeg", "tesseract"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s: %v", tool, err)
		}
	}
	if _, err := os.Stat(dejavuBold); err != nil {
		t.Skipf("font for the printed warning: %v (fonts-dejavu-core)", err)
	}
	p := newPlatform(t)
	root, work := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "show"), 0o755); err != nil {
		t.Fatal(err)
	}
	srt := filepath.Join(work, "subs.srt")
	if err := os.WriteFile(srt, []byte("1\n00:00:00,500 --> 00:00:01,500\nRain over New York\n\n"+
		"2\n00:00:02,000 --> 00:00:03,000\nMore rain tonight\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	warning := filepath.Join(work, "warning.txt")
	if err := os.WriteFile(warning, []byte("RAIN WARNING"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-y",
		"-f", "lavfi", "-i", "color=black:s=320x240:r=25:d=6,drawtext=fontfile="+dejavuBold+":textfile="+warning+
			":expansion=none:fontcolor=white:fontsize=36:x=(w-tw)/2:y=(h-th)/2:enable='between(t,2,4)'",
		"-f", "lavfi", "-i", "sine=frequency=440:duration=6", "-i", srt,
		"-map", "0:v", "-map", "1:a", "-map", "2:s", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-c:s", "mov_text",
		"-metadata:s:s:0", "language=eng", filepath.Join(root, "show", "clip.mp4")).CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, out)
	}

	addr := testproc.FreeAddr(t)
	apiProc := testproc.Start(t, "api", p.env("HTTP_ADDR="+addr, "ADMIN_EMAIL=admin@example.com", "ADMIN_PASSWORD=e2e-password-1"))
	testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
	c := &client{t: t, base: "http://" + addr}
	waitReady(t, c.base, apiProc)
	c.token = c.call("POST", "/api/login", map[string]string{"email": "admin@example.com", "password": "e2e-password-1"}, 200)["token"].(string)

	locID := c.call("POST", "/api/data/v3/locations", map[string]any{"kind": "filesystem", "name": "Shows",
		"config": map[string]any{"path": root}}, 201)["id"].(string)
	ctrID := c.call("GET", "/api/data/locations/"+locID+"/containers", nil, 200)["containers"].([]any)[0].(map[string]any)["id"].(string)
	req := c.call("POST", "/api/control/harvest", map[string]any{"location_id": locID, "container_id": ctrID,
		"extractors": []string{"mediainfo", "audiopeak", "captionsv2", "tesseract"}, "override_extractors": true}, 202)["request_id"].(string)
	deadline := time.Now().Add(3 * time.Minute)
	for {
		st := c.call("GET", "/api/control/harvest/"+req, nil, 200)
		if st["state"] == "done" {
			break
		}
		if st["state"] == "failed" || st["state"] == "cancelled" || time.Now().After(deadline) {
			t.Fatalf("harvest: %v", st)
		}
		time.Sleep(100 * time.Millisecond)
	}
	files := c.call("GET", "/api/data/v3/activity/request/"+req+"/items", nil, 200)["files"].([]any)
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	clip := files[0].(map[string]any)["item_id"].(string)
	for _, e := range c.call("GET", "/api/data/v3/activity/request/"+req+"/extractors", nil, 200)["extractors"].([]any) {
		if m := e.(map[string]any); m["num_errors"].(float64) != 0 {
			t.Errorf("extractor %v failed", m)
		}
	}

	c.call("POST", "/api/data/keywords/groups", map[string]any{"name": "Weather", "color": "#3366ff", "words": []string{"rain", "new york"}}, 201)
	hits := c.call("GET", "/api/data/keywords/hits/"+clip, nil, 200)["insights"].([]any)
	if len(hits) != 1 {
		t.Fatalf("hits %v", hits)
	}
	got := map[string][]any{}
	for _, m := range hits[0].(map[string]any)["matches"].([]any) {
		m := m.(map[string]any)
		got[m["type"].(string)+" "+m["source"].(string)+" "+m["word"].(string)] = m["timeline"].([]any)
	}
	// The subtitles' times, as written in the SubRip file.
	entry := func(tl []any, i int) (float64, float64, float64) {
		e := tl[i].(map[string]any)
		return e["start_at"].(float64), e["end_at"].(float64), e["count"].(float64)
	}
	if tl := got["caption captionsv2 rain"]; len(tl) != 1 {
		t.Errorf("caption hits of rain: %v (all: %v)", tl, got)
	} else if s, e, n := entry(tl, 0); s != 0.5 || e != 3 || n != 2 {
		t.Errorf("caption hits of rain: %v", tl)
	}
	if tl := got["caption captionsv2 new york"]; len(tl) != 1 {
		t.Errorf("caption hits of new york: %v", tl)
	} else if s, e, n := entry(tl, 0); s != 0.5 || e != 1.5 || n != 1 {
		t.Errorf("caption hits of new york: %v", tl)
	}
	// The warning is on the frames from 2 s to 4 s: tesseract reads it in
	// the frames it samples there, and nowhere else.
	if tl := got["ocr tesseract rain"]; len(tl) == 0 {
		t.Errorf("no OCR hit of rain: %v", got)
	} else {
		for i := range tl {
			if s, e, _ := entry(tl, i); s < 1.9 || e > 4.1 {
				t.Errorf("OCR hit of rain outside 2..4 s: %v", tl)
			}
		}
	}

	sum := c.call("GET", "/api/data/v3/summary/items/"+clip, nil, 200)["summary"].(map[string]any)
	tech := sum["technical"].(map[string]any)
	video, audio := tech["video"].(map[string]any), tech["audio"].(map[string]any)
	if video["resolution"] != "320x240" || video["frame_rate"] != 25.0 || video["duration_time"] != "00:00:06" ||
		video["aspect_ratio"] != "4:3" || video["chroma_subsampling"] != "4:2:0" || tech["file_type"] != "video" {
		t.Errorf("technical %v", tech)
	}
	// ffmpeg's sine source is at 1/8 of full scale: -18 dBFS, a little more
	// between samples after AAC.
	if audio["codec"] != "aac" || audio["channels"] != 1.0 || audio["duration_time"] != "00:00:06" {
		t.Errorf("audio %v", audio)
	}
	if peak, ok := audio["true_peak_dbfs"].(float64); !ok || peak < -19 || peak > -16 {
		t.Errorf("true peak %v", audio["true_peak_dbfs"])
	}
	ins := sum["insights"].([]any)
	if len(ins) != 1 || ins[0].(map[string]any)["captions"] != 3.0 || ins[0].(map[string]any)["ocrs"].(float64) < 1 {
		t.Errorf("insights %v", ins)
	}
	if sum["title"] != "clip.mp4" {
		t.Errorf("title %v", sum["title"])
	}

	// What a user finds: the subtitles' words, highlighted.
	deadline = time.Now().Add(time.Minute)
	for {
		r := c.call("POST", "/api/data/search", map[string]any{"query": "tonight"}, 200)
		if r["total_hits"].(float64) == 1 {
			found := false
			for _, h := range r["results"].([]any)[0].(map[string]any)["highlight"].([]any) {
				h := h.(map[string]any)
				for _, f := range h["fragments"].([]any) {
					found = found || (h["field"] == "transcript.text" && strings.Contains(f.(string), "<em>tonight</em>"))
				}
			}
			if !found {
				t.Errorf("no transcript.text highlight: %v", r["results"])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("search for a subtitle word: %v", r)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
