package store

import (
	"fmt"
	"time"

	"github.com/metaharvest/metaharvest/models"
)

// The activity rows of a harvest's item task (worker/record.go): written
// first in the batch's transaction, they say which items the transaction
// finishes.

// insertActivitiesSQL writes a batch's activity rows. $1..$5 are the
// columns shared by the job's rows (request, location, container, profile,
// extractors); $6..$17 the harvestend rows (HarvestEnds: keyed by request
// and item, the job's columns left to the jobs row, the extractor runs
// without error folded in) and $18..$28 the failed extractor runs and
// downloads, as ActivityRows. The statement returns the harvestend rows it
// inserted. It has two forms (InsertExpectingNew): insertActivitiesSQL
// expects every harvestend row to be new, and fails on one whose key is
// there; keyedActivitiesSQL skips such a row (ON CONFLICT), and so the
// other rows of its item.
var insertActivitiesSQL, keyedActivitiesSQL = fmt.Sprintf(activitiesSQL, ""),
	fmt.Sprintf(activitiesSQL, "ON CONFLICT (request_id, item_id) WHERE kind = 'harvestend' DO NOTHING")

const activitiesSQL = `
WITH ends AS (
	INSERT INTO activities (dedupe_key, ts, kind, name, source, item_id, count, bytes, error, error_hash, duration,
		request_id, runs, run_ms, run_end_us)
	SELECT '', x.ts, 'harvestend', x.name, x.source, x.item_id, x.count, x.bytes, x.error, x.error_hash, x.duration, $1,
		string_to_array(NULLIF(x.runs, ''), ','), string_to_array(NULLIF(x.ms, ''), ',')::integer[],
		string_to_array(NULLIF(x.end_us, ''), ',')::bigint[]
	FROM unnest($6::timestamptz[], $7::text[], $8::text[], $9::text[], $10::int8[], $11::int8[], $12::text[],
		$13::text[], $14::int8[], $15::text[], $16::text[], $17::text[])
		AS x(ts, name, source, item_id, count, bytes, error, error_hash, duration, runs, ms, end_us)
	%s
	RETURNING item_id, count
), details AS (
	INSERT INTO activities (dedupe_key, ts, kind, name, source, item_id, count, bytes, error, error_hash, duration,
		request_id, harvest_id, location_id, container_id, profile_id, extractors)
	SELECT y.*, $1, $1, $2, $3, $4, $5
	FROM unnest($18::text[], $19::timestamptz[], $20::text[], $21::text[], $22::text[], $23::text[], $24::int8[],
		$25::int8[], $26::text[], $27::text[], $28::int8[])
		AS y(dedupe_key, ts, kind, name, source, item_id, count, bytes, error, error_hash, duration)
	WHERE y.item_id IN (SELECT item_id FROM ends)
)
SELECT item_id, count FROM ends`

// HarvestEnds are harvestend rows, column by column, in the order of
// insertActivitiesSQL's first unnest: keyed by request and item, the job's
// columns left to the jobs row, the extractor runs without error folded in
// (Runs, MS, EndUS: comma-separated).
type HarvestEnds struct {
	Name, Source, Item, Err, ErrHash, Runs, MS, EndUS []string
	TS                                                []time.Time
	Count, Bytes, Duration                            []int64
}

// args are the columns in the order of insertActivitiesSQL's first unnest.
func (c *HarvestEnds) args() []any {
	return []any{c.TS, c.Name, c.Source, c.Item, c.Count, c.Bytes, c.Err, c.ErrHash, c.Duration, c.Runs, c.MS, c.EndUS}
}

// ActivityRows are activity rows of one job, column by column.
type ActivityRows struct {
	Key, Kind, Name, Source, Item, Err, ErrHash []string
	TS                                          []time.Time
	Count, Bytes, Duration                      []int64
}

// args are the columns in the order of insertActivitiesSQL's unnest; empty
// columns are sent as empty arrays, not NULL.
func (c *ActivityRows) args() []any {
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	ts, count, bytes, duration := c.TS, c.Count, c.Bytes, c.Duration
	if ts == nil {
		ts, count, bytes, duration = []time.Time{}, []int64{}, []int64{}, []int64{}
	}
	return []any{nonNil(c.Key), ts, nonNil(c.Kind), nonNil(c.Name), nonNil(c.Source), nonNil(c.Item),
		count, bytes, nonNil(c.Err), nonNil(c.ErrHash), duration}
}

// InsertHarvestActivities writes a batch's activity rows of the job in the
// location's container (insertActivitiesSQL): its harvestend rows and the
// other rows (failed extractor runs, downloads) of the items whose
// harvestend row it inserted. It calls inserted with the item and count of
// each harvestend row it inserted.
func InsertHarvestActivities(tx *DB, job *models.Job, locationID, containerID string, ends *HarvestEnds, details *ActivityRows,
	inserted func(itemID string, count int64)) error {
	extractorNames := []string(job.Extractors)
	if extractorNames == nil {
		extractorNames = []string{}
	}
	args := append([]any{job.RequestID, locationID, containerID, job.ProfileID, extractorNames}, ends.args()...)
	args = append(args, details.args()...)
	conn, err := TxConn(tx)
	if err != nil {
		return err
	}
	ctx := tx.Statement.Context
	type end struct {
		item  string
		count int64
	}
	var got []end
	run := func(query string) error {
		got = got[:0]
		rows, err := conn.QueryContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("insert activities: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var e end
			if err := rows.Scan(&e.item, &e.count); err != nil {
				return fmt.Errorf("insert activities: %w", err)
			}
			got = append(got, e)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("insert activities: %w", err)
		}
		return nil
	}
	err = InsertExpectingNew(ctx, conn, func() error { return run(insertActivitiesSQL) }, func() error { return run(keyedActivitiesSQL) })
	if err != nil {
		return err
	}
	for _, e := range got {
		inserted(e.item, e.count)
	}
	return nil
}
