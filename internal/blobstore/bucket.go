package blobstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/metaharvest/metaharvest/internal/config"
)

// Bucket is the S3-compatible kind: the files of a key prefix of one
// bucket, read and written with minio-go.
type Bucket struct {
	*conn
	prefix string // "" or ending in "/"
}

var _ Store = (*Bucket)(nil)

// conn is what the stores of one bucket share.
type conn struct {
	// client writes, lists and removes, retrying with backoff (a worker's
	// publishing rides out a short outage before its task is retried).
	client *minio.Client
	// quick reads with a single attempt, so that the api answers 502
	// within a moment while the bucket is away rather than after a minute
	// of retries.
	quick    *minio.Client
	bucket   string
	endpoint string // host[:port], for messages

	// Browser URLs are signed for the endpoint browsers reach, with the
	// bucket's region (asked of the server once when not configured, so
	// that signing itself never waits on the browsers' endpoint).
	browserHost   string
	browserSecure bool
	pathStyle     minio.BucketLookupType
	creds         *credentials.Credentials
	region        string
	mu            sync.Mutex
	browser       *minio.Client
}

// Bucket tuning: a part of a large upload (and the buffer of an upload of
// unknown length), and the windows of ranged reads: small first (a player
// probing an index), doubling to the largest while a reader goes on.
const (
	partSize    = 16 << 20
	smallPut    = 1 << 20
	firstWindow = 256 << 10
	maxWindow   = 16 << 20
)

// OpenBucket opens the bucket of b (its prefix is the root of the store);
// no I/O.
func OpenBucket(b config.DataBucket) (*Bucket, error) {
	hostport, secure, err := b.HostPort()
	if err != nil {
		return nil, fmt.Errorf("DATA_BUCKET_ENDPOINT %w", err)
	}
	lookup := minio.BucketLookupAuto
	switch b.PathStyle {
	case "true":
		lookup = minio.BucketLookupPath
	case "false":
		lookup = minio.BucketLookupDNS
	}
	creds := credentials.NewStaticV4(b.AccessKeyID, b.SecretAccessKey, "")
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   512,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: time.Minute,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
	}
	newClient := func(host string, secure bool, retries int, region string) (*minio.Client, error) {
		return minio.New(host, &minio.Options{Creds: creds, Secure: secure, Region: region, BucketLookup: lookup,
			Transport: tr, MaxRetries: retries})
	}
	c := &conn{bucket: b.Name, endpoint: hostport, pathStyle: lookup, creds: creds, region: b.Region}
	if c.client, err = newClient(hostport, secure, minio.MaxRetry, b.Region); err != nil {
		return nil, fmt.Errorf("DATA_BUCKET_ENDPOINT: %w", err)
	}
	if c.quick, err = newClient(hostport, secure, 1, b.Region); err != nil {
		return nil, fmt.Errorf("DATA_BUCKET_ENDPOINT: %w", err)
	}
	if c.browserHost, c.browserSecure, err = b.BrowserHostPort(); err != nil {
		return nil, fmt.Errorf("DATA_BUCKET_BROWSER_ENDPOINT %w", err)
	}
	return &Bucket{conn: c, prefix: b.Prefix}, nil
}

// Sub is the store of the keys under prefix (ending in "/") of b.
func (b *Bucket) Sub(prefix string) *Bucket { return &Bucket{conn: b.conn, prefix: b.prefix + prefix} }

// Kind implements Store.
func (b *Bucket) Kind() string { return KindBucket }

// String implements Store.
func (b *Bucket) String() string {
	return fmt.Sprintf("bucket %s (%s) at %s", b.bucket, strings.TrimSuffix(b.prefix, "/"), b.endpoint)
}

func (b *Bucket) full(key string) string { return b.prefix + key }

