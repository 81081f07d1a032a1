// Package jobs starts harvests: it validates a harvest request, resolves the
// extractors it will run, records the Job and enqueues its first task. The
// api (harvest and upload endpoints) and the scheduler (live harvests) share
// it, so a harvest starts the same way whoever asks.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"time"

	"github.com/hibiken/asynq"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// Spec is a harvest request.
type Spec struct {
	RequestID            string // optional: a deterministic id makes Start idempotent (scheduler)
	JobType              string // "harvest" (default) or "live"
	UserID               string
	LocationID           string
	ContainerID          string // whole container ...
	ItemID               string // ... or one item
	Extractors           []string
	ProfileID            string
	OverrideExtractors   bool
	NewExtractorsOnly    bool
	Force                bool
	IgnoreRecentlyWalked bool
	Priority             int
}

// Options are the per-job flags the worker reads from the job row.
type Options struct {
	NewExtractorsOnly    bool `json:"new_extractors_only"`
	Force                bool `json:"force"`
	IgnoreRecentlyWalked bool `json:"ignore_recently_walked"`
	OverrideExtractors   bool `json:"override_extractors"`
}

// Starter creates jobs and enqueues their tasks.
type Starter struct {
	DB       *store.DB
	Queue    *asynq.Client
	Names    queue.Names
	Registry *extractors.Registry
}

// RecentWalkWindow: a container walked less than this ago, or whose last
// walking harvest is still running or finished less than this ago, is not
// walked again unless the request sets ignore_recently_walked.
const RecentWalkWindow = time.Minute

// SkipRecentlyWalked is why a harvest of a recently walked container does
// nothing (see RecentWalkWindow): its job completes at once, with a walk
// activity whose source is "skipped: " + SkipRecentlyWalked.
const SkipRecentlyWalked = "recently_walked"

// RecentlyWalked reports whether a harvest (request requestID, started at
// at) of the container skips the walk: the container was walked less than
// RecentWalkWindow before, by another request.
func RecentlyWalked(ctr models.Container, requestID string, at time.Time) bool {
	return ctr.LastWalked != nil && ctr.LastWalked.After(at.Add(-RecentWalkWindow)) && ctr.RequestID != requestID
}

// skipsWalk reports whether a container harvest started at now skips its
// walk: RecentlyWalked, or another harvest of the container is walking it
// or harvesting what it listed, or finished less than RecentWalkWindow
// ago (store.WalkingRecently). A harvest's walk ends well before its
// items are harvested: a request repeated when the first one's job is
// done is then skipped however long its items took.
//
// A request started again under the same id (given, not made here: the
// scheduler's live harvests) that was skipped stays skipped: its job is
// recorded complete, and a walk must not run for it later.
func skipsWalk(db *store.DB, ctr models.Container, requestID string, given bool, now time.Time) (bool, error) {
	if RecentlyWalked(ctr, requestID, now) {
		return true, nil
	}
	if given {
		a, err := store.ReadJobActivity(db, requestID)
		if err != nil {
			return false, err
		}
		if a.Skipped != "" {
			return true, nil
		}
	}
	return store.WalkingRecently(db, ctr.ID, requestID, now.Add(-RecentWalkWindow), now)
}

// Started is what Start did.
type Started struct {
	RequestID string
	// Skipped says why the job does nothing ("" when it runs):
	// SkipRecentlyWalked.
	Skipped string
}

// Start validates spec, records the job and enqueues its first task. It
// returns the request id. Validation problems are *apperr.Error values.
func (s *Starter) Start(ctx context.Context, spec Spec) (string, error) {
	st, err := s.StartJob(ctx, spec)
	return st.RequestID, err
}

// StartJob is Start, also saying whether the job was skipped: a container
// harvest without ignore_recently_walked, of a container walked less than
// RecentWalkWindow ago, is recorded as a complete job with a walk activity
// saying so, and enqueues nothing.
func (s *Starter) StartJob(ctx context.Context, spec Spec) (Started, error) {
	id, skipped, err := s.start(ctx, spec)
	return Started{RequestID: id, Skipped: skipped}, err
}

