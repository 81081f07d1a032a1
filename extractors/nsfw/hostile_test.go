package nsfw

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/images"
)

// Bad files end as a recorded error before the sidecar is asked anything.
func TestGarbagePicture(t *testing.T) {
	requireSidecar(t)
	dir := t.TempDir()
	garbage := make([]byte, 32<<10)
	r := rand.New(rand.NewPCG(7, 7))
	for i := range garbage {
		garbage[i] = byte(r.UintN(256))
	}
	copy(garbage, "\xff\xd8\xff\xe0") // a JPEG start, then noise
	path := filepath.Join(dir, "garbage.jpg")
	if err := os.WriteFile(path, garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	asked := sharedX.pool.asked.Load()
	o := run(t, shared, path, "image/jpeg", nil, "")
	if o.Err == nil || extractors.IsTransient(o.Err) {
		t.Fatalf("err = %v, want a deterministic error", o.Err)
	}
	if sharedX.pool.asked.Load() != asked {
		t.Error("the sidecar was asked about garbage")
	}
}

// pngHeader is the start of a PNG declaring w x h pixels: what a pixel
// flood looks like (the picture data never comes).
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 2 // 8 bits, RGB
	chunk := append([]byte("IHDR"), ihdr...)
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func TestPixelFlood(t *testing.T) {
	requireSidecar(t)
	path := filepath.Join(t.TempDir(), "flood.png")
	if err := os.WriteFile(path, pngHeader(60000, 60000), 0o644); err != nil {
		t.Fatal(err)
	}
	asked := sharedX.pool.asked.Load()
	o := run(t, shared, path, "image/png", nil, "")
	if !errors.Is(o.Err, images.ErrTooLarge) || extractors.IsTransient(o.Err) {
		t.Fatalf("err = %v, want the pixel limit", o.Err)
	}
	if sharedX.pool.asked.Load() != asked {
		t.Error("the sidecar was asked about a pixel flood")
	}
}

// The sidecar refuses what is not a picture the worker wrote, and goes on
// serving.
func TestSidecarRefusesBadPictures(t *testing.T) {
	requireSidecar(t)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.ppm", append([]byte("P6\n# a comment\n2 2\n255\n"), make([]byte, 12)...))
	link := filepath.Join(dir, "link.ppm")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	bad := map[string]string{
		"not a PPM":       write("text.ppm", []byte("hello")),
		"ASCII PPM":       write("ascii.ppm", []byte("P3\n1 1\n255\n0 0 0\n")),
		"too wide":        write("wide.ppm", []byte("P6\n99999 1\n255\n")),
		"16 bits":         write("deep.ppm", []byte("P6\n1 1\n65535\n\x00\x00\x00\x00\x00\x00")),
		"short pixels":    write("short.ppm", []byte("P6\n4 4\n255\n\x00\x00\x00")),
		"empty":           write("empty.ppm", nil),
		"too big":         write("big.ppm", make([]byte, 4<<20)),
		"a directory":     dir,
		"a symbolic link": link,
		"missing":         filepath.Join(dir, "missing.ppm"),
		"relative":        "good.ppm",
	}
	ctx := context.Background()
	started := sharedX.pool.helpers.Started()
	for what, p := range bad {
		_, err := sharedX.pool.Classify(ctx, p)
		var refused *errAnswer
		if !errors.As(err, &refused) || extractors.IsTransient(err) {
			t.Errorf("%s: err = %v, want a refusal", what, err)
		}
	}
	if s, err := sharedX.pool.Classify(ctx, good); err != nil || len(s) != 5 {
		t.Errorf("good picture after the bad ones: %v, %v", s, err)
	}
	if got := sharedX.pool.helpers.Started(); got != started {
		t.Errorf("%d processes started, want none", got-started)
	}
}

// A sidecar killed while it works on a picture: the error is recorded
// (transient: nothing in the file caused it) and the next picture gets a
// new process. A request past its deadline kills the process.
func TestSidecarCrashAndDeadline(t *testing.T) {
	requireSidecar(t)
	x := direct(t, nil)
	var killed atomic.Int64
	x.pool.sent = func(pid int) {
		if killed.Add(1) == 1 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	o := x.extract(t, "testdata/video-001.png", "image/png")
	if o.err == nil || !extractors.IsTransient(o.err) || !strings.Contains(o.err.Error(), "output ended") {
		t.Fatalf("killed mid-request: err = %v", o.err)
	}
	t.Logf("recorded: %v", o.err)
	if o = x.extract(t, "testdata/video-001.png", "image/png"); o.err != nil || o.res.Data["category"] != "neutral" {
		t.Fatalf("after the crash: %v, %v", o.err, o.res)
	}
	if n := x.pool.helpers.Started(); n != 2 {
		t.Errorf("%d processes started, want 2", n)
	}

	x.pool.requestTimeout = time.Nanosecond
	o = x.extract(t, "testdata/video-001.png", "image/png")
	if o.err == nil || !extractors.IsTransient(o.err) || !strings.Contains(o.err.Error(), "no answer within") {
		t.Fatalf("late: err = %v", o.err)
	}
	if len(x.pool.helpers.Pids()) != 0 {
		t.Errorf("%d processes alive after the late answer", len(x.pool.helpers.Pids()))
	}
}

type extracted struct {
	res *extractors.Result
	err error
}

func (x *nsfw) extract(t *testing.T, path, mime string) extracted {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := x.Extract(ctx, input(t, path, mime))
	return extracted{res, err}
}

// fakeSidecar is a sidecar directory whose server.js misbehaves as mode
// says, for what the real one cannot be made to do.
func fakeSidecar(t *testing.T, mode string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"node_modules/nsfwjs/package.json", "node_modules/@tensorflow/tfjs/package.json",
		"node_modules/@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "server.js"), []byte(fakeServer), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mode"), []byte(mode), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

const fakeServer = `
const fs = require('fs'), path = require('path');
const mode = fs.readFileSync(path.join(__dirname, 'mode'), 'utf8');
const ready = JSON.stringify({ready: true, model: process.argv[2], size: 224, backend: 'fake'}) + '\n';
if (mode === 'die') { process.stderr.write('boom: the model would not load\n'); process.exit(3); }
if (mode === 'silent') { setInterval(() => {}, 1000); }
else {
  process.stdout.write(ready);
  let buf = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (c) => {
    buf += c;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const req = JSON.parse(buf.slice(0, i)); buf = buf.slice(i + 1);
      if (mode === 'flood') process.stdout.write('x'.repeat(1 << 20));
      else if (mode === 'wrongid') process.stdout.write(JSON.stringify({id: 'nope', scores: {}}) + '\n');
      else process.stdout.write(JSON.stringify({id: req.id, scores: {drawing: 0.1, hentai: 0, neutral: 0.9, porn: 0, sexy: 0}}) + '\n');
    }
  });
}
`

// What the real sidecar never does, a broken one might: each ends as a
// transient error, with the process killed.
func TestMisbehavingSidecar(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ mode, want string }{
		{"flood", "line too long"},
		{"wrongid", `answer for request "nope"`},
		{"die", "boom: the model would not load"},
		{"silent", "did not start"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			x := direct(t, map[string]string{"dir": fakeSidecar(t, c.mode)})
			x.pool.startTimeout = 2 * time.Second
			o := x.extract(t, "testdata/video-001.png", "image/png")
			if o.err == nil || !extractors.IsTransient(o.err) || !strings.Contains(o.err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", o.err, c.want)
			}
			if len(x.pool.helpers.Pids()) != 0 {
				t.Errorf("%d processes alive", len(x.pool.helpers.Pids()))
			}
		})
	}
}