// fail words a request's error: ErrNotFound, ErrChanged, the context's
// own error, or ErrUnavailable with what the server or network said.
func (b *Bucket) fail(ctx context.Context, op, key string, err error) error {
	switch minio.ToErrorResponse(err).Code {
	case "NoSuchKey", "NotFound":
		return fmt.Errorf("%s %s: %w", op, key, ErrNotFound)
	case "PreconditionFailed":
		return fmt.Errorf("%s %s: %w", op, key, ErrChanged)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%s %s in %s: %w: %w", op, key, b, ErrUnavailable, err)
}

// Check proves that the bucket answers and that the credentials may list
// it.
func (b *Bucket) Check(ctx context.Context) error {
	for obj := range b.quick.ListObjectsIter(ctx, b.bucket, minio.ListObjectsOptions{Prefix: b.prefix, MaxKeys: 1, FetchOwner: ptr(false)}) {
		if obj.Err != nil {
			return b.fail(ctx, "list", b.prefix, obj.Err)
		}
		break
	}
	return ctx.Err()
}

// IsRefusal reports whether err is the server refusing the configuration
// (no such bucket, unknown or wrong credentials, access denied) rather
// than an outage: a process should not start with it.
func IsRefusal(err error) bool {
	var resp minio.ErrorResponse
	if !errors.As(err, &resp) {
		return false
	}
	switch resp.Code {
	case "NoSuchBucket", "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "AllAccessDisabled",
		"InvalidBucketName", "AuthorizationHeaderMalformed", "XAdminUserNotFound":
		return true
	}
	return false
}

// Put implements Store. An upload of unknown length goes in parts of
// partSize (one buffer of that size).
func (b *Bucket) Put(ctx context.Context, key string, r io.Reader, size int64) (Info, error) {
	tr := &trackedReader{r: r}
	var body io.Reader = tr
	if size < 0 {
		// minio-go uploads a body of unknown length as a multipart upload
		// (three requests) through a buffer of a whole part: a body that
		// ends within smallPut goes in one PUT instead.
		head := make([]byte, smallPut)
		n, err := io.ReadFull(tr, head)
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			body, size = bytes.NewReader(head[:n]), int64(n)
		case err != nil:
			return Info{}, fmt.Errorf("put %s: %w", key, tr.err)
		default:
			body = io.MultiReader(bytes.NewReader(head), tr)
		}
	}
	info, err := b.put(ctx, key, body, size)
	if tr.err != nil {
		return Info{}, fmt.Errorf("put %s: %w", key, tr.err) // the reader's failure, not the bucket's
	}
	return info, err
}

func (b *Bucket) put(ctx context.Context, key string, r io.Reader, size int64) (Info, error) {
	if err := CheckKey(key); err != nil {
		return Info{}, err
	}
	up, err := b.client.PutObject(ctx, b.bucket, b.full(key), r, size, minio.PutObjectOptions{PartSize: partSize})
	if err != nil {
		return Info{}, b.fail(ctx, "put", key, err)
	}
	return Info{Key: key, Size: up.Size, ETag: strings.Trim(up.ETag, `"`), Modified: up.LastModified}, nil
}

// trackedReader keeps the error of the caller's reader and hands minio-go
// errReaderFailed instead: minio-go takes io.ErrUnexpectedEOF (what an
// HTTP request body says when its client hangs up) for the end of the last
// part, and would complete a truncated upload.
type trackedReader struct {
	r   io.Reader
	err error
}

var errReaderFailed = errors.New("the reader failed")

func (t *trackedReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF {
		t.err = err
		return n, errReaderFailed
	}
	return n, err
}

// PutFile implements Store with one PUT (parts in parallel for a large
// file, which minio-go reads at offsets); the file stays for the caller
// to remove.
func (b *Bucket) PutFile(ctx context.Context, key, p string) error {
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	_, err = b.put(ctx, key, f, fi.Size())
	return err
}

// Open implements Store.
func (b *Bucket) Open(ctx context.Context, key string, whole bool) (Object, error) {
	if err := CheckKey(key); err != nil {
		return nil, err
	}
	o := &bucketObject{ctx: ctx, b: b, window: firstWindow}
	if !whole {
		info, err := b.Stat(ctx, key)
		if err != nil {
			return nil, err
		}
		o.info = info
		return o, nil
	}
	body, oi, _, err := minio.Core{Client: b.quick}.GetObject(ctx, b.bucket, b.full(key), minio.GetObjectOptions{})
	if err != nil {
		return nil, b.fail(ctx, "open", key, err)
	}
	o.info = objectInfo(key, oi)
	o.body, o.bodyEnd = body, o.info.Size
	return o, nil
}

// Stat implements Store.
func (b *Bucket) Stat(ctx context.Context, key string) (Info, error) {
	if err := CheckKey(key); err != nil {
		return Info{}, err
	}
	oi, err := b.quick.StatObject(ctx, b.bucket, b.full(key), minio.StatObjectOptions{})
	if err != nil {
		return Info{}, b.fail(ctx, "stat", key, err)
	}
	return objectInfo(key, oi), nil
}

