package storage_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/storage"
)

// What an item's input is follows from the location and the extractors'
// need: a large remote object streams (nothing on disk) for NeedContent,
// is served by ranges at a loopback URL for NeedRanges, and is copied to a
// temporary file for NeedPath, removed when the input is closed; a small
// one is in memory whatever the need.
func TestInputOfRemoteFileFollowsNeed(t *testing.T) {
	t.Parallel()
	srv := testbucket.Shared(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	large := make([]byte, storage.ContentLimit+1000)
	rand.Read(large)
	srv.PutObject(t, bucket, "large.bin", large)
	srv.PutObject(t, bucket, "small.bin", []byte("small"))
	loc := openS3(t, s3Config(srv, map[string]string{"bucket": bucket, "path_style": "true"}))
	tmp := t.TempDir()
	inputs := storage.NewInputs(tmp)
	t.Cleanup(func() { inputs.Close() })
	b, err := inputs.Open(loc, bucket)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !b.Remote() {
		t.Fatal("an s3 batch is not remote")
	}
	ctx := context.Background()

	in, err := b.Item(ctx, storage.Request{Path: "large.bin", Need: storage.NeedContent})
	if err != nil {
		t.Fatal(err)
	}
	if in.Path != "" || in.Content != nil || in.Stream == nil || in.Entry.Size != int64(len(large)) {
		t.Fatalf("NeedContent: path %q, content %d bytes, stream %v, entry %+v", in.Path, len(in.Content), in.Stream != nil, in.Entry)
	}
	rc, err := in.Stream(ctx, -1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || !bytes.Equal(got, large) {
		t.Fatalf("stream: %d bytes, %v", len(got), err)
	}
	if n, _, ok := in.Downloaded(); !ok || n != int64(len(large)) {
		t.Fatalf("downloaded %d bytes (%v), want %d", n, ok, len(large))
	}
	in.Close()

	in, err = b.Item(ctx, storage.Request{Path: "large.bin", Need: storage.NeedRanges})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, in.Path, nil)
	req.Header.Set("Range", "bytes=262000-262009")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, large[262000:262010]) {
		t.Fatalf("range of %s: %d %q", in.Path, resp.StatusCode, body)
	}
	url := in.Path
	in.Close()
	if resp, err := http.Get(url); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the URL of a closed input answers: %v %v", resp, err)
	}

	in, err = b.Item(ctx, storage.Request{Path: "large.bin", Need: storage.NeedPath})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(in.Path) != tmp {
		t.Fatalf("NeedPath: path %q, want a file in %s", in.Path, tmp)
	}
	if onDisk, err := os.ReadFile(in.Path); err != nil || !bytes.Equal(onDisk, large) {
		t.Fatalf("temporary copy: %d bytes, %v", len(onDisk), err)
	}
	p := in.Path
	in.Close()
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temporary copy left after Close: %v", err)
	}

	for _, need := range []storage.Need{storage.NeedContent, storage.NeedRanges} {
		in, err = b.Item(ctx, storage.Request{Path: "small.bin", Need: need})
		if err != nil {
			t.Fatal(err)
		}
		if string(in.Content) != "small" || in.Stream != nil {
			t.Fatalf("need %d: small file content %q, stream %v", need, in.Content, in.Stream != nil)
		}
		in.Close()
	}
	if _, err := b.Item(ctx, storage.Request{Path: "missing.bin"}); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("missing object: %v, want ErrNotFound", err)
	}
}

// The range server belongs to its Inputs: once closed, its URLs stop
// answering and an input that needs ranges fails (a worker stopping),
// while one that does not still works.
func TestInputsCloseStopsRangeServer(t *testing.T) {
	t.Parallel()
	srv := testbucket.Shared(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	large := make([]byte, storage.ContentLimit+1)
	srv.PutObject(t, bucket, "large.bin", large)
	loc := openS3(t, s3Config(srv, map[string]string{"bucket": bucket, "path_style": "true"}))
	inputs := storage.NewInputs(t.TempDir())
	b, err := inputs.Open(loc, bucket)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	in, err := b.Item(ctx, storage.Request{Path: "large.bin", Need: storage.NeedRanges})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := inputs.Close(); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(in.Path); err == nil {
		resp.Body.Close()
		t.Fatalf("range server answers after Close: %d", resp.StatusCode)
	}
	if _, err := b.Item(ctx, storage.Request{Path: "large.bin", Need: storage.NeedRanges}); err == nil {
		t.Fatal("an input needing ranges was served after Close")
	}
	in2, err := b.Item(ctx, storage.Request{Path: "large.bin", Need: storage.NeedContent})
	if err != nil {
		t.Fatalf("NeedContent after Close: %v", err)
	}
	in2.Close()
}

// A local file is opened once: read into memory when small, its own path
// either way, its neighbours listed; a container that is gone makes every
// item of the batch ErrNotFound; SkipUnchanged reads nothing of a file
// that still has its ETag.
func TestInputOfLocalFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "media")
	os.MkdirAll(dir, 0o755)
	for name, data := range map[string]string{"clip.mp4": "video", "clip.en.srt": "subs", "clip.fr.srt": "sous-titres", "other.txt": "x"} {
		os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
	}
	loc, err := storage.Open(storage.KindFilesystem, map[string]string{"path": root}, storage.Env{})
	if err != nil {
		t.Fatal(err)
	}
	inputs := storage.NewInputs(t.TempDir())
	t.Cleanup(func() { inputs.Close() })
	b, err := inputs.Open(loc, "media")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	in, err := b.Item(ctx, storage.Request{Path: "clip.mp4", Need: storage.NeedPath})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if string(in.Content) != "video" || in.Path != filepath.Join(dir, "clip.mp4") || b.Remote() {
		t.Fatalf("content %q, path %q", in.Content, in.Path)
	}
	if _, _, ok := in.Downloaded(); ok {
		t.Fatal("a local file says it was downloaded")
	}
	near, err := in.Neighbours(ctx, "clip.", 10)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range near {
		names = append(names, n.Path)
	}
	if len(names) != 3 || names[0] != "clip.en.srt" || names[1] != "clip.fr.srt" || names[2] != "clip.mp4" {
		t.Fatalf("neighbours %v", names)
	}
	rc, err := near[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	subs, _ := io.ReadAll(rc)
	rc.Close()
	if string(subs) != "subs" {
		t.Fatalf("neighbour read %q", subs)
	}
	same, err := b.Item(ctx, storage.Request{Path: "clip.mp4", SkipUnchanged: true, KnownETag: in.Entry.ETag})
	if err != nil {
		t.Fatal(err)
	}
	if !same.Unchanged || same.Content != nil {
		t.Fatalf("unchanged file: %+v", same)
	}
	same.Close()

	gone, err := inputs.Open(loc, "nope")
	if err != nil {
		t.Fatal(err)
	}
	defer gone.Close()
	if _, err := gone.Item(ctx, storage.Request{Path: "clip.mp4"}); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("item of a missing container: %v", err)
	}
}
