package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/metaharvest/metaharvest/internal/config"
)

// Kinds of store.
const (
	KindDirectory = "directory"
	KindBucket    = "bucket"
)

var (
	// ErrNotFound: no file at the key.
	ErrNotFound = errors.New("not found")
	// ErrUnavailable: the store did not answer, or refused the request
	// (a bucket down, unreachable, missing, or the credentials refused).
	// Retrying later may work; the api answers 502.
	ErrUnavailable = errors.New("file store unavailable")
	// ErrChanged: the file was replaced while it was being read by ranges.
	ErrChanged = errors.New("the file changed while it was read")
	// ErrBadKey: the key is not an acceptable path.
	ErrBadKey = errors.New("bad key")
	// ErrNoBrowserURL: the store has no address browsers may fetch from
	// (a directory, or a bucket without DATA_BUCKET_BROWSER_ENDPOINT).
	ErrNoBrowserURL = errors.New("no URL for browsers")
)

// MaxKeyBytes bounds a key: S3 accepts 1,024 bytes, and the store's own
// prefix takes some of them.
const MaxKeyBytes = 900

// Info describes a stored file.
type Info struct {
	// Key is relative to the store.
	Key  string
	Size int64
	// ETag changes whenever the content may have changed; without quotes.
	ETag     string
	Modified time.Time
}

// Object is an open file: it reads from its start, seeks anywhere, and
// reads on from there.
type Object interface {
	io.ReadSeekCloser
	Info() Info
}

// Store keeps files under keys. Methods are safe for concurrent use.
type Store interface {
	// Kind is KindDirectory or KindBucket.
	Kind() string
	// String says where the files are, for messages; never a secret.
	String() string
	// Put stores size bytes of r at key (size < 0: unknown), replacing
	// what was there atomically.
	Put(ctx context.Context, key string, r io.Reader, size int64) (Info, error)
	// PutFile publishes the local file at path under key, atomically. The
	// file may be moved rather than copied: the caller must not use path
	// afterwards (it may remove it).
	PutFile(ctx context.Context, key, path string) error
	// Open opens the file at key. With whole, its bytes are asked for at
	// once (one round trip to a bucket for a response that sends all of
	// it); without, only its description is, and bytes are read where a
	// Seek leaves the offset.
	Open(ctx context.Context, key string, whole bool) (Object, error)
	// Stat describes the file at key.
	Stat(ctx context.Context, key string) (Info, error)
	// Remove deletes the files at keys; a missing one is not an error.
	Remove(ctx context.Context, keys []string) error
	// List describes up to limit files whose keys start with prefix and
	// sort (byte-wise) after after, in key order.
	List(ctx context.Context, prefix, after string, limit int) ([]Info, error)
	// BrowserURL is an address from which a browser fetches the file at
	// key for ttl, served with contentType; ErrNoBrowserURL when the store
	// has none.
	BrowserURL(ctx context.Context, key string, ttl time.Duration, contentType string) (string, error)
}

// CheckKey refuses keys that are not clean relative paths.
func CheckKey(key string) error {
	bad := func(problem string) error { return fmt.Errorf("%w: %q %s", ErrBadKey, key, problem) }
	switch {
	case key == "":
		return bad("is empty")
	case len(key) > MaxKeyBytes:
		return bad("is too long")
	case !utf8.ValidString(key):
		return bad("is not UTF-8")
	case strings.ContainsAny(key, "\x00\\"):
		return bad("contains NUL or a backslash")
	}
	for seg := range strings.SplitSeq(key, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.HasPrefix(seg, ".") {
			return bad("has an empty, hidden, . or .. segment")
		}
	}
	return nil
}

// Files are the stores of a deployment.
type Files struct {
	// Artifacts holds what extractors make, keyed by artifact path.
	Artifacts Store
	// Uploads is the upload store's bucket (keys container/path); nil
	// when the upload store is DATA_DIR/uploadstore.
	Uploads *Bucket
	// URLTTL is the validity of artifact URLs handed to browsers; 0 when
	// artifacts are streamed by the api (Artifacts.BrowserURL then fails).
	URLTTL time.Duration
	// BrowserOrigins are the origins those URLs may have (the endpoint's,
	// and the bucket's own host when addressed by name), which pages
	// showing artifacts must allow; nil when artifacts are streamed.
	BrowserOrigins []string
}

// Local is the default: both trees in dataDir, artifacts under
// dataDir/artifacts, the upload store under dataDir/uploadstore (opened
// by the storage package).
func Local(dataDir string) *Files {
	return &Files{Artifacts: NewDir(filepath.Join(dataDir, "artifacts"))}
}

// Open returns the stores cfg configures: the bucket of DATA_BUCKET, or
// DATA_DIR. It does no I/O (Check does).
func Open(cfg config.Config) (*Files, error) {
	b := cfg.DataBucket
	if !b.Enabled() {
		return Local(cfg.DataDir), nil
	}
	root, err := OpenBucket(b)
	if err != nil {
		return nil, err
	}
	f := &Files{Artifacts: root.Sub("artifacts/"), Uploads: root.Sub("uploadstore/")}
	if b.BrowserEndpoint != "" {
		f.URLTTL = b.URLTTL
		host, secure, err := b.BrowserHostPort()
		if err != nil {
			return nil, fmt.Errorf("DATA_BUCKET_BROWSER_ENDPOINT %w", err)
		}
		scheme := "http://"
		if secure {
			scheme = "https://"
		}
		// Path-style URLs name the endpoint's host; the others the
		// bucket's (which the client picks for some hosts when the style
		// is not set).
		if b.PathStyle != "false" {
			f.BrowserOrigins = append(f.BrowserOrigins, scheme+host)
		}
		if b.PathStyle != "true" {
			f.BrowserOrigins = append(f.BrowserOrigins, scheme+b.Name+"."+host)
		}
	}
	return f, nil
}

// Check proves that the stores answer: a bucket lists a key, a directory
// exists or can be made. Errors wrap ErrUnavailable; IsRefusal tells a
// configuration the server refuses from a server that does not answer.
func (f *Files) Check(ctx context.Context) error {
	if b, ok := f.Artifacts.(*Bucket); ok {
		return b.Check(ctx)
	}
	return nil
}
