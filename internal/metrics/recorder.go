package metrics

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// FlushInterval is how often a process adds its counts to the totals.
const FlushInterval = time.Second

// sep separates the parts of a field of the totals hash. Label values are
// route templates, extractor and task names: none holds a control character,
// and any that did would have it replaced.
const sep = "\x1f"

// Recorder counts what one process does and adds it to the deployment's
// totals in Redis. The zero of *Recorder (nil) records nothing, so code and
// tests that have no metrics need no special case. Safe for concurrent use.
type Recorder struct {
	rdb      redis.Cmdable
	key      string
	instance string
	role     string
	pool     *sql.DB

	mu      sync.Mutex
	pending map[string]float64 // field of the totals hash -> amount to add
}

// RecorderConfig configures NewRecorder.
type RecorderConfig struct {
	Redis     redis.Cmdable
	Namespace string // REDIS_NAMESPACE: deployments sharing a Redis keep apart totals
	Role      string // api, worker, scheduler, all
	// DB is the process's Postgres pool, whose statistics are published with
	// each flush (nil: none).
	DB *sql.DB
}

// NewRecorder returns a recorder; call Run to flush it.
func NewRecorder(cfg RecorderConfig) *Recorder {
	host, _ := os.Hostname()
	return &Recorder{rdb: cfg.Redis, key: TotalsKey(cfg.Namespace), role: cfg.Role, pool: cfg.DB,
		instance: fmt.Sprintf("%s:%d", host, os.Getpid()), pending: map[string]float64{}}
}

// TotalsKey is the Redis hash holding a deployment's totals.
func TotalsKey(namespace string) string {
	if namespace == "" {
		return "metaharvest:metrics"
	}
	return namespace + ":metaharvest:metrics"
}

func poolsKey(totals string) string { return totals + ":pools" }

// Add adds delta to a counter.
func (r *Recorder) Add(name string, delta float64, labels ...string) {
	if r == nil || delta == 0 {
		return
	}
	s, ok := specs[name]
	if !ok || s.kind != counter || len(labels) != len(s.labels) {
		return // a programming error; metrics never break the caller
	}
	field := "c" + sep + name + labelPart(labels)
	r.mu.Lock()
	r.pending[field] += delta
	r.mu.Unlock()
}

// Observe records one value of a histogram.
func (r *Recorder) Observe(name string, v float64, labels ...string) {
	if r == nil {
		return
	}
	s, ok := specs[name]
	if !ok || s.kind != histogram || len(labels) != len(s.labels) {
		return
	}
	b := sort.SearchFloat64s(s.buckets, v) // first bound >= v; len = +Inf
	lp := labelPart(labels)
	// Concatenated, not formatted: observed per extractor run, a few per
	// file of a harvest.
	bucket, sum := "b"+sep+name+sep+strconv.Itoa(b)+lp, "s"+sep+name+lp
	r.mu.Lock()
	r.pending[bucket]++
	r.pending[sum] += v
	r.mu.Unlock()
}

// Since observes the seconds elapsed since start.
func (r *Recorder) Since(name string, start time.Time, labels ...string) {
	r.Observe(name, time.Since(start).Seconds(), labels...)
}

func labelPart(labels []string) string {
	var b strings.Builder
	for _, l := range labels {
		b.WriteString(sep)
		b.WriteString(strings.Map(func(r rune) rune {
			if r < 0x20 {
				return '_'
			}
			return r
		}, l))
	}
	return b.String()
}

// Flush adds what was recorded since the last flush to the totals, and
// publishes the process's connection pool statistics. On failure (Redis
// down) the counts are kept for the next flush: they are late, not lost.
func (r *Recorder) Flush(ctx context.Context) error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	batch := r.pending
	r.pending = map[string]float64{}
	r.mu.Unlock()

	pipe := r.rdb.Pipeline()
	for field, v := range batch {
		pipe.HIncrByFloat(ctx, r.key, field, v)
	}
	if r.pool != nil {
		raw, _ := json.Marshal(poolStatsOf(r.role, r.pool.Stats()))
		pipe.HSet(ctx, poolsKey(r.key), r.instance, raw)
	}
	if pipe.Len() == 0 {
		return nil
	}
	if _, err := pipe.Exec(ctx); err != nil {
		r.mu.Lock()
		for field, v := range batch {
			r.pending[field] += v
		}
		r.mu.Unlock()
		return fmt.Errorf("add metrics to redis: %w", err)
	}
	return nil
}

// Run flushes every FlushInterval until ctx ends, then once more (with a
// few seconds of its own) so a stopping process's last counts are kept.
func (r *Recorder) Run(ctx context.Context, logger *slog.Logger) {
	if r == nil {
		return
	}
	t := time.NewTicker(FlushInterval)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			last, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
			defer cancel()
			if err := r.Flush(last); err != nil {
				logger.Warn("last metrics flush", slog.String("error", err.Error()))
			}
			if r.pool != nil {
				r.rdb.HDel(last, poolsKey(r.key), r.instance)
			}
			return
		case <-t.C:
			err := r.Flush(ctx)
			if err != nil && !failing && ctx.Err() == nil {
				logger.Warn("metrics not added to redis; kept for later", slog.String("error", err.Error()))
			}
			failing = err != nil
		}
	}
}

// poolStats is what a process publishes about its Postgres pool.
type poolStats struct {
	Role        string  `json:"role"`
	At          int64   `json:"at"` // unix seconds
	Max         int     `json:"max"`
	InUse       int     `json:"in_use"`
	Idle        int     `json:"idle"`
	Waits       int64   `json:"waits"`
	WaitSeconds float64 `json:"wait_seconds"`
}

func poolStatsOf(role string, s sql.DBStats) poolStats {
	return poolStats{Role: role, At: time.Now().Unix(), Max: s.MaxOpenConnections, InUse: s.InUse, Idle: s.Idle,
		Waits: s.WaitCount, WaitSeconds: s.WaitDuration.Seconds()}
}