func (s *Starter) start(ctx context.Context, spec Spec) (string, string, error) {
	db := s.DB.WithContext(ctx)
	loc, err := store.Location(db, spec.LocationID)
	if err != nil {
		return "", "", err
	}
	switch {
	case spec.ItemID != "" && spec.ContainerID != "":
		return "", "", apperr.InvalidField("item_id", "give item_id or container_id, not both")
	case spec.ItemID != "":
		item, err := store.LiveItemOf(db, loc.ID, spec.ItemID)
		if err != nil {
			return "", "", err
		}
		spec.ContainerID = item.ContainerID
	case spec.ContainerID == "":
		return "", "", apperr.InvalidField("container_id", "give item_id or container_id")
	}
	ctr, err := store.ContainerOf(db, loc.ID, spec.ContainerID)
	if err != nil {
		return "", "", err
	}
	names, err := s.Resolve(ctx, spec.Extractors, firstNonEmpty(spec.ProfileID, ctr.ProfileID, "default"), spec.OverrideExtractors)
	if err != nil {
		return "", "", err
	}
	profileID := firstNonEmpty(spec.ProfileID, ctr.ProfileID, "default")
	if len(spec.Extractors) > 0 {
		profileID = ""
	}
	priority := queue.ClampPriority(spec.Priority)
	job := models.Job{
		RequestID: firstNonEmpty(spec.RequestID, ids.New()), JobType: firstNonEmpty(spec.JobType, "harvest"),
		LocationID: loc.ID, ContainerID: ctr.ID, ItemID: spec.ItemID, UserID: spec.UserID, ProfileID: profileID,
		Extractors: names, Priority: priority,
		Options: models.MustJSON(Options{NewExtractorsOnly: spec.NewExtractorsOnly, Force: spec.Force,
			IgnoreRecentlyWalked: spec.IgnoreRecentlyWalked, OverrideExtractors: spec.OverrideExtractors}),
	}
	var task *asynq.Task
	var opts []asynq.Option
	if spec.ItemID != "" {
		job.WalkComplete, job.WalkedCount, job.EnqueuedCount = true, 1, 1
		task, err = queue.NewTask(queue.TypeItem, queue.ItemPayload{RequestID: job.RequestID, ItemID: spec.ItemID})
		opts = ItemTaskOptions(s.Names, job.RequestID, spec.ItemID, priority)
	} else {
		task, err = queue.NewTask(queue.TypeWalk, queue.WalkPayload{RequestID: job.RequestID, ContainerID: ctr.ID})
		opts = WalkTaskOptions(s.Names, job.RequestID, "", "")
	}
	if err != nil {
		return "", "", err
	}
	if spec.ItemID == "" && !spec.IgnoreRecentlyWalked {
		skip, err := skipsWalk(db, ctr, job.RequestID, spec.RequestID != "", time.Now())
		if err != nil {
			return "", "", err
		}
		if skip {
			if err := s.recordSkipped(ctx, job, ctr); err != nil {
				return "", "", err
			}
			return job.RequestID, SkipRecentlyWalked, nil
		}
	}
	if _, err := store.InsertJob(db, &job); err != nil {
		return "", "", err
	}
	if err := Enqueue(ctx, s.Queue, task, opts...); err != nil {
		return "", "", err
	}
	return job.RequestID, "", nil
}

// recordSkipped records a job that skips its walk: complete, with the walk
// activity a worker would have written.
func (s *Starter) recordSkipped(ctx context.Context, job models.Job, ctr models.Container) error {
	job.WalkComplete = true
	// A job started twice (same request id) is recorded once.
	return store.InsertCompleteJob(s.DB.WithContext(ctx), &job, &models.Activity{TS: time.Now().UTC(), Kind: models.ActivityWalk,
		RequestID: job.RequestID, LocationID: job.LocationID, ContainerID: ctr.ID, HarvestID: job.RequestID, ProfileID: job.ProfileID,
		Extractors: job.Extractors, Name: ctr.Name, Source: "skipped: " + SkipRecentlyWalked})
}

// Enqueue enqueues a task; a task id already taken means the task exists,
// which is success (this is what makes re-delivered handlers idempotent).
func Enqueue(ctx context.Context, c *asynq.Client, t *asynq.Task, opts ...asynq.Option) error {
	_, err := c.EnqueueContext(ctx, t, opts...)
	if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) && !errors.Is(err, asynq.ErrDuplicateTask) {
		return fmt.Errorf("enqueue %s: %w", t.Type(), err)
	}
	return nil
}

// Retention keeps finished tasks long enough that their ids still refuse a
// duplicate enqueue from a re-delivered walk page.
const Retention = 24 * time.Hour

// WalkTaskOptions are the options of a walk page task (repair is the token
// of a repair walk, empty otherwise).
func WalkTaskOptions(n queue.Names, requestID, repair, cursor string) []asynq.Option {
	return []asynq.Option{asynq.Queue(n.Walk()), asynq.TaskID("walk:" + requestID + ":" + repair + ids.Derived(cursor)),
		asynq.MaxRetry(20), asynq.Timeout(15 * time.Minute), asynq.Retention(Retention)}
}

// ItemTaskOptions are the options of an item harvest task; key identifies
// the item or batch within the request.
func ItemTaskOptions(n queue.Names, requestID, key string, priority int) []asynq.Option {
	return []asynq.Option{asynq.Queue(n.Stage(priority)), asynq.TaskID("item:" + requestID + ":" + key),
		asynq.MaxRetry(10), asynq.Timeout(time.Hour), asynq.Retention(Retention)}
}

