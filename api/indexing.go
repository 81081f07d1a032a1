package api

import (
	"log/slog"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/jobs"
)

// kickIndex asks the workers to drain the search outbox soon, after a
// change committed with search.MarkDirty. A failed kick is only logged: the
// scheduler kicks periodically, so the change still reaches the index.
func (s *Server) kickIndex(c *gin.Context) {
	if s.Queue == nil {
		return
	}
	if err := jobs.KickIndex(c.Request.Context(), s.Queue, s.queues); err != nil {
		s.Logger.WarnContext(c.Request.Context(), "kick search index",
			slog.String("request_id", requestIDOf(c)), slog.String("error", err.Error()))
	}
}
