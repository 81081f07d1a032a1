package search

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/store"
)

// The outbox (table search_outbox) holds the ids of items whose search
// document is stale. Writers mark items dirty inside the transaction that
// changes them, so that an item saved while the engine is down still reaches
// it: the row stays until an engine accepted the item's new document. The
// mark notifies the channel OutboxChannel when its transaction commits, so
// that waiting drainers (Indexer) start at once.
//
// Each row carries a sequence number bumped by every MarkDirty. How rows
// are claimed depends on the engine:
//   - An engine that indexes in the database's transactions (TxIndexer)
//     is drained in one transaction per batch: the rows are locked (FOR
//     UPDATE SKIP LOCKED), their items' rows too (so that a harvest
//     indexing the same items in its own transaction goes first or
//     waits), the documents built and written, the rows deleted, and
//     everything commits at once. A drainer that dies releases its rows
//     with its connection.
//   - Other engines are written outside the database: a drainer claims
//     rows for a lease (claimed_until, renewed while it works), so that two
//     drainers never index the same item at once (the older document could
//     land last), and deletes a row only if its sequence number is still
//     the one it claimed: an item changed while it was being indexed stays
//     dirty. Rows of a drainer that died are claimed again when its lease
//     expires.
//
// The statements are internal/store's (searchoutbox.go there).

// OutboxChannel is the Postgres notification channel MarkDirty notifies.
const OutboxChannel = "search_outbox"

// claimLease is how long a drainer owns the rows it claimed before it
// renews the claim; a drainer that dies releases them by expiry.
var claimLease = 30 * time.Second

// newClaimToken names one claim of outbox rows.
func newClaimToken() string { return ids.New() }

// MarkDirty records that the search documents of these items must be rebuilt.
// Call it with the transaction that changes the items.
func MarkDirty(tx *store.DB, itemIDs ...string) error {
	ids := uniqueIDs(itemIDs)
	if len(ids) == 0 {
		return nil
	}
	if err := store.MarkDirty(tx, OutboxChannel, ids); err != nil {
		return fmt.Errorf("mark items dirty for search: %w", err)
	}
	return nil
}

// MarkDirtyWhere marks every live item matching cond (a WHERE clause over
// items with its arguments) dirty, in one statement; for changes that
// concern many items at once.
func MarkDirtyWhere(tx *store.DB, cond string, args ...any) error {
	if err := store.MarkDirtyWhere(tx, OutboxChannel, cond, args...); err != nil {
		return fmt.Errorf("mark items dirty for search: %w", err)
	}
	return nil
}

// Drain indexes dirty items until the outbox is empty (or ctx ends), batch
// items at a time: it builds their documents from Postgres, upserts them
// (deletes the documents and segments of deleted items), and only then
// removes their outbox rows. When the engine is down the rows stay and the
// error (a 503) is returned at once. A document the engine refuses (a bug,
// not an outage) stays dirty without holding up the others: the rest is
// indexed and the refusals are returned together. n counts the items
// indexed or deleted.
func Drain(ctx context.Context, db *store.DB, engine Engine, batch int) (n int, err error) {
	if batch <= 0 {
		batch = drainBatch(engine)
	}
	once := drainOnce
	if ti, ok := engine.(TxIndexer); ok {
		once = func(ctx context.Context, db *store.DB, _ Engine, batch int) (int, []error, error) {
			return drainTxOnce(ctx, db, ti, batch)
		}
	}
	var refused []error
	for {
		if err := ctx.Err(); err != nil {
			return n, errors.Join(append(refused, err)...)
		}
		done, bad, err := once(ctx, db, engine, batch)
		n += done
		if err != nil {
			return n, errors.Join(append(refused, err)...)
		}
		refused = append(refused, bad...)
		if done == 0 {
			// Nothing left, or only documents the engine refuses.
			return n, errors.Join(refused...)
		}
	}
}

