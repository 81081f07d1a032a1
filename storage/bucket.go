package storage

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
)

// Bucket is one bucket of an S3 server that metaharvest writes to (the
// reference logos of logo training requests), opened with the s3 kind's
// config keys and checks: endpoint, region, bucket (required),
// access_key_id, secret_access_key, path_style.
type Bucket struct {
	s3     *S3
	name   string
	public string // base URL of objects, without a trailing slash
}

// OpenBucket opens config["bucket"] on config["endpoint"]. publicURL is
// where clients (the logo provider) fetch the bucket's objects; empty
// means the endpoint's path-style address, endpoint/bucket.
func OpenBucket(config map[string]string, publicURL string) (*Bucket, error) {
	if config["bucket"] == "" {
		return nil, &ConfigError{Field: "bucket", Problem: "is required"}
	}
	l, err := openS3(config)
	if err != nil {
		return nil, err
	}
	if publicURL == "" {
		u := *l.client.EndpointURL()
		u.Path = "/" + l.bucket
		publicURL = u.String()
	}
	return &Bucket{s3: l, name: l.bucket, public: strings.TrimRight(publicURL, "/")}, nil
}

// Name is the bucket's name.
func (b *Bucket) Name() string { return b.name }

// Put stores size bytes of r at key.
func (b *Bucket) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	if err := checkItemPath(key, true); err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	if _, err := b.s3.client.PutObject(ctx, b.name, key, r, size, minio.PutObjectOptions{ContentType: contentType}); err != nil {
		return fmt.Errorf("put %s/%s: %w", b.name, key, err)
	}
	return nil
}

// Remove deletes the object at key (a missing one is not an error).
func (b *Bucket) Remove(ctx context.Context, key string) error {
	if err := b.s3.client.RemoveObject(ctx, b.name, key, minio.RemoveObjectOptions{}); err != nil {
		return fmt.Errorf("remove %s/%s: %w", b.name, key, s3NotFound(err))
	}
	return nil
}

// Open reads the object at key.
func (b *Bucket) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	return b.s3.Open(ctx, b.name, key)
}

// URL is where the object at key is fetched from (each segment escaped).
func (b *Bucket) URL(key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return b.public + "/" + strings.Join(segs, "/")
}
