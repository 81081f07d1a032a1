package search_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/search"
)

// markClaimed marks items dirty in a transaction that claims them for ix,
// as a harvest's does, and returns what it claimed once committed.
func markClaimed(t *testing.T, db *gorm.DB, e search.Engine, ix *search.Indexer, fresh []search.Fresh, ids ...string) *search.Claimed {
	t.Helper()
	var claimed *search.Claimed
	err := db.Transaction(func(tx *gorm.DB) error {
		done, err := search.IndexFreshInTx(context.Background(), tx, e, ix, fresh, ids...)
		claimed = done.Claimed
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return claimed
}

func claimedRows(t *testing.T, db *gorm.DB) []string {
	t.Helper()
	var ids []string
	if err := db.Raw(`SELECT item_id FROM search_outbox WHERE claimed_until > now() ORDER BY item_id`).Scan(&ids).Error; err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestClaimedItemsIndexedByTheirProcess: a transaction's items claimed for
// its process's indexer are not the drain's (a drain right after the
// commit leaves them), and the indexer sends them when handed over: the
// fresh item's document is the one the transaction wrote, the other is
// read back, and the outbox is empty after.
func TestClaimedItemsIndexedByTheirProcess(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := fixture(t)
	e := newFlaky(t, db)
	ix := search.NewIndexer(db, e, nil)
	ix.PollInterval = time.Hour

	fresh := []search.Fresh{{ID: "i2", Name: "fresh-name.jpg", Path: "a/fresh-name.jpg", MimeType: "image/jpeg",
		LocationID: "loc1", LocationKind: "filesystem", LocationName: "archive", ContainerID: "c2", ContainerName: "stills"}}
	claimed := markClaimed(t, db, e, ix, fresh, "i1", "i2")
	if claimed == nil {
		t.Fatal("nothing claimed for the indexer")
	}
	if got := claimedRows(t, db); !slices.Equal(got, []string{"i1", "i2"}) {
		t.Fatalf("claimed rows %v", got)
	}
	if n, err := search.Drain(ctx, db, e, 10); n != 0 || err != nil {
		t.Fatalf("a drain took claimed rows: %d %v", n, err)
	}

	go ix.Run(ctx)
	ix.Take(claimed)
	deadline := time.Now().Add(time.Minute) // a poll deadline, not a measure
	for !found(t, e, "i1") || !found(t, e, "i2") {
		if time.Now().After(deadline) {
			t.Fatal("claimed items not indexed by the indexer they were handed to")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := names(t, e, "fresh"); !slices.Equal(got, []string{"fresh-name.jpg"}) {
		t.Fatalf("the fresh item's document is not the transaction's: %v", got)
	}
	for {
		var left int64
		db.Raw(`SELECT count(*) FROM search_outbox`).Scan(&left)
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d outbox rows left after the indexer sent them", left)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestClaimLeavesADrainersRows: a row another drainer holds is marked
// again, not claimed (that drainer leaves it dirty); a claim its process
// never hands over (it died) is drained once its lease has ended.
func TestClaimLeavesADrainersRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := fixture(t)
	e := newFlaky(t, db)
	ix := search.NewIndexer(db, e, nil)
	if err := search.MarkDirty(db, "i1"); err != nil {
		t.Fatal(err)
	}
	var seq int64
	db.Raw(`SELECT seq FROM search_outbox WHERE item_id = 'i1'`).Scan(&seq)
	db.Exec(`UPDATE search_outbox SET claimed_until = now() + interval '1 minute', claim_token = 'other' WHERE item_id = 'i1'`)

	claimed := markClaimed(t, db, e, ix, nil, "i1", "i2")
	if claimed == nil {
		t.Fatal("nothing claimed")
	}
	var row struct {
		Seq        int64
		ClaimToken string
	}
	db.Raw(`SELECT seq, claim_token FROM search_outbox WHERE item_id = 'i1'`).Scan(&row)
	if row.ClaimToken != "other" || row.Seq <= seq {
		t.Fatalf("the drainer's row: token %q, seq %d (was %d)", row.ClaimToken, row.Seq, seq)
	}

	// The process died before it handed i2 over: its lease ends, a drain
	// takes it (and i1, whose drainer is gone too).
	if n, err := search.Drain(ctx, db, e, 10); n != 0 || err != nil {
		t.Fatalf("drain within the leases: %d %v", n, err)
	}
	db.Exec(`UPDATE search_outbox SET claimed_until = now() - interval '1 second'`)
	if n, err := search.Drain(ctx, db, e, 10); n != 2 || err != nil || !found(t, e, "i1") || !found(t, e, "i2") {
		t.Fatalf("drain after the leases: %d %v", n, err)
	}
}

// TestClaimedWithoutIndexerOrInTransactions: without an indexer in the
// process, or with an engine that indexes in transactions, nothing is
// claimed: the drain (or the transaction) does the work as before.
func TestClaimedWithoutIndexerOrInTransactions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := fixture(t)
	e := newFlaky(t, db)
	if c := markClaimed(t, db, e, nil, nil, "i1"); c != nil {
		t.Fatal("claimed without an indexer")
	}
	if got := outbox(t, db); !slices.Equal(got, []string{"i1"}) {
		t.Fatalf("outbox %v", got)
	}
	if n, err := search.Drain(ctx, db, e, 10); n != 1 || err != nil {
		t.Fatalf("drain: %d %v", n, err)
	}
	tx := newRefusing(t, db)
	ix := search.NewIndexer(db, tx, nil)
	if c := markClaimed(t, db, tx, ix, nil, "i2"); c != nil || !found(t, tx, "i2") {
		t.Fatalf("an engine indexing in transactions: claimed %v", c != nil)
	}
}

// TestTakeReleasesWhatItCannotKeep: an indexer whose sender is busy (here:
// not running) keeps a few claims; the ones beyond are released to the
// drain at once, not waited for.
func TestTakeReleasesWhatItCannotKeep(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	e := newFlaky(t, db)
	ix := search.NewIndexer(db, e, nil)
	var claims []*search.Claimed
	for i := range search.TakeBacklog + 1 {
		claims = append(claims, markClaimed(t, db, e, ix, nil, fmt.Sprintf("x%02d", i)))
	}
	for _, c := range claims {
		ix.Take(c)
	}
	last := fmt.Sprintf("x%02d", search.TakeBacklog)
	deadline := time.Now().Add(time.Minute) // a poll deadline, not a measure
	for slices.Contains(claimedRows(t, db), last) {
		if time.Now().After(deadline) {
			t.Fatal("a claim the indexer could not keep was not released")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := claimedRows(t, db); len(got) != search.TakeBacklog || slices.Contains(got, last) {
		t.Fatalf("claimed rows %v", got)
	}
	var unclaimed []string
	db.Raw(`SELECT item_id FROM search_outbox WHERE claim_token IS NULL`).Scan(&unclaimed)
	if !slices.Equal(unclaimed, []string{last}) {
		t.Fatalf("unclaimed outbox rows %v", unclaimed)
	}
}
