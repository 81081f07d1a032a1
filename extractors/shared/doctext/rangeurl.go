package doctext

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// A remote object the worker serves by ranges on loopback
// (extractors.IsRangeURL) is read here by HTTP range requests: the Go
// parsers read the few ranges they look at, not the whole object.

// rangeClient talks to the worker's loopback server only: no proxy from
// the environment, a bound on each request (the server fetches a window
// of the object per request).
var rangeClient = &http.Client{
	Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second},
	Timeout:   5 * time.Minute,
}

func openURL(in *extractors.Input) (io.ReadCloser, error) {
	resp, err := rangeClient.Get(in.Path)
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("open %s: %w", in.Name, err))
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, extractors.Transient(fmt.Errorf("open %s: %s", in.Name, resp.Status))
	}
	return resp.Body, nil
}

func openURLAt(in *extractors.Input) (*At, error) {
	resp, err := rangeClient.Head(in.Path)
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("open %s: %w", in.Name, err))
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ContentLength < 0 {
		return nil, extractors.Transient(fmt.Errorf("open %s: %s", in.Name, resp.Status))
	}
	return &At{ReaderAt: urlAt(in.Path), Size: resp.ContentLength}, nil
}

// urlAt reads ranges of a loopback URL.
type urlAt string

func (u urlAt) ReadAt(p []byte, off int64) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, string(u), nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Range", "bytes="+strconv.FormatInt(off, 10)+"-"+strconv.FormatInt(off+int64(len(p))-1, 10))
	resp, err := rangeClient.Do(req)
	if err != nil {
		return 0, extractors.Transient(err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusPartialContent:
	case http.StatusRequestedRangeNotSatisfiable:
		return 0, io.EOF
	default:
		return 0, extractors.Transient(fmt.Errorf("read range: %s", resp.Status))
	}
	n, err := io.ReadFull(resp.Body, p)
	if err == io.ErrUnexpectedEOF || (err == nil && n < len(p)) {
		return n, io.EOF
	}
	return n, err
}
