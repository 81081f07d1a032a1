package storage_test

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/storage"
)

func s3Config(srv testbucket.Server, extra map[string]string) map[string]string {
	cfg := map[string]string{
		"endpoint":          srv.Endpoint,
		"region":            "us-east-1",
		"access_key_id":     srv.AccessKey,
		"secret_access_key": srv.SecretKey,
	}
	for k, v := range extra {
		cfg[k] = v
	}
	return cfg
}

func openS3(t *testing.T, cfg map[string]string) storage.Location {
	t.Helper()
	loc, err := storage.Open(storage.KindS3, cfg, storage.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if err := loc.Check(testCtx(t)); err != nil {
		t.Fatalf("Check: %v", err)
	}
	return loc
}

func TestS3ContainersAreBuckets(t *testing.T) {
	t.Parallel()
	srv := testbucket.Shared(t)
	base := testbucket.BucketName(t)
	want := []string{base + "-a", base + "-b", base + "-c"}
	for _, b := range want {
		srv.CreateBucket(t, b)
	}
	loc := openS3(t, s3Config(srv, nil))
	ctx := testCtx(t)

	// Other tests create buckets concurrently: look only at ours.
	var got []string
	cursor := ""
	for {
		page, next, err := loc.ListContainers(ctx, base, cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page...)
		if next == "" {
			break
		}
		cursor = next
	}
	if !slices.Equal(got, want) {
		t.Fatalf("containers %v, want %v", got, want)
	}

	// With a bucket configured, it is the only container.
	one := openS3(t, s3Config(srv, map[string]string{"bucket": want[1]}))
	page, next, err := one.ListContainers(ctx, "", "", 10)
	if err != nil || !slices.Equal(page, want[1:2]) || next != "" {
		t.Fatalf("single bucket: %v %q %v", page, next, err)
	}
	_, _, err = one.ListItems(ctx, want[0], "", 10)
	wantErr(t, err, storage.ErrNotFound)
	// A missing bucket is no missing file: ErrContainerMissing (a harvest
	// retries its items instead of marking them deleted).
	_, _, err = loc.ListItems(ctx, base+"-missing", "", 10)
	wantErr(t, err, storage.ErrContainerMissing)
	_, err = loc.Stat(ctx, base+"-missing", "a.txt")
	wantErr(t, err, storage.ErrContainerMissing)
	if errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("a missing bucket's stat says the file is gone: %v", err)
	}
}

