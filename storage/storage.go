package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/internal/blobstore"
)

// Kind names, as stored in a location's "kind" column and accepted by Open.
const (
	KindFilesystem  = "filesystem"
	KindUploadStore = "uploadstore"
	KindS3          = "s3"
)

// DefaultPageSize is used when a listing is asked for limit <= 0, so that a
// caller's zero value never turns into an unbounded listing.
const DefaultPageSize = 1000

// MaxPageSize caps limit: one page is held in memory and, for s3, it is one
// ListObjectsV2 request (S3 returns at most 1000 keys per request).
const MaxPageSize = 1000

var (
	// ErrNotFound: the container or item does not exist (api: 404).
	ErrNotFound = errors.New("not found")
	// ErrBadPath: a container name or item path is not acceptable (api: 400).
	ErrBadPath = errors.New("bad path")
	// ErrContainerMissing: the container itself is missing (an S3 bucket
	// deleted, renamed or hidden by a policy). It does not say that an
	// item's file is gone: a harvest retries the item (the bucket may come
	// back, and its objects with it) and does not mark it deleted; a walk
	// that cannot list the container ends with it (api: 502).
	ErrContainerMissing = errors.New("container missing")
	// ErrTooLarge: an upload exceeded its byte limit (api: 413).
	ErrTooLarge = errors.New("upload too large")
)

// ConfigError reports a location configuration that cannot work. Field is the
// config key at fault ("kind" for an unknown kind) so the api can answer 400
// with {"fields": {Field: Problem}}. Problem never contains secret values.
type ConfigError struct {
	Field   string
	Problem string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("location config %s: %s", e.Field, e.Problem)
}

// Entry is one file of a container.
type Entry struct {
	// Path is slash-separated and relative to the container.
	Path string
	Size int64
	// ETag changes whenever the content may have changed; the walker compares
	// it with the stored item to decide whether to harvest again.
	ETag         string
	LastModified time.Time
}

// Location is one configured storage location of some kind.
//
// A Location holds no open file descriptors or connections of its own that
// would need closing, so callers may open one per request and drop it.
type Location interface {
	// Check connects and verifies the configuration (used on location
	// create/update). Problems the user can fix are *ConfigError.
	Check(ctx context.Context) error
	// ListContainers lists container names starting with prefix, sorted,
	// after cursor ("" = start); next == "" means end.
	ListContainers(ctx context.Context, prefix, cursor string, limit int) (names []string, next string, err error)
	// ListItems lists files of a container recursively, sorted by Path
	// (byte-wise), after cursor ("" = start), page by page; next == "" means
	// end. The cursor is the last Path returned.
	ListItems(ctx context.Context, container, cursor string, limit int) (entries []Entry, next string, err error)
	// Stat describes one file; ErrNotFound when it does not exist.
	Stat(ctx context.Context, container, path string) (Entry, error)
	// Open reads one file; ErrNotFound when it does not exist.
	Open(ctx context.Context, container, path string) (io.ReadCloser, error)
	// LocalPath returns a local filesystem path of the file when the kind has
	// one (filesystem, uploadstore), so tools can read it without a copy;
	// ok=false for s3 and for paths that are not acceptable.
	LocalPath(container, path string) (p string, ok bool)
}

// Env is what the deployment provides to location kinds.
type Env struct {
	// DataDir is DATA_DIR; the upload store lives in DataDir/uploadstore
	// unless UploadBucket is set.
	DataDir string
	// UploadBucket holds the upload store instead (DATA_BUCKET: api and
	// workers on several hosts); nil: DataDir.
	UploadBucket *blobstore.Bucket
}

// ConfigField describes one configuration key of a kind, as served by
// GET /api/data/v3/location-kinds.
type ConfigField struct {
	Field       string `json:"field"`
	Name        string `json:"name"`
	Type        string `json:"type"` // "string" or "boolean"
	Placeholder string `json:"placeholder"`
	Required    bool   `json:"required"`
	IsSecret    bool   `json:"is_secret"`
}

// KindInfo describes one location kind.
type KindInfo struct {
	Name   string        `json:"name"`
	Fields []ConfigField `json:"fields"`
}

