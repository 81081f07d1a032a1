package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeTools writes executables that stand in for the system tools
// deploy/setup.sh calls: every package missing, apt-get as chatty as dpkg
// is (and failing when aptFails), npm as chatty and installing nothing but
// the directory it is given, Postgres and Redis already up. Postgres asks
// for 100 huge pages, and the kernel's are a fake one's (fakeKernel).
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
		"psql": "case \"$*\" in\n" +
			"*'SHOW huge_pages'*) echo try ;;\n" +
			"*shared_memory_size_in_huge_pages*) echo 100 ;;\n" +
			"*) echo 1 ;;\nesac\n",
		// The real ones would restart this machine's Postgres and set its
		// kernel's huge pages. The fake kernel keeps its count of huge
		// pages in $FAKE_KERNEL/nr (no more than $FAKE_KERNEL/cap when
		// there is one), and its /proc/meminfo in $FAKE_KERNEL/meminfo;
		// a restarted Postgres takes its 100 when $FAKE_KERNEL/takes
		// exists and they are there. Restarts are counted in
		// $FAKE_KERNEL/restarts.
		"pg_ctlcluster": "echo restart >> \"$FAKE_KERNEL/restarts\"\n" +
			"n=$(cat \"$FAKE_KERNEL/nr\" 2>/dev/null || echo 0); r=0\n" +
			"[ -e \"$FAKE_KERNEL/takes\" ] && [ \"$n\" -ge 100 ] && r=100\n" +
			"printf 'HugePages_Total: %s\\nHugePages_Free: %s\\nHugePages_Rsvd: %s\\n' \"$n\" \"$n\" \"$r\" > \"$FAKE_KERNEL/meminfo\"\n",
		"sysctl": "case \"$1\" in\n" +
			"-n) cat \"$FAKE_KERNEL/nr\" 2>/dev/null || echo 0 ;;\n" +
			"-qw) n=${2#vm.nr_hugepages=}; c=$(cat \"$FAKE_KERNEL/cap\" 2>/dev/null || echo \"$n\")\n" +
			"  [ \"$n\" -gt \"$c\" ] && n=$c; echo \"$n\" > \"$FAKE_KERNEL/nr\"\n" +
			"  printf 'HugePages_Total: %s\\nHugePages_Free: %s\\nHugePages_Rsvd: 0\\n' \"$n\" \"$n\" > \"$FAKE_KERNEL/meminfo\" ;;\n" +
			"*) exit 1 ;;\nesac\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runSetup runs a copy of deploy/setup.sh beside a copy of the vision
