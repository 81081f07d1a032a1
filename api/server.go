package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/metaharvest/metaharvest/api/logoprovider"
	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/auth"
	"github.com/metaharvest/metaharvest/internal/blobstore"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/metrics"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/storage"
)

// Deps are the collaborators of the api, passed in by main (or a test).
type Deps struct {
	Config config.Config
	DB     *store.DB
	Redis  *redis.Client
	Queue  *asynq.Client
	Logger *slog.Logger
	// Extractors is the extractor registry (extractors.Default when nil).
	Extractors *extractors.Registry
	// Search is the search engine the search endpoints query.
	Search search.Engine
	// Metrics records every request (nil: nothing is recorded).
	Metrics *metrics.Recorder
	// Files are the artifact store and the upload store's bucket;
	// DATA_DIR's when nil.
	Files *blobstore.Files
}

// Server serves the HTTP interface.
type Server struct {
	Deps
	queues  queue.Names
	tokens  *auth.Tokens
	router  *gin.Engine
	routes  []Route
	limiter *loginLimiter
	jobs    *jobs.Starter

	metricsEP  metricsEndpoint
	dashboards dashboards

	// logoProvider and logoBucket serve logo training (logotraining.go);
	// nil when not configured.
	logoProvider logoprovider.Provider
	logoBucket   *storage.Bucket

	// pages is the web UI (MountPages); nil: every unknown path is 404.
	pages Pages
}

// New builds the server: loads the signing secret, registers every route.
func New(ctx context.Context, d Deps) (*Server, error) {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	secret, err := tokenSecret(ctx, d.DB)
	if err != nil {
		return nil, err
	}
	tokens, err := auth.NewTokens(secret)
	if err != nil {
		return nil, err
	}
	if d.Extractors == nil {
		d.Extractors = extractors.Default
	}
	if d.Files == nil {
		d.Files = blobstore.Local(d.Config.DataDir)
	}
	s := &Server{
		Deps:    d,
		queues:  queue.Names{Namespace: d.Config.RedisNamespace},
		tokens:  tokens,
		limiter: newLoginLimiter(d.Redis, d.Config),
	}
	s.jobs = &jobs.Starter{DB: d.DB, Queue: d.Queue, Names: s.queues, Registry: d.Extractors}
	if err := s.initLogoTraining(); err != nil {
		return nil, err
	}
	if err := s.buildRouter(); err != nil {
		return nil, err
	}
	return s, nil
}

// db is the database handle of a request (its context cancels queries).
func (s *Server) db(c *gin.Context) *store.DB { return s.DB.WithContext(c.Request.Context()) }

// Handler is the http.Handler of the api.
func (s *Server) Handler() http.Handler { return s.router }

// Routes lists every registered route (for tests and the docs page).
func (s *Server) Routes() []Route { return s.routes }

func (s *Server) buildRouter() error {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = true
	r.ContextWithFallback = true
	if err := r.SetTrustedProxies(s.Config.TrustedProxies); err != nil {
		return fmt.Errorf("trusted proxies: %w", err)
	}
	r.Use(s.requestID, s.recoverPanics, s.measureHTTP, s.accessLog, s.limitBody)
	r.NoRoute(func(c *gin.Context) {
		if s.pages != nil && s.pages.Owns(c.Request.URL.Path) {
			s.servePage(c)
			return
		}
		s.renderError(c, notFoundRoute(c))
	})
	r.NoMethod(func(c *gin.Context) {
		s.renderError(c, methodNotAllowed(c))
	})
	doc, _, err := Spec()
	if err != nil {
		return fmt.Errorf("openapi document: %w", err)
	}
	s.routes = s.routeTable()
	seen := map[string]bool{}
	for _, rt := range s.routes {
		key := rt.Method + " " + rt.Path
		if seen[key] {
			return fmt.Errorf("route %s registered twice", key)
		}
		seen[key] = true
		if rt.Scope == "" {
			return fmt.Errorf("route %s has no scope", key)
		}
		if rt.Scope != ScopePublic && !knownScope(rt.Scope) {
			return fmt.Errorf("route %s has unknown scope %q", key, rt.Scope)
		}
		r.Handle(rt.Method, rt.Path, s.wrap(rt, bodyRuleFor(doc, rt)))
	}
	s.router = r
	return nil
}

// wrap authenticates, checks the route's scope and the request body (see
// checkBody), runs the handler and renders any error it returns.
func (s *Server) wrap(rt Route, body bodyRule) gin.HandlerFunc {
	return func(c *gin.Context) {
		if rt.Scope != ScopePublic {
			p, err := s.credentialFor(c, rt)
			if err != nil {
				s.authFailed(c, rt, err)
				return
			}
			if !p.Can(rt.Scope) {
				s.renderError(c, forbiddenScope(rt.Scope))
				return
			}
			c.Set(principalKey, p)
		}
		if err := checkBody(c, body, s.Config.MaxBodyBytes); err != nil {
			s.renderError(c, err)
			return
		}
		if err := rt.Handler(c); err != nil {
			s.renderError(c, err)
		}
	}
}
