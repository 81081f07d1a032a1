package meili

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/meilisearch/meilisearch-go"

	"github.com/metaharvest/metaharvest/search"
)

// Writes are sent without waiting for their tasks: Meilisearch has each
// one on disk when it answers (a task survives a kill and runs after the
// restart) and runs them in the order sent, so that the next batch is built
// while it indexes this one, and consecutive batches are indexed together
// (autobatching). The engine keeps the tasks it sent and waits only where a
// read needs what was written (read-your-writes):
//   - UpsertSegments reads the items' visibility lists from the items index:
//     it waits for the items' tasks first;
//   - Sync waits for every task sent (reindex ends with it; tests call it
//     before they search);
//   - a document the engine was asked to write again after its task failed
//     is sent alone and waited for, so that the caller learns which one
//     Meilisearch refuses (the drain then leaves it dirty, see search.Drain);
//   - more than maxPending tasks outstanding: the oldest is waited for (so
//     that a harvest does not run ahead of what Meilisearch indexes).
//
// A task that fails after it was accepted has its items marked dirty again
// (Config.DB), so that nothing is lost: the drain writes them again.

// Batch sizes of one request: Meilisearch indexes a payload of a few MiB as
// fast per document as a larger one, and consecutive tasks of an index are
// indexed together anyway.
const (
	maxBatchDocs  = 10_000
	maxBatchBytes = 8 << 20
	maxPending    = 32
)

// sent is a task the engine has not seen done.
type sent struct {
	uid   int64
	index string
	items []string // the items whose documents (or segments) it writes
}

type writes struct {
	mu      sync.Mutex
	pending []sent
	retry   map[string]bool // items of failed tasks, sent alone next time
}

func (w *writes) add(s sent) {
	w.mu.Lock()
	w.pending = append(w.pending, s)
	w.mu.Unlock()
}

// Upsert sends documents and returns when Meilisearch has their task (see
// above: they are searchable once it ran, which Sync waits for). It also
// sends the new visibility lists of the segments of these items.
func (e *Engine) Upsert(ctx context.Context, docs []search.Document) error {
	if len(docs) == 0 {
		return nil
	}
	prepared := make([]*search.Prepared, 0, len(docs))
	for _, d := range docs {
		p, err := search.PrepareItem(d)
		if err != nil {
			return fmt.Errorf("index document %q: %w", d.ID(), err)
		}
		prepared = append(prepared, p)
	}
	if err := e.learn(ctx, search.ScopeItems, prepared); err != nil {
		return err
	}
	if err := e.send(ctx, e.items, prepared, itemsOf(prepared, false), "index documents"); err != nil {
		return err
	}
	return e.refreshSegmentGroups(ctx, prepared)
}

// itemsOf lists the item ids of prepared documents (of segments: their
// item_id).
func itemsOf(prepared []*search.Prepared, segments bool) []string {
	out := make([]string, 0, len(prepared))
	for _, p := range prepared {
		if !segments {
			out = append(out, p.ID)
		} else if id, ok := p.Public["item_id"].(string); ok {
			out = append(out, id)
		}
	}
	return out
}

// send adds or replaces documents of an index in batches sized for
// Meilisearch, without waiting for their tasks, except for items whose
// last task failed: those are sent alone and waited for.
func (e *Engine) send(ctx context.Context, index string, prepared []*search.Prepared, items []string, what string) error {
	e.settle(ctx)
	var retry, rest []*search.Prepared
	var retryItems, restItems []string
	e.writes.mu.Lock()
	for i, p := range prepared {
		if e.writes.retry[items[i]] {
			retry, retryItems = append(retry, p), append(retryItems, items[i])
		} else {
			rest, restItems = append(rest, p), append(restItems, items[i])
		}
	}
	e.writes.mu.Unlock()
	pk := search.FieldID
	opts := &meilisearch.DocumentOptions{PrimaryKey: &pk}
	for i, p := range retry {
		raw, err := json.Marshal(document(p))
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		info, err := e.client.Index(index).AddDocumentsNdjsonWithContext(ctx, raw, opts)
		if err != nil {
			return wrapErr(fmt.Errorf("%s: %w", what, err))
		}
		if err := e.wait(ctx, info); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		e.writes.mu.Lock()
		delete(e.writes.retry, retryItems[i])
		e.writes.mu.Unlock()
	}
	var buf bytes.Buffer
	var batchItems []string
	flush := func() error {
		if buf.Len() == 0 {
			return nil
		}
		info, err := e.client.Index(index).AddDocumentsNdjsonWithContext(ctx, buf.Bytes(), opts)
		if err != nil {
			return wrapErr(fmt.Errorf("%s: %w", what, err))
		}
		e.writes.add(sent{uid: info.TaskUID, index: index, items: batchItems})
		buf.Reset()
		batchItems = nil
		return nil
	}
	for i, p := range rest {
		raw, err := json.Marshal(document(p))
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if buf.Len() > 0 && (buf.Len()+len(raw) > maxBatchBytes || len(batchItems) >= maxBatchDocs) {
			if err := flush(); err != nil {
				return err
			}
		}
		buf.Write(raw)
		buf.WriteByte('\n')
		batchItems = append(batchItems, restItems[i])
	}
	if err := flush(); err != nil {
		return err
	}
	return e.backpressure(ctx)
}

