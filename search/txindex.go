package search

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/metaharvest/metaharvest/internal/store"
)

// Conn is what an engine that indexes inside the caller's transaction
// writes with: a *sql.Tx, or a GORM transaction's ConnPool. It is
// declared with the statements (internal/store), so that search needs no
// database/sql for it.
type Conn = store.Conn

// TxIndexer is an engine that keeps its index in the platform's database
// (the Postgres backend). It indexes inside the transaction that changes
// the items, so their documents are searchable the moment it commits, and
// an item is never indexed in a state its transaction did not commit: no
// outbox row, no drain, no lag.
type TxIndexer interface {
	Engine
	// IndexTx makes docs the indexed documents of their items, segs the
	// segments of those items (their earlier segments go), and removes the
	// documents and segments of the items in gone, writing with conn. What
	// must not wait for conn's transaction (the engine's dictionaries of
	// fields, paths and visibility classes, which only grow) is written
	// before, on the engine's own connections.
	IndexTx(ctx context.Context, conn Conn, docs []Document, segs []Segment, gone []string) error
}

// VisibilityRefresher is an engine that can bring the visibility of the
// documents of some containers in line with their location's and their
// own groups inside the transaction that changed those groups, so that
// nobody sees what they should no longer see, not even for a moment.
type VisibilityRefresher interface {
	RefreshVisibilityTx(ctx context.Context, conn Conn, containerIDs []string) error
}

// GroupsChanged brings search visibility in line after tx changed the
// groups of locations or containers: in tx with an engine that can
// (VisibilityRefresher), otherwise by marking the items of the containers
// concerned for the drain (the engine then follows within moments).
func GroupsChanged(ctx context.Context, tx *store.DB, engine Engine, locationIDs, containerIDs []string) error {
	ctrs, err := store.ContainersOf(tx, locationIDs, containerIDs)
	if err != nil {
		return fmt.Errorf("containers whose groups changed: %w", err)
	}
	if len(ctrs) == 0 {
		return nil
	}
	if r, ok := engine.(VisibilityRefresher); ok {
		conn, err := store.TxConn(tx)
		if err != nil {
			return fmt.Errorf("refresh visibility: %w", err)
		}
		return r.RefreshVisibilityTx(ctx, conn, ctrs)
	}
	if err := store.MarkContainersDirty(tx, OutboxChannel, ctrs); err != nil {
		return fmt.Errorf("mark items dirty for search: %w", err)
	}
	return nil
}

// Maintainer is an engine with housekeeping to do now and then, off the
// write path: workers' indexers call Maintain every few seconds (any
// number of them at once; an engine does the work once).
type Maintainer interface {
	Maintain(ctx context.Context) error
}

// Indexed says what IndexInTx did.
type Indexed struct {
	// Marked: the items went to the outbox (the engine does not index in
	// transactions, or refused a document); a drain will index them.
	Marked bool
	// Refused is why the engine refused the batch, when it did (a bug, not
	// an outage): the items were marked instead, and the drain reports the
	// documents it still cannot index.
	Refused error
	// Claimed: the items' outbox rows this process claimed to index once
	// the transaction has committed (Indexer.Take); nil when none.
	Claimed *Claimed
}

// freshByID indexes fresh rows by item id.
func freshByID(fresh []Fresh) map[string]*Fresh {
	byID := make(map[string]*Fresh, len(fresh))
	for i := range fresh {
		byID[fresh[i].ID] = &fresh[i]
	}
	return byID
}

// IndexInTx brings the search documents of items up to date inside tx,
// the transaction that changed them: with a TxIndexer they are written
// there (searchable when tx commits), otherwise the items are marked dirty
// for the outbox drain (MarkDirty). A batch the engine refuses does not
// fail tx: the index writes are rolled back to a savepoint and the items
// are marked instead. Database errors fail tx, as any other statement's.
func IndexInTx(ctx context.Context, tx *store.DB, engine Engine, itemIDs ...string) (Indexed, error) {
	return IndexFreshInTx(ctx, tx, engine, nil, nil, itemIDs...)
}

// IndexFreshInTx is IndexInTx for items of which some are fresh: written
// whole by tx, their documents are made from what the caller holds (Fresh)
// rather than read back. A fresh item must be among itemIDs.
//
// With an engine that does not index in transactions and an indexer
// running in this process (ix, nil otherwise), the items' outbox rows are
// also claimed for it (Indexed.Claimed): the caller hands them to ix.Take
// once tx has committed, and ix indexes them at once, from the fresh rows,
// rather than the next drain round reading them back. Rows a drainer holds
// are only marked; claimed rows the process does not index (it died) are
// drained when their lease ends.
func IndexFreshInTx(ctx context.Context, tx *store.DB, engine Engine, ix *Indexer, fresh []Fresh, itemIDs ...string) (Indexed, error) {
	ids := uniqueIDs(itemIDs)
	if len(ids) == 0 {
		return Indexed{}, nil
	}
	ti, ok := engine.(TxIndexer)
	if !ok && ix != nil {
		c := &Claimed{token: newClaimToken(), fresh: freshByID(fresh)}
		rows, err := store.MarkDirtyClaimed(tx, OutboxChannel, ids, claimLease, c.token)
		if err != nil {
			return Indexed{}, fmt.Errorf("mark items dirty for search: %w", err)
		}
		c.rows = rows
		return Indexed{Marked: true, Claimed: c}, nil
	}
	if !ok {
		return Indexed{Marked: true}, MarkDirty(tx, ids...)
	}
	const savepoint = "search_index"
	if err := tx.SavePoint(savepoint).Error; err != nil {
		return Indexed{}, fmt.Errorf("index items in transaction: %w", err)
	}
	err := indexItemsTx(ctx, tx, ti, ids, freshByID(fresh))
	if err == nil {
		return Indexed{}, nil
	}
	if unavailable(err) || ctx.Err() != nil {
		return Indexed{}, err
	}
	if rerr := tx.RollbackTo(savepoint).Error; rerr != nil {
		return Indexed{}, errors.Join(err, fmt.Errorf("roll back refused index writes: %w", rerr))
	}
	return Indexed{Marked: true, Refused: err}, MarkDirty(tx, ids...)
}

// indexItemsTx builds the documents and segments of items from what tx
// sees and writes them with tx's connection.
func indexItemsTx(ctx context.Context, tx *store.DB, ti TxIndexer, ids []string, fresh map[string]*Fresh) error {
	docs, err := buildDocuments(ctx, tx, ids, fresh)
	if err != nil {
		return err
	}
	present := make([]Document, 0, len(docs))
	var gone []string
	for _, id := range ids {
		if d, ok := docs[id]; ok {
			present = append(present, d)
		} else {
			gone = append(gone, id)
		}
	}
	withMedia := make([]Document, 0, len(present))
	for _, d := range present {
		if readsMedia(fresh, d.ID()) {
			withMedia = append(withMedia, d)
		}
	}
	byItem, err := BuildSegments(ctx, tx, withMedia)
	if err != nil {
		return err
	}
	var segs []Segment
	for _, d := range present {
		segs = append(segs, byItem[d.ID()]...)
	}
	conn, err := store.TxConn(tx)
	if err != nil {
		return fmt.Errorf("index items in transaction: %w", err)
	}
	return ti.IndexTx(ctx, conn, present, segs, gone)
}

// uniqueIDs sorts ids and drops duplicates and empty ones.
func uniqueIDs(itemIDs []string) []string {
	ids := slices.Clone(itemIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) > 0 && ids[0] == "" {
		ids = ids[1:]
	}
	return ids
}