// A video over the pixel limit is refused before any frame is decoded.
func TestVideoPixelLimit(t *testing.T) {
	x := direct(t, map[string]string{"dir": fakeSidecar(t, "ok"), "max_pixels": "10000"})
	o := x.extract(t, slideshow(t), "video/mp4")
	if !errors.Is(o.err, images.ErrTooLarge) || x.pool.asked.Load() != 0 {
		t.Fatalf("err = %v, %d pictures asked", o.err, x.pool.asked.Load())
	}
}

// Without the sidecar, or without node, the extractor is not available,
// and says where it looked.
func TestSidecarAbsent(t *testing.T) {
	empty := t.TempDir()
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"NSFW_SIDECAR_DIR": empty}, "not available: set-up failed: nsfw sidecar not installed at " + empty + " (no server.js)"},
		{map[string]string{"NSFW_SIDECAR_DIR": sidecarDir, "NSFW_NODE": "/nonexistent/node"}, `node program "/nonexistent/node" not found`},
		{map[string]string{"NSFW_SIDECAR_DIR": sidecarDir, "NSFW_MODEL": "ResNet"}, `not available: setting NSFW_MODEL = "ResNet": want one of MobileNetV2, MobileNetV2Mid, InceptionV3`},
	} {
		o := run(t, registry(t, c.env), "testdata/video-001.png", "image/png", nil, "")
		if !errors.Is(o.Err, extractors.ErrUnavailable) || !strings.Contains(o.Err.Error(), c.want) {
			t.Errorf("err = %v, want %q", o.Err, c.want)
		}
	}
}

// The sidecar itself, fed lines the worker never sends: each gets its
// answer, in order, and a client piling up requests is refused.
func TestSidecarHostileLines(t *testing.T) {
	requireSidecar(t)
	ppm := filepath.Join(t.TempDir(), "grey.ppm")
	if err := os.WriteFile(ppm, append([]byte("P6\n8 8\n255\n"), bytes.Repeat([]byte{128}, 8*8*3)...), 0o644); err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		"garbage",
		`{"id":"1","path":"` + ppm + `"}`,
		`{"id":"2","path":"relative.ppm"}`,
		`{"id":3,"path":"` + ppm + `"}`,
		strings.Repeat("x", 10000),
		`{"id":"4","path":"` + ppm + `"}`,
	}, "\n") + "\n"
	cmd := exec.Command("node", filepath.Join(sidecarDir, "server.js"))
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := []string{`"ready":true`, `{"id":null,"error":"request is not JSON"}`, `{"id":"1","scores":{`,
		`{"id":"2","error":"request needs a string id and an absolute path"}`, `{"id":null,"error":"request needs`,
		`{"id":null,"error":"request line over 8192 bytes"}`, `{"id":"4","scores":{`}
	if len(lines) != len(want) {
		t.Fatalf("answers:\n%s", out)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("answer %d: %s, want %s", i, lines[i], w)
		}
	}

	var many strings.Builder
	for range 200 {
		many.WriteString(`{"id":"x","path":"` + ppm + `"}` + "\n")
	}
	cmd = exec.Command("node", filepath.Join(sidecarDir, "server.js"))
	cmd.Stdin = strings.NewReader(many.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), "requests waiting") {
		t.Errorf("piled-up requests: %v, %s", err, stderr.String())
	}
}