// ReadRange reads n bytes of the file at key from off (n < 0: to its
// end), failing with ErrChanged unless it still has etag (when given).
// The Info describes the whole file.
func (b *Bucket) ReadRange(ctx context.Context, key string, off, n int64, etag string) (io.ReadCloser, Info, error) {
	if err := CheckKey(key); err != nil {
		return nil, Info{}, err
	}
	var opts minio.GetObjectOptions
	if etag != "" {
		_ = opts.SetMatchETag(etag)
	}
	switch {
	case n == 0:
		// An empty read still proves that the file is there.
		info, err := b.Stat(ctx, key)
		if err == nil && etag != "" && info.ETag != etag {
			err = fmt.Errorf("read %s: %w", key, ErrChanged)
		}
		return io.NopCloser(strings.NewReader("")), info, err
	case off > 0 && n < 0:
		_ = opts.SetRange(off, 0)
	case n > 0:
		_ = opts.SetRange(off, off+n-1)
	}
	body, oi, h, err := minio.Core{Client: b.client}.GetObject(ctx, b.bucket, b.full(key), opts)
	if err != nil {
		if minio.ToErrorResponse(err).Code == "InvalidRange" {
			// Past the end: nothing to read, as a file would say.
			info, serr := b.Stat(ctx, key)
			return io.NopCloser(strings.NewReader("")), info, serr
		}
		return nil, Info{}, b.fail(ctx, "read", key, err)
	}
	info := objectInfo(key, oi)
	if cr := h.Get("Content-Range"); cr != "" {
		if i := strings.LastIndexByte(cr, '/'); i >= 0 {
			if total, err := strconv.ParseInt(cr[i+1:], 10, 64); err == nil {
				info.Size = total
			}
		}
	}
	return body, info, nil
}

