package search

import (
	"context"
	"fmt"
	"time"
)

// Observe is told of every call an observed engine answers: the operation
// ("search", "segments", "upsert", ...), the time it took and its error.
type Observe func(op string, took time.Duration, err error)

// Observed wraps engine so that every call is reported to observe (the
// platform's metrics), without any backend measuring itself.
func Observed(engine Engine, observe Observe) Engine {
	if engine == nil || observe == nil {
		return engine
	}
	o := &observed{e: engine, observe: observe}
	if _, ok := engine.(TxIndexer); ok {
		return observedTx{o}
	}
	return o
}

// Maintain runs the engine's housekeeping, when it has some.
func (o *observed) Maintain(ctx context.Context) error {
	if m, ok := o.e.(Maintainer); ok {
		return o.run("maintain", func() error { return m.Maintain(ctx) })
	}
	return nil
}

// observedTx is an observed engine that indexes in transactions: its
// IndexTx calls are reported as upserts.
type observedTx struct{ *observed }

func (o observedTx) RefreshVisibilityTx(ctx context.Context, conn Conn, containerIDs []string) error {
	r, ok := o.e.(VisibilityRefresher)
	if !ok {
		return fmt.Errorf("refresh visibility: %s cannot", o.e.Name())
	}
	return o.run("upsert", func() error { return r.RefreshVisibilityTx(ctx, conn, containerIDs) })
}

func (o observedTx) IndexTx(ctx context.Context, conn Conn, docs []Document, segs []Segment, gone []string) error {
	return o.run("upsert", func() error { return o.e.(TxIndexer).IndexTx(ctx, conn, docs, segs, gone) })
}

type observed struct {
	e       Engine
	observe Observe
}

// timed runs call and reports it as op.
func timed[T any](o *observed, op string, call func() (T, error)) (T, error) {
	start := time.Now()
	v, err := call()
	o.observe(op, time.Since(start), err)
	return v, err
}

func (o *observed) run(op string, call func() error) error {
	_, err := timed(o, op, func() (struct{}, error) { return struct{}{}, call() })
	return err
}

func (o *observed) Name() string { return o.e.Name() }

// Unwrap returns the observed engine (Wrapper).
func (o *observed) Unwrap() Engine { return o.e }

func (o *observed) Ping(ctx context.Context) error {
	return o.run("ping", func() error { return o.e.Ping(ctx) })
}

func (o *observed) Upsert(ctx context.Context, docs []Document) error {
	return o.run("upsert", func() error { return o.e.Upsert(ctx, docs) })
}

func (o *observed) Delete(ctx context.Context, ids []string) error {
	return o.run("delete", func() error { return o.e.Delete(ctx, ids) })
}

func (o *observed) Search(ctx context.Context, req Request, vis Visibility) (*Response, error) {
	return timed(o, "search", func() (*Response, error) { return o.e.Search(ctx, req, vis) })
}

func (o *observed) UpsertSegments(ctx context.Context, segs []Segment) error {
	return o.run("upsert_segments", func() error { return o.e.UpsertSegments(ctx, segs) })
}

func (o *observed) DeleteSegmentsOfItems(ctx context.Context, itemIDs []string) error {
	return o.run("delete_segments", func() error { return o.e.DeleteSegmentsOfItems(ctx, itemIDs) })
}

func (o *observed) SearchSegments(ctx context.Context, req SegmentRequest, vis Visibility) (*SegmentResponse, error) {
	return timed(o, "segments", func() (*SegmentResponse, error) { return o.e.SearchSegments(ctx, req, vis) })
}

func (o *observed) GetSegment(ctx context.Context, id string, vis Visibility) (*Segment, error) {
	return timed(o, "get_segment", func() (*Segment, error) { return o.e.GetSegment(ctx, id, vis) })
}

func (o *observed) Analytics(ctx context.Context, vis Visibility) (*Analytics, error) {
	return timed(o, "analytics", func() (*Analytics, error) { return o.e.Analytics(ctx, vis) })
}

func (o *observed) Reset(ctx context.Context) error {
	return o.run("reset", func() error { return o.e.Reset(ctx) })
}
