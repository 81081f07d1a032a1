// Package config loads the one configuration struct of metaharvest from the
// environment and validates it. Nothing below main reads os.Getenv.
package config

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Config is every setting of the platform. Each field names its variable.
type Config struct {
	// HTTPAddr is where the api listens (HTTP_ADDR, default ":8080").
	HTTPAddr string
	// DatabaseURL is the Postgres URL (DATABASE_URL).
	DatabaseURL string
	// RedisURL is the Redis URL used by asynq and the rate limiter (REDIS_URL).
	RedisURL string
	// RedisNamespace prefixes every queue and key this deployment owns in Redis
	// (REDIS_NAMESPACE, default empty). Two deployments may share one Redis.
	RedisNamespace string
	// MeiliURL selects the Meilisearch search backend when set (MEILI_URL).
	MeiliURL string
	// MeiliAPIKey authenticates against Meilisearch (MEILI_API_KEY). Secret.
	// Required with MEILI_URL unless MeiliDevelopment.
	MeiliAPIKey string
	// MeiliDevelopment (MEILI_ENV=development, as Meilisearch's own option
	// is named) accepts a Meilisearch without a key; the default,
	// production, refuses to start without one.
	MeiliDevelopment bool
	// DataDir holds the upload store, thumbnails and frames (DATA_DIR, default "./data").
	DataDir string
	// AdminEmail and AdminPassword create the first admin on a start with no users
	// (ADMIN_EMAIL, ADMIN_PASSWORD). The password is a secret and never logged.
	AdminEmail    string
	AdminPassword string
	// HarvestRefreshTime is the time between live harvests of enabled containers
	// (HARVEST_REFRESH_TIME, seconds, default 3600).
	HarvestRefreshTime time.Duration
	// WorkerConcurrency is the number of tasks one worker runs at once
	// (WORKER_CONCURRENCY, default 2 x CPUs).
	WorkerConcurrency int
	// HarvestBatchFiles is the most files one item task (one transaction)
	// harvests (HARVEST_BATCH_FILES, default 500; batches also stop at 64
	// MiB). Smaller batches redo less after a crash, larger ones cost less
	// per file.
	HarvestBatchFiles int
	// RemoteConcurrency is how many files of one item task are read at once
	// from remote storage (s3) (REMOTE_CONCURRENCY, default 16). A remote
	// read mostly waits on the network, so it follows latency, not CPUs:
	// at 30 ms a request, 16 in flight keep about 500 small objects a
	// second coming per task. Memory stays bounded: a file up to 256 KiB
	// is held whole, a larger one streams through about 6 MiB of buffers,
	// and a task holds at most 64 MiB of files besides its first.
	RemoteConcurrency int
	// StrictPriority makes higher priority queues always go first (QUEUE_STRICT_PRIORITY,
	// default false: weighted, so low priorities never starve).
	StrictPriority bool
	// MigrateAuto lets api/worker/scheduler apply migrations on start (MIGRATE=auto).
	MigrateAuto bool
	// TrustedProxies lists the CIDRs or addresses whose X-Forwarded-For is believed
	// (TRUSTED_PROXIES, comma separated, default none).
	TrustedProxies []string
	// TokenTTL is the lifetime of a login token (TOKEN_TTL, seconds, default 86400).
	TokenTTL time.Duration
	// MaxBodyBytes bounds JSON request bodies (MAX_BODY_BYTES, default 10 MiB).
	MaxBodyBytes int64
	// UploadLimitBytes bounds one upload to the upload store (UPLOAD_LIMIT_BYTES,
	// default 0 = no limit).
	UploadLimitBytes int64
	// UploadIgnorePatterns are path.Match patterns of file names the upload store
	// refuses (UPLOAD_IGNORE_PATTERNS, comma separated, default ".DS_Store,Thumbs.db,._*").
	UploadIgnorePatterns []string
	// UploadEnabled turns the upload store on (UPLOAD_ENABLED, default true).
	UploadEnabled bool
	// ExtractorTimeout bounds one extractor run on one item (EXTRACTOR_TIMEOUT,
	// seconds, default 300).
	ExtractorTimeout time.Duration
	// BaseURL is the public address of the api (BASE_URL, default
	// http:// and HTTPAddr, localhost for a host it does not name).
	BaseURL string
	// LogLevel is debug, info, warn or error (LOG_LEVEL, default info).
	LogLevel string
	// Provider keys published as <KEY> in the platform summary. Secrets.
	MapsKey                      string // MAPS_KEY
	ErrorTrackerWriteKeyFrontend string // ERROR_TRACKER_WRITE_KEY_FRONTEND
	AnalyticsWriteKey            string // ANALYTICS_WRITE_KEY
	LogoProviderKey              string // LOGO_PROVIDER_KEY
	// LogoProviderURL is the base URL of the logo recognition provider's
	// training API (LOGO_PROVIDER_URL, http or https; empty: no provider).
	LogoProviderURL string
	// LogoBucket is the object-storage bucket where the reference logos of
	// logo training requests are stored for the provider to fetch:
	// LOGO_BUCKET_ENDPOINT, LOGO_BUCKET_REGION, LOGO_BUCKET (its name),
	// LOGO_BUCKET_ACCESS_KEY_ID, LOGO_BUCKET_SECRET_ACCESS_KEY (secret),
	// LOGO_BUCKET_PATH_STYLE, as the keys of an s3 location. Empty Name: no
	// bucket.
	LogoBucket LogoBucket
	// DataBucket keeps the platform's own files (artifacts, the upload
	// store) in an S3-compatible bucket instead of DATA_DIR: see
	// databucket.go for its DATA_BUCKET_* settings. Empty Name: DATA_DIR.
	DataBucket DataBucket
	// JobStallTimeout: an unfinished harvest with no progress for this long
	// is repaired by the scheduler (its tasks re-enqueued), which covers
	// tasks lost with a Redis restart (JOB_STALL_TIMEOUT, seconds, default 600).
	JobStallTimeout time.Duration
	// LoginMaxFailures is how many failed logins an account or a client may make in
	// LoginWindow before being answered 429 (LOGIN_MAX_FAILURES, default 5 per account,
	// 4x that per client; LOGIN_WINDOW seconds, default 900).
	LoginMaxFailures int
	LoginWindow      time.Duration
	// ToolSlots is how many heavy external programs (ffmpeg decodes, OCR)
	// one process runs at once (TOOL_SLOTS, default the number of CPUs).
	ToolSlots int
	// MetricsToken lets a scraper read /metrics with "Authorization: Bearer
	// <token>" besides administrators (METRICS_TOKEN, default empty: only
	// credentials holding system:read). Secret.
	MetricsToken string
	// ShutdownTimeout bounds a graceful stop (SHUTDOWN_TIMEOUT, seconds,
	// default 20): running tasks finish within it or go back to their queue,
	// and the api drains its connections within it. Keep it below the
	// orchestrator's grace period (Kubernetes: terminationGracePeriodSeconds).
	ShutdownTimeout time.Duration
	// Facial recognition (issue 48).
	//
	// FacialRecognition makes vendor_faces describe every face it finds
	// (a 2048-number descriptor from the vision sidecar, stored in the
	// face_descriptors table, which tells faces of one person from
	// others) (FACIAL_RECOGNITION, default true, as the reference's
	// offering reports it). false: faces are still found, cropped and
	// counted, no descriptor is made or kept, and every role deletes the
	// stored descriptors when it starts.
	FacialRecognition bool

	// DBMaxConns is how many connections to Postgres one process opens at
	// most (DB_MAX_CONNS, default WORKER_CONCURRENCY + 10, at least 20).
	// A harvest batch's transaction may need a second connection (the
	// search dictionaries are written beside it), so that a worker records
	// at most DBMaxConns/2 - 2 batches at once; the pool grows with the
	// tasks so that recording does not queue on 16 cores (see
	// docs/performance.md). Keep the sum over processes under Postgres's
	// max_connections.
	DBMaxConns int
	// CPUProfile, when set, makes the process write a CPU profile of its
	// whole life to this file when it stops (CPU_PROFILE, default empty):
	// where a harvest spends its time, for `go tool pprof` (see
	// docs/performance.md).
	CPUProfile string
	// People across the archive (issue 44, docs/people.md).
	//
	// PeopleSamePerson is the cosine similarity of face descriptors from
	// which a new face joins the person of the nearest face of the archive
	// (PEOPLE_SAME_PERSON, 0 to 1, default 0.88: chosen on the labelled set
	// of docs/people.md, the lowest with no two people merged); below it
	// the face starts a new person.
	PeopleSamePerson float64
	// PeopleMergeBridged: a new face that reaches PeopleSamePerson with
	// faces of several persons makes them one person, unless users told
	// them apart (PEOPLE_MERGE_BRIDGED, default true: on the labelled set
	// it groups more faces and merges no two people, docs/people.md).
	PeopleMergeBridged bool
	// PeopleMergeSamePerson is the similarity from which a bridging face
	// merges persons (PEOPLE_MERGE_SAME_PERSON, 0 to 1; unset:
	// PeopleSamePerson): raise it to merge more cautiously.
	PeopleMergeSamePerson float64

	// Env is the lookup Load read from: extractor settings and provider keys
	// (TESSERACT_LANGUAGES, WEATHER_API_KEY, ...) are declared by the
	// extractors themselves and read through it by their registry.
	Env Getenv
}

