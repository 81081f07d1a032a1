package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/search"
)

// reindex fills the search engine from the database's rows: the way to move
// an existing platform to Meilisearch (or to rebuild an index). It runs
// beside harvests, resumes where it stopped, and says how far it is.
//
//   - A fresh run empties the engine (Reset), marks every live item dirty in
//     the search outbox (one statement), and records its start in Redis.
//   - The outbox is drained by reindexDrainers drainers at once (the
//     workers' indexers help), in large batches; Meilisearch takes writes
//     without waiting for each (search/meili), so the drain runs at the
//     speed Meilisearch ingests.
//   - A run that finds the record of an unfinished one resumes: it only
//     drains what is left.
//   - Items changed since the start by processes that index elsewhere (the
//     Postgres backend, before they were switched) are marked again and
//     drained; then it waits until everything it marked is searchable,
//     including what the workers' indexers took from the outbox, and
//     removes the record.
//
// Switching engines loses nothing when the api and workers are switched
// first (their changes then wait in the outbox) and reindex runs after.
func reindex(ctx context.Context, db *gorm.DB, rdb *redis.Client, engine search.Engine, namespace string, logger *slog.Logger) (int, error) {
	key := "metaharvest:reindex"
	if namespace != "" {
		key += ":" + namespace
	}
	now, total, err := search.RebuildStart(ctx, db)
	if err != nil {
		return 0, err
	}
	var started time.Time
	val, err := rdb.Get(ctx, key).Result()
	switch {
	case errors.Is(err, redis.Nil):
		started = now
		if err := engine.Reset(ctx); err != nil {
			return 0, fmt.Errorf("reset search engine: %w", err)
		}
		if err := search.MarkDirtyWhere(db.WithContext(ctx), "true"); err != nil {
			return 0, err
		}
		if err := rdb.Set(ctx, key, started.Format(time.RFC3339Nano), 0).Err(); err != nil {
			return 0, fmt.Errorf("record the reindex: %w", err)
		}
		logger.Info("reindex started", slog.String("engine", engine.Name()))
	case err != nil:
		return 0, fmt.Errorf("read the reindex record: %w", err)
	default:
		if started, err = time.Parse(time.RFC3339Nano, val); err != nil {
			return 0, fmt.Errorf("reindex record %q: %w", val, err)
		}
		logger.Info("reindex resumed", slog.String("engine", engine.Name()), slog.Time("started", started))
	}

	stop := reportProgress(ctx, db, total, logger)
	n, err := drainAll(ctx, db, engine)
	// What the reindex marked: the rows up to this sequence number (a row
	// marked later is a change of a harvest going on, which the workers'
	// indexers send).
	var through int64
	if err == nil {
		// Changed since the start by processes indexing elsewhere.
		if err = search.MarkDirtyWhere(db.WithContext(ctx), "updated_at >= ?", started); err == nil {
			through, err = search.OutboxLastSeq(ctx, db)
		}
		if err == nil {
			var m int
			m, err = drainAll(ctx, db, engine)
			n += m
		}
	}
	for err == nil {
		// Everything sent is searchable; a write that failed is dirty
		// again, and drained again.
		if s, ok := search.As[interface{ Sync(context.Context) error }](engine); ok {
			if err = s.Sync(ctx); err != nil {
				break
			}
		}
		var left int64
		if left, err = search.OutboxDepthThrough(ctx, db, through); err != nil {
			break
		}
		if left == 0 {
			// The workers' indexers delete the rows they took once the
			// engine accepted their writes: wait until it ran them too. A
			// write of theirs that failed is marked dirty again by its
			// worker (drained here when that came first, else by the
			// worker's indexer).
			if s, ok := search.As[interface{ SyncAll(context.Context) error }](engine); ok {
				if err = s.SyncAll(ctx); err != nil {
					break
				}
				if left, err = search.OutboxDepthThrough(ctx, db, through); err != nil {
					break
				}
			}
			if left == 0 {
				break
			}
		}
		var m int
		m, err = drainAll(ctx, db, engine)
		n += m
		if m == 0 && err == nil {
			// The rows left are claimed by another process's indexer (a
			// worker's): it deletes them once Meilisearch has them, or
			// its claims expire and are drained here.
			select {
			case <-ctx.Done():
				err = ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	stop()
	if err != nil {
		return n, err
	}
	if err := rdb.Del(ctx, key).Err(); err != nil {
		return n, fmt.Errorf("remove the reindex record: %w", err)
	}
	return n, nil
}

// reindexDrainers drain the outbox side by side: one builds documents
// from Postgres while another's are sent.
const (
	reindexDrainers = 3
	reindexBatch    = 2000
)

func drainAll(ctx context.Context, db *gorm.DB, engine search.Engine) (int, error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var n int
	var errs []error
	for range reindexDrainers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := search.Drain(ctx, db, engine, reindexBatch)
			mu.Lock()
			n += m
			if err != nil {
				errs = append(errs, err)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return n, errors.Join(errs...)
}

// reportProgress logs every few seconds how many items are left and the
// rate; stop ends it.
func reportProgress(ctx context.Context, db *gorm.DB, total int64, logger *slog.Logger) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		begin, last := time.Now(), int64(-1)
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			left, err := search.OutboxDepth(ctx, db)
			if err != nil {
				logger.Warn("reindex progress", slog.String("error", err.Error()))
				continue
			}
			if left == last {
				continue
			}
			last = left
			indexed := max(total-left, 0)
			logger.Info("reindex progress", slog.Int64("indexed", indexed), slog.Int64("items", total),
				slog.Int64("left", left), slog.Float64("items_per_second", float64(indexed)/time.Since(begin).Seconds()))
		}
	}()
	return func() { close(done); wg.Wait() }
}
