package testbucket

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
)

func TestMain(m *testing.M) { os.Exit(RunMain(m)) }

func TestSharedServerRoundTrip(t *testing.T) {
	t.Parallel()
	srv := Shared(t)
	bucket := BucketName(t)
	srv.CreateBucket(t, bucket)
	srv.PutObject(t, bucket, "dir/hello.txt", []byte("hello"))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	obj, err := srv.Client(t).GetObject(ctx, bucket, "dir/hello.txt", minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	got, err := io.ReadAll(obj)
	if err != nil || string(got) != "hello" {
		t.Fatalf("read back %q, %v", got, err)
	}
	// The posix backend stores objects as plain files under Dir.
	if b, err := os.ReadFile(filepath.Join(srv.Dir, bucket, "dir", "hello.txt")); err != nil || string(b) != "hello" {
		t.Fatalf("backend file: %q, %v", b, err)
	}
}

func TestSharedIsShared(t *testing.T) {
	t.Parallel()
	if a, b := Shared(t), Shared(t); a != b {
		t.Fatalf("two shared servers: %v and %v", a.Endpoint, b.Endpoint)
	}
}

func TestStartIsStoppedByCleanup(t *testing.T) {
	t.Parallel()
	var endpoint string
	t.Run("owner", func(t *testing.T) {
		srv := Start(t)
		endpoint = srv.Endpoint
		if srv == Shared(t) {
			t.Fatal("Start returned the shared server")
		}
	})
	// The subtest's cleanup killed the server: nothing answers any more.
	c := &http.Client{Timeout: 2 * time.Second}
	if resp, err := c.Get(endpoint + "/"); err == nil {
		resp.Body.Close()
		t.Fatalf("server at %s still answers after its test ended", endpoint)
	}
}

func TestBucketNameIsValidAndUnique(t *testing.T) {
	a, b := BucketName(t), BucketName(t)
	if a == b {
		t.Fatalf("same name twice: %s", a)
	}
	if len(a) < 3 || len(a) > 63 {
		t.Fatalf("bad length: %s", a)
	}
	for _, r := range a {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			t.Fatalf("bad character %q in %s", r, a)
		}
	}
}
