package storage

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"
)

// S3 is the "s3" kind. Without config.bucket every bucket the credentials
// can list is a container; with it, that bucket is the only container.
// Item paths are keys relative to config.prefix.
type S3 struct {
	client *minio.Client
	// check makes a single attempt per request so that Check reports an
	// unreachable endpoint within its timeout instead of retrying.
	check  *minio.Client
	host   string // endpoint host, without port
	bucket string
	prefix string // "" or ending in "/"
	// transport counts retried attempts (ObserveRetries); it wraps the
	// shared s3Transport.
	transport *observedTransport
}

var _ Location = (*S3)(nil)

// s3CheckTimeout bounds Check as a whole; it runs while a user waits for
// the location form to save.
const s3CheckTimeout = 5 * time.Second

func openS3(config map[string]string) (*S3, error) {
	hostport, secure, err := parseEndpoint(config["endpoint"])
	if err != nil {
		return nil, err
	}
	host := strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	if ip, err := netip.ParseAddr(host); err == nil && blockedAddr(ip) {
		return nil, &ConfigError{Field: "endpoint", Problem: "is a link-local or cloud metadata address, which is not allowed"}
	}

	lookup := minio.BucketLookupAuto
	if v := config["path_style"]; v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, &ConfigError{Field: "path_style", Problem: `must be "true" or "false"`}
		}
		lookup = minio.BucketLookupDNS
		if b {
			lookup = minio.BucketLookupPath
		}
	}

	ak, sk := config["access_key_id"], config["secret_access_key"]
	switch {
	case ak == "" && sk != "":
		return nil, &ConfigError{Field: "access_key_id", Problem: "is required with a secret access key"}
	case ak != "" && sk == "":
		return nil, &ConfigError{Field: "secret_access_key", Problem: "is required with an access key id"}
	}
	// Both empty means anonymous access (public buckets).

	bucket := config["bucket"]
	if bucket != "" {
		if err := s3utils.CheckValidBucketName(bucket); err != nil {
			return nil, &ConfigError{Field: "bucket", Problem: "is not a valid bucket name"}
		}
	}

	// The prefix is a folder: "media" and "/media/" both mean keys under
	// "media/", so that item paths never start with a slash.
	prefix := strings.Trim(config["prefix"], "/")
	if prefix != "" {
		if err := checkItemPath(prefix, true); err != nil {
			return nil, &ConfigError{Field: "prefix", Problem: "must be a key prefix like media/photos without empty, . or .. segments"}
		}
		prefix += "/"
	}

	rt := &observedTransport{base: s3Transport()}
	newClient := func(retries int) (*minio.Client, error) {
		return minio.New(hostport, &minio.Options{
			Creds:        credentials.NewStaticV4(ak, sk, ""),
			Secure:       secure,
			Region:       config["region"],
			BucketLookup: lookup,
			Transport:    rt,
			MaxRetries:   retries,
		})
	}
	client, err := newClient(s3Attempts)
	if err != nil {
		return nil, &ConfigError{Field: "endpoint", Problem: "is not a valid S3 endpoint"}
	}
	check, err := newClient(1)
	if err != nil {
		return nil, &ConfigError{Field: "endpoint", Problem: "is not a valid S3 endpoint"}
	}
	return &S3{client: client, check: check, host: host, bucket: bucket, prefix: prefix, transport: rt}, nil
}

// parseEndpoint accepts "host[:port]" (TLS) or "http(s)://host[:port][/]"
// and returns host:port for minio and whether to use TLS.
func parseEndpoint(e string) (hostport string, secure bool, err error) {
	bad := func(problem string) (string, bool, error) {
		return "", false, &ConfigError{Field: "endpoint", Problem: problem}
	}
	e = strings.TrimSpace(e)
	secure = true
	if strings.Contains(e, "://") {
		u, err := url.Parse(e)
		if err != nil {
			return bad("is not a valid URL")
		}
		switch u.Scheme {
		case "https":
		case "http":
			secure = false
		default:
			return bad("scheme must be http or https")
		}
		if u.User != nil {
			// Credentials in the URL would be stored and shown unredacted.
			return bad("must not contain credentials; use access_key_id and secret_access_key")
		}
		if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return bad("must be a host, without a path or query")
		}
		e = u.Host
	}
	if e == "" || strings.ContainsAny(e, "/?#@ ") {
		return bad("must be host:port or an http(s) URL")
	}
	host := e
	if h, port, err := net.SplitHostPort(e); err == nil {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return bad("has an invalid port")
		}
		host = h
	}
	if host == "" {
		return bad("has no host")
	}
	return e, secure, nil
}

