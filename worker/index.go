package worker

import (
	"context"
	"fmt"

	"github.com/hibiken/asynq"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/search"
)

// markDirty queues items for the search index in the caller's transaction.
func markDirty(tx *gorm.DB, itemIDs ...string) error { return search.MarkDirty(tx, itemIDs...) }

// Index drains the search outbox into the engine. The engine being down is
// a transient failure: the rows stay and the task is retried with backoff.
func (h *Handler) Index(ctx context.Context, _ *asynq.Task) error {
	if h.Search == nil {
		return nil
	}
	if _, err := search.Drain(ctx, h.DB, h.Search, 500); err != nil {
		return fmt.Errorf("drain search outbox: %w", err)
	}
	return nil
}

// kickIndex asks for an index drain after a batch committed.
func (h *Handler) kickIndex(ctx context.Context) {
	if h.Search == nil {
		return
	}
	if err := jobs.KickIndex(ctx, h.Queue, h.names); err != nil {
		h.Logger.Warn("kick search index", "error", err.Error())
	}
}
