package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// OpenSeeker opens one file for random access, for serving byte ranges
// (http.ServeContent seeks to each range it sends). The Entry describes the
// file that was opened, so its ETag and modification time validate exactly
// the bytes read. Errors are those of Open: ErrNotFound, ErrBadPath.
//
// Local kinds (FilesOpener) give the open file itself. Remote ones
// (RangeReader: s3) fetch nothing until the first Read, and then only a
// window of the file from the current offset (see rangeSeeker): serving a
// range of a large object must not download the object.
func OpenSeeker(ctx context.Context, loc Location, container, path string) (io.ReadSeekCloser, Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, Entry{}, err
	}
	switch l := loc.(type) {
	case FilesOpener:
		files, err := l.Files(container)
		if err != nil {
			return nil, Entry{}, err
		}
		// The open file stays valid once its container is released.
		defer files.Close()
		f, e, err := files.Open(path)
		if err != nil {
			return nil, Entry{}, err
		}
		return f, e, nil
	case RangeReader:
		e, err := loc.Stat(ctx, container, path)
		if err != nil {
			return nil, Entry{}, err
		}
		return &rangeSeeker{ctx: ctx, rr: l, container: container, path: path, size: e.Size, etag: e.ETag,
			window: firstWindow}, e, nil
	}
	return nil, Entry{}, fmt.Errorf("open %s/%s: location kind %T cannot seek", container, path, loc)
}

// Windows of a remote file fetched by one ranged read: the first is small, as a
// request for one range (a player probing an MP4's index, a resumed
// download) often reads a few kilobytes; each following window doubles up
// to the largest, so that a whole object streams in few requests.
const (
	firstWindow = 256 << 10
	maxWindow   = 16 << 20
)

// rangeSeeker reads a remote file through ranged reads, each pinned to the
// ETag seen when it was opened (ErrChanged otherwise), so that a response
// never mixes two versions. A Seek only moves the offset; the open window
// is kept when the next Read continues where it stands, dropped otherwise.
type rangeSeeker struct {
	ctx             context.Context
	rr              RangeReader
	container, path string
	size            int64
	etag            string

	pos    int64         // offset of the next Read
	body   io.ReadCloser // the open window, nil when none
	bodyAt int64         // offset of body's next byte
	bodyTo int64         // end of body's window (exclusive)
	window int64         // size of the next window
	lastTo int64         // end of the last window opened
}

func (s *rangeSeeker) Read(p []byte) (int, error) {
	if s.pos >= s.size {
		return 0, io.EOF
	}
	if s.body != nil && s.bodyAt != s.pos {
		s.dropWindow()
	}
	if s.body == nil {
		if s.pos != s.lastTo {
			s.window = firstWindow // a jump: another small range, likely
		}
		if err := s.openWindow(); err != nil {
			return 0, err
		}
	}
	if left := s.bodyTo - s.bodyAt; int64(len(p)) > left {
		p = p[:left]
	}
	n, err := s.body.Read(p)
	s.pos += int64(n)
	s.bodyAt += int64(n)
	switch {
	case s.bodyAt == s.bodyTo:
		s.dropWindow()
		return n, nil
	case errors.Is(err, io.EOF):
		// The server ended the window early: the object is shorter now.
		s.dropWindow()
		return n, fmt.Errorf("read %s/%s: %w", s.container, s.path, ErrChanged)
	case err != nil:
		s.dropWindow()
		return n, fmt.Errorf("read %s/%s: %w", s.container, s.path, err)
	}
	return n, nil
}

func (s *rangeSeeker) openWindow() error {
	n := min(s.window, s.size-s.pos)
	body, _, err := s.rr.ReadRange(s.ctx, s.container, s.path, s.pos, n, s.etag)
	if err != nil {
		return err
	}
	s.body, s.bodyAt, s.bodyTo, s.lastTo = body, s.pos, s.pos+n, s.pos+n
	s.window = min(2*s.window, maxWindow)
	return nil
}

// dropWindow closes the open window. Closing before its end abandons the
// rest of that window only (the connection is not reused), never more
// than one window of the object.
func (s *rangeSeeker) dropWindow() {
	if s.body != nil {
		s.body.Close()
		s.body = nil
	}
}

func (s *rangeSeeker) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = s.pos + offset
	case io.SeekEnd:
		abs = s.size + offset
	default:
		return 0, fmt.Errorf("seek %s/%s: invalid whence %d", s.container, s.path, whence)
	}
	if abs < 0 {
		return 0, fmt.Errorf("seek %s/%s: negative position %d", s.container, s.path, abs)
	}
	s.pos = abs
	return abs, nil
}

func (s *rangeSeeker) Close() error {
	s.dropWindow()
	return nil
}
