package config

import (
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) Getenv {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != ":8080" || c.HarvestRefreshTime != time.Hour || c.WorkerConcurrency < 2 || c.HarvestBatchFiles != 500 || c.MeiliURL != "" ||
		c.MaxBodyBytes != 10<<20 || c.UploadLimitBytes != 0 || !c.UploadEnabled || c.MigrateAuto {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestEveryProblemListed(t *testing.T) {
	t.Parallel()
	_, err := Load(env(map[string]string{
		"DATABASE_URL":         "mysql://x",
		"REDIS_URL":            "http://x",
		"HARVEST_REFRESH_TIME": "soon",
		"WORKER_CONCURRENCY":   "0",
		"HARVEST_BATCH_FILES":  "-3",
		"ADMIN_EMAIL":          "admin@example.com",
		"MEILI_URL":            "ftp://x",
		"TRUSTED_PROXIES":      "10.0.0.0/8, not-an-ip",
		"LOG_LEVEL":            "loud",
		"UPLOAD_ENABLED":       "maybe",
	}))
	if err == nil {
		t.Fatal("invalid configuration accepted")
	}
	for _, want := range []string{"DATABASE_URL", "REDIS_URL", "HARVEST_REFRESH_TIME", "WORKER_CONCURRENCY",
		"HARVEST_BATCH_FILES", "ADMIN_EMAIL and ADMIN_PASSWORD", "MEILI_URL", "not-an-ip", "LOG_LEVEL", "UPLOAD_ENABLED"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %s:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "admin@example.com") {
		t.Error("error echoes a value it need not")
	}
}

func TestValues(t *testing.T) {
	t.Parallel()
	c, err := Load(env(map[string]string{
		"HARVEST_REFRESH_TIME": "60", "MIGRATE": "auto", "TRUSTED_PROXIES": "10.0.0.1,192.168.0.0/16",
		"UPLOAD_IGNORE_PATTERNS": "*.tmp, .git", "ADMIN_EMAIL": "a@b.c", "ADMIN_PASSWORD": "long-enough",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.HarvestRefreshTime != time.Minute || !c.MigrateAuto || len(c.TrustedProxies) != 2 ||
		strings.Join(c.UploadIgnorePatterns, "|") != "*.tmp|.git" {
		t.Fatalf("values: %+v", c)
	}
	if _, err := Load(env(map[string]string{"ADMIN_EMAIL": "a@b.c", "ADMIN_PASSWORD": "short"})); err == nil {
		t.Fatal("short admin password accepted")
	}
}

func TestLogoTrainingSettings(t *testing.T) {
	t.Parallel()
	c, err := Load(env(map[string]string{
		"LOGO_PROVIDER_KEY": "k", "LOGO_PROVIDER_URL": "https://logos.example/api",
		"LOGO_BUCKET_ENDPOINT": "http://127.0.0.1:9000", "LOGO_BUCKET": "logos", "LOGO_BUCKET_REGION": "eu-1",
		"LOGO_BUCKET_ACCESS_KEY_ID": "ak", "LOGO_BUCKET_SECRET_ACCESS_KEY": "sk", "LOGO_BUCKET_PATH_STYLE": "true",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"endpoint": "http://127.0.0.1:9000", "region": "eu-1", "bucket": "logos",
		"access_key_id": "ak", "secret_access_key": "sk", "path_style": "true"}
	got := c.LogoBucket.S3Config()
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("bucket config %v, want %v", got, want)
		}
	}
	if c.LogoProviderURL != "https://logos.example/api" {
		t.Fatalf("provider URL %q", c.LogoProviderURL)
	}
	_, err = Load(env(map[string]string{"LOGO_PROVIDER_URL": "ftp://x", "LOGO_BUCKET": "logos", "LOGO_BUCKET_PUBLIC_URL": "x"}))
	for _, p := range []string{"LOGO_PROVIDER_URL must", "LOGO_BUCKET and LOGO_BUCKET_ENDPOINT", "LOGO_BUCKET_PUBLIC_URL must"} {
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("error %v does not say %q", err, p)
		}
	}
}

// Without BASE_URL, the api's address is where it listens; a listener on
// every interface is reached at localhost.
func TestDefaultBaseURL(t *testing.T) {
	for addr, want := range map[string]string{":8080": "http://localhost:8080", "127.0.0.1:18080": "http://127.0.0.1:18080",
		"0.0.0.0:80": "http://localhost:80", "[::]:8080": "http://localhost:8080", "[::1]:8080": "http://[::1]:8080",
		"media.example.org:8080": "http://media.example.org:8080"} {
		if got := defaultBaseURL(addr); got != want {
			t.Errorf("defaultBaseURL(%q) = %q, want %q", addr, got, want)
		}
	}
}

// FACIAL_RECOGNITION is on by default, as the reference's offering
// reports it; false turns it off; anything else is refused.
func TestFacialRecognition(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{"": true, "true": true, "false": false, "0": false} {
		c, err := Load(env(map[string]string{"FACIAL_RECOGNITION": v}))
		if err != nil || c.FacialRecognition != want {
			t.Errorf("%q: %v, %v", v, c.FacialRecognition, err)
		}
	}
	if _, err := Load(env(map[string]string{"FACIAL_RECOGNITION": "maybe"})); err == nil || !strings.Contains(err.Error(), "FACIAL_RECOGNITION") {
		t.Errorf("maybe: %v", err)
	}
}
