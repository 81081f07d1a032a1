package testbucket

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy stands between S3 clients and a server on loopback, as a network
// would: it delays each request, can answer some with 503 SlowDown, and
// counts the requests and the bytes of object data it passed on. Clients
// sign requests for the proxy's address; it forwards them with that Host,
// so the signatures hold.
type Proxy struct {
	// Endpoint is the URL to put in an s3 location's config.
	Endpoint string

	srv      *httptest.Server
	delay    atomic.Int64 // nanoseconds added before each request
	inFlight atomic.Int64 // GETs being answered
	maxGets  atomic.Int64 // the most inFlight was
	hold     atomic.Pointer[gate]
	slowDown atomic.Pointer[func(*http.Request) bool]
	answer   atomic.Pointer[func(http.ResponseWriter, *http.Request) bool]

	mu       sync.Mutex
	requests map[string]int   // by method
	sent     map[string]int64 // response body bytes of GETs, by URL path
	refused  int
}

// NewProxy starts a proxy to target (a Server's Endpoint). Close stops it.
func NewProxy(target string) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("tests3: proxy target %q: not a URL", target)
	}
	p := &Proxy{requests: map[string]int{}, sent: map[string]int64{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        512,
		MaxIdleConnsPerHost: 512,
		IdleConnTimeout:     90 * time.Second,
	}
	rp.ErrorLog = nil
	rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		// The server is down (a fault test killed it): what a load
		// balancer in front of S3 answers.
		w.WriteHeader(http.StatusBadGateway)
	}
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method == http.MethodGet && (resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusPartialContent) {
			resp.Body = &countingBody{ReadCloser: resp.Body, p: p, path: resp.Request.URL.Path}
		}
		return nil
	}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			n := p.inFlight.Add(1)
			defer p.inFlight.Add(-1)
			for m := p.maxGets.Load(); n > m && !p.maxGets.CompareAndSwap(m, n); m = p.maxGets.Load() {
			}
			if g := p.hold.Load(); g != nil && strings.Contains(strings.Trim(r.URL.Path, "/"), "/") {
				if !g.wait(r.Context(), n) {
					return
				}
			}
		}
		if d := time.Duration(p.delay.Load()); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		p.mu.Lock()
		p.requests[r.Method]++
		p.mu.Unlock()
		if f := p.slowDown.Load(); f != nil && (*f)(r) {
			p.mu.Lock()
			p.refused++
			p.mu.Unlock()
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
			return
		}
		if f := p.answer.Load(); f != nil && (*f)(w, r) {
			return
		}
		rp.ServeHTTP(w, r)
	}))
	p.Endpoint = p.srv.URL
	return p, nil
}

// gate holds GETs of objects until n of them are in flight at once.
type gate struct {
	n    int64
	max  time.Duration
	open chan struct{}
	once sync.Once
}

// wait holds a GET that made inFlight GETs in flight until the gate
// opens (or max passed); false when the request ended meanwhile.
func (g *gate) wait(ctx context.Context, inFlight int64) bool {
	if inFlight >= g.n {
		g.once.Do(func() { close(g.open) })
	}
	t := time.NewTimer(g.max)
	defer t.Stop()
	select {
	case <-g.open:
	case <-t.C:
	case <-ctx.Done():
		return false
	}
	return true
}

// HoldObjectGets makes the GETs of objects (not listings) wait until n
// of them are in flight at once, then lets every one through; each waits
// max at most. A test of a client's concurrency then sees it whatever the
// machine's load (MaxGets reaches n), where a delay on each request only
// makes overlaps likely; a client that never has n GETs in flight waits
// max on each.
func (p *Proxy) HoldObjectGets(n int, max time.Duration) {
	p.hold.Store(&gate{n: int64(n), max: max, open: make(chan struct{})})
}

// Close stops the proxy.
func (p *Proxy) Close() { p.srv.Close() }

// SetDelay makes every request wait d before it is passed on (0: none).
func (p *Proxy) SetDelay(d time.Duration) { p.delay.Store(int64(d)) }

// SlowDown answers the requests for which refuse is true with 503
// SlowDown instead of passing them on; nil passes every request on.
// refuse is called from many goroutines.
func (p *Proxy) SlowDown(refuse func(*http.Request) bool) {
	if refuse == nil {
		p.slowDown.Store(nil)
		return
	}
	p.slowDown.Store(&refuse)
}

// Answer lets answer reply to requests itself: a request for which it
// returns true is not passed on (nil passes every request on). It is
// called from many goroutines.
func (p *Proxy) Answer(answer func(http.ResponseWriter, *http.Request) bool) {
	if answer == nil {
		p.answer.Store(nil)
		return
	}
	p.answer.Store(&answer)
}

// Requests is the number of requests passed on or refused, by method.
func (p *Proxy) Requests(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests[method]
}

// Refused is the number of requests answered with SlowDown.
func (p *Proxy) Refused() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused
}

// Sent is the number of body bytes of successful GET responses (object
// data, not error bodies) passed on for
// bucket/key (the key as in the URL path, path-style addressing).
func (p *Proxy) Sent(bucket, key string) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sent["/"+bucket+"/"+strings.TrimPrefix(key, "/")]
}

// MaxGets is the most GET requests that were being answered at once.
func (p *Proxy) MaxGets() int { return int(p.maxGets.Load()) }

// Reset forgets the counts.
func (p *Proxy) Reset() {
	p.maxGets.Store(0)
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.requests)
	clear(p.sent)
	p.refused = 0
}

type countingBody struct {
	io.ReadCloser
	p    *Proxy
	path string
}

func (b *countingBody) Read(buf []byte) (int, error) {
	n, err := b.ReadCloser.Read(buf)
	if n > 0 {
		b.p.mu.Lock()
		b.p.sent[b.path] += int64(n)
		b.p.mu.Unlock()
	}
	return n, err
}
