package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/hibiken/asynq"
	"golang.org/x/sync/errgroup"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/api"
	"github.com/metaharvest/metaharvest/extractors"
	_ "github.com/metaharvest/metaharvest/extractors/standard" // every extractor family
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/scheduler"
	"github.com/metaharvest/metaharvest/search"
	_ "github.com/metaharvest/metaharvest/search/meili"    // search backend, chosen by MEILI_URL
	_ "github.com/metaharvest/metaharvest/search/postgres" // search backend without MEILI_URL
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
		n, err := search.Reindex(ctx, db, engine)
		if err != nil {
			return err
		}
		logger.Info("search index rebuilt", slog.String("engine", engine.Name()), slog.Int("items", n))
		return nil
	}

	// Extractors read their settings and provider keys through the
	// configuration's environment; every role configures them (the api
	// reports which are available, the worker runs them).
	extractors.Default.Configure(extractors.Config{Lookup: cfg.Env, Runner: extractors.NewRunner(cfg.ToolSlots), Logger: logger})
	defer func() {
		if err := extractors.Default.Close(); err != nil {
			logger.Warn("close extractors", slog.Any("error", err))
		}
	}()

	g, ctx := errgroup.WithContext(ctx)
	if role == "api" || role == "all" {
		created, err := api.BootstrapAdmin(ctx, db, cfg.AdminEmail, cfg.AdminPassword)
		if err != nil {
			return err
		}
		if created {
			logger.Info("bootstrap admin created", slog.String("email", cfg.AdminEmail))
		}
		srv, err := api.New(ctx, api.Deps{Config: cfg, DB: db, Redis: rdb, Queue: client, Logger: logger, Search: engine})
		if err != nil {
			return err
		}
		g.Go(func() error { return serveHTTP(ctx, cfg.HTTPAddr, srv.Handler(), logger) })
	}
	deps := worker.Deps{Config: cfg, DB: db, Redis: rdb, Queue: client, RedisOpt: redisOpt, Logger: logger, Search: engine}
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

// openMigrated opens the database and refuses an out-of-date schema unless
// MIGRATE=auto, in which case it migrates.
func openMigrated(ctx context.Context, cfg config.Config) (*gorm.DB, error) {
	db, err := models.Open(cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	sqlDB, _ := db.DB()
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

func serveHTTP(ctx context.Context, addr string, h http.Handler, logger *slog.Logger) error {
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	errc := make(chan error, 1)
	go func() {
		logger.Info("api listening", slog.String("addr", addr))
		errc <- srv.ListenAndServe()
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		return srv.Shutdown(shutdown)
	}
}
