// Package queue is the one place that knows how work maps onto asynq: queue
// names (with the deployment's Redis namespace), the priority rules of the
// harvest API, and the task types and payloads shared by api, worker and
// scheduler.
package queue

import (
	"fmt"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// Priority bounds of the harvest API: 1 is highest, 10 lowest.
const (
	PriorityHighest = 1
	PriorityLowest  = 10
	PriorityDefault = 5
)

// ClampPriority applies the reference's rules: absent or <= 0 becomes 5,
// above 10 becomes 10.
func ClampPriority(p int) int {
	switch {
	case p <= 0:
		return PriorityDefault
	case p > PriorityLowest:
		return PriorityLowest
	}
	return p
}

// Names builds queue names inside a namespace.
type Names struct{ Namespace string }

func (n Names) prefix(q string) string {
	if n.Namespace == "" {
		return q
	}
	return n.Namespace + ":" + q
}

// Stage is the queue of a harvest priority: 1 -> stage01 ... 10 -> stage10.
func (n Names) Stage(priority int) string {
	return n.prefix(fmt.Sprintf("stage%02d", ClampPriority(priority)))
}

// Walk, Index and Maintenance are the non-priority queues.
func (n Names) Walk() string        { return n.prefix("walk") }
func (n Names) Index() string       { return n.prefix("index") }
func (n Names) Maintenance() string { return n.prefix("maintenance") }

// Weights returns the asynq queue weights. Weighted mode gives stageNN a
// weight falling with its number, so higher priorities go first but lower
// ones still progress; strict mode is handled by asynq.Config.StrictPriority
// with the same ordering.
func (n Names) Weights() map[string]int {
	w := map[string]int{
		n.Walk():        12,
		n.Index():       8,
		n.Maintenance(): 1,
	}
	for p := PriorityHighest; p <= PriorityLowest; p++ {
		w[n.Stage(p)] = 2 * (PriorityLowest + 1 - p) // stage01: 20 ... stage10: 2
	}
	return w
}

// All lists every queue name.
func (n Names) All() []string {
	out := []string{n.Walk(), n.Index(), n.Maintenance()}
	for p := PriorityHighest; p <= PriorityLowest; p++ {
		out = append(out, n.Stage(p))
	}
	return out
}

// RedisOpt parses a redis:// URL for asynq.
func RedisOpt(url string) (asynq.RedisConnOpt, error) {
	opt, err := asynq.ParseRedisURI(url)
	if err != nil {
		return nil, fmt.Errorf("parse REDIS_URL: %w", err)
	}
	return opt, nil
}

// RedisClient opens a go-redis client for our own keys (rate limits, locks).
func RedisClient(url string) (*redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("parse REDIS_URL: %w", err)
	}
	return redis.NewClient(opt), nil
}
