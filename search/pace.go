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
// harvest waits (KeepPace) while the documents the engine accepted and has
// not made searchable exceed PaceBacklog, a fraction of a second of its
// work. On a machine the harvest shares with the engine, this costs the
// harvest no time to searchable: the engine needs the CPU the harvest
// leaves it (mhbench -only meili: 20,000 small files on 2 cores were
// searchable ~5 s after their batches committed without it, ~2 s with it,
// end to end as fast).
//
// The wait is bounded (PaceWait each batch) and stops at the first error,
// so that an engine that is down or stuck delays a harvest, never stops
// it: its documents wait in the outbox as before. The outbox itself is not
// counted: its drainers send what it holds at once unless the engine's
// queue is long already, and what it keeps while the engine is down or
// refuses a document must not slow the harvest.

// Pacer is an engine that indexes behind its writes.
type Pacer interface {
	// Backlog counts the documents the engine accepted and has not made
	// searchable yet, up to at least limit.
	Backlog(ctx context.Context, limit int64) (int64, error)
}

// PaceBacklog is how many documents a harvest lets its search index be
// behind, and PaceWait how long it waits for it before a batch at most.
// The backlog is about what Meilisearch indexes in its next batch, and each
// batch costs it a fixed part (committing, the prefixes of the words): at
// 500, a harvest of 20,000 small files made it run 14 to 16 batches and
// about 1.3 to 1.5 times the CPU per document of a bare client's feed (2
// to 3 batches); larger batches keep each file unsearchable longer (a batch
// waits for the one before). 1,000, about a quarter of a second of its work
// on two quiet cores, halves the batches and keeps commit to searchable
// within two seconds (docs/performance.md).
var (
	PaceBacklog int64 = 1000
	PaceWait          = 3 * time.Second
)

// paceEvery is how often KeepPace looks at the backlog while it waits.
const paceEvery = 25 * time.Millisecond

// KeepPace waits while the engine has more than PaceBacklog documents
// it accepted and has not made searchable yet, up to PaceWait. It returns
// at once for an engine that is no Pacer.
func KeepPace(ctx context.Context, eng Engine) {
	p, ok := eng.(Pacer)
	if !ok {
		return
	}
	deadline := time.Now().Add(PaceWait)
	for {
		n, err := p.Backlog(ctx, PaceBacklog)
		if err != nil || n <= PaceBacklog || !time.Now().Before(deadline) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(paceEvery):
		}
	}
}
