package e2e

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/internal/testproc"
)

// admin runs `metaharvest admin args...` with admin@example.com and
// password as ADMIN_EMAIL and ADMIN_PASSWORD (none when password is ""),
// and stdin from the given string (nil: /dev/null).
func admin(t *testing.T, dbURL string, password string, stdin *string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(testproc.Binary(t), append([]string{"admin"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "DATABASE_URL=" + dbURL, "LOG_LEVEL=warn"}
	if password != "" {
		cmd.Env = append(cmd.Env, "ADMIN_EMAIL=admin@example.com", "ADMIN_PASSWORD="+password)
	}
	if stdin != nil {
		cmd.Stdin = strings.NewReader(*stdin)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// `make run` on a fresh clone against an existing database printed a new
// bootstrap password that did not work (issue 9). `admin bootstrap` prints
// a password only when it works, and otherwise says how to reset it with
// `admin reset-password`.
func TestAdminBootstrapAndResetPassword(t *testing.T) {
	t.Parallel()
	dbURL := testdb.URL(t)
	first, second := "first-password-1", "second-password-2"

	out, err := admin(t, dbURL, first, nil, "bootstrap", "data/.admin-password")
	if err != nil || !strings.Contains(out, "bootstrap admin: admin@example.com") || !strings.Contains(out, first) {
		t.Fatalf("first start: %v\n%s", err, out)
	}
	out, err = admin(t, dbURL, first, nil, "bootstrap", "data/.admin-password")
	if err != nil || strings.TrimSpace(out) != "admin: admin@example.com (password in data/.admin-password)" {
		t.Fatalf("second start, same password: %v\n%s", err, out)
	}

	// A fresh clone: a new password file, the same database.
	out, err = admin(t, dbURL, second, nil, "bootstrap", "data/.admin-password")
	if err != nil || strings.Contains(out, second) ||
		!strings.Contains(out, "metaharvest admin reset-password admin@example.com < data/.admin-password") {
		t.Fatalf("fresh clone: %v\n%s", err, out)
	}

	// Reset to the password of the new file (stdin), then it works.
	in := second + "\n"
	if out, err = admin(t, dbURL, "", &in, "reset-password", "ADMIN@example.com"); err != nil || !strings.Contains(out, "reset") {
		t.Fatalf("reset from stdin: %v\n%s", err, out)
	}
	if out, _ = admin(t, dbURL, second, nil, "bootstrap", "data/.admin-password"); !strings.HasPrefix(out, "admin: ") {
		t.Fatalf("after reset: %s", out)
	}

	// Without a password on stdin one is generated and printed once.
	out, err = admin(t, dbURL, "", nil, "reset-password", "admin@example.com")
	m := regexp.MustCompile(`shown once\): (\S+)`).FindStringSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("generated reset: %v\n%s", err, out)
	}
	if out, _ = admin(t, dbURL, m[1], nil, "bootstrap"); !strings.HasPrefix(out, "admin: admin@example.com") {
		t.Fatalf("generated password does not work: %s", out)
	}

	// Refusals: unknown user, too short a password, unknown command.
	if out, err = admin(t, dbURL, "", &in, "reset-password", "nobody@example.com"); err == nil || !strings.Contains(out, "no user has this email") {
		t.Fatalf("unknown user: %v\n%s", err, out)
	}
	short := "short\n"
	if out, err = admin(t, dbURL, "", &short, "reset-password", "admin@example.com"); err == nil || !strings.Contains(out, "8 to 128") {
		t.Fatalf("short password: %v\n%s", err, out)
	}
	if out, err = admin(t, dbURL, "", nil, "frobnicate"); err == nil || !strings.Contains(out, "reset-password EMAIL") {
		t.Fatalf("unknown command: %v\n%s", err, out)
	}
}
