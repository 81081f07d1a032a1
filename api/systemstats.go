package api

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/hibiken/asynq"

	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/store"
)

type queueStatsJSON struct {
	Name      string `json:"name"`
	Pending   int    `json:"pending"`
	Active    int    `json:"active"`
	Scheduled int    `json:"scheduled"`
	Retry     int    `json:"retry"`
	Archived  int    `json:"archived"`
	Completed int    `json:"completed"`
}

// GET /api/control/system/stats: task counts of this deployment's queues
// (named without the Redis namespace), harvest jobs in progress, and the
// number of worker processes serving these queues.
//
// Jobs counted are visible to the caller, not cancelled and updated within
// a day (a job whose tasks were lost stops counting then, unless the
// scheduler repairs it). running: the walk is not complete or fewer items
// finished (harvestend rows) than were enqueued. pending: those of the
// running jobs with no progress yet, waiting for a worker.
func (s *Server) systemStats(c *gin.Context) error {
	opt, err := queue.RedisOpt(s.Config.RedisURL)
	if err != nil {
		return err
	}
	insp := asynq.NewInspector(opt)
	defer insp.Close()
	// asynq knows a queue once a task was enqueued on it; the others are empty.
	known, err := insp.Queues()
	if err != nil {
		return fmt.Errorf("list queues: %w", err)
	}
	exists := map[string]bool{}
	for _, q := range known {
		exists[q] = true
	}
	names := s.queues.All()
	ours := map[string]bool{}
	queues := make([]queueStatsJSON, 0, len(names))
	for _, q := range names {
		ours[q] = true
		st := queueStatsJSON{Name: s.shortQueueName(q)}
		if exists[q] {
			info, err := insp.GetQueueInfo(q)
			if err != nil {
				return fmt.Errorf("queue %s: %w", q, err)
			}
			st.Pending, st.Active, st.Scheduled = info.Pending, info.Active, info.Scheduled
			st.Retry, st.Archived, st.Completed = info.Retry, info.Archived, info.Completed
		}
		queues = append(queues, st)
	}
	servers, err := insp.Servers()
	if err != nil {
		return fmt.Errorf("list workers: %w", err)
	}
	workers := 0
	for _, srv := range servers {
		for q := range srv.Queues {
			if ours[q] {
				workers++
				break
			}
		}
	}

	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	jobs, err := store.CountRunningJobs(s.db(c), v)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"queues": queues, "jobs": jobs, "workers": workers})
	return nil
}

// shortQueueName drops the deployment's namespace: "ns:stage01" -> "stage01".
func (s *Server) shortQueueName(q string) string {
	if ns := s.queues.Namespace; ns != "" {
		return strings.TrimPrefix(q, ns+":")
	}
	return q
}
