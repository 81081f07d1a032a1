package storage_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/storage"
)

// sample is n bytes that differ at every offset modulo a prime, so a read
// from the wrong offset does not match by chance.
func sample(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

// readAt seeks and reads n bytes, as http.ServeContent does for a range.
func readAt(t *testing.T, r io.ReadSeeker, off, n int64) []byte {
	t.Helper()
	if _, err := r.Seek(off, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(io.LimitReader(r, n))
	if err != nil {
		t.Fatalf("read %d at %d: %v", n, off, err)
	}
	return b
}

func TestOpenSeekerLocal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := sample(10000)
	writeFile(t, filepath.Join(dir, "c", "sub", "f.bin"), string(data))
	loc := openFS(t, dir)
	ctx := testCtx(t)
	r, e, err := storage.OpenSeeker(ctx, loc, "c", "sub/f.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	st, err := loc.Stat(ctx, "c", "sub/f.bin")
	if err != nil || e != st {
		t.Fatalf("entry %+v, stat %+v (%v)", e, st, err)
	}
	if got := readAt(t, r, 5000, 100); !bytes.Equal(got, data[5000:5100]) {
		t.Fatal("wrong bytes at 5000")
	}
	if end, _ := r.Seek(0, io.SeekEnd); end != 10000 {
		t.Fatalf("size %d", end)
	}
	for _, p := range []string{"sub/missing", "sub", "../c/sub/f.bin"} {
		if _, _, err := storage.OpenSeeker(ctx, loc, "c", p); err == nil {
			t.Errorf("%s opened", p)
		}
	}
	_, _, err = storage.OpenSeeker(ctx, loc, "c", "sub/missing")
	wantErr(t, err, storage.ErrNotFound)
}

// recordingProxy forwards TCP connections to target and keeps what the
// clients sent (HTTP/1.1 requests in clear text), so that a test can see
// which byte ranges were asked of the server. A request is kept before it
// is forwarded, so that it is on record by the time its answer arrives.
type recordingProxy struct {
	mu   sync.Mutex
	sent []*bytes.Buffer
}

func startRecordingProxy(t *testing.T, target string) (string, *recordingProxy) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &recordingProxy{}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			buf := &lockedBuffer{mu: &p.mu}
			p.mu.Lock()
			p.sent = append(p.sent, &buf.b)
			p.mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); io.Copy(io.MultiWriter(buf, s), c); s.Close() }()
			go func() { defer wg.Done(); io.Copy(c, s); c.Close() }()
		}
	}()
	return ln.Addr().String(), p
}

type lockedBuffer struct {
	mu *sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

var getLine = regexp.MustCompile(`(?m)^GET [^ ]+ HTTP/1.1\r\n((?:[^\r\n]+\r\n)*)\r\n`)
var rangeHeader = regexp.MustCompile(`(?im)^Range: bytes=(\d+)-(\d+)\r$`)

// gets returns the bytes asked for by each GET sent so far (-1: a GET
// without a bounded range, the whole object or its rest), and forgets them.
func (p *recordingProxy) gets() []int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []int64
	for _, b := range p.sent {
		for _, m := range getLine.FindAllSubmatch(b.Bytes(), -1) {
			r := rangeHeader.FindSubmatch(m[1])
			if r == nil {
				out = append(out, -1)
				continue
			}
			first, _ := strconv.ParseInt(string(r[1]), 10, 64)
			last, _ := strconv.ParseInt(string(r[2]), 10, 64)
			out = append(out, last-first+1)
		}
		b.Reset()
	}
	return out
}

// A range of an S3 object is read by ranged GETs: the bytes are right and
// far less than the object crosses the network; an object replaced while
// it is read fails the read instead of mixing two versions.
func TestOpenSeekerS3(t *testing.T) {
	t.Parallel()
	srv := testbucket.Shared(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	const size = 8 << 20
	data := sample(size)
	srv.PutObject(t, bucket, "dir/big.bin", data)
	addr, proxy := startRecordingProxy(t, srv.HostPort())
	loc := openS3(t, s3Config(srv, map[string]string{"endpoint": "http://" + addr, "path_style": "true"}))
	ctx := testCtx(t)

	r, e, err := storage.OpenSeeker(ctx, loc, bucket, "dir/big.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	st, err := loc.Stat(ctx, bucket, "dir/big.bin")
	if err != nil || e != st {
		t.Fatalf("entry %+v, stat %+v (%v)", e, st, err)
	}
	if end, _ := r.Seek(0, io.SeekEnd); end != size {
		t.Fatalf("size %d", end)
	}
	proxy.gets()
	if got := readAt(t, r, 6_000_000, 1000); !bytes.Equal(got, data[6_000_000:6_001_000]) {
		t.Fatal("wrong bytes at 6000000")
	}
	if got := readAt(t, r, 10, 10); !bytes.Equal(got, data[10:20]) {
		t.Fatal("wrong bytes at 10")
	}
	r.Close()
	asked := proxy.gets()
	if len(asked) != 2 || asked[0] <= 0 || asked[0] > 1<<20 || asked[1] <= 0 || asked[1] > 1<<20 {
		t.Fatalf("two small ranges asked the server for %v bytes of a %d-byte object", asked, size)
	}

	// The whole object, in growing windows.
	r2, _, err := storage.OpenSeeker(ctx, loc, bucket, "dir/big.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	all, err := io.ReadAll(r2)
	if err != nil || !bytes.Equal(all, data) {
		t.Fatalf("whole object: %d bytes, %v", len(all), err)
	}

	// Replaced between two windows.
	r3, _, err := storage.OpenSeeker(ctx, loc, bucket, "dir/big.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer r3.Close()
	readAt(t, r3, 0, 100)
	srv.PutObject(t, bucket, "dir/big.bin", sample(size+1))
	_, err = io.ReadAll(r3)
	if !errors.Is(err, storage.ErrChanged) {
		t.Fatalf("reading a replaced object: %v", err)
	}

	_, _, err = storage.OpenSeeker(ctx, loc, bucket, "dir/missing")
	wantErr(t, err, storage.ErrNotFound)
}
