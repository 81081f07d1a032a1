package meili

import (
	"context"
	"net"
	"net/http"
	"time"
)

// Meilisearch's HTTP server writes an answer's headers and its body
// separately, and holds the body's last segment until the client has
// acknowledged the headers (Nagle's algorithm), which Linux delays by up
// to 40 ms when nothing else is to be sent. So every answer of more than a
// few KiB (a page of search results) took about 45 ms, against 3 to 10
// ms to compute. The engine's connections acknowledge at once (quickAck
// before each read), and an answer arrives as soon as it is written.

// HTTPClient is the client the engine talks to Meilisearch with; the
// bench's bare baselines use it too, so that both sides wait alike.
func HTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if tc, ok := c.(*net.TCPConn); ok {
			return &quickAckConn{TCPConn: tc}, nil
		}
		return c, nil
	}
	t.MaxIdleConnsPerHost = 100
	return &http.Client{Transport: t}
}

// quickAckConn acknowledges what it receives at once: the kernel drops the
// quick-ack mode by itself, so it is asked again before every read.
type quickAckConn struct{ *net.TCPConn }

func (c *quickAckConn) Read(b []byte) (int, error) {
	quickAck(c.TCPConn)
	return c.TCPConn.Read(b)
}
