package worker

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/hibiken/asynq"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/blobstore"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/people"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/storage"
)

// Handler holds the task handlers and what they share.
type Handler struct {
	Deps
	names queue.Names
	env   storage.Env
	// pageSize is the number of entries one walk task lists.
	pageSize int
	// indexer drains the search outbox in this process (Run starts it).
	indexer *search.Indexer
	// inputs gives each item's bytes to its extractors.
	inputs *storage.Inputs
	// recording bounds the batches recorded at once (see recordSlots).
	recording chan struct{}
	// assigner gives described faces their persons (Run starts it when
	// FACIAL_RECOGNITION is on); nil otherwise.
	assigner *people.Assigner
}

// recordSlots is how many batches a worker records at once: a batch's
// transaction holds a connection and may need a second one from the same
// pool (the search engine's dictionaries are written beside it), so that
// tasks recording at once with a pool of DBMaxConns must stay below half
// of it (the listening indexer holds one, the drain's transaction two):
// more would wait for each other's connections for ever.
func recordSlots(dbMaxConns int) int {
	if dbMaxConns <= 0 {
		dbMaxConns = models.DefaultPoolSize
	}
	return max(1, dbMaxConns/2-2)
}

// NewHandler prepares handlers; exported so tests can run handlers directly.
func NewHandler(d Deps) *Handler {
	if d.Extractors == nil {
		d.Extractors = extractors.Default
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Files == nil {
		d.Files = blobstore.Local(d.Config.DataDir)
	}
	return &Handler{Deps: d, names: queue.Names{Namespace: d.Config.RedisNamespace},
		env: storage.Env{DataDir: d.Config.DataDir, UploadBucket: d.Files.Uploads}, pageSize: WalkPageSize,
		inputs:    storage.NewInputs(filepath.Join(d.Config.DataDir, "tmp")),
		recording: make(chan struct{}, recordSlots(d.Config.DBMaxConns))}
}

// Close releases what the handlers hold (storage.Inputs' range server).
// Run closes its own; call it for a Handler made with NewHandler once its
// tasks are done.
func (h *Handler) Close() error {
	return h.inputs.Close()
}

// errPermanent marks failures that retrying cannot fix.
func permanent(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, asynq.SkipRetry)...)
}

// retriesLeft reports whether asynq will run the task again if this
// attempt fails (a task run outside asynq has none).
func retriesLeft(ctx context.Context) bool {
	retried, _ := asynq.GetRetryCount(ctx)
	maxRetry, ok := asynq.GetMaxRetry(ctx)
	return ok && retried < maxRetry
}

// retriedFewerThan reports whether this run of the task is among its
// first n (a task run outside asynq is its first).
func retriedFewerThan(ctx context.Context, n int) bool {
	retried, _ := asynq.GetRetryCount(ctx)
	return retried < n
}

// bucketMissingTries is how many times a walk page is tried while its S3
// bucket is missing before the walk fails (with retryDelay, about 10 s).
const bucketMissingTries = 4

// target is everything a task needs to know about its job.
type target struct {
	job  models.Job
	opts jobs.Options
	loc  models.Location
	ctr  models.Container
	now  func() time.Time // the worker's clock (Deps.Now)
}

func (h *Handler) loadTarget(ctx context.Context, requestID, containerID string) (*target, error) {
	db := h.DB.WithContext(ctx)
	t := target{now: h.Now}
	if err := store.LoadJob(db, requestID, &t.job); err != nil {
		if store.IsNotFound(err) {
			return nil, permanent("job %s not found", requestID)
		}
		return nil, fmt.Errorf("load job %s: %w", requestID, err)
	}
	if len(t.job.Options) > 0 {
		if err := json.Unmarshal(t.job.Options, &t.opts); err != nil {
			return nil, permanent("job %s options: %v", requestID, err)
		}
	}
	if containerID == "" {
		containerID = t.job.ContainerID
	}
	if err := store.LoadContainer(db, containerID, &t.ctr); err != nil {
		if store.IsNotFound(err) {
			return nil, permanent("container %s no longer exists", containerID)
		}
		return nil, fmt.Errorf("load container %s: %w", containerID, err)
	}
	if err := store.LoadLocation(db, t.ctr.LocationID, &t.loc); err != nil {
		if store.IsNotFound(err) {
			return nil, permanent("location %s no longer exists", t.ctr.LocationID)
		}
		return nil, fmt.Errorf("load location %s: %w", t.ctr.LocationID, err)
	}
	return &t, nil
}

// openStorage connects to the location. Only the kind's own keys are taken
// from the stored config.
func (h *Handler) openStorage(loc models.Location) (storage.Location, error) {
	var raw map[string]any
	if len(loc.Config) > 0 {
		if err := json.Unmarshal(loc.Config, &raw); err != nil {
			return nil, permanent("location %s config: %v", loc.ID, err)
		}
	}
	cfg := map[string]string{}
	for _, k := range storage.Kinds() {
		if k.Name != loc.Kind {
			continue
		}
		for _, f := range k.Fields {
			if v, ok := raw[f.Field]; ok {
				switch v := v.(type) {
				case string:
					cfg[f.Field] = v
				case bool:
					cfg[f.Field] = fmt.Sprint(v)
				}
			}
		}
	}
	st, err := storage.Open(loc.Kind, cfg, h.env)
	if err != nil {
		var ce *storage.ConfigError
		if errors.As(err, &ce) {
			return nil, permanent("open location %s: %v", loc.ID, err)
		}
		return nil, fmt.Errorf("open location %s: %w", loc.ID, err)
	}
	// Retried S3 attempts count in metaharvest_s3_retries_total, the
	// walk's listings as much as the items' reads.
	if o, ok := st.(interface{ ObserveRetries(func(string)) }); ok && h.Metrics != nil {
		o.ObserveRetries(h.Metrics.S3Retry)
	}
	return st, nil
}

// dedupeKey identifies one report row: the MD5 (hex) of its kind, request
// and key, so the unique index stays small whatever the names.
func dedupeKey(kind, requestID, key string) string {
	h := md5.Sum([]byte(kind + "\x00" + requestID + "\x00" + key))
	return hex.EncodeToString(h[:])
}

// activity is one report row. A row with a key (walk pages, harvestend) is
// written once whatever the number of deliveries; key "" makes a row without
// one (extractor and download rows, which are written only with their new
// harvestend row).
func activity(t *target, kind, key string) models.Activity {
	a := models.Activity{
		TS: t.now().UTC(), Kind: kind,
		RequestID: t.job.RequestID, LocationID: t.loc.ID, ContainerID: t.ctr.ID, HarvestID: t.job.RequestID,
		ProfileID: t.job.ProfileID, Extractors: t.job.Extractors,
	}
	if key != "" {
		a.DedupeKey = dedupeKey(kind, t.job.RequestID, key)
	}
	return a
}

// insertActivity writes the row unless its key exists and reports whether it
// was new.
func insertActivity(tx *store.DB, a models.Activity) (bool, error) {
	if a.Error != "" {
		// Errors quote what failed (a tool's output, a server's message):
		// Postgres text holds UTF-8 only.
		a.Error = strings.ToValidUTF8(a.Error, "\uFFFD")
		a.ErrorHash = errorHash(a.Error)
	}
	if a.Extractors == nil {
		a.Extractors = models.Strings{}
	}
	return store.InsertActivity(tx, &a)
}

// errorHash is the MD5 of an error message, the key of error reports.
func errorHash(msg string) string {
	h := md5.Sum([]byte(msg))
	return hex.EncodeToString(h[:])
}
