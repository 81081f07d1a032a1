package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/storage"
)

// recordBatch stores a batch's outcomes in one transaction: activity rows,
// item rows, artifacts, search outbox marks and counters. Only items whose
// harvestend row this call inserted are written, so recording an item twice
// (a task delivered twice, even at the same time) writes and counts it once.
//
// The hot statements pass their rows column by column, as Postgres arrays
// (unnest): pgx sends Go slices in binary, which Postgres reads for much
// less than the JSON it would otherwise parse, and the item's extractor data
// is merged into its row by Postgres (jsonb ||), not decoded and re-encoded
// here.
func (h *Handler) recordBatch(ctx context.Context, t *target, batch []*harvested) error {
	if len(batch) == 0 {
		return nil
	}
	now := h.Now().UTC()
	var (
		artifacts   []models.Artifact
		media       mediaRows      // segment parts and captions
		replaced    itemExtractors // (item, extractor) whose earlier artifacts, segments and captions go
		ends        endColumns
		details     activityColumns // failed extractor runs, downloads
		states      itemStates
		dirty, gone []string
		rerun       []string // harvested before: stale artifacts to drop
		failedItem  = map[string]bool{}
		// newData: the metadata of new files' rows, for their search
		// documents (search.Fresh).
		newData = map[string]map[string]map[string]any{}
	)
	for _, hv := range batch {
		it := hv.item
		end := &endRow{Activity: models.Activity{TS: now, Kind: models.ActivityHarvestEnd, RequestID: t.job.RequestID}}
		end.ItemID, end.Name, end.Source = it.ID, it.Name, it.Path
		end.Bytes, end.Duration = hv.entry.Size, hv.took.Milliseconds()
		switch {
		case hv.gone:
			gone = append(gone, it.ID)
			end.Error = "the file no longer exists in storage"
			failedItem[it.ID] = true
		case hv.fail != "":
			end.Error = hv.fail
			failedItem[it.ID] = true
		case hv.outcomes == nil:
			end.Source = hv.note
		default:
			if hv.download != nil {
				details.add(*hv.download)
			}
			mime := it.MimeType
			var data strings.Builder
			var failed, dropped []string
			data.WriteByte('{')
			for _, o := range hv.outcomes {
				if it.LastHarvested != nil {
					replaced.add(it.ID, o.Name)
				}
				if errors.Is(o.Err, extractors.ErrUnsupported) {
					// Not a failure, and nothing to report: the extractor
					// does not handle this file after all. What it found
					// in an earlier version of the file goes.
					dropped = append(dropped, o.Name)
					continue
				}
				if o.Err != nil {
					a := activity(t, models.ActivityExtractor, "")
					a.TS = o.Started.Add(o.Duration).UTC()
					a.ItemID, a.Name, a.Source, a.Count = it.ID, o.Name, it.Name, 1
					a.Duration, a.Bytes = o.Duration.Milliseconds(), hv.entry.Size
					a.Error = o.Err.Error()
					failed = append(failed, o.Name)
					details.add(a)
				} else {
					// A run without error rides on the harvestend row.
					end.ran(o, now)
					if hv.newFile {
						if newData[it.ID] == nil {
							newData[it.ID] = map[string]map[string]any{}
						}
						newData[it.ID][o.Name] = o.Data
					}
					if data.Len() > 1 {
						data.WriteByte(',')
					}
					key, _ := json.Marshal(o.Name)
					data.Write(key)
					data.WriteByte(':')
					data.Write(o.JSON)
					if m, ok := o.Data["mime_type"].(string); ok && o.Name == "mime_type" {
						mime = m
					}
					prefix := hv.artDir + "/" + o.Name + "/"
					for _, art := range o.Artifacts {
						artifacts = append(artifacts, models.Artifact{ItemID: it.ID, Path: prefix + art.Path,
							Extractor: o.Name, Kind: art.Kind, Width: art.Width, Height: art.Height})
					}
					media.add(it.ID, o, prefix)
				}
			}
			data.WriteByte('}')
			end.Count = int64(len(hv.outcomes) - len(dropped))
			if len(failed) > 0 {
				end.Error = fmt.Sprintf("%d extractor(s) failed: %s", len(failed), strings.Join(failed, ", "))
				failedItem[it.ID] = true
			}
			if it.LastHarvested != nil {
				rerun = append(rerun, it.ID)
			}
			dirty = append(dirty, it.ID)
			states.add(data.String(), failed, append(dropped, failed...), encodeRuns(h.Extractors, hv.outcomes), mime, hv)
		}
		ends.add(end)
	}
	dirty = append(dirty, gone...)

	// What the committed transaction finished, for the metrics.
	var harvestedItems, failedItems int64
	err := h.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		conn := tx.Statement.ConnPool // the transaction's database/sql handle
		// The activity rows go first: the harvestend rows this call inserts
		// name the items it finishes, and everything else is written for
		// those only, so a second delivery of a finished item changes nothing.
		extractorNames := []string(t.job.Extractors)
		if extractorNames == nil {
			extractorNames = []string{}
		}
		args := append([]any{t.job.RequestID, t.loc.ID, t.ctr.ID, t.job.ProfileID, extractorNames}, ends.args()...)
		rows, err := conn.QueryContext(ctx, insertActivitiesSQL, append(args, details.args()...)...)
		if err != nil {
			return fmt.Errorf("insert activities: %w", err)
		}
		fresh := map[string]bool{}
		var indexed, failures, successes int64
		for rows.Next() {
			var itemID string
			var count int64
			if err := rows.Scan(&itemID, &count); err != nil {
				rows.Close()
				return err
			}
			fresh[itemID] = true
			if count > 0 {
				indexed++
			}
			switch {
			case failedItem[itemID]:
				failures++
			case count > 0:
				successes++
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("insert activities: %w", err)
		}
		harvestedItems, failedItems = successes, failures
		if len(fresh) == 0 {
			return nil
		}
		stale := func(id string) bool { return !fresh[id] }
		gone, rerun, dirty = slices.DeleteFunc(gone, stale), slices.DeleteFunc(rerun, stale), slices.DeleteFunc(dirty, stale)
		artifacts = slices.DeleteFunc(artifacts, func(a models.Artifact) bool { return !fresh[a.ItemID] })
		if len(gone) > 0 {
			if err := tx.Model(&models.Item{}).Where("id IN ?", gone).Update("deleted_at", now).Error; err != nil {
				return err
			}
		}
		// The items first: what follows refers to their rows.
		if cols := states.columns(fresh, false); len(cols.id) > 0 {
			if _, err := conn.ExecContext(ctx, updateItemsSQL, append([]any{now, t.job.RequestID}, cols.args()...)...); err != nil {
				return fmt.Errorf("update items: %w", err)
			}
		}
		var written []search.Fresh // new files' rows, as inserted
		if cols := states.columns(fresh, true); len(cols.id) > 0 {
			args := append([]any{now, t.job.RequestID, t.loc.ID, t.ctr.ID}, cols.args()...)
			inserted, err := insertItems(ctx, conn, append(args, cols.path, cols.name))
			if err != nil {
				return err
			}
			written = cols.fresh(inserted, t, newData, media.items())
		}
		if len(rerun) > 0 {
			if err := replaced.delete(tx, fresh); err != nil {
				return err
			}
		}
		if len(artifacts) > 0 {
			if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).CreateInBatches(artifacts, 500).Error; err != nil {
				return err
			}
		}
		if err := media.insert(tx, fresh, now); err != nil {
			return err
		}
		searched, err := search.IndexFreshInTx(ctx, tx, h.Search, written, dirty...)
		if err != nil {
			return err
		}
		if searched.Refused != nil {
			h.Logger.Error("search index refused a batch; its items wait in the outbox", slog.String("error", searched.Refused.Error()))
		}
		if indexed+failures+successes == 0 {
			return nil
		}
		if err := tx.Model(&models.Job{}).Where("request_id = ?", t.job.RequestID).Updates(map[string]any{
			"indexed_count": gorm.Expr("indexed_count + ?", indexed),
			"error_count":   gorm.Expr("error_count + ?", failures), "updated": now,
		}).Error; err != nil {
			return err
		}
		upd := map[string]any{
			"harvest_success_count": gorm.Expr("harvest_success_count + ?", successes),
			"harvest_failure_count": gorm.Expr("harvest_failure_count + ?", failures), "updated_at": now,
		}
		if failures > 0 {
			upd["last_harvested_failure"] = now
		}
		return tx.Model(&models.Container{}).Where("id = ?", t.ctr.ID).Updates(upd).Error
	})
	if err == nil {
		h.Metrics.Items(harvestedItems, failedItems)
	}
	return err
}

