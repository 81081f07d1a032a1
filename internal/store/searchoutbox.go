package store

import (
	"database/sql/driver"
	"fmt"
	"time"

	"github.com/metaharvest/metaharvest/models"
)

// The statements of the search outbox (table search_outbox; how it works
// is said at the top of search/outbox.go). A mark notifies channel when
// its transaction commits.

// MarkDirty inserts the items in the outbox, or bumps their sequence
// number when they are there, and notifies channel if it marked any.
func MarkDirty(tx *DB, channel string, ids []string) error {
	return tx.Exec(`
WITH marked AS (
    INSERT INTO search_outbox (item_id)
    SELECT unnest(?::text[])
    ON CONFLICT (item_id) DO UPDATE
    SET seq = nextval('search_outbox_seq'), enqueued_at = clock_timestamp()
    RETURNING 1)
SELECT pg_notify(?, '') FROM (SELECT 1 FROM marked LIMIT 1) m`, models.Strings(ids), channel).Error
}

// MarkDirtyClaimed is MarkDirty for a caller that indexes the items itself
// once tx has committed: it also claims their rows for lease under token,
// except the rows a drainer holds a live claim on (those are only marked
// again: that drainer leaves them dirty). It returns the rows it claimed,
// and notifies channel if it left any to the drainers.
func MarkDirtyClaimed(tx *DB, channel string, ids []string, lease time.Duration, token string) ([]Claim, error) {
	var rows []struct {
		ItemID  string
		Seq     int64
		Claimed bool
	}
	err := tx.Raw(`
WITH marked AS (
    INSERT INTO search_outbox AS o (item_id, claimed_until, claim_token)
    SELECT unnest(?::text[]), now() + make_interval(secs => ?), ?
    ON CONFLICT (item_id) DO UPDATE
    SET seq = nextval('search_outbox_seq'), enqueued_at = clock_timestamp(),
        claimed_until = CASE WHEN o.claimed_until IS NULL OR o.claimed_until < now()
                             THEN excluded.claimed_until ELSE o.claimed_until END,
        claim_token = CASE WHEN o.claimed_until IS NULL OR o.claimed_until < now()
                           THEN excluded.claim_token ELSE o.claim_token END
    RETURNING o.item_id, o.seq, o.claim_token = ? AS claimed),
left_over AS (
    SELECT pg_notify(?, '') FROM (SELECT 1 FROM marked WHERE NOT claimed LIMIT 1) m)
SELECT item_id, seq, claimed FROM marked, (SELECT count(*) FROM left_over) n`,
		models.Strings(ids), lease.Seconds(), token, token, channel).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	claims := make([]Claim, 0, len(rows))
	for _, r := range rows {
		if r.Claimed {
			claims = append(claims, Claim{ItemID: r.ItemID, Seq: r.Seq})
		}
	}
	return claims, nil
}

// MarkDirtyWhere is MarkDirty for every live item matching cond (a WHERE
// clause over items with its arguments args), in one statement.
func MarkDirtyWhere(tx *DB, channel, cond string, args ...any) error {
	return tx.Exec(`
WITH marked AS (
    INSERT INTO search_outbox (item_id)
    SELECT id FROM items WHERE deleted_at IS NULL AND (`+cond+`)
    ON CONFLICT (item_id) DO UPDATE
    SET seq = nextval('search_outbox_seq'), enqueued_at = clock_timestamp()
    RETURNING 1)
SELECT pg_notify(?, '') FROM (SELECT 1 FROM marked LIMIT 1) m`, append(args, channel)...).Error
}

// MarkAllDirty puts every live item in the outbox, without notifying:
// a reindex drains at once.
func MarkAllDirty(db *DB) error {
	return db.Exec(`
INSERT INTO search_outbox (item_id)
SELECT id FROM items WHERE deleted_at IS NULL
ON CONFLICT (item_id) DO UPDATE
SET seq = nextval('search_outbox_seq'), enqueued_at = clock_timestamp()`).Error
}

// LockOutbox locks up to batch outbox rows in tx, the oldest first,
// skipping those another transaction holds, and returns their items.
func LockOutbox(tx *DB, batch int) ([]string, error) {
	var ids []string
	err := tx.Raw(`SELECT item_id FROM search_outbox ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED`, batch).
		Scan(&ids).Error
	return ids, err
}

