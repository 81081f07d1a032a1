package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"golang.org/x/sync/errgroup"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/api"
	"github.com/metaharvest/metaharvest/extractors"
	_ "github.com/metaharvest/metaharvest/extractors/families" // every extractor family
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/metrics"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/people"
	"github.com/metaharvest/metaharvest/scheduler"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/meili"      // search backend, chosen by MEILI_URL
	_ "github.com/metaharvest/metaharvest/search/postgres" // search backend without MEILI_URL
	"github.com/metaharvest/metaharvest/web"
	"github.com/metaharvest/metaharvest/worker"
)

var errUsage = errors.New("unknown role")

func run(ctx context.Context, role string, cfg config.Config, logger *slog.Logger) error {
	switch role {
	case "migrate":
		db, err := models.Open(cfg.DatabaseURL)
		if err != nil {
			return err
		}
		sqlDB, _ := db.DB()
		defer sqlDB.Close()
		if err := models.Migrate(ctx, sqlDB); err != nil {
			return err
		}
		logger.Info("migrations applied")
		return nil
	case "api", "worker", "scheduler", "all", "reindex":
	default:
		return errUsage
	}

	db, err := openMigrated(ctx, cfg)
	if err != nil {
		return err
	}
	sqlDB, _ := db.DB()
	defer sqlDB.Close()
	if err := forgetFaces(ctx, cfg, db, logger); err != nil {
		return err
	}
	rdb, err := queue.RedisClient(cfg.RedisURL)
	if err != nil {
		return err
	}
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("connect to redis: %w", err)
	}
	redisOpt, err := queue.RedisOpt(cfg.RedisURL)
	if err != nil {
		return err
	}
	client := asynq.NewClient(redisOpt)
	defer client.Close()
	indexPrefix := "" // the backend's default
	if cfg.RedisNamespace != "" {
		indexPrefix = cfg.RedisNamespace + "_"
	}
	engine, err := search.Open(search.Config{DB: db, MeiliURL: cfg.MeiliURL, MeiliAPIKey: cfg.MeiliAPIKey,
		MeiliIndexPrefix: indexPrefix, Logger: logger})
	if err != nil {
		return err
	}
	if role == "reindex" {
		if cfg.MeiliURL != "" {
			// Opened at once (not lazily), so that reindex can wait until
			// what it sent is searchable (Sync).
			if engine, err = meili.New(ctx, meili.Config{URL: cfg.MeiliURL, APIKey: cfg.MeiliAPIKey,
				IndexPrefix: indexPrefix, Logger: logger, DB: db}); err != nil {
				return err
			}
		}
		n, err := reindex(ctx, db, rdb, engine, cfg.RedisNamespace, logger)
		if err != nil {
			return err
		}
		logger.Info("search index rebuilt", slog.String("engine", engine.Name()), slog.Int("items", n))
		return nil
	}

	// Every role adds what it measures to the deployment's totals, flushed
	// until the roles have stopped (so a stopping worker's last counts are
	// kept).
	rec := metrics.NewRecorder(metrics.RecorderConfig{Redis: rdb, Namespace: cfg.RedisNamespace, Role: role, DB: sqlDB})
	recCtx, stopRec := context.WithCancel(context.WithoutCancel(ctx))
	recDone := make(chan struct{})
	go func() { rec.Run(recCtx, logger); close(recDone) }()
	defer func() { stopRec(); <-recDone }()
	engine = search.Observed(engine, func(op string, took time.Duration, err error) {
		rec.Search(op, took, engineFailed(err))
	})

	// Extractors read their settings and provider keys through the
	// configuration's environment; every role configures them (the api
	// reports which are available, the worker runs them).
	extractors.Default.Configure(extractors.Config{Lookup: cfg.Env, Runner: extractors.NewRunner(cfg.ToolSlots), Logger: logger,
		NoFaceDescriptors: !cfg.FacialRecognition,
		Observer: func(name string, took time.Duration, err error) {
			rec.Extractor(name, took, err != nil && !errors.Is(err, extractors.ErrUnsupported))
		}})
	defer func() {
		if err := extractors.Default.Close(); err != nil {
			logger.Warn("close extractors", slog.Any("error", err))
		}
	}()

	files, err := openFiles(ctx, cfg, logger)
	if err != nil {
		return err
	}
	g, ctx := errgroup.WithContext(ctx)
	if role == "api" || role == "all" {
		created, err := api.BootstrapAdmin(ctx, db, cfg.AdminEmail, cfg.AdminPassword)
		if err != nil {
			return err
		}
		if created {
			logger.Info("bootstrap admin created", slog.String("email", cfg.AdminEmail))
		}
		srv, err := api.New(ctx, api.Deps{Config: cfg, DB: db, Redis: rdb, Queue: client, Logger: logger, Search: engine, Metrics: rec,
			Files: files})
		if err != nil {
			return err
		}
		// The web UI: the api hands it the paths it owns (/, /items/...).
		ui, err := web.New(web.Deps{DB: db, Search: engine, Logger: logger, Sessions: srv.SessionTokens(),
			SignIn: srv.SignIn, SessionTTL: cfg.TokenTTL,
			SecureCookies: strings.HasPrefix(cfg.BaseURL, "https://"), ArtifactOrigins: files.BrowserOrigins})
		if err != nil {
			return err
		}
		srv.MountPages(ui)
		// The dashboard and /metrics list every queue from the start.
		if err := queue.Declare(ctx, rdb, queue.Names{Namespace: cfg.RedisNamespace}); err != nil {
			return err
		}
		g.Go(func() error { return serveHTTP(ctx, cfg.HTTPAddr, srv.Handler(), cfg.ShutdownTimeout, logger) })
	}
	deps := worker.Deps{Config: cfg, DB: db, Redis: rdb, Queue: client, RedisOpt: redisOpt, Logger: logger, Search: engine, Metrics: rec,
		Files: files}
	if role == "worker" || role == "all" {
		g.Go(func() error { return worker.Run(ctx, deps) })
	}
	if role == "scheduler" || role == "all" {
		g.Go(func() error {
			return scheduler.Run(ctx, scheduler.Deps{Config: cfg, DB: db, Redis: rdb, Queue: client, Logger: logger})
		})
	}
	return g.Wait()
}