// Check resolves the endpoint, refuses metadata addresses before any
// connection, then lists buckets (or the configured bucket) to prove that
// the endpoint answers and the credentials work.
func (l *S3) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s3CheckTimeout)
	defer cancel()

	addrs, err := resolve(ctx, l.host)
	if err != nil {
		return &ConfigError{Field: "endpoint", Problem: fmt.Sprintf("host %q cannot be resolved", l.host)}
	}
	for _, a := range addrs {
		if blockedAddr(a) {
			return &ConfigError{Field: "endpoint", Problem: "resolves to a link-local or cloud metadata address, which is not allowed"}
		}
	}

	if l.bucket == "" {
		_, err = l.check.ListBuckets(ctx)
	} else {
		// A one-key listing proves read access, which HEAD bucket does not,
		// and its error body names the problem (HEAD has no body).
		for obj := range l.check.ListObjectsIter(ctx, l.bucket, minio.ListObjectsOptions{Prefix: l.prefix, MaxKeys: 1, FetchOwner: ptr(false)}) {
			err = obj.Err
			break
		}
		if err == nil && ctx.Err() != nil {
			err = ctx.Err() // the iterator ends silently on cancellation
		}
	}
	if err != nil {
		return checkError(ctx, err)
	}
	return nil
}

func resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// checkError turns a failed Check request into a ConfigError naming the
// field to fix. Messages are written here, not copied from the server or
// the transport, so they never echo a secret.
func checkError(ctx context.Context, err error) error {
	var resp minio.ErrorResponse
	if errors.As(err, &resp) && resp.Code != "" {
		switch resp.Code {
		case "InvalidAccessKeyId", "XAdminUserNotFound": // the latter from versitygw
			return &ConfigError{Field: "access_key_id", Problem: "access key id is not known to the server"}
		case "SignatureDoesNotMatch":
			return &ConfigError{Field: "secret_access_key", Problem: "secret access key does not match the access key id"}
		case "AccessDenied", "AllAccessDisabled":
			return &ConfigError{Field: "access_key_id", Problem: "access denied for these credentials"}
		case "NoSuchBucket":
			return &ConfigError{Field: "bucket", Problem: "bucket does not exist"}
		case "InvalidBucketName":
			return &ConfigError{Field: "bucket", Problem: "the server refuses this bucket name"}
		case "AuthorizationHeaderMalformed", "InvalidRegion", "IllegalLocationConstraintException":
			return &ConfigError{Field: "region", Problem: "region does not match the server"}
		}
		return &ConfigError{Field: "endpoint", Problem: fmt.Sprintf("server refused the request (%s)", resp.Code)}
	}
	var (
		uaErr  x509.UnknownAuthorityError
		hnErr  x509.HostnameError
		recErr tls.RecordHeaderError
	)
	switch {
	case errors.Is(err, errBlockedAddress):
		return &ConfigError{Field: "endpoint", Problem: "resolves to a link-local or cloud metadata address, which is not allowed"}
	case errors.As(err, &uaErr), errors.As(err, &hnErr):
		return &ConfigError{Field: "endpoint", Problem: "TLS certificate is not trusted for this host"}
	case errors.As(err, &recErr):
		return &ConfigError{Field: "endpoint", Problem: "server does not speak TLS; use an http:// endpoint"}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &ConfigError{Field: "endpoint", Problem: "connection refused"}
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		return &ConfigError{Field: "endpoint", Problem: fmt.Sprintf("no answer within %s", s3CheckTimeout)}
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return &ConfigError{Field: "endpoint", Problem: "cannot connect: " + opErr.Err.Error()}
	}
	return &ConfigError{Field: "endpoint", Problem: "unexpected answer; is this an S3 endpoint?"}
}

// ListContainers implements Location.
func (l *S3) ListContainers(ctx context.Context, prefix, cursor string, limit int) ([]string, string, error) {
	if l.bucket != "" {
		page, next := pageNames([]string{l.bucket}, prefix, cursor, limit)
		return page, next, nil
	}
	buckets, err := l.client.ListBuckets(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("list buckets: %w", err)
	}
	names := make([]string, 0, len(buckets))
	for _, b := range buckets {
		names = append(names, b.Name)
	}
	slices.Sort(names)
	page, next := pageNames(names, prefix, cursor, limit)
	return page, next, nil
}