// encodeRuns writes the Item.Results entries of a harvest's outcomes by
// hand: the version of each extractor, or its version and error when it
// failed; their time and request are the item's last_harvested and
// last_request_id (models.Item.Runs).
func encodeRuns(reg *extractors.Registry, outcomes []extractors.Outcome) []byte {
	b := []byte{'{'}
	for i, o := range outcomes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, o.Name)
		b = append(b, ':')
		version := reg.Version(o.Name)
		if o.Err == nil || errors.Is(o.Err, extractors.ErrUnsupported) {
			b = appendJSONString(b, version)
			continue
		}
		b = append(b, `{"version":`...)
		b = appendJSONString(b, version)
		b = append(b, `,"error":`...)
		b = appendJSONString(b, o.Err.Error())
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// updateItemsSQL stores harvested items: $1 is the time, $2 the request,
// then the columns of itemColumns. The earlier data of an extractor that
// failed, or found the file unsupported, leaves the item; the runs of this
// harvest replace the earlier ones by name, and the earlier ones that stay
// take their time and request with them (models.Item.Runs).
const updateItemsSQL = `
UPDATE items i SET metadata = (i.metadata - string_to_array(x.dropped_names, ',')) || x.data::jsonb,
	results = CASE WHEN i.results = '{}' THEN x.runs::jsonb ELSE (
		SELECT coalesce(jsonb_object_agg(e.k, CASE jsonb_typeof(e.v)
			WHEN 'string' THEN jsonb_build_object('version', e.v, 'error', '', 'ran_at', i.last_harvested, 'request_id', i.last_request_id)
			ELSE jsonb_build_object('error', '', 'ran_at', i.last_harvested, 'request_id', i.last_request_id) || e.v END), '{}')
		FROM jsonb_each(i.results) AS e(k, v)) || x.runs::jsonb END,
	mime_type = x.mime_type, size = x.size, etag = x.etag,
	last_modified = x.last_modified, harvested_etag = x.etag, last_harvested = $1, last_request_id = $2,
	harvest_failed = x.failed, updated_at = $1
FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int8[], $9::text[], $10::timestamptz[], $11::bool[])
	AS x(id, data, dropped_names, runs, mime_type, size, etag, last_modified, failed)
WHERE i.id = x.id`