// enqueued records a task sent for items.
func (e *Engine) enqueued(ctx context.Context, info *meilisearch.TaskInfo, index string, items []string) error {
	e.writes.add(sent{uid: info.TaskUID, index: index, items: slices.Clone(items)})
	return e.backpressure(ctx)
}

// backpressure waits for the oldest tasks while more than maxPending are
// outstanding.
func (e *Engine) backpressure(ctx context.Context) error {
	for {
		e.writes.mu.Lock()
		if len(e.writes.pending) <= maxPending {
			e.writes.mu.Unlock()
			return nil
		}
		oldest := e.writes.pending[0]
		e.writes.mu.Unlock()
		if err := e.waitFor(ctx, func(s sent) bool { return s.uid <= oldest.uid }); err != nil {
			return err
		}
	}
}

// settle forgets the tasks that are done, without waiting (one request):
// failed ones have their items marked dirty again.
func (e *Engine) settle(ctx context.Context) {
	e.writes.mu.Lock()
	uids := make([]int64, 0, len(e.writes.pending))
	for _, s := range e.writes.pending {
		uids = append(uids, s.uid)
	}
	e.writes.mu.Unlock()
	if len(uids) == 0 {
		return
	}
	res, err := e.client.GetTasksWithContext(ctx, &meilisearch.TasksQuery{UIDS: uids, Limit: int64(len(uids))})
	if err != nil {
		return // the next wait reports an unreachable server
	}
	done := map[int64]meilisearch.Task{}
	for _, t := range res.Results {
		if finished(t.Status) {
			done[t.UID] = t
		}
	}
	e.forget(ctx, done)
}

func finished(s meilisearch.TaskStatus) bool {
	return s == meilisearch.TaskStatusSucceeded || s == meilisearch.TaskStatusFailed || s == meilisearch.TaskStatusCanceled
}

// forget drops done tasks from the pending list and handles failures.
func (e *Engine) forget(ctx context.Context, done map[int64]meilisearch.Task) error {
	if len(done) == 0 {
		return nil
	}
	var failed []sent
	var errs []error
	e.writes.mu.Lock()
	kept := e.writes.pending[:0]
	for _, s := range e.writes.pending {
		t, ok := done[s.uid]
		if !ok {
			kept = append(kept, s)
			continue
		}
		if t.Status != meilisearch.TaskStatusSucceeded {
			failed = append(failed, s)
			errs = append(errs, fmt.Errorf("task %d (%s) %s: %s (%s)", t.UID, t.Type, t.Status, t.Error.Message, t.Error.Code))
		}
	}
	e.writes.pending = kept
	for _, s := range failed {
		if e.writes.retry == nil {
			e.writes.retry = map[string]bool{}
		}
		for _, id := range s.items {
			e.writes.retry[id] = true
		}
	}
	e.writes.mu.Unlock()
	for i, s := range failed {
		e.log.Error("search write failed after Meilisearch accepted it; its items are indexed again",
			"index", s.index, "items", len(s.items), "err", errs[i])
		if e.cfg.DB != nil && len(s.items) > 0 {
			mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			err := search.MarkDirty(e.cfg.DB.WithContext(mctx), s.items...)
			cancel()
			if err != nil {
				errs[i] = errors.Join(errs[i], err)
				continue
			}
			errs[i] = nil
		}
	}
	return errors.Join(errs...)
}

