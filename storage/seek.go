package storage

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/minio/minio-go/v7"
)

// OpenSeeker opens one file for random access, for serving byte ranges
// (http.ServeContent seeks to each range it sends). The Entry describes the
// file that was opened, so its ETag and modification time validate exactly
// the bytes read. Errors are those of Open: ErrNotFound, ErrBadPath.
//
// Local kinds give the open file itself. For s3 nothing is fetched until
// the first Read, and then only a window of the object from the current
// offset (see s3Seeker): serving a range of a large object must not
// download the object.
func OpenSeeker(ctx context.Context, loc Location, container, path string) (io.ReadSeekCloser, Entry, error) {
	switch l := loc.(type) {
	case *Filesystem:
		return l.openSeeker(ctx, container, path)
	case *UploadStore:
		return l.openSeeker(ctx, container, path)
	case *S3:
		return l.openSeeker(ctx, container, path)
	}
	return nil, Entry{}, fmt.Errorf("open %s/%s: location kind %T cannot seek", container, path, loc)
}

func (t tree) openSeeker(ctx context.Context, container, p string) (io.ReadSeekCloser, Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, Entry{}, err
	}
	files, err := t.Files(container)
	if err != nil {
		return nil, Entry{}, err
	}
	// The open file stays valid once its container is released.
	defer files.Close()
	f, e, err := files.Open(p)
	if err != nil {
		return nil, Entry{}, err
	}
	return f, e, nil
}

func (l *S3) openSeeker(ctx context.Context, container, p string) (io.ReadSeekCloser, Entry, error) {
	if err := l.checkItem(container, p); err != nil {
		return nil, Entry{}, err
	}
	key := l.prefix + p
	info, err := l.client.StatObject(ctx, container, key, minio.StatObjectOptions{})
	if err != nil {
		return nil, Entry{}, fmt.Errorf("stat %s/%s: %w", container, p, s3NotFound(err))
	}
	return &s3Seeker{ctx: ctx, core: minio.Core{Client: l.client}, bucket: container, key: key,
		size: info.Size, etag: info.ETag, window: s3FirstWindow}, s3Entry(p, info), nil
}

// Windows of an object fetched by one ranged GET: the first is small, as a
// request for one range (a player probing an MP4's index, a resumed
// download) often reads a few kilobytes; each following window doubles up
// to the largest, so that a whole object streams in few requests.
const (
	s3FirstWindow = 256 << 10
	s3MaxWindow   = 16 << 20
)

// errObjectChanged: the object was replaced while it was being read; the
// bytes already sent belong to the old one, so the read cannot go on.
var errObjectChanged = errors.New("the object changed while it was read")

// s3Seeker reads an object through ranged GETs, each pinned to the ETag
// seen when it was opened, so that a response never mixes two versions.
// A Seek only moves the offset; the open window is kept when the next Read
// continues where it stands, and dropped otherwise.
type s3Seeker struct {
	ctx         context.Context
	core        minio.Core
	bucket, key string
	size        int64
	etag        string

	pos    int64         // offset of the next Read
	body   io.ReadCloser // the open window, nil when none
	bodyAt int64         // offset of body's next byte
	bodyTo int64         // end of body's window (exclusive)
	window int64         // size of the next window
	lastTo int64         // end of the last window opened
}

func (s *s3Seeker) Read(p []byte) (int, error) {
	if s.pos >= s.size {
		return 0, io.EOF
	}
	if s.body != nil && s.bodyAt != s.pos {
		s.dropWindow()
	}
	if s.body == nil {
		if s.pos != s.lastTo {
			s.window = s3FirstWindow // a jump: another small range, likely
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
		return n, fmt.Errorf("read %s/%s: %w", s.bucket, s.key, errObjectChanged)
	case err != nil:
		s.dropWindow()
		return n, fmt.Errorf("read %s/%s: %w", s.bucket, s.key, err)
	}
	return n, nil
}

func (s *s3Seeker) openWindow() error {
	end := min(s.pos+s.window, s.size)
	opts := minio.GetObjectOptions{}
	if err := opts.SetRange(s.pos, end-1); err != nil {
		return err
	}
	if s.etag != "" {
		if err := opts.SetMatchETag(s.etag); err != nil {
			return err
		}
	}
	body, _, _, err := s.core.GetObject(s.ctx, s.bucket, s.key, opts)
	if err != nil {
		if minio.ToErrorResponse(err).StatusCode == 412 {
			return fmt.Errorf("read %s/%s: %w", s.bucket, s.key, errObjectChanged)
		}
		return fmt.Errorf("read %s/%s: %w", s.bucket, s.key, s3NotFound(err))
	}
	s.body, s.bodyAt, s.bodyTo, s.lastTo = body, s.pos, end, end
	s.window = min(2*s.window, s3MaxWindow)
	return nil
}

// dropWindow closes the open window. Closing before its end abandons the
// rest of that window only (the connection is not reused), never more
// than one window of the object.
func (s *s3Seeker) dropWindow() {
	if s.body != nil {
		s.body.Close()
		s.body = nil
	}
}

func (s *s3Seeker) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = s.pos + offset
	case io.SeekEnd:
		abs = s.size + offset
	default:
		return 0, fmt.Errorf("seek %s/%s: invalid whence %d", s.bucket, s.key, whence)
	}
	if abs < 0 {
		return 0, fmt.Errorf("seek %s/%s: negative position %d", s.bucket, s.key, abs)
	}
	s.pos = abs
	return abs, nil
}

func (s *s3Seeker) Close() error {
	s.dropWindow()
	return nil
}
