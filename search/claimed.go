package search

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/metaharvest/metaharvest/internal/store"
)

// A harvest's batch reaches an engine outside the database (Meilisearch)
// a moment after it commits, from the process that recorded it: its
// transaction marks the items dirty and claims their outbox rows for this
// process (IndexFreshInTx), and once it has committed the indexer's sender
// builds their documents from what the batch wrote (Fresh) and sends them
// (Take). The drain's rounds are left what no process claimed: changes
// made through the api, rows a drainer held, the claims of a process that
// died (their lease ends), claims the sender could not keep.

// Claimed is what a transaction marked dirty and claimed for this
// process's indexer (IndexFreshInTx): the outbox rows, and the items whose
// documents are made from what the transaction wrote.
type Claimed struct {
	token string
	rows  []store.Claim
	fresh map[string]*Fresh
}

// takeBacklog is how many claims an indexer keeps waiting for its sender;
// more are released to the drain at once, so that Take never waits.
const takeBacklog = 16

// Take indexes what a committed transaction claimed for this indexer
// (Indexed.Claimed of IndexFreshInTx), as soon as the sender is free: the
// harvest's files reach the engine a moment after their commit, not at
// the drain's next round. It never waits: claims it cannot keep are
// released to the drain.
func (ix *Indexer) Take(c *Claimed) {
	if ix == nil || c == nil || len(c.rows) == 0 {
		return
	}
	ix.unsent.Add(int64(len(c.rows)))
	select {
	case ix.claimed <- c:
	default:
		go ix.giveBack(context.Background(), c)
	}
}

// Unsent counts the items handed to Take and not yet sent to the engine,
// and those of batches KeepPace let through that are still being
// recorded (zero for a nil indexer).
func (ix *Indexer) Unsent() int64 {
	if ix == nil {
		return 0
	}
	return ix.unsent.Load()
}

// giveBack releases a claim to the drain and wakes it.
func (ix *Indexer) giveBack(ctx context.Context, c *Claimed) {
	defer ix.unsent.Add(-int64(len(c.rows)))
	if err := releaseClaims(ctx, ix.DB, []string{c.token}); err != nil {
		// The lease ends on its own: the drain takes them then.
		ix.Logger.Warn("release search outbox claims", slog.String("error", err.Error()))
	}
	ix.Wake()
}

// sendItems is how many items the sender sends at most at once to an
// engine that indexes as it writes: claims waiting together are sent
// together (one request to the engine, one round of its bookkeeping), so
// that a sender behind a harvest catches up rather than falling further
// behind. To an engine that indexes behind its writes (a Pacer) it sends
// up to a full send (sendSize), holding the first claim for more (pace.go).
const sendItems = 2000

// quietEvery is how often a holding sender looks whether a batch of its
// process is still on its way.
const quietEvery = 10 * time.Millisecond

// gather joins c and the claims after it: those waiting, up to sendItems
// items; for a Pacer, up to a full send (sendSize), waiting for more until SendHold has
// passed, or no batch of the process (let through by KeepPace, or handed
// over and not gathered) has been on its way for SendQuiet, or ctx ends.
func (ix *Indexer) gather(ctx context.Context, c *Claimed) (tokens []string, rows []store.Claim, fresh map[string]*Fresh) {
	tokens, rows, fresh = []string{c.token}, c.rows, c.fresh
	add := func(more *Claimed) {
		if len(tokens) == 1 {
			rows, fresh = slices.Clone(rows), make(map[string]*Fresh, len(fresh))
			maps.Copy(fresh, c.fresh)
		}
		tokens, rows = append(tokens, more.token), append(rows, more.rows...)
		maps.Copy(fresh, more.fresh)
	}
	if _, ok := As[Pacer](ix.Engine); !ok {
		for len(rows) < sendItems {
			select {
			case more := <-ix.claimed:
				add(more)
			default:
				return tokens, rows, fresh
			}
		}
		return tokens, rows, fresh
	}
	full := sendSize(ctx, ix.Engine)
	ix.full.Store(full)
	hold := time.NewTimer(SendHold)
	defer hold.Stop()
	look := time.NewTicker(quietEvery)
	defer look.Stop()
	var quiet time.Time // since when nothing else was on its way
	for int64(len(rows)) < full {
		select {
		case more := <-ix.claimed:
			add(more)
			quiet = time.Time{}
		case now := <-look.C:
			switch {
			case ix.unsent.Load() > int64(len(rows)):
				quiet = time.Time{}
			case quiet.IsZero():
				quiet = now
			case now.Sub(quiet) >= SendQuiet:
				return tokens, rows, fresh
			}
		case <-hold.C:
			return tokens, rows, fresh
		case <-ctx.Done():
			return tokens, rows, fresh
		}
	}
	return tokens, rows, fresh
}

// send indexes the claims handed to Take until ctx ends; what is still
// waiting then is released to the drain (another worker's, or this one's
// after a restart).
func (ix *Indexer) send(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			for {
				select {
				case c := <-ix.claimed:
					ix.giveBack(ctx, c)
				default:
					return
				}
			}
		case c := <-ix.claimed:
			tokens, rows, fresh := ix.gather(ctx, c)
			_, _, err := indexClaimed(ctx, ix.DB, ix.Engine, tokens, rows, fresh)
			ix.unsent.Add(-int64(len(rows)))
			if err != nil && ctx.Err() == nil {
				// indexClaimed released the rows (or left the refused
				// ones dirty): the drain retries them.
				ix.Logger.Debug("index claimed items", slog.String("error", err.Error()))
				ix.Wake()
			}
		}
	}
}