// insertItemsSQL writes the rows of new files, whole: $1 the time, $2 the
// request, $3 and $4 location and container, then the columns of
// itemColumns, path and name. A file another harvest made an item
// meanwhile gets this harvest's data merged in. It returns each row's id
// and whether it inserted the row (xmax 0) rather than merged into it.
const insertItemsSQL = `
INSERT INTO items AS i (id, location_id, container_id, path, name, size, etag, last_modified, mime_type, harvested_etag,
	last_harvested, last_request_id, harvest_failed, last_seen_at, metadata, results, created_at, updated_at)
SELECT x.id, $3, $4, x.path, x.name, x.size, x.etag, x.last_modified, x.mime_type, x.etag,
	$1, $2, x.failed, $1, x.data::jsonb, x.runs::jsonb, $1, $1
FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::int8[], $11::text[], $12::timestamptz[], $13::bool[],
	$14::text[], $15::text[])
	AS x(id, data, dropped_names, runs, mime_type, size, etag, last_modified, failed, path, name)
ON CONFLICT (id) DO UPDATE SET metadata = i.metadata || excluded.metadata, results = i.results || excluded.results,
	mime_type = excluded.mime_type, size = excluded.size, etag = excluded.etag, last_modified = excluded.last_modified,
	harvested_etag = excluded.harvested_etag, last_harvested = excluded.last_harvested,
	last_request_id = excluded.last_request_id, harvest_failed = excluded.harvest_failed,
	last_seen_at = excluded.last_seen_at, deleted_at = NULL, updated_at = excluded.updated_at
RETURNING i.id, i.xmax = 0`

