package worker

import (
	"context"
	"fmt"

	"github.com/hibiken/asynq"

	"github.com/metaharvest/metaharvest/search"
)

// Index is the handler of the index task other processes enqueue after
// marking items dirty (jobs.KickIndex): it wakes this worker's indexer,
// which drains the outbox until it is empty. A handler without an indexer
// (tests that run handlers alone) drains itself. The engine being down is
// a transient failure: the rows stay and the task is retried with backoff.
func (h *Handler) Index(ctx context.Context, _ *asynq.Task) error {
	if h.Search == nil {
		return nil
	}
	if h.indexer != nil {
		h.indexer.Wake()
		return nil
	}
	if _, err := search.Drain(ctx, h.DB, h.Search, 0); err != nil {
		return fmt.Errorf("drain search outbox: %w", err)
	}
	return nil
}
