package search

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/metaharvest/metaharvest/internal/store"
)

// This is the one file of package search that speaks to the database
// driver (database/sql, pgx): LISTEN holds a connection of its own for as
// long as it waits for notifications, which no statement of the store
// layer (internal/store) does. internal/store's
// TestSearchDoesNotImportTheDriver allows it these imports and no other
// file of the package any.

// Indexer drains the search outbox in a worker process, until it is
// empty, whenever it may hold work: woken by the notifications MarkDirty
// sends when its transaction commits (LISTEN on OutboxChannel), by Wake,
// and every PollInterval as a safety net (a notification missed while the
// listening connection was down, rows whose drainer died with a lease).
// Every worker runs one; they share the outbox through its claims, so any
// deployment with a worker converges, with or without a scheduler.
type Indexer struct {
	DB     *store.DB
	Engine Engine
	Logger *slog.Logger
	// PollInterval is how often the outbox is looked at without a
	// notification (DefaultIndexerPoll when zero).
	PollInterval time.Duration
	// Batch is how many items one round indexes (zero: as Drain chooses
	// for the engine).
	Batch int
	// MaintainInterval is how often the engine's housekeeping runs, when
	// it has some (Maintainer; DefaultMaintainInterval when zero).
	MaintainInterval time.Duration

	wake chan struct{}
	// claimed holds what transactions of this process claimed for it
	// (Take), for the sender (Run starts it); unsent counts their items
	// until they are sent (or given back).
	claimed chan *Claimed
	unsent  atomic.Int64
	// full is the size of the send the sender gathers now (sendSize;
	// zero before its first: SendDocs).
	full atomic.Int64
	// pace lets this process's batches through KeepPace one at a time.
	pace sync.Mutex
}

// DefaultIndexerPoll is how often an Indexer looks at the outbox without
// being notified.
const DefaultIndexerPoll = time.Second

// DefaultMaintainInterval is how often an Indexer offers the engine its
// housekeeping (the engine decides whether there is any to do: the
// Postgres backend merges its pending index entries soon after writes
// stop).
const DefaultMaintainInterval = 250 * time.Millisecond

// NewIndexer returns an indexer; Run starts it.
func NewIndexer(db *store.DB, engine Engine, logger *slog.Logger) *Indexer {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Indexer{DB: db, Engine: engine, Logger: logger, wake: make(chan struct{}, 1),
		claimed: make(chan *Claimed, takeBacklog)}
}

// Wake asks for a drain now (a running drain goes on to a next round).
func (ix *Indexer) Wake() {
	select {
	case ix.wake <- struct{}{}:
	default:
	}
}

// Run drains until ctx ends.
func (ix *Indexer) Run(ctx context.Context) {
	poll := ix.PollInterval
	if poll <= 0 {
		poll = DefaultIndexerPoll
	}
	go ix.listen(ctx)
	go ix.send(ctx)
	if m, ok := ix.Engine.(Maintainer); ok {
		go ix.maintain(ctx, m)
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	var lastRefusal time.Time
	for {
		_, err := Drain(ctx, ix.DB, ix.Engine, ix.Batch)
		switch {
		case err == nil || ctx.Err() != nil:
		case refusedOnly(err):
			// Documents the engine refuses stay dirty and are tried again
			// with every round; say so now and then, not every second.
			if time.Since(lastRefusal) > time.Minute {
				lastRefusal = time.Now()
				ix.Logger.Error("search index refuses documents; they stay in the outbox", slog.String("error", err.Error()))
			}
		default:
			// The engine or the database is down: the rows wait.
			ix.Logger.Warn("drain search outbox", slog.String("error", err.Error()))
		}
		select {
		case <-ctx.Done():
			return
		case <-ix.wake:
		case <-t.C:
		}
	}
}

// maintain runs the engine's housekeeping every MaintainInterval.
func (ix *Indexer) maintain(ctx context.Context, m Maintainer) {
	every := ix.MaintainInterval
	if every <= 0 {
		every = DefaultMaintainInterval
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := m.Maintain(ctx); err != nil && ctx.Err() == nil {
			ix.Logger.Warn("search index housekeeping", slog.String("error", err.Error()))
		}
	}
}

// refusedOnly: err holds only documents the engine refused, no outage.
func refusedOnly(err error) bool {
	return !unavailable(err) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) &&
		errors.As(err, new(*refusal))
}

// listen wakes the indexer on every notification of OutboxChannel, on a
// connection of its own taken from the pool, reconnecting after failures
// (the poll covers what is missed meanwhile).
func (ix *Indexer) listen(ctx context.Context) {
	sqlDB, err := ix.DB.DB()
	if err != nil {
		return
	}
	backoff := time.Second
	for ctx.Err() == nil {
		err := ix.listenOnce(ctx, sqlDB)
		if ctx.Err() != nil {
			return
		}
		ix.Logger.Debug("search outbox notifications", slog.String("error", fmt.Sprint(err)))
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 30*time.Second)
	}
}

func (ix *Indexer) listenOnce(ctx context.Context, sqlDB *sql.DB) error {
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("listen: %T is not a pgx connection", dc)
		}
		pc := sc.Conn()
		if _, err := pc.Exec(ctx, "LISTEN "+OutboxChannel); err != nil {
			return driver.ErrBadConn
		}
		// Whatever was marked before LISTEN took effect is found by this
		// first round.
		ix.Wake()
		for {
			if _, err := pc.WaitForNotification(ctx); err != nil {
				// The connection may still be listening: it must not go
				// back to the pool.
				return driver.ErrBadConn
			}
			ix.Wake()
		}
	})
}

// refusal is a document the engine would not take (a bug, not an outage):
// its item stays dirty.
type refusal struct {
	itemID string
	err    error
}

func (r *refusal) Error() string { return fmt.Sprintf("index item %s: %v", r.itemID, r.err) }
func (r *refusal) Unwrap() error { return r.err }
