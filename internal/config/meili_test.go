package config

import (
	"strings"
	"testing"
)

// With Meilisearch, a key is required unless MEILI_ENV=development; the
// messages never quote the key.
func TestMeiliKeyRequiredOutsideDevelopment(t *testing.T) {
	load := func(m map[string]string) (Config, error) {
		return Load(env(m))
	}
	const url = "http://meili.internal:7700"
	_, err := load(map[string]string{"MEILI_URL": url})
	if err == nil || !strings.Contains(err.Error(), "MEILI_API_KEY must be set") || !strings.Contains(err.Error(), "MEILI_ENV=development") {
		t.Fatalf("no key: %v", err)
	}
	if c, err := load(map[string]string{"MEILI_URL": url, "MEILI_ENV": "development"}); err != nil || !c.MeiliDevelopment {
		t.Fatalf("development without a key: %v", err)
	}
	_, err = load(map[string]string{"MEILI_URL": url, "MEILI_API_KEY": "short-secret"})
	if err == nil || !strings.Contains(err.Error(), "at least 16") || strings.Contains(err.Error(), "short-secret") {
		t.Fatalf("short key: %v", err)
	}
	if c, err := load(map[string]string{"MEILI_URL": url, "MEILI_API_KEY": "a-long-enough-master-key"}); err != nil || c.MeiliDevelopment {
		t.Fatalf("with a key: %v", err)
	}
	if _, err := load(map[string]string{"MEILI_ENV": "staging"}); err == nil || !strings.Contains(err.Error(), "MEILI_ENV") {
		t.Fatalf("MEILI_ENV staging: %v", err)
	}
	// Without Meilisearch, no key is needed.
	if _, err := load(map[string]string{}); err != nil {
		t.Fatal(err)
	}
}