// ListItems implements Location with one ListObjectsV2 request per page:
// MaxKeys is the limit (S3 answers at most 1,000 keys), StartAfter the
// cursor. Reading one key more than the page to learn whether another
// follows would cost a second request of 1,000 keys per page; instead a
// full page always names a next cursor, and a bucket whose last page is
// exactly full ends with one empty request. Keys ending in "/" are
// directory markers written by consoles, not files; keys that are not
// acceptable item paths ("a//b", "../x") are skipped, since Stat and Open
// would refuse them, but they still count towards the page and may be the
// cursor (StartAfter takes any key).
func (l *S3) ListItems(ctx context.Context, container, cursor string, limit int) ([]Entry, string, error) {
	limit = clampLimit(limit)
	if err := l.checkContainer(container); err != nil {
		return nil, "", err
	}
	opts := minio.ListObjectsOptions{
		Prefix:     l.prefix,
		Recursive:  true,
		MaxKeys:    limit,
		FetchOwner: ptr(false),
	}
	if cursor != "" {
		opts.StartAfter = l.prefix + cursor
	}
	var entries []Entry
	keys, last := 0, ""
	for obj := range l.client.ListObjectsIter(ctx, container, opts) {
		if obj.Err != nil {
			return nil, "", fmt.Errorf("list %s: %w", container, s3NotFound(obj.Err))
		}
		keys++
		rel, ok := strings.CutPrefix(obj.Key, l.prefix)
		last = rel
		if ok && !strings.HasSuffix(rel, "/") && checkItemPath(rel, true) == nil {
			entries = append(entries, s3Entry(rel, obj))
		}
		// The iterator would fetch the next page on the next step.
		if keys == limit {
			break
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, "", err // the iterator ends silently on cancellation
	}
	next := ""
	if keys == limit {
		next = last
	}
	return entries, next, nil
}

// Stat implements Location.
func (l *S3) Stat(ctx context.Context, container, path string) (Entry, error) {
	if err := l.checkItem(container, path); err != nil {
		return Entry{}, err
	}
	info, err := l.statObject(ctx, container, path)
	if err != nil {
		return Entry{}, err
	}
	return s3Entry(path, info), nil
}

// statObject is a HEAD of the object. A HEAD's 404 has no body to name
// the missing bucket apart from the missing key, so on a 404 the bucket is
// asked for: a missing bucket is ErrContainerMissing, not ErrNotFound.
func (l *S3) statObject(ctx context.Context, container, path string) (minio.ObjectInfo, error) {
	info, err := l.client.StatObject(ctx, container, l.prefix+path, minio.StatObjectOptions{})
	if err == nil {
		return info, nil
	}
	return info, fmt.Errorf("stat %s/%s: %w", container, path, l.notFound(ctx, container, err))
}

// notFound is s3NotFound for a request on one object, which says a key is
// missing only once the bucket is known to be there: a HEAD's 404 names
// neither, and a server may answer NoSuchKey for a bucket that went away
// during the request. A missing bucket is ErrContainerMissing; a bucket
// that cannot be asked about leaves the error transient (neither).
func (l *S3) notFound(ctx context.Context, container string, err error) error {
	err = s3NotFound(err)
	if !errors.Is(err, ErrNotFound) {
		return err
	}
	exists, berr := l.client.BucketExists(ctx, container)
	switch {
	case berr != nil:
		return fmt.Errorf("object missing, and bucket %s could not be checked: %w", container, berr)
	case !exists:
		return fmt.Errorf("%w: bucket %s", ErrContainerMissing, container)
	}
	return err
}

// Open implements Location. The object is fetched right away so that a
// missing key is ErrNotFound here rather than on the first Read.
func (l *S3) Open(ctx context.Context, container, path string) (io.ReadCloser, error) {
	if err := l.checkItem(container, path); err != nil {
		return nil, err
	}
	obj, err := l.client.GetObject(ctx, container, l.prefix+path, minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("open %s/%s: %w", container, path, l.notFound(ctx, container, err))
	}
	if _, err := obj.Stat(); err != nil {
		obj.Close()
		return nil, fmt.Errorf("open %s/%s: %w", container, path, l.notFound(ctx, container, err))
	}
	return obj, nil
}

// LocalPath implements Location: objects have no local path.
func (l *S3) LocalPath(container, path string) (string, bool) { return "", false }

func (l *S3) checkContainer(container string) error {
	if l.bucket != "" {
		if container != l.bucket {
			return fmt.Errorf("container %q: %w", container, ErrNotFound)
		}
		return nil
	}
	if s3utils.CheckValidBucketName(container) != nil {
		return fmt.Errorf("container %q: %w: not a valid bucket name", container, ErrBadPath)
	}
	return nil
}

func (l *S3) checkItem(container, path string) error {
	if err := l.checkContainer(container); err != nil {
		return err
	}
	// "." and ".." are refused although S3 keys may contain them: servers
	// and proxies that normalise URL paths would resolve them, possibly
	// outside the configured prefix.
	return checkItemPath(path, true)
}

// s3NotFound makes a missing key match ErrNotFound and a missing bucket
// ErrContainerMissing, keeping the server's error in the chain.
func s3NotFound(err error) error {
	switch minio.ToErrorResponse(err).Code {
	case "NoSuchKey", "NotFound":
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	case "NoSuchBucket":
		return fmt.Errorf("%w: %w", ErrContainerMissing, err)
	}
	return err
}

func s3Entry(path string, info minio.ObjectInfo) Entry {
	return Entry{
		Path:         path,
		Size:         info.Size,
		ETag:         strings.Trim(info.ETag, `"`),
		LastModified: info.LastModified.UTC(),
	}
}

func ptr[T any](v T) *T { return &v }
