package search

import (
	"context"
	"time"
)

// A harvest keeps pace with its search index: an engine that makes
// documents searchable some time after it accepted them (Meilisearch)
// could otherwise fall behind a harvest of small files by many seconds,
// its queue growing as long as the harvest lasts, while the files the
// harvest reports done are not yet found. Before it records a batch, a
// harvest waits (KeepPace) while the documents on their way to being
// searchable (accepted by the engine and not searchable yet, handed to
// this process's indexer and not sent, in batches let through and still
// being recorded) would exceed PaceBacklog. On a machine the harvest
// shares with the engine, the wait gives the engine the CPU it needs; the
// backlog allowed sets the size of the engine's batches, and so both how
// long a file waits to be found and how much each document costs it
// (docs/performance.md).
//
// The wait is bounded (PaceWait each batch) and stops at the first error,
// so that an engine that is down or stuck delays a harvest, never stops
// it: its documents wait in the outbox as before. The outbox itself is not
// counted: what it keeps while the engine is down or refuses a document
// must not slow the harvest.

// Pacer is an engine that indexes behind its writes.
type Pacer interface {
	// Backlog counts the documents the engine accepted and has not made
	// searchable yet, up to at least limit.
	Backlog(ctx context.Context, limit int64) (int64, error)
}

// PaceBacklog is how many documents a harvest lets its search index be
// behind, and PaceWait how long it waits for it before a batch at most.
// Meilisearch indexes what it has queued in one batch, each batch costing
// it a fixed part besides its documents (committing, the words' prefixes
// and dictionary: about 0.2 s of CPU at 60,000 documents), and the next
// batch holds what arrived meanwhile: its batches are about half the
// backlog allowed, and a file waits about the backlog over the harvest's
// speed. Measured with mhbench -only meili (20,000 small files a round on
// 2 cores, Meilisearch 1.21): at 1,000, batches of 500, commit to
// searchable p99 1.3 s, but 2.2 times the bare feed's CPU a document and
// end to end 0.28x of bare ingest; at 2,500, 1.8 s, 1.55x, 0.41x; at
// 4,000, 2.6 s, 1.39x, 0.45x; at 6,000, 3.5 s, 1.32x, 0.48x; unpaced,
// 5.5 s, 1.16x, 0.51x. 5,000 is the default: a few seconds behind at
// most, at about 1.3 times the CPU a document.
var (
	PaceBacklog int64 = 5000
	PaceWait          = 3 * time.Second
)

// paceEvery is how often KeepPace looks at the backlog while it waits.
const paceEvery = 25 * time.Millisecond

// KeepPace waits, before a batch of n documents is recorded, while the
// documents on their way to being searchable would be more than
// PaceBacklog with it: those the engine accepted and has not made
// searchable yet and, with this process's indexer (ix, may be nil), those
// it holds to send and those of batches it let through before and that
// are still being recorded; up to PaceWait. Batches of one process are let
// through one at a time (each counted at once), so that batches waiting
// together do not all go when the engine catches up. done is called once
// the batch's transaction has ended (after Indexer.Take). It returns at
// once for an engine that is no Pacer.
func KeepPace(ctx context.Context, eng Engine, ix *Indexer, n int) (done func()) {
	p, ok := As[Pacer](eng)
	if !ok {
		return func() {}
	}
	deadline := time.Now().Add(PaceWait)
	if ix != nil {
		ix.pace.Lock()
		defer ix.pace.Unlock()
	}
	for {
		ahead := ix.Unsent()
		backlog, err := p.Backlog(ctx, PaceBacklog)
		if err != nil || backlog+ahead+int64(n) <= PaceBacklog || backlog+ahead == 0 || !time.Now().Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return func() {}
		case <-time.After(paceEvery):
		}
	}
	if ix == nil {
		return func() {}
	}
	ix.unsent.Add(int64(n))
	return func() { ix.unsent.Add(-int64(n)) }
}
