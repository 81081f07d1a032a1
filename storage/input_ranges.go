package storage

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Extractors whose Info says RangeReads (ffprobe's readings, the Go
// parsers of containers and archives) look at a few ranges of a file: a
// remote object is served to them by ranges on loopback (a URL as
// Input.Path, see extractors.IsRangeURL) instead of being downloaded
// whole. Each Inputs owns one server, started when first needed and
// stopped by Inputs.Close; each object has its own unguessable path for as
// long as its input is open.

// rangeServer serves the registered objects' bytes with Range support.
type rangeServer struct {
	mu      sync.Mutex
	srv     *http.Server // nil until first needed
	base    string       // http://127.0.0.1:port/
	closed  bool
	objects map[string]*rangedFile
}

// errRangesClosed: the Inputs was closed (its worker is stopping).
var errRangesClosed = errors.New("range server: closed")

// serve makes r available at a loopback URL until release is called.
func (s *rangeServer) serve(r *rangedFile) (url string, release func(), err error) {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	token := hex.EncodeToString(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", nil, errRangesClosed
	}
	if s.srv == nil {
		if err := s.start(); err != nil {
			return "", nil, err
		}
	}
	s.objects[token] = r
	return s.base + token, func() {
		s.mu.Lock()
		delete(s.objects, token)
		s.mu.Unlock()
	}, nil
}

// start listens on loopback; s.mu is held.
func (s *rangeServer) start() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("range server: %w", err)
	}
	s.objects = map[string]*rangedFile{}
	s.base = "http://" + l.Addr().String() + "/"
	s.srv = &http.Server{Handler: http.HandlerFunc(s.handle), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(smallBuffers{l}) // until close
	return nil
}

// close stops the server and its connections; objects served later are
// refused.
func (s *rangeServer) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.srv == nil {
		return nil
	}
	return s.srv.Close()
}

// smallBuffers gives accepted connections a small send buffer: a tool
// that asked for the rest of the file from an offset reads a little and
// seeks elsewhere, and what the kernel buffered for it beyond that was
// fetched from the object for nothing.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(64 << 10)
	}
	return c, err
}

func (s *rangeServer) handle(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	f := s.objects[strings.TrimPrefix(r.URL.Path, "/")]
	s.mu.Unlock()
	if f == nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		http.NotFound(w, r)
		return
	}
	// A type of our own: ServeContent would otherwise read the first
	// bytes to sniff one.
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(w, r, "", f.modified, io.NewSectionReader(f, 0, f.size))
}

// Windows of a remote object fetched by one ranged GET for the range
// server: small at first (a probe reads a header, then seeks), doubling
// while reads go on from where the last window ended, up to the largest; a
// few windows are kept.
const (
	probeFirstWindow = 256 << 10
	probeMaxWindow   = 1 << 20
	probeKeptWindows = 4
)

// rangedFile is a file's bytes for ReadAt: in memory (a small object) or
// fetched by windows of ranged GETs pinned to the object's ETag.
type rangedFile struct {
	ctx      context.Context // the harvest's: fetches end with it
	size     int64
	modified time.Time
	content  *bytes.Reader // small objects
	o        *remoteObject // large ones

	mu      sync.Mutex
	windows []window // most recent last
	next    int64    // where a sequential read would continue
	grow    int64
}

type window struct {
	off  int64
	data []byte
}

func (f *rangedFile) ReadAt(p []byte, off int64) (int, error) {
	if f.content != nil {
		return f.content.ReadAt(p, off)
	}
	if off >= f.size {
		return 0, io.EOF
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for n < len(p) && off < f.size {
		w, err := f.window(off)
		if err != nil {
			return n, err
		}
		c := copy(p[n:], w.data[off-w.off:])
		n += c
		off += int64(c)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// window returns a kept window holding off, or fetches one starting there.
func (f *rangedFile) window(off int64) (window, error) {
	for i, w := range f.windows {
		if off >= w.off && off < w.off+int64(len(w.data)) {
			// Most recently used last.
			f.windows = append(append(f.windows[:i:i], f.windows[i+1:]...), w)
			return w, nil
		}
	}
	if off == f.next && f.grow > 0 {
		f.grow = min(2*f.grow, probeMaxWindow)
	} else {
		f.grow = probeFirstWindow
	}
	n := min(f.grow, f.size-off)
	rc, e, err := f.o.rr.ReadRange(f.ctx, f.o.container, f.o.path, off, n, f.o.entry.ETag)
	if err != nil {
		return window{}, err
	}
	defer rc.Close()
	if e.Size != f.size {
		return window{}, fmt.Errorf("read %s: %w", f.o.path, ErrChanged)
	}
	data := make([]byte, n)
	got, err := io.ReadFull(rc, data)
	f.o.mu.Lock()
	f.o.read += int64(got)
	f.o.mu.Unlock()
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("read %s: %w", f.o.path, ErrChanged) // shorter than it said
		}
		return window{}, err
	}
	w := window{off: off, data: data}
	if len(f.windows) == probeKeptWindows {
		f.windows = f.windows[1:]
	}
	f.windows = append(f.windows, w)
	f.next = off + n
	return w, nil
}