// LogoBucket locates the logo training bucket (see Config.LogoBucket).
type LogoBucket struct {
	Endpoint, Region, Name, AccessKeyID, SecretAccessKey, PathStyle string
	// PublicURL is where the provider fetches the bucket's objects
	// (LOGO_BUCKET_PUBLIC_URL; default the endpoint's path-style address
	// of the bucket).
	PublicURL string
}

// S3Config is the bucket as the config of an s3 location.
func (b LogoBucket) S3Config() map[string]string {
	return map[string]string{"endpoint": b.Endpoint, "region": b.Region, "bucket": b.Name,
		"access_key_id": b.AccessKeyID, "secret_access_key": b.SecretAccessKey, "path_style": b.PathStyle}
}

// Getenv is the lookup function Load reads from (os.LookupEnv in main).
type Getenv func(key string) (string, bool)

// Load reads the configuration and validates it; the error lists every problem.
func Load(get Getenv) (Config, error) {
	var problems []string
	str := func(key, def string) string {
		if v, ok := get(key); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
		return def
	}
	integer := func(key string, def, min int64) int64 {
		v := str(key, "")
		if v == "" {
			return def
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < min {
			problems = append(problems, fmt.Sprintf("%s must be an integer >= %d, got %q", key, min, v))
			return def
		}
		return n
	}
	boolean := func(key string, def bool) bool {
		v := str(key, "")
		if v == "" {
			return def
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s must be true or false, got %q", key, v))
			return def
		}
		return b
	}
	fraction := func(key string, def float64) float64 {
		v := str(key, "")
		if v == "" {
			return def
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0 && f < 1) {
			problems = append(problems, fmt.Sprintf("%s must be a number between 0 and 1, got %q", key, v))
			return def
		}
		return f
	}
	list := func(key, def string) []string {
		var out []string
		for _, p := range strings.Split(str(key, def), ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	}

	c := Config{
		HTTPAddr:                     str("HTTP_ADDR", ":8080"),
		DatabaseURL:                  str("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/metaharvest?sslmode=disable"),
		RedisURL:                     str("REDIS_URL", "redis://127.0.0.1:6379/0"),
		RedisNamespace:               str("REDIS_NAMESPACE", ""),
		MeiliURL:                     str("MEILI_URL", ""),
		MeiliAPIKey:                  str("MEILI_API_KEY", ""),
		MeiliDevelopment:             str("MEILI_ENV", "production") == "development",
		DataDir:                      str("DATA_DIR", "./data"),
		AdminEmail:                   str("ADMIN_EMAIL", ""),
		AdminPassword:                str("ADMIN_PASSWORD", ""),
		HarvestRefreshTime:           time.Duration(integer("HARVEST_REFRESH_TIME", 3600, 1)) * time.Second,
		WorkerConcurrency:            int(integer("WORKER_CONCURRENCY", int64(2*runtime.NumCPU()), 1)),
		HarvestBatchFiles:            int(integer("HARVEST_BATCH_FILES", 500, 1)),
		RemoteConcurrency:            int(integer("REMOTE_CONCURRENCY", 16, 1)),
		StrictPriority:               boolean("QUEUE_STRICT_PRIORITY", false),
		MigrateAuto:                  strings.EqualFold(str("MIGRATE", ""), "auto"),
		TrustedProxies:               list("TRUSTED_PROXIES", ""),
		TokenTTL:                     time.Duration(integer("TOKEN_TTL", 86400, 60)) * time.Second,
		MaxBodyBytes:                 integer("MAX_BODY_BYTES", 10<<20, 1024),
		UploadLimitBytes:             integer("UPLOAD_LIMIT_BYTES", 0, 0),
		UploadIgnorePatterns:         list("UPLOAD_IGNORE_PATTERNS", ".DS_Store,Thumbs.db,._*"),
		UploadEnabled:                boolean("UPLOAD_ENABLED", true),
		ExtractorTimeout:             time.Duration(integer("EXTRACTOR_TIMEOUT", 300, 1)) * time.Second,
		LogLevel:                     strings.ToLower(str("LOG_LEVEL", "info")),
		MapsKey:                      str("MAPS_KEY", ""),
		ErrorTrackerWriteKeyFrontend: str("ERROR_TRACKER_WRITE_KEY_FRONTEND", ""),
		AnalyticsWriteKey:            str("ANALYTICS_WRITE_KEY", ""),
		LogoProviderKey:              str("LOGO_PROVIDER_KEY", ""),
		LogoProviderURL:              str("LOGO_PROVIDER_URL", ""),
		LogoBucket: LogoBucket{Endpoint: str("LOGO_BUCKET_ENDPOINT", ""), Region: str("LOGO_BUCKET_REGION", ""),
			Name: str("LOGO_BUCKET", ""), AccessKeyID: str("LOGO_BUCKET_ACCESS_KEY_ID", ""),
			SecretAccessKey: str("LOGO_BUCKET_SECRET_ACCESS_KEY", ""), PathStyle: str("LOGO_BUCKET_PATH_STYLE", ""),
			PublicURL: str("LOGO_BUCKET_PUBLIC_URL", "")},
		JobStallTimeout:  time.Duration(integer("JOB_STALL_TIMEOUT", 600, 1)) * time.Second,
		LoginMaxFailures: int(integer("LOGIN_MAX_FAILURES", 5, 1)),
		LoginWindow:      time.Duration(integer("LOGIN_WINDOW", 900, 1)) * time.Second,
		ToolSlots:        int(integer("TOOL_SLOTS", int64(runtime.NumCPU()), 1)),
		MetricsToken:     str("METRICS_TOKEN", ""),
		ShutdownTimeout:  time.Duration(integer("SHUTDOWN_TIMEOUT", 20, 1)) * time.Second,
		CPUProfile:       str("CPU_PROFILE", ""),
		DBMaxConns:       int(integer("DB_MAX_CONNS", 0, 4)),
		// Facial recognition (issue 48).
		FacialRecognition: boolean("FACIAL_RECOGNITION", true),
		// People across the archive (issue 44).
		PeopleSamePerson:      fraction("PEOPLE_SAME_PERSON", 0.88),
		PeopleMergeBridged:    boolean("PEOPLE_MERGE_BRIDGED", true),
		PeopleMergeSamePerson: fraction("PEOPLE_MERGE_SAME_PERSON", 0),
		Env:                   get,
	}
	c.BaseURL = str("BASE_URL", defaultBaseURL(c.HTTPAddr))
	c.DataBucket = loadDataBucket(str, integer, &problems)
	if c.DBMaxConns == 0 {
		c.DBMaxConns = max(20, c.WorkerConcurrency+10)
	}

	if u, err := url.Parse(c.DatabaseURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		problems = append(problems, "DATABASE_URL must be a postgres:// URL")
	}
	if u, err := url.Parse(c.RedisURL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") {
		problems = append(problems, "REDIS_URL must be a redis:// URL")
	}
	if c.MeiliURL != "" {
		if u, err := url.Parse(c.MeiliURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			problems = append(problems, "MEILI_URL must be an http(s) URL")
		}
		// The key is never quoted in a message: only said to be missing
		// or too short.
		switch {
		case c.MeiliAPIKey == "" && !c.MeiliDevelopment:
			problems = append(problems, "MEILI_API_KEY must be set with MEILI_URL: a Meilisearch without a master key "+
				"answers anyone who reaches it (set MEILI_ENV=development to run without one on a development machine)")
		case c.MeiliAPIKey != "" && len(c.MeiliAPIKey) < 16:
			problems = append(problems, "MEILI_API_KEY must be at least 16 characters (Meilisearch refuses shorter master keys)")
		}
	}
	if v := str("MEILI_ENV", "production"); v != "production" && v != "development" {
		problems = append(problems, "MEILI_ENV must be production or development")
	}
	for key, v := range map[string]string{"LOGO_PROVIDER_URL": c.LogoProviderURL, "LOGO_BUCKET_PUBLIC_URL": c.LogoBucket.PublicURL} {
		if v == "" {
			continue
		}
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			problems = append(problems, key+" must be an http(s) URL")
		}
	}
	if (c.LogoBucket.Name == "") != (c.LogoBucket.Endpoint == "") {
		problems = append(problems, "LOGO_BUCKET and LOGO_BUCKET_ENDPOINT must be set together")
	}
	if (c.AdminEmail == "") != (c.AdminPassword == "") {
		problems = append(problems, "ADMIN_EMAIL and ADMIN_PASSWORD must be set together")
	}
	if c.AdminEmail != "" && !strings.Contains(c.AdminEmail, "@") {
		problems = append(problems, "ADMIN_EMAIL must be an email address")
	}
	if c.AdminPassword != "" && (len(c.AdminPassword) < PasswordMin || len(c.AdminPassword) > PasswordMax) {
		problems = append(problems, fmt.Sprintf("ADMIN_PASSWORD must be %d to %d characters", PasswordMin, PasswordMax))
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		problems = append(problems, "LOG_LEVEL must be debug, info, warn or error")
	}
	for _, p := range c.TrustedProxies {
		if _, _, err := net.ParseCIDR(p); err != nil && net.ParseIP(p) == nil {
			problems = append(problems, fmt.Sprintf("TRUSTED_PROXIES entry %q is not an address or CIDR", p))
		}
	}
	for _, p := range c.UploadIgnorePatterns {
		if _, err := filepath.Match(p, "x"); err != nil {
			problems = append(problems, fmt.Sprintf("UPLOAD_IGNORE_PATTERNS entry %q is not a valid pattern", p))
		}
	}
	if c.MetricsToken != "" && len(c.MetricsToken) < 16 {
		problems = append(problems, "METRICS_TOKEN must be at least 16 characters")
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return c, fmt.Errorf("invalid configuration:\n  - %s", strings.Join(problems, "\n  - "))
	}
	return c, nil
}

// Password length bounds, published in the platform summary.
const (
	PasswordMin = 8
	PasswordMax = 128
)

// defaultBaseURL is the address of an api listening on addr (":8080",
// "127.0.0.1:18080", "[::1]:80"): the host it names, localhost when it
// names none or every interface.
func defaultBaseURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://localhost" + addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}
