package storage_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/storage"
)

func TestBucketPutOpenRemove(t *testing.T) {
	t.Parallel()
	srv := testbucket.Shared(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	b, err := storage.OpenBucket(s3Config(srv, map[string]string{"bucket": bucket, "path_style": "true"}), "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	const key = "logos/a b/logo #1.png"
	if err := b.Put(ctx, key, strings.NewReader("png bytes"), 9, "image/png"); err != nil {
		t.Fatal(err)
	}
	r, err := b.Open(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	r.Close()
	if string(got) != "png bytes" {
		t.Fatalf("read back %q", got)
	}
	if u := b.URL(key); u != srv.Endpoint+"/"+bucket+"/logos/a%20b/logo%20%231.png" {
		t.Fatalf("URL %s", u)
	}
	if err := b.Remove(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Open(ctx, key); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("open after remove: %v", err)
	}
	if err := b.Put(ctx, "../escape", strings.NewReader("x"), 1, ""); err == nil {
		t.Fatal("a key with .. was stored")
	}

	pub, err := storage.OpenBucket(s3Config(srv, map[string]string{"bucket": bucket}), "https://cdn.example/logos/")
	if err != nil || pub.URL("k.png") != "https://cdn.example/logos/k.png" {
		t.Fatalf("public URL: %v %v", pub, err)
	}
	if _, err := storage.OpenBucket(s3Config(srv, nil), ""); err == nil {
		t.Fatal("a bucket without a name opened")
	}
}
