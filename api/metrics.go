package api

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/hibiken/asynq"

	"github.com/metaharvest/metaharvest/internal/metrics"
	"github.com/metaharvest/metaharvest/internal/queue"
)

// metricsPath serves the Prometheus metrics of the deployment (see
// internal/metrics): to credentials holding system:read (administrators),
// and to a scraper presenting METRICS_TOKEN as its bearer token.
const metricsPath = "/metrics"

// metricsEndpoint builds the registry on first use: tests of other routes
// open no Redis connection for it.
type metricsEndpoint struct {
	once    sync.Once
	handler http.Handler
	err     error
}

// GET /metrics
func (s *Server) serveMetrics(c *gin.Context) error {
	m := &s.metricsEP
	m.once.Do(func() {
		opt, err := queue.RedisOpt(s.Config.RedisURL)
		if err != nil {
			m.err = err
			return
		}
		sqlDB, err := s.DB.DB()
		if err != nil {
			m.err = err
			return
		}
		reg := metrics.NewRegistry(metrics.Sources{Redis: s.Redis, Namespace: s.Config.RedisNamespace,
			Inspector: asynq.NewInspector(opt), Queues: s.queues.All(), Short: s.shortQueueName,
			DB: sqlDB, Logger: s.Logger})
		m.handler = metrics.Handler(reg, s.Logger)
	})
	if m.err != nil {
		return m.err
	}
	m.handler.ServeHTTP(c.Writer, c.Request)
	return nil
}

// scraper is the principal of a request carrying METRICS_TOKEN: it holds
// the scope of /metrics and nothing else, and only that route accepts it.
func (s *Server) scraper(c *gin.Context) (*Principal, bool) {
	want := s.Config.MetricsToken
	if want == "" {
		return nil, false
	}
	scheme, token, ok := strings.Cut(c.GetHeader("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") ||
		subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(want)) != 1 {
		return nil, false
	}
	return &Principal{Scopes: map[string]bool{"system:read": true}}, true
}

// routeLabelKey is the route label of a request no route template matched
// but a handler of its own serves (the web pages).
const routeLabelKey = "route_label"

// measureHTTP records every answered request by route template (never the
// raw path, so an unknown path cannot mint series), method and status.
func (s *Server) measureHTTP(c *gin.Context) {
	start := time.Now()
	c.Next()
	route := c.FullPath()
	if route == "" {
		route = c.GetString(routeLabelKey)
	}
	if route == "" {
		route = "unmatched"
	}
	s.Metrics.HTTP(route, methodLabel(c.Request.Method), c.Writer.Status(), time.Since(start))
}

func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}