// drainBatch is how many items one round of Drain indexes when the caller
// leaves it to the engine: 500 for an engine that indexes in the database's
// transactions (one transaction's rows and locks), 2,000 for one written
// over the network (Meilisearch): each round costs it a few requests
// besides the documents, which a round of 500 spent on every 500 files, and
// larger payloads reach it as larger batches, each of which costs it a
// fixed part (see SendDocs).
func drainBatch(engine Engine) int {
	if _, ok := engine.(TxIndexer); ok {
		return 500
	}
	return 2000
}

func unavailable(err error) bool {
	ae, ok := apperr.As(err)
	return ok && ae.Status == http.StatusServiceUnavailable
}

// upsertEach indexes documents one by one after the engine refused their
// batch, so that one document it cannot take does not hold up the others.
// It returns the ids indexed and one error per document refused; an engine
// that is down stops it.
func upsertEach(ctx context.Context, engine Engine, docs []Document) (ok []string, refused []error, err error) {
	for _, d := range docs {
		if err := engine.Upsert(ctx, []Document{d}); err != nil {
			if unavailable(err) || ctx.Err() != nil {
				return nil, nil, err
			}
			refused = append(refused, &refusal{itemID: d.ID(), err: err})
			continue
		}
		ok = append(ok, d.ID())
	}
	return ok, refused, nil
}

