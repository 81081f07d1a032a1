package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTools writes executables that stand in for the system tools
// deploy/setup.sh calls: every package missing, apt-get as chatty as dpkg
// is (and failing when aptFails), npm as chatty and installing nothing but
// the directory it is given, Postgres and Redis already up.
func fakeTools(t *testing.T, aptFails bool) string {
	t.Helper()
	dir := t.TempDir()
	apt := "for i in $(seq 40); do echo \"Selecting previously unselected package pkg$i.\"; echo \"Unpacking pkg$i ...\" >&2; done\n"
	if aptFails {
		apt += "echo 'E: Unable to locate package tesseract-ocr' >&2; exit 100\n"
	}
	for name, body := range map[string]string{
		"dpkg-query": "exit 1\n",
		"apt-get":    apt,
		"sudo":       "exec \"$@\"\n",
		"id":         "echo 0\n",
		"npm": "for i in $(seq 40); do echo \"npm http fetch GET 200 pkg$i\"; done\n" +
			"while [ $# -gt 0 ]; do [ \"$1\" = --prefix ] && mkdir -p \"$2/node_modules\"; shift; done\n",
		"pg_isready": "exit 0\n",
		"redis-cli":  "echo PONG\n",
		"psql":       "echo 1\n",
		// The real one would restart this machine's Postgres.
		"pg_ctlcluster": "exit 0\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runSetup runs a copy of deploy/setup.sh beside a copy of the vision
// sidecar's lock file, so that its install goes into a directory of the
// test's and never into the checkout.
func runSetup(t *testing.T, tools string) (stdout, stderr string, err error) {
	t.Helper()
	deploy := filepath.Join(t.TempDir(), "deploy")
	for _, f := range []string{"setup.sh", filepath.Join("vision", "package-lock.json")} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "deploy", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(deploy, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(deploy, f), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", filepath.Join(deploy, "setup.sh"))
	cmd.Env = []string{"PATH=" + tools + ":" + os.Getenv("PATH")}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// deploy/setup.sh says one line per step and shows the tools' output only
// when one fails (issue 9: make run printed dpkg's whole output).
func TestSetupScriptIsQuietUnlessAStepFails(t *testing.T) {
	t.Parallel()
	stdout, stderr, err := runSetup(t, fakeTools(t, false))
	if err != nil {
		t.Fatalf("setup: %v\n%s", err, stderr)
	}
	if strings.TrimSpace(stdout) != "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable" {
		t.Errorf("stdout %q, want the Postgres URL alone", stdout)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if !strings.HasPrefix(lines[0], "setup: installing postgresql ") || !strings.Contains(lines[0], " jq") {
		t.Errorf("stderr, want a line naming the packages:\n%s", stderr)
	}
	// The sidecar installs in the background, so its line may come before
	// or after the next step's. The fake psql reports settings that are not
	// the platform's: where a Debian Postgres is installed, they are set,
	// in one more line.
	sidecar := 0
	for _, l := range lines[1:] {
		switch {
		case l == "setup: installing the vision sidecar (npm ci in deploy/vision)":
			sidecar++
		case strings.HasPrefix(l, "setup: configuring postgres for harvests"):
		default:
			t.Errorf("stderr, want one line per step, not %q:\n%s", l, stderr)
		}
	}
	if sidecar != 1 {
		t.Errorf("stderr, want one line for the vision sidecar:\n%s", stderr)
	}

	_, stderr, err = runSetup(t, fakeTools(t, true))
	if err == nil {
		t.Fatal("setup succeeded with apt-get failing")
	}
	for _, want := range []string{"setup: failed (100): ", "Selecting previously unselected package pkg40.", "E: Unable to locate package"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("failing apt-get: stderr lacks %q:\n%s", want, stderr)
		}
	}
}