// Resolve turns a request's extractor list (or, when empty, the profile's)
// into the list a job runs. Requested names must be known: registered, or
// a name of the original product's clients (extractors.Registry.Resolve).
// One that cannot run here (not implemented, tool missing, provider not
// configured) is still accepted: each item records it as "not available:
// <reason>" and the others run (DECISIONS.md). Without override only
// enabled extractors run. A profile with no extractors means every enabled
// one; a profile's list runs only its available extractors. The extractors
// that the chosen ones need are added (extractors.Registry.WithNeeds).
func (s *Starter) Resolve(ctx context.Context, requested []string, profileID string, override bool) (models.Strings, error) {
	enabled, err := EnabledSet(ctx, s.DB, s.Registry)
	if err != nil {
		return nil, err
	}
	var chosen []string
	if len(requested) > 0 {
		var unknown []string
		for _, n := range requested {
			name, ok := s.Registry.Resolve(n)
			switch {
			case !ok:
				unknown = append(unknown, n)
			case override || enabled[name]:
				chosen = append(chosen, name)
			}
		}
		if len(unknown) > 0 {
			return nil, apperr.InvalidField("extractors", fmt.Sprintf("unknown extractors: %v", unknown))
		}
	} else {
		p, err := store.Profile(s.DB.WithContext(ctx), profileID, false)
		if ae, ok := apperr.As(err); ok && ae.Status == http.StatusNotFound {
			return nil, apperr.InvalidField("profile_id", "no such extractor profile")
		} else if err != nil {
			return nil, err
		}
		list := []string(p.Extractors)
		if len(list) == 0 {
			list = s.Registry.Names()
		}
		for _, n := range list {
			if name, known := s.Registry.Resolve(n); known {
				if ok, _ := s.Registry.Available(name); ok && (override || enabled[name]) {
					chosen = append(chosen, name)
				}
			}
		}
	}
	// What the chosen extractors read comes with them (Info.Needs): tokens
	// brings text, which clients of the reference cannot name. Added here,
	// once, the job's list is what its items run and what its activity
	// shows; a need runs whether or not it is enabled, as part of the work
	// of the extractor that reads it.
	base := s.Registry.AlwaysNames()
	return withBase(base, s.Registry.WithNeeds(append(slices.Clone(base), chosen...))), nil
}

// withBase puts the base extractors (they fill the item record itself:
// name, size, MIME type) first and the chosen ones after them, sorted.
func withBase(base, names []string) models.Strings {
	seen := map[string]bool{}
	out := models.Strings{}
	for _, n := range append(append([]string{}, base...), names...) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.SliceStable(out[len(base):], func(i, j int) bool {
		return out[len(base)+i] < out[len(base)+j]
	})
	return out
}

// EnabledSet reports, for every registered extractor, whether it is enabled
// on this platform: its settings row, or the registry default.
func EnabledSet(ctx context.Context, db *store.DB, reg *extractors.Registry) (map[string]bool, error) {
	rows, err := store.ExtractorSettings(db.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, info := range reg.All() {
		out[info.Name] = info.DefaultEnabled
	}
	for _, r := range rows {
		out[r.Name] = r.Enabled
	}
	return out, nil
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

// KickIndex asks for a drain of the search outbox soon. Calls within a few
// seconds coalesce into one task; the scheduler also kicks periodically, so
// a kick lost to a crash only delays indexing.
func KickIndex(ctx context.Context, c *asynq.Client, n queue.Names) error {
	t, err := queue.NewTask(queue.TypeIndex, queue.IndexPayload{})
	if err != nil {
		return err
	}
	return Enqueue(ctx, c, t, asynq.Queue(n.Index()), asynq.Unique(3*time.Second),
		asynq.ProcessIn(300*time.Millisecond), asynq.MaxRetry(25), asynq.Timeout(30*time.Minute))
}

// Repair re-enqueues the work of a stalled job: its walk from the first
// page (items already harvested by the job are skipped by the item
// handler), or its single item. repair is a token unique to this repair.
func Repair(ctx context.Context, c *asynq.Client, n queue.Names, job models.Job, repair string) error {
	if job.ItemID != "" {
		t, err := queue.NewTask(queue.TypeItem, queue.ItemPayload{RequestID: job.RequestID, ItemID: job.ItemID})
		if err != nil {
			return err
		}
		return Enqueue(ctx, c, t, ItemTaskOptions(n, job.RequestID, repair+job.ItemID, job.Priority)...)
	}
	t, err := queue.NewTask(queue.TypeWalk, queue.WalkPayload{RequestID: job.RequestID, ContainerID: job.ContainerID, Repair: repair})
	if err != nil {
		return err
	}
	return Enqueue(ctx, c, t, WalkTaskOptions(n, job.RequestID, repair, "")...)
}
