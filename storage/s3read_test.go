package storage_test

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/storage"
)

// proxied opens bucket of the shared server through a counting proxy.
func proxied(t *testing.T, bucket string) (storage.Location, *testbucket.Proxy) {
	t.Helper()
	srv := testbucket.Shared(t)
	p, err := testbucket.NewProxy(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	cfg := s3Config(srv, map[string]string{"bucket": bucket, "path_style": "true"})
	cfg["endpoint"] = p.Endpoint
	return openS3(t, cfg), p
}

// A page of the walk is one ListObjectsV2 request of up to 1,000 keys:
// 2,001 keys are three requests, not a second request per page to learn
// that another page follows.
func TestS3ListOneRequestPerPage(t *testing.T) {
	t.Parallel()
	srv := testbucket.Shared(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	// Objects written as files into the posix backend: quicker than 2,001
	// PUTs, and listed the same.
	for i := range 2001 {
		p := filepath.Join(srv.Dir, bucket, fmt.Sprintf("d%d", i%3), fmt.Sprintf("k%04d", i))
		if i < 3 {
			os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err := os.WriteFile(p, []byte{1}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	loc, p := proxied(t, bucket)
	p.Reset()
	got := listAll(t, loc, bucket, "", 1000)
	if len(got) != 2001 {
		t.Fatalf("listed %d keys", len(got))
	}
	if n := p.Requests(http.MethodGet); n != 3 {
		t.Fatalf("%d list requests for 2,001 keys in pages of 1,000, want 3", n)
	}
}

// ReadRange reads a file or a range of it in one GET, with the whole
// file's entry; pinned to an ETag it refuses another version.
func TestS3ReadRange(t *testing.T) {
	t.Parallel()
	srv := testbucket.Shared(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	data := strings.Repeat("0123456789", 100)
	put := srv.PutObject(t, bucket, "f.bin", []byte(data))
	empty := srv.PutObject(t, bucket, "empty.bin", nil)
	loc, p := proxied(t, bucket)
	rr := loc.(storage.RangeReader)
	ctx := testCtx(t)
	etag := strings.Trim(put.ETag, `"`)
	for _, tc := range []struct {
		off, n int64
		want   string
	}{
		{0, -1, data}, {100, 50, data[100:150]}, {990, 50, data[990:]}, {1000, 10, ""}, {5000, -1, ""}, {7, 0, ""},
	} {
		p.Reset()
		rc, e, err := rr.ReadRange(ctx, bucket, "f.bin", tc.off, tc.n, etag)
		if err != nil {
			t.Fatalf("ReadRange(%d, %d): %v", tc.off, tc.n, err)
		}
		if got := readAll(t, rc); got != tc.want {
			t.Errorf("ReadRange(%d, %d) = %d bytes, want %d", tc.off, tc.n, len(got), len(tc.want))
		}
		if e.Size != 1000 || e.ETag != etag || e.Path != "f.bin" || e.LastModified.IsZero() {
			t.Errorf("ReadRange(%d, %d) entry %+v", tc.off, tc.n, e)
		}
	}
	rc, e, err := rr.ReadRange(ctx, bucket, "empty.bin", 0, 256<<10, "")
	if err != nil || readAll(t, rc) != "" || e.Size != 0 || e.ETag != strings.Trim(empty.ETag, `"`) {
		t.Fatalf("empty object: %+v %v", e, err)
	}
	_, _, err = rr.ReadRange(ctx, bucket, "f.bin", 0, -1, "0123")
	wantErr(t, err, storage.ErrChanged)
	_, _, err = rr.ReadRange(ctx, bucket, "missing.bin", 0, 10, "")
	wantErr(t, err, storage.ErrNotFound)
	_, _, err = rr.ReadRange(ctx, bucket, "../f.bin", 0, 10, "")
	wantErr(t, err, storage.ErrBadPath)
}

// SlowDown answers are retried with backoff and each failed attempt is
// observed with its reason.
func TestS3RetriesObserved(t *testing.T) {
	t.Parallel()
	srv := testbucket.Shared(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	srv.PutObject(t, bucket, "f.bin", []byte("payload"))
	loc, p := proxied(t, bucket)
	var mu sync.Mutex
	reasons := map[string]int{}
	loc.(interface{ ObserveRetries(func(string)) }).ObserveRetries(func(r string) {
		mu.Lock()
		reasons[r]++
		mu.Unlock()
	})
	var refused atomic.Int64
	p.SlowDown(func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/f.bin") && refused.Add(1) <= 2 })
	rc, _, err := loc.(storage.RangeReader).ReadRange(testCtx(t), bucket, "f.bin", 0, -1, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, rc); got != "payload" {
		t.Fatalf("read %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if reasons[storage.RetrySlowDown] != 2 || len(reasons) != 1 {
		t.Fatalf("observed retries %v, want 2 %s", reasons, storage.RetrySlowDown)
	}
}

// A server may answer NoSuchKey for an object whose bucket went away
// while it answered (versitygw did, when a fault test moved the bucket's
// directory mid-request): the object is reported missing only once the
// bucket is known to be there, else the bucket is (a harvest retries the
// item instead of marking it deleted).
func TestS3MissingKeyInAMissingBucket(t *testing.T) {
	t.Parallel()
	srv := testbucket.Shared(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	srv.PutObject(t, bucket, "f.bin", []byte("0123456789"))
	loc, p := proxied(t, bucket)
	rr := loc.(storage.RangeReader)
	ctx := t.Context()
	// The bucket is there: a missing key is a missing file.
	_, err := loc.Open(ctx, bucket, "missing.bin")
	wantErr(t, err, storage.ErrNotFound)

	dir, away := filepath.Join(srv.Dir, bucket), filepath.Join(srv.Dir, "."+bucket+"-away")
	var moved sync.Once
	p.Answer(func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/f.bin") {
			return false
		}
		moved.Do(func() {
			if err := os.Rename(dir, away); err != nil {
				t.Error(err)
			}
		})
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><Key>f.bin</Key><BucketName>%s</BucketName></Error>`, bucket)
		return true
	})
	t.Cleanup(func() { os.Rename(away, dir) })
	_, err = loc.Open(ctx, bucket, "f.bin")
	wantErr(t, err, storage.ErrContainerMissing)
	if errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("open: the object of a missing bucket is said to be gone: %v", err)
	}
	_, _, err = rr.ReadRange(ctx, bucket, "f.bin", 0, 4, "")
	wantErr(t, err, storage.ErrContainerMissing)
	if errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("read range: the object of a missing bucket is said to be gone: %v", err)
	}
}
