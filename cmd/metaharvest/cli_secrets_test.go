package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The client commands' help and errors say where the API key (and a
// password in the platform's URL) comes from, never what it is (issue 23:
// `metaharvest harvest --help` printed the key as the flag's default).
func TestCLIHelpAndErrorsHideCredentials(t *testing.T) {
	t.Parallel()
	const key, urlPassword = "key-secret-7f3a9c", "url-secret-51b2"
	env := map[string]string{
		"METAHARVEST_API_KEY": key,
		// Nothing listens on port 1: calls fail, and say so.
		"METAHARVEST_URL": "http://operator:" + urlPassword + "@127.0.0.1:1",
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, tc := range []struct {
		args []string
		code int
		says []string // what the output must say besides hiding the secrets
	}{
		{[]string{"harvest", "--help"}, 0, []string{"-api-key token", "METAHARVEST_API_KEY, set, not shown", "operator:xxxxx@127.0.0.1:1"}},
		{[]string{"harvest", "-h"}, 0, []string{"METAHARVEST_API_KEY"}},
		{[]string{"search", "--help"}, 0, []string{"METAHARVEST_API_KEY"}},
		{[]string{"jobs", "-help"}, 0, []string{"METAHARVEST_API_KEY"}},
		{[]string{"harvest", "--location", "x"}, exitUsage, []string{"METAHARVEST_API_KEY", "--container"}},
		{[]string{"jobs", "--no-such-flag"}, exitUsage, []string{"METAHARVEST_API_KEY", "no-such-flag"}},
		{[]string{"jobs"}, exitFailure, []string{"127.0.0.1:1"}},
		{[]string{"search", "x", "--api-key", key + "-other"}, exitFailure, []string{"127.0.0.1:1"}},
		{[]string{"harvest", "--location", "x", "--container", "y"}, exitFailure, []string{"127.0.0.1:1"}},
		{[]string{"jobs", "--url", "http://operator:" + urlPassword + "@[::1"}, exitUsage, []string{"--url"}},
	} {
		var stdout, stderr bytes.Buffer
		code := runCLI(context.Background(), tc.args[0], tc.args[1:], &stdout, &stderr, lookup)
		out := stdout.String() + stderr.String()
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, tc.code, out)
		}
		for _, secret := range []string{key, urlPassword} {
			if strings.Contains(out, secret) {
				t.Errorf("%v prints a credential:\n%s", tc.args, out)
			}
		}
		for _, s := range tc.says {
			if !strings.Contains(out, s) {
				t.Errorf("%v: output does not say %q:\n%s", tc.args, s, out)
			}
		}
	}
}
