package e2e

import (
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testproc"
)

// The client commands take the base URL and the API key from --url and
// --api-key as well as from METAHARVEST_URL and METAHARVEST_API_KEY, the
// flags winning, written before or after the command's arguments, with a
// space or "=".
func TestCLIURLAndAPIKeyFlags(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	c, _ := p.startAPI()
	key := c.call("POST", "/api/data/api-keys", map[string]any{"name": "flags"}, 201)["jwt"].(string)
	closed := "http://" + testproc.FreeAddr(t) // nothing listens there
	goodEnv := []string{"METAHARVEST_URL=" + c.base, "METAHARVEST_API_KEY=" + key}
	badEnv := []string{"METAHARVEST_URL=" + closed, "METAHARVEST_API_KEY=not-a-key"}
	for _, tc := range []struct {
		what   string
		env    []string
		args   []string
		code   int
		stdout string // a part of stdout, or of stderr when code != 0
	}{
		{"flags only", nil, []string{"jobs", "--url", c.base, "--api-key", key}, 0, "no harvest under way"},
		{"flags with =", nil, []string{"jobs", "--all", "--url=" + c.base, "--api-key=" + key}, 0, "no harvest"},
		{"flags after the query", nil, []string{"search", "nothing here", "--url", c.base, "--api-key", key}, 0, "0 of 0 results"},
		{"flags win over the environment", badEnv, []string{"search", "--api-key", key, "--url", c.base, "x"}, 0, "0 of 0 results"},
		{"--api-key wins over a good key", goodEnv, []string{"jobs", "--api-key", "not-a-key"}, 1, "401"},
		{"--url wins over a good URL", goodEnv, []string{"jobs", "--url", closed}, 1, strings.TrimPrefix(closed, "http://")},
		{"the environment alone", goodEnv, []string{"jobs"}, 0, "no harvest under way"},
		{"no key anywhere", nil, []string{"jobs", "--url", c.base}, 2, "no API key"},
		{"an empty --api-key", goodEnv, []string{"jobs", "--api-key="}, 2, "no API key"},
		{"a URL that is not one", nil, []string{"jobs", "--url", "::not a url", "--api-key", key}, 2, "--url"},
	} {
		r := runCLIWithEnv(t, tc.env, tc.args...)
		out := r.stdout
		if tc.code != 0 {
			out = r.stderr
		}
		if r.code != tc.code || !strings.Contains(out, tc.stdout) {
			t.Errorf("%s: exit %d, want %d with %q\nstdout: %s\nstderr: %s", tc.what, r.code, tc.code, tc.stdout, r.stdout, r.stderr)
		}
	}
}
