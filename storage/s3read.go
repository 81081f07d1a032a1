package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/minio/minio-go/v7"
)

// s3Attempts is how many times one S3 request is tried. minio-go waits
// between attempts with exponential backoff and full jitter (200 ms unit,
// 1 s cap): six attempts ride out about four seconds of SlowDown, 503s or
// a server restarting, and an item task still fails (to be retried by the
// queue, later) rather than hang on an endpoint that stays down.
const s3Attempts = 6

// RangeReader is a location whose files are read over the network, by
// ranges (s3). The worker reads remote files through it: one request for
// a small file or a stream, a few bytes of a large one.
type RangeReader interface {
	// ReadRange reads n bytes of the file from offset off (n < 0: to its
	// end). The Entry describes the whole file as the response was sent
	// (its Size is the file's, not the range's). When etag is not empty the
	// read fails with ErrChanged unless the file still has that ETag, so
	// that ranges read one after the other belong to one version.
	// ErrNotFound when the file does not exist.
	ReadRange(ctx context.Context, container, path string, off, n int64, etag string) (io.ReadCloser, Entry, error)
}

// ErrChanged: the file no longer has the ETag a ranged read was pinned to.
var ErrChanged = errors.New("the file changed while it was read")

var _ RangeReader = (*S3)(nil)

// ReadRange implements RangeReader with one GET (minio-go's Core: the
// response body itself, without the buffering goroutine of minio.Object).
func (l *S3) ReadRange(ctx context.Context, container, path string, off, n int64, etag string) (io.ReadCloser, Entry, error) {
	if err := l.checkItem(container, path); err != nil {
		return nil, Entry{}, err
	}
	if off < 0 {
		return nil, Entry{}, fmt.Errorf("read %s/%s: negative offset %d", container, path, off)
	}
	var opts minio.GetObjectOptions
	if etag != "" {
		_ = opts.SetMatchETag(etag) // never fails on a non-empty etag
	}
	ranged := off > 0 || n >= 0
	switch {
	case n == 0:
		// An empty range cannot be asked for; one byte tells the size.
		_ = opts.SetRange(off, off)
	case n > 0:
		_ = opts.SetRange(off, off+n-1)
	case off > 0:
		_ = opts.SetRange(off, 0)
	}
	body, info, hdr, err := minio.Core{Client: l.client}.GetObject(ctx, container, l.prefix+path, opts)
	if err != nil {
		switch minio.ToErrorResponse(err).StatusCode {
		case http.StatusPreconditionFailed:
			return nil, Entry{}, fmt.Errorf("read %s/%s: %w", container, path, ErrChanged)
		case http.StatusRequestedRangeNotSatisfiable:
			// Past the end (an empty object, for any range): nothing to
			// read; a HEAD says what the object is.
			info, err := l.statObject(ctx, container, path)
			if err != nil {
				return nil, Entry{}, err
			}
			if etag != "" && strings.Trim(info.ETag, `"`) != strings.Trim(etag, `"`) {
				return nil, Entry{}, fmt.Errorf("read %s/%s: %w", container, path, ErrChanged)
			}
			return io.NopCloser(strings.NewReader("")), s3Entry(path, info), nil
		}
		return nil, Entry{}, fmt.Errorf("read %s/%s: %w", container, path, l.notFound(ctx, container, err))
	}
	e := s3Entry(path, info)
	if ranged {
		if total, ok := rangeTotal(hdr.Get("Content-Range")); ok {
			e.Size = total
		}
		if n == 0 {
			body.Close()
			body = io.NopCloser(strings.NewReader(""))
		}
	}
	return body, e, nil
}

// rangeTotal reads the object's size from a Content-Range header
// ("bytes 0-99/1234").
func rangeTotal(v string) (int64, bool) {
	_, total, ok := strings.Cut(v, "/")
	if !ok || total == "*" {
		return 0, false
	}
	n, err := strconv.ParseInt(total, 10, 64)
	return n, err == nil && n >= 0
}

// Reasons an S3 attempt failed in a way minio-go retries, as counted by
// the function given to ObserveRetries.
const (
	RetrySlowDown    = "slow_down"    // 503 (SlowDown, ServiceUnavailable) or 429
	RetryServerError = "server_error" // other 5xx
	RetryTimeout     = "timeout"      // no answer in time
	RetryNetwork     = "network"      // connection refused or reset
)

// observedTransport counts the attempts of S3 requests that failed in a
// way minio-go retries (it retries through this transport, so every
// attempt passes here).
type observedTransport struct {
	base    http.RoundTripper
	observe atomic.Pointer[func(reason string)]
}

func (t *observedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	fn := t.observe.Load()
	if fn == nil {
		return resp, err
	}
	if reason := retryReason(req, resp, err); reason != "" {
		(*fn)(reason)
	}
	return resp, err
}

func retryReason(req *http.Request, resp *http.Response, err error) string {
	if err != nil {
		if req.Context().Err() != nil {
			return "" // the caller gave up: not retried
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return RetryTimeout
		}
		return RetryNetwork
	}
	switch {
	case resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusTooManyRequests:
		return RetrySlowDown
	case resp.StatusCode >= 500:
		return RetryServerError
	}
	return ""
}

// ObserveRetries calls fn (from any goroutine) with one of the Retry*
// reasons for each attempt of this location's requests that failed in a
// way that is retried with backoff and jitter (the last attempt of a
// request counts too: it is the one that gives up).
func (l *S3) ObserveRetries(fn func(reason string)) {
	if l.transport != nil {
		l.transport.observe.Store(&fn)
	}
}