// drainTxOnce indexes one batch for an engine that writes in the
// database's transactions, in one transaction (see the top of this file).
// done counts the items indexed or removed; refused holds the items the
// engine would not take (they stay dirty).
func drainTxOnce(ctx context.Context, db *store.DB, ti TxIndexer, batch int) (done int, refused []error, err error) {
	err = db.WithContext(ctx).Transaction(func(tx *store.DB) error {
		ids, err := store.LockOutbox(tx, batch)
		if err != nil {
			return fmt.Errorf("claim search outbox: %w", err)
		}
		if len(ids) == 0 {
			return nil
		}
		// A harvest indexing these items in its own transaction holds
		// their rows until it commits: wait for it, so that the documents
		// built next see what it wrote (or make it wait for this batch).
		if err := store.LockItems(tx, ids); err != nil {
			return fmt.Errorf("lock items to index: %w", err)
		}
		indexed, bad, err := indexEachTx(ctx, tx, ti, ids)
		if err != nil {
			return err
		}
		refused = bad
		if err := store.ClearOutbox(tx, indexed); err != nil {
			return fmt.Errorf("clear search outbox: %w", err)
		}
		done = len(indexed)
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	return done, refused, nil
}

// indexEachTx indexes items in tx, the whole batch at once, or, when the
// engine refuses it, one by one (each in a savepoint), so that a document
// it cannot take leaves the others indexed. It returns the items indexed
// and one error per item refused.
func indexEachTx(ctx context.Context, tx *store.DB, ti TxIndexer, ids []string) (indexed []string, refused []error, err error) {
	// attempt reports a refusal apart from a failure that ends the drain.
	attempt := func(savepoint string, ids []string) (refusedErr, failed error) {
		if err := tx.SavePoint(savepoint).Error; err != nil {
			return nil, err
		}
		err := indexItemsTx(ctx, tx, ti, ids, nil)
		if err == nil {
			return nil, nil
		}
		if unavailable(err) || ctx.Err() != nil {
			return nil, err
		}
		if rerr := tx.RollbackTo(savepoint).Error; rerr != nil {
			return nil, rerr
		}
		return err, nil
	}
	refusedAll, err := attempt("search_batch", ids)
	if err != nil {
		return nil, nil, err
	}
	if refusedAll == nil {
		return ids, nil, nil
	}
	for _, id := range ids {
		bad, err := attempt("search_item", []string{id})
		if err != nil {
			return nil, nil, err
		}
		if bad != nil {
			refused = append(refused, &refusal{itemID: id, err: bad})
			continue
		}
		indexed = append(indexed, id)
	}
	return indexed, refused, nil
}

// drainOnce indexes one batch. done counts the items indexed or removed;
// refused holds the items the engine would not take (they stay dirty).
func drainOnce(ctx context.Context, db *store.DB, engine Engine, batch int) (done int, refused []error, err error) {
	token := newClaimToken()
	rows, err := store.ClaimOutbox(db.WithContext(ctx), claimLease, token, batch)
	if err != nil {
		return 0, nil, fmt.Errorf("claim search outbox: %w", err)
	}
	if len(rows) == 0 {
		return 0, nil, nil
	}
	return indexClaimed(ctx, db, engine, []string{token}, rows, nil)
}

// indexClaimed indexes the outbox rows claimed under tokens (their items'
// documents built from the database, or from fresh for the items there),
// then deletes the rows whose item was not marked again meanwhile and
// releases the others. done counts the items indexed or removed; refused
// holds the items the engine would not take (they stay dirty).
func indexClaimed(ctx context.Context, db *store.DB, engine Engine, tokens []string, rows []store.Claim,
	fresh map[string]*Fresh) (done int, refused []error, err error) {
	// The claim is renewed while this batch is indexed, however long the
	// engine takes: it lapses only when this drainer is gone.
	renewing := make(chan struct{})
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		t := time.NewTicker(claimLease / 3)
		defer t.Stop()
		for {
			select {
			case <-renewing:
				return
			case <-t.C:
				// A renewal that fails is tried again at the next tick,
				// well within the lease.
				_ = store.RenewClaims(db.WithContext(ctx), claimLease, tokens)
			}
		}
	}()
	defer func() { close(renewing); <-renewed }()
	fail := func(err error) (int, []error, error) {
		if rerr := releaseClaims(ctx, db, tokens); rerr != nil {
			err = errors.Join(err, fmt.Errorf("release search outbox claims: %w", rerr))
		}
		return 0, nil, err
	}

	itemIDs := make([]string, len(rows))
	for i, r := range rows {
		itemIDs[i] = r.ItemID
	}
	docs, err := buildDocuments(ctx, db, itemIDs, fresh)
	if err != nil {
		return fail(err)
	}
	var upserts []Document
	var gone []string
	for _, id := range itemIDs {
		if d, ok := docs[id]; ok {
			upserts = append(upserts, d)
		} else {
			gone = append(gone, id)
		}
	}
	skip := map[string]bool{}
	if len(upserts) > 0 {
		if err := engine.Upsert(ctx, upserts); err != nil {
			if unavailable(err) || ctx.Err() != nil {
				return fail(fmt.Errorf("index %d items: %w", len(upserts), err))
			}
			indexed, bad, err := upsertEach(ctx, engine, upserts)
			if err != nil {
				return fail(fmt.Errorf("index %d items: %w", len(upserts), err))
			}
			for _, d := range upserts {
				skip[d.ID()] = true
			}
			for _, id := range indexed {
				delete(skip, id)
			}
			refused = bad
		}
	}
	if err := indexSegments(ctx, db, engine, upserts, skip); err != nil {
		return fail(err)
	}
	if len(gone) > 0 {
		if err := engine.Delete(ctx, gone); err != nil {
			return fail(fmt.Errorf("remove %d items from the index: %w", len(gone), err))
		}
		if err := engine.DeleteSegmentsOfItems(ctx, gone); err != nil {
			return fail(fmt.Errorf("remove segments of %d items from the index: %w", len(gone), err))
		}
	}
	var doneIDs []string
	var doneSeqs []int64
	for _, r := range rows {
		if !skip[r.ItemID] {
			doneIDs = append(doneIDs, r.ItemID)
			doneSeqs = append(doneSeqs, r.Seq)
		}
	}
	if err := store.DeleteClaimed(db.WithContext(ctx), tokens, doneIDs, doneSeqs); err != nil {
		return fail(fmt.Errorf("clear search outbox: %w", err))
	}
	// Rows whose item changed meanwhile, and refused ones, are left
	// unclaimed for the next round.
	if err := releaseClaims(ctx, db, tokens); err != nil {
		return len(doneIDs), refused, fmt.Errorf("release search outbox claims: %w", err)
	}
	return len(doneIDs), refused, nil
}

// releaseClaims gives up the outbox rows still claimed under tokens, with
// a context of its own: they must be released even when ctx ended.
func releaseClaims(ctx context.Context, db *store.DB, tokens []string) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return store.ReleaseClaims(db.WithContext(rctx), tokens)
}

