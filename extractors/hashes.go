package extractors

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

func init() {
	MustRegister(Info{
		Name:           "hashes",
		DisplayName:    "Hashes",
		Family:         FamilyHashes,
		Version:        "1.0.0",
		Implemented:    true,
		Inline:         true,
		DefaultEnabled: true,
		Fields: []Field{
			{Path: "md5", Type: TypeString, Doc: "MD5 of the content, lower-case hex"},
			{Path: "sha1", Type: TypeString, Doc: "SHA-1 of the content, lower-case hex"},
			{Path: "sha256", Type: TypeString, Doc: "SHA-256 of the content, lower-case hex"},
		},
		New: func(Env) (Extractor, error) { return hashes{}, nil },
	})
}

var _ Extractor = hashes{}

// hashes computes MD5, SHA-1 and SHA-256 of the content in one read.
type hashes struct{}

func (hashes) Extract(ctx context.Context, in *Input) (*Result, error) {
	sums := HashBytes(in.Content)
	if in.Content == nil {
		var err error
		if in.streams() {
			sums, err = hashStream(ctx, in)
		} else {
			sums, err = HashFile(ctx, in.Path)
		}
		if err != nil {
			return nil, err
		}
	}
	return &Result{Data: map[string]any{
		"md5":    sums.MD5,
		"sha1":   sums.SHA1,
		"sha256": sums.SHA256,
	}}, nil
}

// Sums are lower-case hex digests of one content.
type Sums struct {
	MD5, SHA1, SHA256 string
}

const (
	// hashChunk is the read size: large enough that the per-chunk hand-off to
	// the three hashers costs nothing next to hashing it.
	hashChunk = 1 << 20
	// hashLag is how many chunks a hasher may be behind the reader. Memory is
	// bounded by about (hashLag+2) chunks per file being hashed.
	hashLag = 4
)

// chunk is one read, shared by the three hashers and recycled by the last one.
type chunk struct {
	buf  []byte
	n    int
	refs atomic.Int32
}

var chunkPool = sync.Pool{New: func() any { return &chunk{buf: make([]byte, hashChunk)} }}

// HashFile returns the digests of the file at path, reading it once. I/O errors
// are Transient: they say nothing about the content.
func HashFile(ctx context.Context, path string) (Sums, error) {
	f, err := os.Open(path)
	if err != nil {
		return Sums{}, Transient(fmt.Errorf("open %s: %w", path, err))
	}
	defer f.Close()
	// A hint only: a larger read-ahead window for a file read once, front to back.
	_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_SEQUENTIAL)
	return HashReader(ctx, f)
}

// hashStream hashes a remote object as it comes in (Input.Stream).
func hashStream(ctx context.Context, in *Input) (Sums, error) {
	r, err := in.Stream(ctx, -1)
	if err != nil {
		return Sums{}, Transient(fmt.Errorf("open %s: %w", in.Name, err))
	}
	defer r.Close()
	return HashReader(ctx, r)
}

// HashReader returns the digests of everything r yields. The reader goroutine
// fills 1 MiB chunks and hands each to three goroutines, one per hash, so that
// the three run in parallel rather than one after the other as with
// io.MultiWriter; see BenchmarkHashes for the difference. ctx is checked between
// chunks. Read errors are Transient.
func HashReader(ctx context.Context, r io.Reader) (Sums, error) {
	hs := [3]hash.Hash{md5.New(), sha1.New(), sha256.New()}

	c := chunkPool.Get().(*chunk)
	n, err := io.ReadFull(r, c.buf)
	if err := readErr(err); err != nil {
		chunkPool.Put(c)
		return Sums{}, err
	}
	if n < len(c.buf) {
		// The whole content fits in one chunk: goroutines would cost more than
		// they save.
		sums := HashBytes(c.buf[:n])
		chunkPool.Put(c)
		return sums, nil
	}
	c.n = n

	var (
		wg    sync.WaitGroup
		stop  atomic.Bool // set on failure: hashers drop what is queued
		queue [3]chan *chunk
	)
	for i, h := range hs {
		queue[i] = make(chan *chunk, hashLag)
		wg.Go(func() {
			for c := range queue[i] {
				if !stop.Load() {
					h.Write(c.buf[:c.n]) // hash.Hash.Write never fails
				}
				if c.refs.Add(-1) == 0 {
					chunkPool.Put(c)
				}
			}
		})
	}
	send := func(c *chunk) {
		c.refs.Store(int32(len(queue)))
		for _, q := range queue {
			q <- c
		}
	}
	finish := func(err error) (Sums, error) {
		if err != nil {
			stop.Store(true)
		}
		for _, q := range queue {
			close(q)
		}
		wg.Wait()
		if err != nil {
			return Sums{}, err
		}
		return sumsOf(hs), nil
	}

	for {
		send(c)
		if err := ctx.Err(); err != nil {
			return finish(err)
		}
		c = chunkPool.Get().(*chunk)
		n, err := io.ReadFull(r, c.buf)
		c.n = n
		if err := readErr(err); err != nil {
			chunkPool.Put(c)
			return finish(err)
		}
		if n < len(c.buf) { // end of content
			if n > 0 {
				send(c)
			} else {
				chunkPool.Put(c)
			}
			return finish(nil)
		}
	}
}

// HashBytes returns the digests of b, which is small enough to hash in one
// go.
func HashBytes(b []byte) Sums {
	m, s1, s256 := md5.Sum(b), sha1.Sum(b), sha256.Sum256(b)
	return Sums{MD5: hex.EncodeToString(m[:]), SHA1: hex.EncodeToString(s1[:]), SHA256: hex.EncodeToString(s256[:])}
}

// readErr turns io.ReadFull's end-of-content errors into nil.
func readErr(err error) error {
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	return Transient(fmt.Errorf("read: %w", err))
}

func sumsOf(hs [3]hash.Hash) Sums {
	return Sums{
		MD5:    hex.EncodeToString(hs[0].Sum(nil)),
		SHA1:   hex.EncodeToString(hs[1].Sum(nil)),
		SHA256: hex.EncodeToString(hs[2].Sum(nil)),
	}
}