// kinds is the single table of kinds: Kinds, SecretKeys and the config
// validation in Open all read it, so a new key cannot be accepted by one and
// unknown to the others.
var kinds = []KindInfo{
	{Name: KindFilesystem, Fields: []ConfigField{
		{Field: "path", Name: "Path", Type: "string", Placeholder: "/srv/media", Required: true},
	}},
	{Name: KindS3, Fields: []ConfigField{
		{Field: "endpoint", Name: "Endpoint", Type: "string", Placeholder: "https://s3.eu-west-1.amazonaws.com", Required: true},
		{Field: "region", Name: "Region", Type: "string", Placeholder: "eu-west-1"},
		{Field: "bucket", Name: "Bucket", Type: "string", Placeholder: "(empty: every bucket is a container)"},
		{Field: "access_key_id", Name: "Access key ID", Type: "string", Placeholder: "AKIA..."},
		{Field: "secret_access_key", Name: "Secret access key", Type: "string", IsSecret: true},
		{Field: "prefix", Name: "Key prefix", Type: "string", Placeholder: "media/"},
		{Field: "path_style", Name: "Path-style addressing", Type: "boolean", Placeholder: "false"},
	}},
	{Name: KindUploadStore, Fields: []ConfigField{}},
}

// Kinds returns descriptors of every location kind, sorted by name. The
// result is a copy; callers may modify it.
func Kinds() []KindInfo {
	out := make([]KindInfo, len(kinds))
	for i, k := range kinds {
		out[i] = KindInfo{Name: k.Name, Fields: slices.Clone(k.Fields)}
	}
	slices.SortFunc(out, func(a, b KindInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// SecretKeys returns the config keys of kind whose values must be redacted
// in responses and logs; nil for an unknown kind.
func SecretKeys(kind string) []string {
	var keys []string
	for _, k := range kinds {
		if k.Name != kind {
			continue
		}
		for _, f := range k.Fields {
			if f.IsSecret {
				keys = append(keys, f.Field)
			}
		}
	}
	return keys
}

// Open returns the Location of kind with config. It validates the config
// without doing I/O beyond what the kind needs to exist (the upload store
// directory is created); Check does the connecting.
func Open(kind string, config map[string]string, env Env) (Location, error) {
	info, ok := kindInfo(kind)
	if !ok {
		return nil, &ConfigError{Field: "kind", Problem: fmt.Sprintf("unknown location kind %q", kind)}
	}
	if err := checkKeys(info, config); err != nil {
		return nil, err
	}
	switch kind {
	case KindFilesystem:
		return openFilesystem(config)
	case KindUploadStore:
		return OpenUploads(env)
	case KindS3:
		return openS3(config)
	}
	// Unreachable while kinds and this switch agree.
	return nil, &ConfigError{Field: "kind", Problem: fmt.Sprintf("unknown location kind %q", kind)}
}

func kindInfo(kind string) (KindInfo, bool) {
	for _, k := range kinds {
		if k.Name == kind {
			return k, true
		}
	}
	return KindInfo{}, false
}

// checkKeys refuses unknown keys (a typo such as "secret_key" would otherwise
// be silently ignored and surface later as a confusing auth failure) and
// missing required ones.
func checkKeys(info KindInfo, config map[string]string) error {
	known := make(map[string]bool, len(info.Fields))
	for _, f := range info.Fields {
		known[f.Field] = true
		if f.Required && config[f.Field] == "" {
			return &ConfigError{Field: f.Field, Problem: "is required"}
		}
	}
	keys := make([]string, 0, len(config))
	for k := range config {
		keys = append(keys, k)
	}
	slices.Sort(keys) // deterministic error for several unknown keys
	for _, k := range keys {
		if !known[k] {
			return &ConfigError{Field: k, Problem: fmt.Sprintf("unknown field for kind %s", info.Name)}
		}
	}
	return nil
}

// IgnoredName reports whether the base name of name matches one of the
// path.Match patterns (e.g. ".DS_Store", "*.tmp", "Thumbs.db"). Malformed
// patterns match nothing rather than failing a whole walk.
func IgnoredName(name string, patterns []string) bool {
	base := path.Base(name)
	for _, p := range patterns {
		if ok, err := path.Match(p, base); err == nil && ok {
			return true
		}
	}
	return false
}

// clampLimit maps a caller's limit to 1..MaxPageSize.
func clampLimit(limit int) int {
	if limit <= 0 {
		return DefaultPageSize
	}
	return min(limit, MaxPageSize)
}

// pageNames returns up to limit of the sorted names that start with prefix
// and sort after cursor, and the next cursor ("" when nothing follows).
func pageNames(sorted []string, prefix, cursor string, limit int) ([]string, string) {
	limit = clampLimit(limit)
	var out []string
	for _, n := range sorted {
		if n <= cursor || !strings.HasPrefix(n, prefix) {
			continue
		}
		if len(out) == limit {
			// Something follows this page.
			return out, out[len(out)-1]
		}
		out = append(out, n)
	}
	return out, ""
}