// Reindex rebuilds the index from scratch: it resets the engine, marks every
// live item dirty and drains. Searches see a partial index until it is done;
// items changed meanwhile are indexed in their latest state.
func Reindex(ctx context.Context, db *store.DB, engine Engine) (int, error) {
	if err := engine.Reset(ctx); err != nil {
		return 0, fmt.Errorf("reset search engine: %w", err)
	}
	if err := store.MarkAllDirty(db.WithContext(ctx)); err != nil {
		return 0, fmt.Errorf("mark every item dirty for search: %w", err)
	}
	return Drain(ctx, db, engine, 0)
}

// indexSegments replaces the segments of the items just indexed with the
// ones stored for them (see BuildSegments).
func indexSegments(ctx context.Context, db *store.DB, engine Engine, docs []Document, skip map[string]bool) error {
	var ids []string
	var indexed []Document
	for _, d := range docs {
		if skip[d.ID()] {
			continue
		}
		ids = append(ids, d.ID())
		indexed = append(indexed, d)
	}
	if len(ids) == 0 {
		return nil
	}
	byItem, err := BuildSegments(ctx, db, indexed)
	if err != nil {
		return err
	}
	var segs []Segment
	for _, id := range ids {
		segs = append(segs, byItem[id]...)
	}
	if err := engine.DeleteSegmentsOfItems(ctx, ids); err != nil {
		return fmt.Errorf("replace segments of %d items: %w", len(ids), err)
	}
	for i := 0; i < len(segs); i += 1000 {
		if err := engine.UpsertSegments(ctx, segs[i:min(i+1000, len(segs))]); err != nil {
			return fmt.Errorf("index %d segments: %w", len(segs), err)
		}
	}
	return nil
}

// OutboxDepth counts the items waiting in the outbox.
func OutboxDepth(ctx context.Context, db *store.DB) (int64, error) {
	n, err := store.OutboxDepth(db.WithContext(ctx))
	if err != nil {
		return 0, fmt.Errorf("count the search outbox: %w", err)
	}
	return n, nil
}

// OutboxLastSeq is the sequence number of the latest mark still in the
// outbox (0 when it is empty).
func OutboxLastSeq(ctx context.Context, db *store.DB) (int64, error) {
	n, err := store.OutboxLastSeq(db.WithContext(ctx))
	if err != nil {
		return 0, fmt.Errorf("read the search outbox: %w", err)
	}
	return n, nil
}

// OutboxDepthThrough counts the outbox rows marked at or before sequence
// number seq and not marked again since.
func OutboxDepthThrough(ctx context.Context, db *store.DB, seq int64) (int64, error) {
	n, err := store.OutboxDepthThrough(db.WithContext(ctx), seq)
	if err != nil {
		return 0, fmt.Errorf("count the search outbox: %w", err)
	}
	return n, nil
}

// RebuildStart is what a rebuild of the whole index (metaharvest reindex)
// starts from: the database's clock, against which items changed since are
// found (updated_at), and the number of live items it sends.
func RebuildStart(ctx context.Context, db *store.DB) (now time.Time, items int64, err error) {
	now, items, err = store.RebuildStart(db.WithContext(ctx))
	if err != nil {
		return time.Time{}, 0, fmt.Errorf("read the state a reindex starts from: %w", err)
	}
	return now, items, nil
}
