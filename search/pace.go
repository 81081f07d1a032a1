package search

import (
	"context"
	"time"
)

// A harvest keeps pace with its search index: an engine that makes
// documents searchable some time after it accepted them (Meilisearch)
// could otherwise fall behind a harvest of small files by many seconds,
// its queue growing as long as the harvest lasts, while the files the
// harvest reports done are not yet found.
//
// On a machine the harvest shares with the engine, the two take turns: the
// harvest records batches while the engine is idle, and this process's
// indexer holds their documents (Indexer.Take) until it has a full send
// of them (SendDocs, fewer when the engine's recent batches were slow:
// sendSize), or SendHold has passed since the first, or no batch of the
// process has been on its way for SendQuiet (the harvest is over, or has
// nothing to record for now); then it sends them in one request, and the
// engine indexes them in one batch. Before it records a batch, a harvest waits
// (KeepPace) while the engine is busy with a large batch (at least
// PaceBusy documents accepted and not searchable yet) or while this
// process already holds a full send. While the engine indexes, the harvest
// does not compete with it for the CPU: the engine's batch takes its own
// time, not twice it, and a file waits about SendHold and one batch to be
// found. Taking turns also gives the engine batches of a full send,
// each costing it a fixed part (committing, the words' prefixes, the
// facets' levels) besides its documents. Small sends (a few large files, a
// lone upload) do not make the harvest wait: the engine's batch of a few
// documents is short.
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

// The pace of a harvest with an engine that indexes behind its writes
// (docs/performance.md, "Meilisearch: batches against freshness").
// Measured with mhbench -only meili (20,000 small files a round on 2
// cores, Meilisearch 1.21, five rounds into an index of up to 200,000
// documents): sends of 3,500 held up to 0.5 s (these defaults, three runs
// of the build) gave batches of 2,000-3,300, Meilisearch's CPU a document
// 1.20-1.31x the bare feed's, end to end 0.44-0.49x of bare ingest, commit
// to searchable median p99 1.71-1.81 s; holding up to 0.6 s for 4,000,
// 1.15x, 0.53x, 2.47 s (its batches took longer); up to 0.4 s for 3,000,
// 1.41x, 0.45x, 1.76 s (smaller batches). Before the harvest took turns
// with the engine (a backlog of 5,000 allowed, sent as recorded),
// 1.35-1.41x, 0.45-0.49x and 2.5-2.7 s. Sends sized to index in
// SendBudget (since the sixth session of 2026-12-04): 0.52-0.54x, 1.14-1.15x,
// 1.77-1.99 s in two runs; 3,500 alone, the same day on as slow a
// machine (batches of 1.5-1.8 s), had a median p99 of 2.29 s.
var (
	// SendDocs is how many documents the indexer gathers for one send at
	// most.
	SendDocs int64 = 3500
	// SendDocsMin is how many it gathers at least, however slowly the
	// engine indexed its recent batches (sendSize).
	SendDocsMin int64 = 1000
	// SendBudget is how long the engine should take to index a send
	// (sendSize).
	SendBudget = 1200 * time.Millisecond
	// SendHold is how long it holds the first for more at most.
	SendHold = 500 * time.Millisecond
	// SendQuiet: it sends what it holds once no batch of its process
	// has been on its way for this long.
	SendQuiet = 60 * time.Millisecond
	// PaceBusy: a batch waits while the engine has at least this many
	// documents to index.
	PaceBusy int64 = 1000
	// PaceWait is how long a batch waits at most.
	PaceWait = 3 * time.Second
)

// IndexTimer is a Pacer that says how long its recent batches took to
// index, a document (zero when it cannot tell yet).
type IndexTimer interface {
	IndexTime(ctx context.Context) (time.Duration, error)
}

// sendSize is how many documents the sender gathers for its next send:
// SendDocs, or, for an engine that says how fast it indexed its recent
// batches (IndexTimer), as many as it indexes in SendBudget at that
// speed, at least SendDocsMin. A file waits for its send to fill and to
// be indexed: on a slower machine, or as the index grows and each batch
// costs the engine more, smaller sends keep that wait within the
// freshness goal, at some more of the engine's CPU a document.
func sendSize(ctx context.Context, eng Engine) int64 {
	t, ok := As[IndexTimer](eng)
	if !ok {
		return SendDocs
	}
	perDoc, err := t.IndexTime(ctx)
	if err != nil || perDoc <= 0 {
		return SendDocs
	}
	return min(SendDocs, max(SendDocsMin, int64(SendBudget/perDoc)))
}

// fullSend is the size of the send this process's sender gathers now
// (SendDocs before its first, or for a nil indexer).
func (ix *Indexer) fullSend() int64 {
	if ix == nil {
		return SendDocs
	}
	if n := ix.full.Load(); n > 0 {
		return n
	}
	return SendDocs
}

// paceEvery is how often KeepPace looks at the backlog while it waits.
const paceEvery = 25 * time.Millisecond

// KeepPace waits, before a batch of n documents is recorded, while the
// engine has at least PaceBusy documents to index, or while this process's
// indexer (ix, may be nil) holds a full send (fullSend) or more: those handed
// to it and not sent, and those of batches let through before and still
// being recorded; up to PaceWait. Batches of one process are let through
// one at a time (each counted at once). done is called once the batch's
// transaction has ended (after Indexer.Take). It returns at once for an
// engine that is no Pacer.
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
		backlog, err := p.Backlog(ctx, PaceBusy)
		if err != nil || (backlog < PaceBusy && ix.Unsent() < ix.fullSend()) || !time.Now().Before(deadline) {
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
