package extractortest

import (
	"net"
	"net/http"
	"sync/atomic"
	"testing"
)

// NoRequestURL starts a local HTTP listener that must see no request and
// returns its base URL ("http://127.0.0.1:port"). Hostile files (a
// playlist disguised as a video, a list of image URLs) point at it; when
// the test ends, it fails if anything fetched from it, and the listener is
// closed.
func NoRequestURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	var hits atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })}
	go srv.Serve(ln)
	t.Cleanup(func() {
		srv.Close()
		if n := hits.Load(); n != 0 {
			t.Errorf("the listener that must see no request was sent %d", n)
		}
	})
	return "http://" + ln.Addr().String()
}