// LockItems locks the rows of the items in tx (in id order), waiting for a
// transaction that holds them.
func LockItems(tx *DB, ids []string) error {
	return tx.Exec(`SELECT 1 FROM items WHERE id = ANY(?::text[]) ORDER BY id FOR NO KEY UPDATE`,
		models.Strings(ids)).Error
}

// ClearOutbox deletes the outbox rows of the items.
func ClearOutbox(tx *DB, ids []string) error {
	return tx.Exec(`DELETE FROM search_outbox WHERE item_id = ANY(?::text[])`, models.Strings(ids)).Error
}

// Claim is an outbox row a drainer claimed: its item and the sequence
// number it had then.
type Claim struct {
	ItemID string
	Seq    int64
}

// ClaimOutbox claims up to batch unclaimed (or expired) outbox rows, the
// oldest first, for lease, under token.
func ClaimOutbox(db *DB, lease time.Duration, token string, batch int) ([]Claim, error) {
	var rows []Claim
	err := db.Raw(`
UPDATE search_outbox o SET claimed_until = now() + make_interval(secs => ?), claim_token = ?
WHERE o.item_id IN (
    SELECT item_id FROM search_outbox
    WHERE claimed_until IS NULL OR claimed_until < now()
    ORDER BY seq
    LIMIT ?
    FOR UPDATE SKIP LOCKED)
RETURNING o.item_id, o.seq`, lease.Seconds(), token, batch).Scan(&rows).Error
	return rows, err
}

// RenewClaims extends the lease of the rows claimed under tokens.
func RenewClaims(db *DB, lease time.Duration, tokens []string) error {
	return db.Exec(`UPDATE search_outbox SET claimed_until = now() + make_interval(secs => ?) WHERE claim_token = ANY(?::text[])`,
		lease.Seconds(), models.Strings(tokens)).Error
}

// ReleaseClaims gives up the rows still claimed under tokens.
func ReleaseClaims(db *DB, tokens []string) error {
	return db.Exec(`UPDATE search_outbox SET claimed_until = NULL, claim_token = NULL WHERE claim_token = ANY(?::text[])`,
		models.Strings(tokens)).Error
}

// DeleteClaimed deletes the rows claimed under tokens of the items ids
// whose sequence number is still the one in seqs (same index): an item
// marked again meanwhile stays.
func DeleteClaimed(db *DB, tokens []string, ids []string, seqs []int64) error {
	return db.Exec(`
DELETE FROM search_outbox o
USING unnest(?::text[], ?::bigint[]) AS done(item_id, seq)
WHERE o.item_id = done.item_id AND o.seq = done.seq AND o.claim_token = ANY(?::text[])`,
		models.Strings(ids), int64Array(seqs), models.Strings(tokens)).Error
}

// OutboxDepth counts the rows of the outbox.
func OutboxDepth(db *DB) (int64, error) {
	var n int64
	err := db.Raw(`SELECT count(*) FROM search_outbox`).Scan(&n).Error
	return n, err
}

// OutboxLastSeq is the highest sequence number in the outbox (0 when it
// is empty): the rows marked so far have it or a lower one.
func OutboxLastSeq(db *DB) (int64, error) {
	var n int64
	err := db.Raw(`SELECT coalesce(max(seq), 0) FROM search_outbox`).Scan(&n).Error
	return n, err
}

// OutboxDepthThrough counts the rows of the outbox marked at or before
// sequence number seq (a row marked again since has a higher one).
func OutboxDepthThrough(db *DB, seq int64) (int64, error) {
	var n int64
	err := db.Raw(`SELECT count(*) FROM search_outbox WHERE seq <= ?`, seq).Scan(&n).Error
	return n, err
}

// RebuildStart reads the database's clock and the number of live items.
func RebuildStart(db *DB) (now time.Time, items int64, err error) {
	row := struct {
		Now   time.Time
		Items int64
	}{}
	err = db.Raw(`SELECT now() AS now, (SELECT count(*) FROM items WHERE deleted_at IS NULL) AS items`).Scan(&row).Error
	return row.Now, row.Items, err
}

// int64Array renders a Postgres bigint[] literal (GORM passes it as text).
type int64Array []int64

func (a int64Array) Value() (driver.Value, error) {
	b := []byte{'{'}
	for i, v := range a {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "%d", v)
	}
	return string(append(b, '}')), nil
}
