package testmeili

import (
	"net/http"
	"os"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(RunMain(m)) }

// The server answers with its master key only, and comes back on the same
// address after a kill.
func TestServerKillRestart(t *testing.T) {
	s := Start(t)
	get := func(key string) int {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/indexes", nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := get(s.Key); c != http.StatusOK {
		t.Fatalf("with the key: %d", c)
	}
	if c := get(""); c != http.StatusUnauthorized {
		t.Fatalf("without a key: %d", c)
	}
	url := s.URL
	s.Kill()
	if c := get(s.Key); c != 0 {
		t.Fatalf("killed server answered %d", c)
	}
	s.Restart(t)
	if s.URL != url || get(s.Key) != http.StatusOK {
		t.Fatalf("restart: %s (was %s)", s.URL, url)
	}
	if first, second := Shared(t), Shared(t); first != second {
		t.Fatal("two shared servers")
	}
}