// forgetFaces deletes every stored face descriptor when facial
// recognition is off: whichever role starts first does it
// (docs/vision.md).
func forgetFaces(ctx context.Context, cfg config.Config, db *gorm.DB, logger *slog.Logger) error {
	if cfg.FacialRecognition {
		return nil
	}
	n, err := store.DeleteAllFaceDescriptors(ctx, db)
	if err != nil {
		return err
	}
	if n > 0 {
		logger.Info("face descriptors deleted: FACIAL_RECOGNITION is false", slog.Int64("faces", n))
	}
	// And the people made of them (docs/people.md).
	persons, err := people.EraseAll(ctx, db, cfg.DataDir)
	if err != nil {
		return err
	}
	if persons > 0 {
		logger.Info("people deleted: FACIAL_RECOGNITION is false", slog.Int64("persons", persons))
	}
	return nil
}

// openMigrated opens the database and refuses an out-of-date schema unless
// MIGRATE=auto, in which case it migrates.
func openMigrated(ctx context.Context, cfg config.Config) (*gorm.DB, error) {
	db, err := models.Open(cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	sqlDB, _ := db.DB()
	// The pool grows with the worker's tasks (config.DBMaxConns).
	models.SizePool(db, cfg.DBMaxConns)
	if err := sqlDB.PingContext(ctx); err != nil {
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	if cfg.MigrateAuto {
		if err := models.Migrate(ctx, sqlDB); err != nil {
			return nil, err
		}
	} else if err := models.CheckMigrated(ctx, sqlDB); err != nil {
		return nil, err
	}
	return db, nil
}

// serveHTTP serves until ctx ends, then drains: it stops accepting, lets
// requests under way finish within timeout, and cuts the connections still
// busy after it. Either way a log line says which.
func serveHTTP(ctx context.Context, addr string, h http.Handler, timeout time.Duration, logger *slog.Logger) error {
	conns := &connCount{}
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ConnState: conns.track}
	errc := make(chan error, 1)
	go func() {
		logger.Info("api listening", slog.String("addr", addr))
		errc <- srv.ListenAndServe()
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	busy := conns.active()
	logger.Info("api draining connections", slog.Int("active", busy), slog.String("timeout", timeout.String()))
	start := time.Now()
	shutdown, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		cut := conns.active()
		_ = srv.Close()
		logger.Warn("api stopped: connections cut after the shutdown timeout", slog.Int("cut", cut),
			slog.String("took", time.Since(start).Round(time.Millisecond).String()))
		return nil
	}
	logger.Info("api stopped: connections drained", slog.Int("finished", busy),
		slog.String("took", time.Since(start).Round(time.Millisecond).String()))
	return nil
}

// connCount counts the connections serving a request (not idle ones).
type connCount struct {
	mu    sync.Mutex
	state map[net.Conn]http.ConnState
}

func (c *connCount) track(conn net.Conn, st http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == nil {
		c.state = map[net.Conn]http.ConnState{}
	}
	if st == http.StateClosed || st == http.StateHijacked {
		delete(c.state, conn)
		return
	}
	c.state[conn] = st
}

func (c *connCount) active() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, st := range c.state {
		if st == http.StateActive || st == http.StateNew {
			n++
		}
	}
	return n
}

// engineFailed tells an engine failure (down, refusing) from a request it
// rightly refused (an unknown field: 400), which is the caller's mistake.
func engineFailed(err error) bool {
	if err == nil {
		return false
	}
	if ae, ok := apperr.As(err); ok && ae.Status < 500 {
		return false
	}
	return true
}