// waitFor waits until every pending task that match selects is done, and
// returns the failures of those that failed (after marking their items
// dirty again, when it can).
func (e *Engine) waitFor(ctx context.Context, match func(sent) bool) error {
	e.writes.mu.Lock()
	var last int64 = -1
	for _, s := range e.writes.pending {
		if match(s) {
			last = max(last, s.uid)
		}
	}
	e.writes.mu.Unlock()
	if last < 0 {
		return nil
	}
	// Tasks run in the order they were sent: when the last one is done,
	// so is every earlier one.
	if _, err := e.client.WaitForTaskWithContext(ctx, last, taskPoll); err != nil {
		return wrapErr(fmt.Errorf("wait for task %d: %w", last, err))
	}
	var uids []int64
	e.writes.mu.Lock()
	for _, s := range e.writes.pending {
		if s.uid <= last {
			uids = append(uids, s.uid)
		}
	}
	e.writes.mu.Unlock()
	res, err := e.client.GetTasksWithContext(ctx, &meilisearch.TasksQuery{UIDS: uids, Limit: int64(len(uids))})
	if err != nil {
		return wrapErr(fmt.Errorf("read tasks: %w", err))
	}
	done := map[int64]meilisearch.Task{}
	for _, t := range res.Results {
		if finished(t.Status) {
			done[t.UID] = t
		}
	}
	return e.forget(ctx, done)
}

// Sync waits until every write sent so far is searchable, and reports the
// writes that failed (their items are marked dirty again when the engine
// has a database).
func (e *Engine) Sync(ctx context.Context) error {
	return e.waitFor(ctx, func(sent) bool { return true })
}

// SyncAll waits until every write sent so far to the engine's indexes is
// done, whichever process sent it (reindex ends with it: the workers'
// indexers drain the outbox beside it, and a row they took is gone from
// the outbox once Meilisearch accepted its write, not once it ran), then
// as Sync for this engine's own writes.
func (e *Engine) SyncAll(ctx context.Context) error {
	// Tasks are listed newest first, and run in the order they came.
	res, err := e.client.GetTasksWithContext(ctx, &meilisearch.TasksQuery{IndexUIDS: []string{e.items, e.segments},
		Statuses: []meilisearch.TaskStatus{meilisearch.TaskStatusEnqueued, meilisearch.TaskStatusProcessing}, Limit: 1})
	if err != nil {
		return wrapErr(fmt.Errorf("read pending writes: %w", err))
	}
	if len(res.Results) > 0 {
		last := res.Results[0].UID
		if _, err := e.client.WaitForTaskWithContext(ctx, last, taskPoll); err != nil {
			return wrapErr(fmt.Errorf("wait for task %d: %w", last, err))
		}
	}
	return e.Sync(ctx)
}

// refreshSegmentGroups gives the segments of these items their lists. It
// reads what the segments index holds now: a segment write still pending
// for one of these items runs before the update sent here, and the drain
// replaces an item's segments right after its document anyway.
func (e *Engine) refreshSegmentGroups(ctx context.Context, items []*search.Prepared) error {
	if empty, err := e.segmentsEmpty(ctx); err != nil {
		return err
	} else if empty {
		return nil
	}
	byItem := make(map[string]*search.Prepared, len(items))
	ids := make([]string, 0, len(items))
	for _, p := range items {
		byItem[p.ID] = p
		ids = append(ids, p.ID)
	}
	var updates []map[string]any
	var touched []string
	const page = 10_000
	for offset := int64(0); ; offset += page {
		var res meilisearch.DocumentsResult
		err := e.client.Index(e.segments).GetDocumentsWithContext(ctx, &meilisearch.DocumentsQuery{
			Offset: offset, Limit: page, Fields: []string{search.FieldID, "item_id"},
			Filter: fmt.Sprintf("%s IN %s", quote("item_id"), quoteList(ids)),
		}, &res)
		if err != nil {
			return wrapErr(fmt.Errorf("find segments of indexed items: %w", err))
		}
		for _, h := range res.Results {
			var s struct {
				ID     string `json:"_id"`
				ItemID string `json:"item_id"`
			}
			raw, _ := json.Marshal(h)
			if err := json.Unmarshal(raw, &s); err != nil {
				return fmt.Errorf("find segments of indexed items: %w", err)
			}
			if p := byItem[s.ItemID]; p != nil {
				updates = append(updates, map[string]any{
					search.FieldID:              s.ID,
					search.FieldLocationGroups:  groupsOrPublic(p.LocationGroups),
					search.FieldContainerGroups: groupsOrPublic(p.ContainerGroups),
				})
				touched = append(touched, s.ItemID)
			}
		}
		if int64(len(res.Results)) < page {
			break
		}
	}
	if len(updates) == 0 {
		return nil
	}
	pk := search.FieldID
	info, err := e.client.Index(e.segments).UpdateDocumentsWithContext(ctx, updates, &meilisearch.DocumentOptions{PrimaryKey: &pk})
	if err != nil {
		return wrapErr(fmt.Errorf("refresh segment visibility: %w", err))
	}
	return e.enqueued(ctx, info, e.segments, touched)
}

