package queue

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// allQueuesKey is the Redis set in which asynq lists the queues it knows
// (its dashboard, Inspector.Queues and the stats read it).
const allQueuesKey = "asynq:queues"

// Declare makes every queue of the deployment known to asynq before a task
// is ever put on it, so the dashboard, /metrics and autoscalers list
// stage01..stage10 from the first start, empty ones included. asynq adds a
// queue to the same set when it first enqueues on it; adding it earlier
// changes nothing else.
func Declare(ctx context.Context, rdb redis.Cmdable, n Names) error {
	all := n.All()
	members := make([]any, len(all))
	for i, q := range all {
		members[i] = q
	}
	if err := rdb.SAdd(ctx, allQueuesKey, members...).Err(); err != nil {
		return fmt.Errorf("declare queues: %w", err)
	}
	return nil
}