func TestS3ItemsPaging(t *testing.T) {
	t.Parallel()
	srv := testbucket.Shared(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	// A posix-backed server cannot hold both "a/b" and "a/b/c": keep
	// "a-c" < "a/b", the pair a directory walk gets wrong.
	want := []string{"0", "A", "a-c", "a/b", "a/c/d.jpg", "ä", "日本/語.txt"}
	for i := range 30 {
		want = append(want, fmt.Sprintf("gen/%02d/f%02d.bin", i%4, i))
	}
	for _, k := range want {
		srv.PutObject(t, bucket, k, []byte("content of "+k))
	}
	slices.Sort(want)
	// A console's directory marker is not a file.
	srv.PutObject(t, bucket, "gen/", nil)
	loc := openS3(t, s3Config(srv, map[string]string{"bucket": bucket, "path_style": "true"}))

	for _, limit := range []int{1, 7, 1000} {
		got := listAll(t, loc, bucket, "", limit)
		if !slices.Equal(paths(got), want) {
			t.Fatalf("limit %d:\n got %q\nwant %q", limit, paths(got), want)
		}
		for _, e := range got {
			if e.Size != int64(len("content of "+e.Path)) || e.ETag == "" || strings.Contains(e.ETag, `"`) || e.LastModified.IsZero() {
				t.Fatalf("entry %+v", e)
			}
		}
	}
	got := paths(listAll(t, loc, bucket, "a/", 3))
	if exp := want[slices.Index(want, "a/b"):]; !slices.Equal(got, exp) {
		t.Fatalf("from cursor a/:\n got %q\nwant %q", got, exp)
	}
}

func TestS3PrefixStatOpen(t *testing.T) {
	t.Parallel()
	srv := testbucket.Shared(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	put := srv.PutObject(t, bucket, "media/a.txt", []byte("alpha"))
	srv.PutObject(t, bucket, "media/sub/b.txt", []byte("beta"))
	srv.PutObject(t, bucket, "mediaX/c.txt", []byte("not under the prefix"))
	srv.PutObject(t, bucket, "other/d.txt", []byte("not under the prefix"))
	ctx := testCtx(t)

	for _, prefix := range []string{"media", "media/", "/media/"} {
		loc := openS3(t, s3Config(srv, map[string]string{"bucket": bucket, "prefix": prefix}))
		if got := paths(listAll(t, loc, bucket, "", 10)); !slices.Equal(got, []string{"a.txt", "sub/b.txt"}) {
			t.Fatalf("prefix %q: listed %q", prefix, got)
		}
		e, err := loc.Stat(ctx, bucket, "a.txt")
		if err != nil || e.Path != "a.txt" || e.Size != 5 || e.ETag != strings.Trim(put.ETag, `"`) {
			t.Fatalf("Stat: %+v %v (put etag %s)", e, err, put.ETag)
		}
		if got := readAll(t, mustOpen(t, loc, bucket, "sub/b.txt")); got != "beta" {
			t.Fatalf("Open: %q", got)
		}
		if _, ok := loc.LocalPath(bucket, "a.txt"); ok {
			t.Fatal("s3 has a local path")
		}
		for _, p := range []string{"missing.txt", "sub", "sub/x"} {
			_, err = loc.Stat(ctx, bucket, p)
			wantErr(t, err, storage.ErrNotFound)
			_, err = loc.Open(ctx, bucket, p)
			wantErr(t, err, storage.ErrNotFound)
		}
		for _, p := range []string{"../other/d.txt", "./a.txt", "sub//b.txt", "/a.txt", ""} {
			_, err = loc.Stat(ctx, bucket, p)
			wantErr(t, err, storage.ErrBadPath)
			_, err = loc.Open(ctx, bucket, p)
			wantErr(t, err, storage.ErrBadPath)
		}
	}
}

func TestS3CheckErrors(t *testing.T) {
	t.Parallel()
	srv := testbucket.Shared(t)
	ctx := testCtx(t)
	const wrongSecret = "wrong-secret-value-that-must-not-leak"

	check := func(cfg map[string]string) error {
		loc, err := storage.Open(storage.KindS3, cfg, storage.Env{})
		if err != nil {
			return err
		}
		return loc.Check(ctx)
	}
	noLeak := func(err error) {
		t.Helper()
		for _, secret := range []string{wrongSecret, srv.SecretKey} {
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("error leaks a secret: %v", err)
			}
		}
	}

	err := check(s3Config(srv, map[string]string{"secret_access_key": wrongSecret}))
	wantConfigError(t, err, "secret_access_key")
	noLeak(err)
	err = check(s3Config(srv, map[string]string{"access_key_id": "NOSUCHKEY", "secret_access_key": wrongSecret}))
	wantConfigError(t, err, "access_key_id")
	noLeak(err)
	err = check(s3Config(srv, map[string]string{"bucket": "bucket-that-does-not-exist-" + strings.ToLower(testbucket.BucketName(t)[:8])}))
	wantConfigError(t, err, "bucket")
	err = check(s3Config(srv, map[string]string{"bucket": "bad_bucket_Name"}))
	wantConfigError(t, err, "bucket")

	// Nothing listens on a port we just released: an endpoint problem.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	err = check(s3Config(srv, map[string]string{"endpoint": closed}))
	wantConfigError(t, err, "endpoint")
	noLeak(err)

	// One attempt, not retries: an endpoint that hangs up on every
	// connection is connected to once (counted, not timed: a clock says
	// little on a machine busy with other tests).
	hangUp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	go func() {
		for {
			c, err := hangUp.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	err = check(s3Config(srv, map[string]string{"endpoint": "http://" + hangUp.Addr().String()}))
	hangUp.Close()
	wantConfigError(t, err, "endpoint")
	noLeak(err)
	if n := accepted.Load(); n != 1 {
		t.Fatalf("Check connected %d times to an endpoint that hangs up, want once", n)
	}
}

// TestS3RefusesMetadataAddresses: link-local and metadata endpoints are
// refused by Open, from the address alone, before any client exists.
func TestS3RefusesMetadataAddresses(t *testing.T) {
	t.Parallel()
	for _, ep := range []string{
		"http://169.254.169.254", "169.254.169.254:80", "https://169.254.170.2/",
		"http://[fe80::1]:9000", "http://[fd00:ec2::254]", "100.100.100.200:80",
		"http://[::ffff:169.254.169.254]:80", "http://[fe80::1%25eth0]:80", "fd00:ec2::254",
	} {
		_, err := storage.Open(storage.KindS3, map[string]string{"endpoint": ep}, storage.Env{})
		wantConfigError(t, err, "endpoint")
	}
	// Loopback and private ranges are where self-hosted S3 servers live.
	for _, ep := range []string{"http://127.0.0.1:9000", "10.1.2.3:9000", "https://192.168.1.10", "http://[::1]:9000", "minio.internal:9000"} {
		if _, err := storage.Open(storage.KindS3, map[string]string{"endpoint": ep}, storage.Env{}); err != nil {
			t.Fatalf("%s: %v", ep, err)
		}
	}
}

func TestS3ConfigValidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cfg   map[string]string
		field string
	}{
		{map[string]string{}, "endpoint"},
		{map[string]string{"endpoint": "ftp://host"}, "endpoint"},
		{map[string]string{"endpoint": "http://host/path"}, "endpoint"},
		{map[string]string{"endpoint": "http://user:pw@host"}, "endpoint"},
		{map[string]string{"endpoint": "host:99999"}, "endpoint"},
		{map[string]string{"endpoint": "host", "path_style": "maybe"}, "path_style"},
		{map[string]string{"endpoint": "host", "access_key_id": "ak"}, "secret_access_key"},
		{map[string]string{"endpoint": "host", "secret_access_key": "sk"}, "access_key_id"},
		{map[string]string{"endpoint": "host", "prefix": "a/../b"}, "prefix"},
		{map[string]string{"endpoint": "host", "secret_key": "typo"}, "secret_key"},
	} {
		_, err := storage.Open(storage.KindS3, tc.cfg, storage.Env{})
		ce := wantConfigError(t, err, tc.field)
		if strings.Contains(ce.Error(), "pw") {
			t.Fatalf("message repeats URL credentials: %v", ce)
		}
	}
	if _, err := storage.Open("ftp", nil, storage.Env{}); err == nil {
		t.Fatal("unknown kind accepted")
	} else {
		wantConfigError(t, err, "kind")
	}
	var ce *storage.ConfigError
	if _, err := storage.Open("nope", nil, storage.Env{}); !errors.As(err, &ce) {
		t.Fatalf("unknown kind: %v", err)
	}
}

func TestKinds(t *testing.T) {
	t.Parallel()
	kinds := storage.Kinds()
	var names []string
	for _, k := range kinds {
		names = append(names, k.Name)
	}
	if !slices.Equal(names, []string{"filesystem", "s3", "uploadstore"}) {
		t.Fatalf("kinds %v", names)
	}
	if got := storage.SecretKeys("s3"); !slices.Equal(got, []string{"secret_access_key"}) {
		t.Fatalf("s3 secrets %v", got)
	}
	if got := storage.SecretKeys("filesystem"); len(got) != 0 {
		t.Fatalf("filesystem secrets %v", got)
	}
	// Kinds returns a copy: callers cannot change the table.
	kinds[1].Fields[0].Required = false
	if !storage.Kinds()[1].Fields[0].Required {
		t.Fatal("Kinds shares its table")
	}
}

func TestIgnoredName(t *testing.T) {
	t.Parallel()
	patterns := []string{".DS_Store", "*.tmp", "Thumbs.db", "[", "~$*"}
	for name, want := range map[string]bool{
		"a/b/.DS_Store": true, "x.tmp": true, "dir/x.tmp": true, "x.tmp.jpg": false,
		"Thumbs.db": true, "photo.jpg": false, "~$report.docx": true, "[": false,
	} {
		if got := storage.IgnoredName(name, patterns); got != want {
			t.Fatalf("IgnoredName(%q) = %v", name, got)
		}
	}
}
