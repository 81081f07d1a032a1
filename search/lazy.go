package search

import (
	"context"
	"sync"
	"time"
)

// Lazy returns an engine that opens the real one on first use, and again
// after a failed attempt (at most once a second), so a process started
// while the search server is down runs, answers 503 for search, and
// recovers by itself when the server is back.
func Lazy(name string, open func(context.Context) (Engine, error)) Engine {
	return &lazy{name: name, open: open}
}

type lazy struct {
	name string
	open func(context.Context) (Engine, error)

	mu      sync.Mutex
	eng     Engine
	tried   time.Time
	lastErr error
}

var _ Engine = (*lazy)(nil)

func (l *lazy) get(ctx context.Context) (Engine, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.eng != nil {
		return l.eng, nil
	}
	if l.lastErr != nil && time.Since(l.tried) < time.Second {
		return nil, l.lastErr
	}
	l.tried = time.Now()
	e, err := l.open(ctx)
	if err != nil {
		l.lastErr = Unavailable(err)
		return nil, l.lastErr
	}
	l.eng, l.lastErr = e, nil
	return e, nil
}

func (l *lazy) Name() string { return l.name }

// Unwrap returns the engine once opened (Wrapper).
func (l *lazy) Unwrap() Engine {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.eng
}

func (l *lazy) Ping(ctx context.Context) error {
	e, err := l.get(ctx)
	if err != nil {
		return err
	}
	return e.Ping(ctx)
}

func (l *lazy) Upsert(ctx context.Context, docs []Document) error {
	e, err := l.get(ctx)
	if err != nil {
		return err
	}
	return e.Upsert(ctx, docs)
}

func (l *lazy) Delete(ctx context.Context, ids []string) error {
	e, err := l.get(ctx)
	if err != nil {
		return err
	}
	return e.Delete(ctx, ids)
}

func (l *lazy) Search(ctx context.Context, req Request, vis Visibility) (*Response, error) {
	e, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return e.Search(ctx, req, vis)
}

func (l *lazy) UpsertSegments(ctx context.Context, segs []Segment) error {
	e, err := l.get(ctx)
	if err != nil {
		return err
	}
	return e.UpsertSegments(ctx, segs)
}

func (l *lazy) DeleteSegmentsOfItems(ctx context.Context, itemIDs []string) error {
	e, err := l.get(ctx)
	if err != nil {
		return err
	}
	return e.DeleteSegmentsOfItems(ctx, itemIDs)
}

func (l *lazy) SearchSegments(ctx context.Context, req SegmentRequest, vis Visibility) (*SegmentResponse, error) {
	e, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return e.SearchSegments(ctx, req, vis)
}

func (l *lazy) GetSegment(ctx context.Context, id string, vis Visibility) (*Segment, error) {
	e, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return e.GetSegment(ctx, id, vis)
}

func (l *lazy) Analytics(ctx context.Context, vis Visibility) (*Analytics, error) {
	e, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return e.Analytics(ctx, vis)
}

func (l *lazy) Reset(ctx context.Context) error {
	e, err := l.get(ctx)
	if err != nil {
		return err
	}
	return e.Reset(ctx)
}