// Delete removes documents.
func (e *Engine) Delete(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	info, err := e.client.Index(e.items).DeleteDocumentsWithContext(ctx, ids, nil)
	if err != nil {
		return wrapErr(fmt.Errorf("delete documents: %w", err))
	}
	return e.enqueued(ctx, info, e.items, nil)
}

// UpsertSegments adds or replaces segments; when the item's document is
// indexed, its visibility lists win over the segment's own.
func (e *Engine) UpsertSegments(ctx context.Context, segs []search.Segment) error {
	if len(segs) == 0 {
		return nil
	}
	itemIDs := map[string]bool{}
	for _, s := range segs {
		itemIDs[s.ItemID] = true
	}
	// Read-your-writes: the items' lists must be the ones last sent.
	if err := e.waitFor(ctx, func(s sent) bool { return s.index == e.items }); err != nil {
		return err
	}
	groups, err := e.itemGroups(ctx, itemIDs)
	if err != nil {
		return err
	}
	prepared := make([]*search.Prepared, 0, len(segs))
	for _, s := range segs {
		if g, ok := groups[s.ItemID]; ok {
			s.LocationGroups, s.ContainerGroups = g[0], g[1]
		}
		d, err := s.Document()
		if err != nil {
			return err
		}
		p, err := search.Prepare(d)
		if err != nil {
			return fmt.Errorf("index segment %q: %w", s.ID, err)
		}
		prepared = append(prepared, p)
	}
	if err := e.learn(ctx, search.ScopeSegments, prepared); err != nil {
		return err
	}
	e.segmentsWritten()
	defer e.segmentsWritten() // a reading made while the write was sent
	return e.send(ctx, e.segments, prepared, itemsOf(prepared, true), "index segments")
}

// itemGroups reads the visibility lists of indexed items.
func (e *Engine) itemGroups(ctx context.Context, itemIDs map[string]bool) (map[string][2][]string, error) {
	ids := make([]string, 0, len(itemIDs))
	for id := range itemIDs {
		ids = append(ids, id)
	}
	out := map[string][2][]string{}
	const chunkSize = 1000
	for start := 0; start < len(ids); start += chunkSize {
		chunk := ids[start:min(start+chunkSize, len(ids))]
		var res meilisearch.DocumentsResult
		err := e.client.Index(e.items).GetDocumentsWithContext(ctx, &meilisearch.DocumentsQuery{
			Limit: int64(len(chunk)), Filter: fmt.Sprintf("%s IN %s", quote(search.FieldID), quoteList(chunk)),
			Fields: []string{search.FieldID, search.FieldLocationGroups, search.FieldContainerGroups},
		}, &res)
		if err != nil {
			return nil, wrapErr(fmt.Errorf("read item visibility: %w", err))
		}
		for _, h := range res.Results {
			var d struct {
				ID string   `json:"_id"`
				LG []string `json:"_location_groups"`
				CG []string `json:"_container_groups"`
			}
			raw, _ := json.Marshal(h)
			if err := json.Unmarshal(raw, &d); err != nil {
				return nil, fmt.Errorf("read item visibility: %w", err)
			}
			out[d.ID] = [2][]string{withoutPublic(d.LG), withoutPublic(d.CG)}
		}
	}
	return out, nil
}

func withoutPublic(g []string) []string {
	out := []string{}
	for _, x := range g {
		if x != publicGroup {
			out = append(out, x)
		}
	}
	return out
}

