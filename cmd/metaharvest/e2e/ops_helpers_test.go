package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/metaharvest/metaharvest/internal/testproc"
)

// startAPI starts an api process of p and returns a client logged in as
// the bootstrap admin.
func (p *platform) startAPI(extra ...string) (*client, *testproc.Process) {
	t := p.t
	t.Helper()
	addr := testproc.FreeAddr(t)
	proc := testproc.Start(t, "api", p.env(append([]string{"HTTP_ADDR=" + addr, "ADMIN_EMAIL=admin@example.com",
		"ADMIN_PASSWORD=ops-password-1"}, extra...)...))
	c := &client{t: t, base: "http://" + addr}
	waitReady(t, c.base, proc)
	c.token = c.call("POST", "/api/login", map[string]string{"email": "admin@example.com", "password": "ops-password-1"}, 200)["token"].(string)
	return c, proc
}

func waitReady(t *testing.T, base string, proc *testproc.Process) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		if time.Now().After(deadline) || proc.Exited() {
			t.Fatalf("api not ready: %v\n%s", err, proc.Output())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cliRun is one run of a client command of the binary.
type cliRun struct {
	stdout, stderr string
	code           int
}

// runCLIProcess runs `metaharvest <args>` as an operator would, against
// base with the API key in the environment, and waits for it.
func runCLIProcess(t *testing.T, base, key string, args ...string) cliRun {
	t.Helper()
	return runCLIWithEnv(t, []string{"METAHARVEST_URL=" + base, "METAHARVEST_API_KEY=" + key}, args...)
}

// runCLIWithEnv runs `metaharvest <args>` with env (and PATH and HOME
// only) as its environment, and waits for it.
func runCLIWithEnv(t *testing.T, env []string, args ...string) cliRun {
	t.Helper()
	cmd := exec.Command(testproc.Binary(t), args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	run := cliRun{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		run.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("metaharvest %v: %v", args, err)
	}
	return run
}

// scrape reads /metrics with a bearer token.
func scrape(t *testing.T, base, token string) map[string]*dto.MetricFamily {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("/metrics: %d %s", res.StatusCode, raw)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// sample is the value of the series of fam whose labels include want (the
// sample count of a histogram), 0 when there is none.
func sample(fams map[string]*dto.MetricFamily, fam string, want map[string]string) float64 {
	f := fams[fam]
	if f == nil {
		return 0
	}
next:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for k, w := range want {
			if have[k] != w {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return 0
}

// writeFiles writes n small distinct files into dir.
func writeFiles(t *testing.T, dir string, n int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		body := fmt.Sprintf("file %d of %d: %s\n", i, n, strings.Repeat("metaharvest ", i%7+1))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%05d.txt", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