// Remove implements Store: one request for one key, batches of up to a
// thousand keys (DeleteObjects) for more.
func (b *Bucket) Remove(ctx context.Context, keys []string) error {
	switch len(keys) {
	case 0:
		return nil
	case 1:
		if err := CheckKey(keys[0]); err != nil {
			return err
		}
		if err := b.client.RemoveObject(ctx, b.bucket, b.full(keys[0]), minio.RemoveObjectOptions{}); err != nil &&
			!errors.Is(b.fail(ctx, "remove", keys[0], err), ErrNotFound) {
			return b.fail(ctx, "remove", keys[0], err)
		}
		return nil
	}
	objects := make(chan minio.ObjectInfo)
	var bad []error
	go func() {
		defer close(objects)
		for _, k := range keys {
			if err := CheckKey(k); err != nil {
				bad = append(bad, err)
				continue
			}
			select {
			case objects <- minio.ObjectInfo{Key: b.full(k)}:
			case <-ctx.Done():
				return
			}
		}
	}()
	var errs []error
	for e := range b.client.RemoveObjects(ctx, b.bucket, objects, minio.RemoveObjectsOptions{}) {
		if err := b.fail(ctx, "remove", strings.TrimPrefix(e.ObjectName, b.prefix), e.Err); !errors.Is(err, ErrNotFound) {
			errs = append(errs, err)
		}
	}
	// The channel is closed: the sender is done with bad.
	errs = append(errs, bad...)
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// List implements Store with ListObjectsV2 requests (StartAfter the
// cursor).
func (b *Bucket) List(ctx context.Context, prefix, after string, limit int) ([]Info, error) {
	if limit <= 0 {
		return nil, nil
	}
	opts := minio.ListObjectsOptions{Prefix: b.full(prefix), Recursive: true, MaxKeys: min(limit, 1000), FetchOwner: ptr(false)}
	if after != "" {
		opts.StartAfter = b.full(after)
	}
	var out []Info
	for obj := range b.client.ListObjectsIter(ctx, b.bucket, opts) {
		if obj.Err != nil {
			return nil, b.fail(ctx, "list", prefix, obj.Err)
		}
		key, ok := strings.CutPrefix(obj.Key, b.prefix)
		if !ok || CheckKey(key) != nil {
			continue // a directory marker, or a key no store writes
		}
		out = append(out, objectInfo(key, obj))
		if len(out) == limit {
			break
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err // the iterator ends silently on cancellation
	}
	return out, nil
}

// Dirs lists the first segments of the keys under the store, sorted (the
// upload store's containers), at most limit of them.
func (b *Bucket) Dirs(ctx context.Context, limit int) ([]string, error) {
	var out []string
	for obj := range b.client.ListObjectsIter(ctx, b.bucket, minio.ListObjectsOptions{Prefix: b.prefix, FetchOwner: ptr(false)}) {
		if obj.Err != nil {
			return nil, b.fail(ctx, "list", "", obj.Err)
		}
		name, ok := strings.CutPrefix(obj.Key, b.prefix)
		if name, isDir := strings.CutSuffix(name, "/"); ok && isDir && CheckKey(name) == nil {
			out = append(out, name)
			if len(out) == limit {
				break
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// BrowserURL implements Store: a presigned GET of the browser endpoint,
// with the response's type and caching set by the URL.
func (b *Bucket) BrowserURL(ctx context.Context, key string, ttl time.Duration, contentType string) (string, error) {
	if b.browserHost == "" {
		return "", ErrNoBrowserURL
	}
	if err := CheckKey(key); err != nil {
		return "", err
	}
	c, err := b.browserClient(ctx)
	if err != nil {
		return "", err
	}
	params := url.Values{}
	if contentType != "" {
		params.Set("response-content-type", contentType)
	}
	params.Set("response-cache-control", fmt.Sprintf("private, max-age=%d", int(ttl/time.Second)))
	u, err := c.PresignedGetObject(ctx, b.bucket, b.full(key), ttl, params)
	if err != nil {
		return "", b.fail(ctx, "sign", key, err)
	}
	return u.String(), nil
}

func (c *conn) browserClient(ctx context.Context) (*minio.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.browser != nil {
		return c.browser, nil
	}
	region := c.region
	if region == "" {
		r, err := c.quick.GetBucketLocation(ctx, c.bucket)
		if err != nil {
			return nil, fmt.Errorf("region of bucket %s: %w: %w", c.bucket, ErrUnavailable, err)
		}
		region = r
	}
	if region == "" {
		region = "us-east-1"
	}
	cl, err := minio.New(c.browserHost, &minio.Options{Creds: c.creds, Secure: c.browserSecure, Region: region, BucketLookup: c.pathStyle})
	if err != nil {
		return nil, err
	}
	c.browser = cl
	return cl, nil
}

func objectInfo(key string, oi minio.ObjectInfo) Info {
	return Info{Key: key, Size: oi.Size, ETag: strings.Trim(oi.ETag, `"`), Modified: oi.LastModified}
}

func ptr[T any](v T) *T { return &v }

// bucketObject reads an object by windows pinned to the ETag it was
// opened with: a reader never mixes two versions.
type bucketObject struct {
	ctx     context.Context
	b       *Bucket
	info    Info
	off     int64         // where the next Read reads
	body    io.ReadCloser // the response being read, at bodyAt; nil: none
	bodyAt  int64
	bodyEnd int64 // where the response's bytes end
	window  int64
}

func (o *bucketObject) Info() Info { return o.info }

func (o *bucketObject) Read(p []byte) (int, error) {
	if o.off >= o.info.Size {
		return 0, io.EOF
	}
	if o.body != nil && o.bodyAt != o.off {
		o.body.Close()
		o.body = nil
	}
	if o.body == nil {
		end := min(o.off+o.window, o.info.Size) - 1
		opts := minio.GetObjectOptions{}
		_ = opts.SetMatchETag(o.info.ETag)
		_ = opts.SetRange(o.off, end)
		body, _, _, err := minio.Core{Client: o.b.quick}.GetObject(o.ctx, o.b.bucket, o.b.full(o.info.Key), opts)
		if err != nil {
			return 0, o.b.fail(o.ctx, "read", o.info.Key, err)
		}
		o.body, o.bodyAt, o.bodyEnd = body, o.off, end+1
		o.window = min(2*o.window, maxWindow)
	}
	n, err := o.body.Read(p)
	o.off += int64(n)
	o.bodyAt += int64(n)
	if err == nil && o.bodyAt >= o.bodyEnd {
		// Every byte is in: reading the end of the response hands its
		// connection back for the next request (a reader such as
		// http.ServeContent stops at the size and never sees io.EOF, and
		// a response closed before its end costs its connection).
		var one [1]byte
		if m, _ := o.body.Read(one[:]); m == 0 {
			err = io.EOF
		}
	}
	if err == io.EOF {
		o.body.Close()
		o.body = nil
		if o.off < o.info.Size {
			err = nil // the window ended: the next Read asks for the next one
		}
	}
	if err != nil && err != io.EOF {
		return n, o.b.fail(o.ctx, "read", o.info.Key, err)
	}
	return n, err
}

func (o *bucketObject) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += o.off
	case io.SeekEnd:
		offset += o.info.Size
	default:
		return 0, errors.New("seek: invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("seek: negative position")
	}
	o.off = offset
	return offset, nil
}

func (o *bucketObject) Close() error {
	if o.body != nil {
		o.body.Close()
		o.body = nil
	}
	return nil
}