// DeleteSegmentsOfItems removes the segments of items. When none of them
// has a segment and no segment write waits in Meilisearch (files without
// segments: most of a harvest), it sends no task: a deletion task between
// two batches of documents would be indexed on its own.
func (e *Engine) DeleteSegmentsOfItems(ctx context.Context, itemIDs []string) error {
	if len(itemIDs) == 0 {
		return nil
	}
	if none, err := e.noSegments(ctx, itemIDs); err != nil {
		return err
	} else if none {
		return nil
	}
	info, err := e.client.Index(e.segments).DeleteDocumentsByFilterWithContext(ctx, fmt.Sprintf("%s IN %s", quote("item_id"), quoteList(itemIDs)), nil)
	if err != nil {
		return wrapErr(fmt.Errorf("delete segments: %w", err))
	}
	return e.enqueued(ctx, info, e.segments, nil)
}

// noSegments reports whether the segments index holds no segment of these
// items and has no write waiting (enqueued or running) that could add one.
func (e *Engine) noSegments(ctx context.Context, itemIDs []string) (bool, error) {
	if empty, err := e.segmentsEmpty(ctx); err != nil || empty {
		return empty, err
	}
	if pending, err := e.segmentWritesPending(ctx); err != nil || pending {
		return false, err
	}
	var res meilisearch.DocumentsResult
	err := e.client.Index(e.segments).GetDocumentsWithContext(ctx, &meilisearch.DocumentsQuery{
		Limit: 1, Fields: []string{search.FieldID},
		Filter: fmt.Sprintf("%s IN %s", quote("item_id"), quoteList(itemIDs)),
	}, &res)
	if err != nil {
		return false, wrapErr(fmt.Errorf("find segments of items: %w", err))
	}
	return len(res.Results) == 0, nil
}

// segmentsEmpty reports whether the segments index holds no document and
// has no write waiting. Most harvests meet no media with segments: then
// the visibility of the items' segments (refreshSegmentGroups) and their
// deletion (noSegments) need no filtered read of it per round of the
// drain, each on a filter of thousands of ids. An empty reading answers
// for segmentsEmptyFresh; this engine's own segment writes end it at once
// (another process's segments written in that moment for an item this one
// indexes are replaced when the drain meets the item again).
func (e *Engine) segmentsEmpty(ctx context.Context) (bool, error) {
	e.segEmpty.mu.Lock()
	defer e.segEmpty.mu.Unlock()
	if !e.segEmpty.at.IsZero() && time.Since(e.segEmpty.at) < segmentsEmptyFresh {
		return true, nil
	}
	if pending, err := e.segmentWritesPending(ctx); err != nil || pending {
		return false, err
	}
	stats, err := e.client.Index(e.segments).GetStatsWithContext(ctx, nil)
	if err != nil {
		return false, wrapErr(fmt.Errorf("read segments index stats: %w", err))
	}
	if stats.NumberOfDocuments > 0 {
		return false, nil
	}
	e.segEmpty.at = time.Now()
	return true, nil
}

// segmentWritesPending reports whether a write of the segments index is
// enqueued or running, whoever sent it.
func (e *Engine) segmentWritesPending(ctx context.Context) (bool, error) {
	tasks, err := e.client.GetTasksWithContext(ctx, &meilisearch.TasksQuery{IndexUIDS: []string{e.segments},
		Statuses: []meilisearch.TaskStatus{meilisearch.TaskStatusEnqueued, meilisearch.TaskStatusProcessing}, Limit: 1})
	if err != nil {
		return false, wrapErr(fmt.Errorf("read segment tasks: %w", err))
	}
	return len(tasks.Results) > 0, nil
}

// segmentsEmptyFresh is how long a reading of an empty segments index
// answers.
const segmentsEmptyFresh = time.Second

// emptyReading is when the segments index was last read empty.
type emptyReading struct {
	mu sync.Mutex
	at time.Time
}

// segmentsWritten ends an empty reading: segments are about to be sent.
func (e *Engine) segmentsWritten() {
	e.segEmpty.mu.Lock()
	e.segEmpty.at = time.Time{}
	e.segEmpty.mu.Unlock()
}