// insertItems runs insertItemsSQL with args and returns the ids of the
// rows it inserted (not those it merged into a row another harvest made).
func insertItems(ctx context.Context, conn gorm.ConnPool, args []any) (map[string]bool, error) {
	rows, err := conn.QueryContext(ctx, insertItemsSQL, args...)
	if err != nil {
		return nil, fmt.Errorf("insert items: %w", err)
	}
	defer rows.Close()
	inserted := map[string]bool{}
	for rows.Next() {
		var id string
		var isNew bool
		if err := rows.Scan(&id, &isNew); err != nil {
			return nil, fmt.Errorf("insert items: %w", err)
		}
		if isNew {
			inserted[id] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("insert items: %w", err)
	}
	return inserted, nil
}

// fresh are the rows of inserted, as insertItemsSQL wrote them with the
// target's location and container and the extractors' data of each item;
// withMedia holds the items with segment parts or captions.
func (c *itemColumns) fresh(inserted map[string]bool, t *target, data map[string]map[string]map[string]any, withMedia map[string]bool) []search.Fresh {
	out := make([]search.Fresh, 0, len(inserted))
	for i, id := range c.id {
		if !inserted[id] {
			continue
		}
		out = append(out, search.Fresh{ID: id, Name: c.name[i], Path: c.path[i], MimeType: c.mime[i], Size: c.size[i],
			LastModified: c.lastModified[i], LocationID: t.loc.ID, LocationKind: t.loc.Kind, LocationName: t.loc.Name,
			ContainerID: t.ctr.ID, ContainerName: t.ctr.Name, Data: data[id], Media: withMedia[id]})
	}
	return out
}

// itemStates are the harvested items of a batch.
type itemStates []itemState

type itemState struct {
	id, data, droppedNames, runs, mime string
	failed                             bool
	entry                              storage.Entry
	// newFile: no items row yet (insertItemsSQL); path and name for it.
	newFile    bool
	path, name string
}

func (s *itemStates) add(data string, failed, dropped []string, runs []byte, mime string, hv *harvested) {
	*s = append(*s, itemState{id: hv.item.ID, data: data, droppedNames: strings.Join(dropped, ","), failed: len(failed) > 0,
		runs: string(runs), mime: mime, entry: hv.entry, newFile: hv.newFile, path: hv.item.Path, name: hv.item.Name})
}

// columns are the states of the items in keep, new files or items as
// newFiles says, column by column, in id order: the order every writer
// locks item rows in (search.Drain too), so that two transactions over the
// same items wait for each other rather than deadlock.
func (s itemStates) columns(keep map[string]bool, newFiles bool) itemColumns {
	var c itemColumns
	s = slices.Clone(s)
	slices.SortFunc(s, func(a, b itemState) int { return strings.Compare(a.id, b.id) })
	for _, st := range s {
		if !keep[st.id] || st.newFile != newFiles {
			continue
		}
		c.id = append(c.id, st.id)
		c.data = append(c.data, st.data)
		c.droppedNames = append(c.droppedNames, st.droppedNames)
		c.failed = append(c.failed, st.failed)
		c.runs = append(c.runs, st.runs)
		c.mime = append(c.mime, st.mime)
		c.size = append(c.size, st.entry.Size)
		c.etag = append(c.etag, st.entry.ETag)
		c.lastModified = append(c.lastModified, st.entry.LastModified.UTC())
		c.path = append(c.path, st.path)
		c.name = append(c.name, st.name)
	}
	return c
}

// itemColumns are item states column by column, as updateItemsSQL takes
// them (path and name apart: only insertItemsSQL takes them).
type itemColumns struct {
	id, data, droppedNames, runs, mime, etag, path, name []string
	size                                                 []int64
	lastModified                                         []time.Time
	failed                                               []bool
}

func (c *itemColumns) args() []any {
	return []any{c.id, c.data, c.droppedNames, c.runs, c.mime, c.size, c.etag, c.lastModified, c.failed}
}

// insertActivitiesSQL writes a batch's activity rows. $1..$5 are the
// columns shared by the job's rows (request, location, container, profile,
// extractors); $6..$17 the harvestend rows (endColumns: keyed by request
// and item, the job's columns left to the jobs row, the extractor runs
// without error folded in) and $18..$28 the failed extractor runs and
// downloads, as activityColumns. A harvestend row whose key exists is
// skipped and so are the other rows of its item; the statement returns the
// harvestend rows it inserted.
const insertActivitiesSQL = `
WITH ends AS (
	INSERT INTO activities (dedupe_key, ts, kind, name, source, item_id, count, bytes, error, error_hash, duration,
		request_id, runs, run_ms, run_end_us)
	SELECT '', x.ts, 'harvestend', x.name, x.source, x.item_id, x.count, x.bytes, x.error, x.error_hash, x.duration, $1,
		string_to_array(NULLIF(x.runs, ''), ','), string_to_array(NULLIF(x.ms, ''), ',')::integer[],
		string_to_array(NULLIF(x.end_us, ''), ',')::bigint[]
	FROM unnest($6::timestamptz[], $7::text[], $8::text[], $9::text[], $10::int8[], $11::int8[], $12::text[],
		$13::text[], $14::int8[], $15::text[], $16::text[], $17::text[])
		AS x(ts, name, source, item_id, count, bytes, error, error_hash, duration, runs, ms, end_us)
	ON CONFLICT (request_id, item_id) WHERE kind = 'harvestend' DO NOTHING
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

// endRow is a harvestend row and the extractor runs without error it
// carries.
type endRow struct {
	models.Activity
	runs, ms, endUS []string
}

// ran adds a run without error, ended before the row's time now.
func (e *endRow) ran(o extractors.Outcome, now time.Time) {
	e.runs = append(e.runs, o.Name)
	e.ms = append(e.ms, strconv.FormatInt(o.Duration.Milliseconds(), 10))
	e.endUS = append(e.endUS, strconv.FormatInt(max(0, now.Sub(o.Started.Add(o.Duration)).Microseconds()), 10))
}

// endColumns are harvestend rows, column by column.
type endColumns struct {
	name, source, item, err, errHash, runs, ms, endUS []string
	ts                                                []time.Time
	count, bytes, duration                            []int64
}

func (c *endColumns) add(e *endRow) {
	if e.Error != "" && e.ErrorHash == "" {
		e.ErrorHash = errorHash(e.Error)
	}
	c.ts = append(c.ts, e.TS)
	c.name = append(c.name, e.Name)
	c.source = append(c.source, e.Source)
	c.item = append(c.item, e.ItemID)
	c.count = append(c.count, e.Count)
	c.bytes = append(c.bytes, e.Bytes)
	c.err = append(c.err, e.Error)
	c.errHash = append(c.errHash, e.ErrorHash)
	c.duration = append(c.duration, e.Duration)
	c.runs = append(c.runs, strings.Join(e.runs, ","))
	c.ms = append(c.ms, strings.Join(e.ms, ","))
	c.endUS = append(c.endUS, strings.Join(e.endUS, ","))
}

// args are the columns in the order of insertActivitiesSQL's first unnest.
func (c *endColumns) args() []any {
	return []any{c.ts, c.name, c.source, c.item, c.count, c.bytes, c.err, c.errHash, c.duration, c.runs, c.ms, c.endUS}
}

// activityColumns are activity rows of one job, column by column.
type activityColumns struct {
	key, kind, name, source, item, err, errHash []string
	ts                                          []time.Time
	count, bytes, duration                      []int64
}

func (c *activityColumns) add(a models.Activity) {
	if a.Error != "" && a.ErrorHash == "" {
		a.ErrorHash = errorHash(a.Error)
	}
	c.key = append(c.key, a.DedupeKey)
	c.ts = append(c.ts, a.TS)
	c.kind = append(c.kind, a.Kind)
	c.name = append(c.name, a.Name)
	c.source = append(c.source, a.Source)
	c.item = append(c.item, a.ItemID)
	c.count = append(c.count, a.Count)
	c.bytes = append(c.bytes, a.Bytes)
	c.err = append(c.err, a.Error)
	c.errHash = append(c.errHash, a.ErrorHash)
	c.duration = append(c.duration, a.Duration)
}

// args are the columns in the order of insertActivitiesSQL's unnest; empty
// columns are sent as empty arrays, not NULL.
func (c *activityColumns) args() []any {
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	ts, count, bytes, duration := c.ts, c.count, c.bytes, c.duration
	if ts == nil {
		ts, count, bytes, duration = []time.Time{}, []int64{}, []int64{}, []int64{}
	}
	return []any{nonNil(c.key), ts, nonNil(c.kind), nonNil(c.name), nonNil(c.source), nonNil(c.item),
		count, bytes, nonNil(c.err), nonNil(c.errHash), duration}
}
