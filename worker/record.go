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

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/store"
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
	if h.Search != nil {
		paced := search.KeepPace(ctx, h.Search, h.indexer, len(batch))
		defer paced()
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
		// newRuns: the extractors run on each new file, whose earlier
		// artifacts go should another harvest have made it an item since
		// the walk (the row is then updated: see below).
		newRuns = map[string][]string{}
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
				} else if hv.newFile {
					newRuns[it.ID] = append(newRuns[it.ID], o.Name)
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
	var replacedFiles []string  // artifacts of earlier harvests, their rows replaced
	var claimed *search.Claimed // items this process indexes once committed
	select {
	case h.recording <- struct{}{}:
		defer func() { <-h.recording }()
	case <-ctx.Done():
		return ctx.Err()
	}
	err := h.DB.WithContext(ctx).Transaction(func(tx *store.DB) error {
		// The activity rows go first: the harvestend rows this call inserts
		// name the items it finishes, and everything else is written for
		// those only, so a second delivery of a finished item changes nothing.
		fresh := map[string]bool{}
		var indexed, failures, successes int64
		err := store.InsertHarvestActivities(tx, &t.job, t.loc.ID, t.ctr.ID, &ends.HarvestEnds, &details.ActivityRows,
			func(itemID string, count int64) {
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
			})
		if err != nil {
			return err
		}
		harvestedItems, failedItems = successes, failures
		if len(fresh) == 0 {
			return nil
		}
		stale := func(id string) bool { return !fresh[id] }
		gone, rerun, dirty = slices.DeleteFunc(gone, stale), slices.DeleteFunc(rerun, stale), slices.DeleteFunc(dirty, stale)
		artifacts = slices.DeleteFunc(artifacts, func(a models.Artifact) bool { return !fresh[a.ItemID] })
		if len(gone) > 0 {
			if err := store.MarkItemsDeleted(tx, gone, now); err != nil {
				return err
			}
		}
		// The items first: what follows refers to their rows.
		if cols := states.columns(fresh, false); len(cols.ID) > 0 {
			if err := store.UpdateHarvestedItems(tx, now, t.job.RequestID, &cols); err != nil {
				return err
			}
		}
		var written []search.Fresh // new files' rows, as inserted
		if cols := states.columns(fresh, true); len(cols.ID) > 0 {
			inserted, err := store.InsertHarvestedItems(tx, now, t.job.RequestID, t.loc.ID, t.ctr.ID, &cols)
			if err != nil {
				return err
			}
			written = freshRows(&cols, inserted, t, newData, media.items())
			// A file another harvest made an item since the walk found
			// none (the batch does not look on a first delivery: Item):
			// stored as a harvested item, what earlier runs of the same
			// extractors left going as for any item harvested again.
			merged := map[string]bool{}
			for _, id := range cols.ID {
				if !inserted[id] {
					merged[id] = true
					rerun = append(rerun, id)
					for _, name := range newRuns[id] {
						replaced.add(id, name)
					}
				}
			}
			if len(merged) > 0 {
				mc := states.columns(merged, true)
				if err := store.UpdateHarvestedItems(tx, now, t.job.RequestID, &mc); err != nil {
					return err
				}
			}
		}
		if len(rerun) > 0 {
			if replacedFiles, err = replaced.delete(tx, fresh); err != nil {
				return err
			}
		}
		if len(artifacts) > 0 {
			if err := store.UpsertArtifacts(tx, artifacts); err != nil {
				return err
			}
		}
		if err := media.insert(tx, fresh, now); err != nil {
			return err
		}
		searched, err := search.IndexFreshInTx(ctx, tx, h.Search, h.indexer, written, dirty...)
		if err != nil {
			return err
		}
		claimed = searched.Claimed
		if searched.Refused != nil {
			h.Logger.Error("search index refused a batch; its items wait in the outbox", slog.String("error", searched.Refused.Error()))
		}
		if indexed+failures+successes == 0 {
			return nil
		}
		if err := store.CountJobHarvest(tx, t.job.RequestID, indexed, failures, now); err != nil {
			return err
		}
		return store.CountContainerHarvest(tx, t.ctr.ID, successes, failures, now)
	})
	if err == nil {
		h.indexer.Take(claimed)
		h.Metrics.Items(harvestedItems, failedItems)
		if len(replacedFiles) > 0 {
			written := make(map[string]bool, len(artifacts))
			for _, a := range artifacts {
				written[a.Path] = true
			}
			h.dropArtifacts(ctx, replacedFiles, written)
		}
		if h.assigner != nil && len(media.faces.Item) > 0 {
			h.assigner.Wake()
		}
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

// freshRows are the rows of inserted, as store.InsertHarvestedItems wrote
// them from c with the target's location and container and the extractors'
// data of each item; withMedia holds the items with segment parts or
// captions.
func freshRows(c *store.ItemColumns, inserted map[string]bool, t *target, data map[string]map[string]map[string]any, withMedia map[string]bool) []search.Fresh {
	out := make([]search.Fresh, 0, len(inserted))
	for i, id := range c.ID {
		if !inserted[id] {
			continue
		}
		out = append(out, search.Fresh{ID: id, Name: c.Name[i], Path: c.Path[i], MimeType: c.Mime[i], Size: c.Size[i],
			LastModified: c.LastModified[i], LocationID: t.loc.ID, LocationKind: t.loc.Kind, LocationName: t.loc.Name,
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
	// newFile: no items row yet (store.InsertHarvestedItems); path and
	// name for it.
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
func (s itemStates) columns(keep map[string]bool, newFiles bool) store.ItemColumns {
	var c store.ItemColumns
	s = slices.Clone(s)
	slices.SortFunc(s, func(a, b itemState) int { return strings.Compare(a.id, b.id) })
	for _, st := range s {
		if !keep[st.id] || st.newFile != newFiles {
			continue
		}
		c.ID = append(c.ID, st.id)
		c.Data = append(c.Data, st.data)
		c.DroppedNames = append(c.DroppedNames, st.droppedNames)
		c.Failed = append(c.Failed, st.failed)
		c.Runs = append(c.Runs, st.runs)
		c.Mime = append(c.Mime, st.mime)
		c.Size = append(c.Size, st.entry.Size)
		c.ETag = append(c.ETag, st.entry.ETag)
		c.LastModified = append(c.LastModified, st.entry.LastModified.UTC())
		c.Path = append(c.Path, st.path)
		c.Name = append(c.Name, st.name)
	}
	return c
}

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
type endColumns struct{ store.HarvestEnds }

func (c *endColumns) add(e *endRow) {
	if e.Error != "" && e.ErrorHash == "" {
		e.ErrorHash = errorHash(e.Error)
	}
	c.TS = append(c.TS, e.TS)
	c.Name = append(c.Name, e.Name)
	c.Source = append(c.Source, e.Source)
	c.Item = append(c.Item, e.ItemID)
	c.Count = append(c.Count, e.Count)
	c.Bytes = append(c.Bytes, e.Bytes)
	c.Err = append(c.Err, e.Error)
	c.ErrHash = append(c.ErrHash, e.ErrorHash)
	c.Duration = append(c.Duration, e.Duration)
	c.Runs = append(c.Runs, strings.Join(e.runs, ","))
	c.MS = append(c.MS, strings.Join(e.ms, ","))
	c.EndUS = append(c.EndUS, strings.Join(e.endUS, ","))
}

// activityColumns are activity rows of one job, column by column.
type activityColumns struct{ store.ActivityRows }

func (c *activityColumns) add(a models.Activity) {
	if a.Error != "" && a.ErrorHash == "" {
		a.ErrorHash = errorHash(a.Error)
	}
	c.Key = append(c.Key, a.DedupeKey)
	c.TS = append(c.TS, a.TS)
	c.Kind = append(c.Kind, a.Kind)
	c.Name = append(c.Name, a.Name)
	c.Source = append(c.Source, a.Source)
	c.Item = append(c.Item, a.ItemID)
	c.Count = append(c.Count, a.Count)
	c.Bytes = append(c.Bytes, a.Bytes)
	c.Err = append(c.Err, a.Error)
	c.ErrHash = append(c.ErrHash, a.ErrorHash)
	c.Duration = append(c.Duration, a.Duration)
}