// Backlog counts the documents of item writes Meilisearch has enqueued or
// is indexing (search.Pacer), whoever sent them, reading tasks until it
// has counted more than limit. Every batch a harvest records asks while
// it waits (search.KeepPace): callers within backlogFresh of a reading
// share it, so that a worker's tasks waiting together cost Meilisearch one
// task query, not one each.
func (e *Engine) Backlog(ctx context.Context, limit int64) (int64, error) {
	e.backlog.mu.Lock()
	defer e.backlog.mu.Unlock()
	if b := &e.backlog; b.limit >= limit && time.Since(b.at) < backlogFresh {
		return b.n, nil
	}
	n, err := e.readBacklog(ctx, limit)
	if err != nil {
		return 0, err
	}
	e.backlog.at, e.backlog.n, e.backlog.limit = time.Now(), n, limit
	return n, nil
}

// backlogFresh is how long a backlog reading answers other callers.
const backlogFresh = 25 * time.Millisecond

// backlogReading is the last Backlog read from Meilisearch.
type backlogReading struct {
	mu       sync.Mutex
	at       time.Time
	n, limit int64
}

// IndexTime is how long Meilisearch's recent batches of item writes took
// a document, whoever sent them (search.IndexTimer): their time from
// start to end over the documents they received, from the last
// speedTasks succeeded tasks of at least speedMinDocs documents (tasks
// indexed in one batch share their times and count once). Zero while there are none. Callers within speedFresh
// of a reading share it.
func (e *Engine) IndexTime(ctx context.Context) (time.Duration, error) {
	e.speed.mu.Lock()
	defer e.speed.mu.Unlock()
	if time.Since(e.speed.at) < speedFresh {
		return e.speed.perDoc, nil
	}
	res, err := e.client.GetTasksWithContext(ctx, &meilisearch.TasksQuery{IndexUIDS: []string{e.items}, Limit: speedTasks,
		Statuses: []meilisearch.TaskStatus{meilisearch.TaskStatusSucceeded},
		Types:    []meilisearch.TaskType{meilisearch.TaskTypeDocumentAdditionOrUpdate}})
	if err != nil {
		return 0, wrapErr(fmt.Errorf("read finished writes: %w", err))
	}
	type span struct{ start, end time.Time }
	seen := map[span]bool{}
	var took time.Duration
	var docs int64
	for _, t := range res.Results {
		if t.StartedAt.IsZero() || t.FinishedAt.Before(t.StartedAt) || t.Details.ReceivedDocuments < speedMinDocs {
			continue
		}
		docs += t.Details.ReceivedDocuments
		if s := (span{t.StartedAt, t.FinishedAt}); !seen[s] {
			seen[s] = true
			took += t.FinishedAt.Sub(t.StartedAt)
		}
	}
	var perDoc time.Duration
	if docs > 0 {
		perDoc = took / time.Duration(docs)
	}
	e.speed.at, e.speed.perDoc = time.Now(), perDoc
	return perDoc, nil
}

const (
	// speedTasks is how many recent tasks IndexTime reads.
	speedTasks = 4
	// speedMinDocs: a task of fewer documents (an edit, a lone upload)
	// is mostly the batch's fixed part and says nothing of a harvest's.
	speedMinDocs = 100
	// speedFresh is how long an IndexTime reading answers other callers.
	speedFresh = time.Second
)

// speedReading is the last IndexTime read from Meilisearch.
type speedReading struct {
	mu     sync.Mutex
	at     time.Time
	perDoc time.Duration
}

func (e *Engine) readBacklog(ctx context.Context, limit int64) (int64, error) {
	const page = 100
	var n int64
	q := &meilisearch.TasksQuery{IndexUIDS: []string{e.items}, Limit: page,
		Statuses: []meilisearch.TaskStatus{meilisearch.TaskStatusEnqueued, meilisearch.TaskStatusProcessing},
		Types:    []meilisearch.TaskType{meilisearch.TaskTypeDocumentAdditionOrUpdate}}
	for {
		res, err := e.client.GetTasksWithContext(ctx, q)
		if err != nil {
			return 0, wrapErr(fmt.Errorf("read pending writes: %w", err))
		}
		for _, t := range res.Results {
			n += t.Details.ReceivedDocuments
		}
		if n > limit || len(res.Results) < page || res.Next == 0 {
			return n, nil
		}
		q.From = res.Next
	}
}
