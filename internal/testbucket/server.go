package testbucket

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/metaharvest/metaharvest/internal/testproc"
	"github.com/metaharvest/metaharvest/internal/testsvc"
)

// Server is a running S3 server.
type Server struct {
	// Endpoint is the URL to put in an s3 location's config, e.g.
	// "http://127.0.0.1:41234".
	Endpoint  string
	AccessKey string
	SecretKey string
	// Dir is the posix backend: each bucket is a sub-directory.
	Dir string
}

// HostPort is Endpoint without its scheme, as minio.New wants it.
func (s Server) HostPort() string { return strings.TrimPrefix(s.Endpoint, "http://") }

// startTimeout bounds waiting for a fresh server to answer.
const startTimeout = 20 * time.Second

// ErrNoBinary means versitygw is not installed.
var ErrNoBinary = testsvc.Missing("versitygw", "the S3 server of the tests; deploy/setup.sh --s3 builds v1.8.0 into ~/.cache/metaharvest and links it into GOPATH/bin")

// Start runs a server owned by t, killed in t.Cleanup.
func Start(t testing.TB) Server {
	t.Helper()
	p, err := start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	return p.srv
}

var shared struct {
	once sync.Once
	proc *process
	dir  string
	err  error
}

// Shared returns the server of this test binary, starting it on first use.
// It outlives the test that started it; RunMain stops it.
func Shared(t testing.TB) Server {
	t.Helper()
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "testbucket-")
		if shared.err == nil {
			shared.proc, shared.err = start(shared.dir)
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.proc.srv
}

// RunMain runs the tests, then stops the shared server if one was started.
// Use it as os.Exit(testbucket.RunMain(m)) in TestMain.
func RunMain(m *testing.M) int {
	code := m.Run()
	if shared.proc != nil {
		shared.proc.stop()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	return code
}

// BucketName returns a fresh valid bucket name derived from the test name,
// so tests sharing a server never see each other's objects.
func BucketName(t testing.TB) string {
	name := strings.ToLower(t.Name())
	name = regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(name, "-")
	name = strings.Trim(name, "-")
	if len(name) > 40 {
		name = strings.TrimRight(name[:40], "-")
	}
	if name == "" {
		name = "test"
	}
	return name + "-" + testproc.RandomHex(6)
}

// Client returns a minio client with the server's root credentials.
func (s Server) Client(t testing.TB) *minio.Client {
	t.Helper()
	c, err := minio.New(s.HostPort(), &minio.Options{
		Creds:  credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""),
		Region: "us-east-1",
	})
	if err != nil {
		t.Fatalf("testbucket: minio client: %v", err)
	}
	return c
}

// CreateBucket creates bucket.
func (s Server) CreateBucket(t testing.TB, bucket string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Client(t).MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("testbucket: create bucket %s: %v", bucket, err)
	}
}

// PutObject stores data at bucket/key.
func (s Server) PutObject(t testing.TB, bucket, key string, data []byte) minio.UploadInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	info, err := s.Client(t).PutObject(ctx, bucket, key, bytes.NewReader(data), int64(len(data)), minio.PutObjectOptions{})
	if err != nil {
		t.Fatalf("testbucket: put %s/%s: %v", bucket, key, err)
	}
	return info
}

// Binary finds versitygw on PATH, then in GOBIN or GOPATH/bin, where
// `go install` puts it; ErrNoBinary when it is in none of them.
func Binary() (string, error) { return findBinary() }

var findBinary = sync.OnceValues(func() (string, error) {
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	for _, v := range []string{"GOBIN", "GOPATH"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			continue
		}
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			if dir == "" {
				continue
			}
			if v == "GOPATH" {
				dir = filepath.Join(dir, "bin")
			}
			p := filepath.Join(dir, "versitygw")
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return p, nil
			}
		}
	}
	return "", ErrNoBinary
})

type process struct {
	srv    Server
	cmd    *exec.Cmd
	exited chan struct{}
	once   sync.Once
}

func (p *process) stop() {
	p.once.Do(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	})
}

// start runs versitygw on a free loopback port. Between closing the probe
// listener and the server binding the port another process may take it;
// the server then exits at once and another port is tried.
func start(dir string) (*process, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	var lastErr error
	for range 3 {
		port, err := testproc.FreePort()
		if err != nil {
			return nil, err
		}
		p, err := launch(bin, dir, port)
		if err == nil {
			return p, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

func launch(bin, dir string, port int) (*process, error) {
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	return launchAs(bin, Server{
		Endpoint:  "http://" + addr,
		AccessKey: "testbucket" + testproc.RandomHex(4),
		SecretKey: testproc.RandomHex(20),
		Dir:       dir,
	})
}

// launchAs runs versitygw as srv (its address, keys and directory).
func launchAs(bin string, srv Server) (*process, error) {
	addr := srv.HostPort()
	dir := srv.Dir
	cmd := exec.Command(bin,
		"--access", srv.AccessKey,
		"--secret", srv.SecretKey,
		"--port", addr,
		"--quiet",
		"posix", dir)
	cmd.Env = serverEnv()
	out := testproc.OutputBuffer{Max: 64 << 10}
	cmd.Stdout, cmd.Stderr = &out, &out
	killWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("testbucket: start %s: %w", bin, err)
	}
	p := &process{srv: srv, cmd: cmd, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()

	// Any HTTP answer (an unsigned request gets 403) means it is serving.
	client := &http.Client{Timeout: time.Second}
	deadline := time.NewTimer(startTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := client.Get(srv.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return p, nil
		}
		select {
		case <-p.exited:
			return nil, fmt.Errorf("testbucket: versitygw exited before answering: %s", strings.TrimSpace(out.String()))
		case <-deadline.C:
			p.stop()
			return nil, fmt.Errorf("testbucket: versitygw did not answer on %s within %s: %s", addr, startTimeout, strings.TrimSpace(out.String()))
		case <-tick.C:
		}
	}
}

// serverEnv drops variables versitygw reads as defaults for its flags
// (VGW_*, ROOT_*), so a developer's shell cannot change the test server.
func serverEnv() []string { return testproc.EnvWithout("VGW_", "ROOT_") }

// Restartable is a server a test kills and starts again, on the same
// address with the same keys and objects (fault tests).
type Restartable struct {
	Server
	mu   sync.Mutex
	bin  string
	proc *process
}

// StartRestartable runs a server owned by t, killed in t.Cleanup.
func StartRestartable(t testing.TB) *Restartable {
	t.Helper()
	r, err := Run(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Kill)
	return r
}

// Run runs a server on dir (its posix backend) outside a test (the
// benchmarks); the caller kills it.
func Run(dir string) (*Restartable, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("testbucket: %w", err)
	}
	p, err := start(dir)
	if err != nil {
		return nil, err
	}
	bin, _ := Binary()
	return &Restartable{Server: p.srv, bin: bin, proc: p}, nil
}

// Kill stops the server with SIGKILL and waits for it to exit.
func (r *Restartable) Kill() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proc != nil {
		r.proc.stop()
		r.proc = nil
	}
}

// Restart starts the killed server again and waits until it answers.
// Its port may have been taken meanwhile: an error then.
func (r *Restartable) Restart() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proc != nil {
		return errors.New("testbucket: restart of a running server")
	}
	p, err := launchAs(r.bin, r.Server)
	if err != nil {
		return err
	}
	r.proc = p
	return nil
}