// sidecar's lock file, so that its install goes into a directory of the
// test's and never into the checkout, against the fake kernel in the
// directory kernel (see fakeTools), with env added to its environment.
func runSetup(t *testing.T, tools string, kernel string, env ...string) (stdout, stderr string, err error) {
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
	cmd.Env = append([]string{"PATH=" + tools + ":" + os.Getenv("PATH"), "FAKE_KERNEL=" + kernel,
		"METAHARVEST_MEMINFO=" + filepath.Join(kernel, "meminfo"),
		"METAHARVEST_SYSCTL_CONF=" + filepath.Join(kernel, "60-metaharvest-postgres.conf"),
		"METAHARVEST_CACHE=" + filepath.Join(kernel, "cache")}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// deploy/setup.sh says one line per step and shows the tools' output only
// when one fails (issue 9: make run printed dpkg's whole output).
func TestSetupScriptIsQuietUnlessAStepFails(t *testing.T) {
	t.Parallel()
	stdout, stderr, err := runSetup(t, fakeTools(t, false), fakeKernel(t, 0, true))
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
		case strings.HasPrefix(l, "setup: configuring postgres for harvests"),
			l == "setup: reserving 100 huge pages for postgres's shared memory",
			l == "setup: restarting postgres to put its shared memory on huge pages":
		default:
			t.Errorf("stderr, want one line per step, not %q:\n%s", l, stderr)
		}
	}
	if sidecar != 1 {
		t.Errorf("stderr, want one line for the vision sidecar:\n%s", stderr)
	}

	_, stderr, err = runSetup(t, fakeTools(t, true), fakeKernel(t, 0, true))
	if err == nil {
		t.Fatal("setup succeeded with apt-get failing")
	}
	for _, want := range []string{"setup: failed (100): ", "Selecting previously unselected package pkg40.", "E: Unable to locate package"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("failing apt-get: stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// fakeKernel makes the directory of a fake kernel with nr huge pages, none
// of them taken, and whose Postgres takes its own after a restart when
// takes (see fakeTools).
func fakeKernel(t *testing.T, nr int, takes bool) string {
	t.Helper()
	dir := t.TempDir()
	meminfo := fmt.Sprintf("HugePages_Total: %d\nHugePages_Free: %d\nHugePages_Rsvd: 0\n", nr, nr)
	if err := os.WriteFile(filepath.Join(dir, "meminfo"), []byte(meminfo), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "nr"), []byte(strconv.Itoa(nr)), 0o644); err != nil {
		t.Fatal(err)
	}
	if takes {
		if err := os.WriteFile(filepath.Join(dir, "takes"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// deploy/setup.sh reserves the huge pages the local Postgres asks for, keeps
// the setting for later boots and restarts Postgres once to take them; it
// gives back pages the kernel could not all find, stops trying when
// Postgres does not take them, and leaves the kernel alone when told to.
func TestSetupPutsPostgresOnHugePages(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/etc/postgresql"); err != nil {
		t.Skip("deploy/setup.sh tunes Postgres only where a Debian Postgres is installed")
	}
	tools := fakeTools(t, false)
	hugeLines := func(stderr string) (out []string) {
		for _, l := range strings.Split(stderr, "\n") {
			if strings.Contains(l, "huge pages") {
				out = append(out, l)
			}
		}
		return out
	}
	read := func(kernel, name string) string {
		b, _ := os.ReadFile(filepath.Join(kernel, name))
		return strings.TrimSpace(string(b))
	}
	// The fake psql's settings never match, so every run restarts Postgres
	// once for them; the huge pages' restart is one more.
	restarts := func(kernel string) int { return strings.Count(read(kernel, "restarts"), "restart") }
	// wantKernel: the fake kernel holds nr huge pages and the kept setting
	// is conf ("" for none).
	wantKernel := func(t *testing.T, kernel, nr, conf string) {
		t.Helper()
		if got := read(kernel, "nr"); got != nr {
			t.Errorf("vm.nr_hugepages %s, want %s", got, nr)
		}
		if got := read(kernel, "60-metaharvest-postgres.conf"); got != conf {
			t.Errorf("kept %q, want %q", got, conf)
		}
	}
	setup := func(kernel string, env ...string) []string {
		t.Helper()
		_, stderr, err := runSetup(t, tools, kernel, env...)
		if err != nil {
			t.Fatalf("setup: %v\n%s", err, stderr)
		}
		return hugeLines(stderr)
	}

	t.Run("reserved, kept and taken", func(t *testing.T) {
		kernel := fakeKernel(t, 0, true)
		got := setup(kernel)
		want := []string{"setup: reserving 100 huge pages for postgres's shared memory",
			"setup: restarting postgres to put its shared memory on huge pages"}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("lines %q, want %q", got, want)
		}
		wantKernel(t, kernel, "100", "vm.nr_hugepages = 100")
		if n := restarts(kernel); n != 2 {
			t.Errorf("%d restarts of Postgres, want 2", n)
		}
		if got := setup(kernel); len(got) != 0 {
			t.Errorf("second run: %q, want nothing done", got)
		}
		if n := restarts(kernel); n != 3 {
			t.Errorf("second run: %d restarts in all, want 3 (none for huge pages)", n)
		}
	})

	t.Run("pages of others kept", func(t *testing.T) {
		kernel := fakeKernel(t, 30, true) // another program's, free
		setup(kernel)
		wantKernel(t, kernel, "100", "vm.nr_hugepages = 100") // 30 free + 70
	})

	t.Run("the kernel finds fewer", func(t *testing.T) {
		kernel := fakeKernel(t, 0, true)
		if err := os.WriteFile(filepath.Join(kernel, "cap"), []byte("60"), 0o644); err != nil {
			t.Fatal(err)
		}
		got := setup(kernel)
		if len(got) != 2 || got[1] != "setup: huge pages: the kernel found 60 of 100; postgres keeps 4 KB pages" {
			t.Errorf("lines %q, want the reservation and what the kernel found", got)
		}
		wantKernel(t, kernel, "0", "") // given back
		if n := restarts(kernel); n != 1 {
			t.Errorf("%d restarts of Postgres, want 1 (none for huge pages)", n)
		}
	})

	t.Run("Postgres does not take them", func(t *testing.T) {
		kernel := fakeKernel(t, 0, false)
		got := setup(kernel)
		if len(got) != 3 || got[2] != "setup: huge pages: postgres did not take them (see its log); not tried again for this size" {
			t.Errorf("lines %q, want that Postgres did not take them", got)
		}
		wantKernel(t, kernel, "0", "") // given back
		if got := setup(kernel); len(got) != 0 {
			t.Errorf("second run: %q, want nothing tried", got)
		}
		if n := restarts(kernel); n != 3 {
			t.Errorf("%d restarts in all, want 3 (one for huge pages)", n)
		}
	})

	t.Run("METAHARVEST_HUGE_PAGES=off", func(t *testing.T) {
		kernel := fakeKernel(t, 0, true)
		if got := setup(kernel, "METAHARVEST_HUGE_PAGES=off"); len(got) != 0 {
			t.Errorf("lines %q, want nothing", got)
		}
		wantKernel(t, kernel, "0", "")
	})
}
