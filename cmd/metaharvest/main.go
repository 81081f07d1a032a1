// Command metaharvest is the one binary of the platform. Its first argument
// is the role: api, worker, scheduler, all (the three in one process),
// migrate, or reindex; or an operator's command: admin (on the database),
// artifacts (the artifact store), harvest, search, jobs (clients of a running platform's API).
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"

	"github.com/metaharvest/metaharvest/internal/config"
)

const usage = `usage: metaharvest <role>

roles:
  api        serve the HTTP API on HTTP_ADDR
  worker     run harvest, index and maintenance tasks
  scheduler  enqueue live harvests of enabled containers
  all        api, worker and scheduler in one process
  migrate    apply database migrations and exit
  reindex    rebuild the search index from Postgres and exit
  admin      operator commands: bootstrap, reset-password EMAIL
             (metaharvest admin for details)
  artifacts  the artifact store: migrate (DATA_DIR <-> DATA_BUCKET), sweep
             (metaharvest artifacts for details)

clients of a running platform (METAHARVEST_URL, METAHARVEST_API_KEY):
  harvest    start a harvest; --wait shows its progress until it ends
  search     search items, printed as a table
  jobs       harvest jobs under way

Configuration comes from the environment; see docs/operations.md.`

func main() {
	if len(os.Args) >= 2 && cliCommands[os.Args[1]] != nil {
		// Clients of a running platform: no platform configuration.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := runCLI(ctx, os.Args[1], os.Args[2:], os.Stdout, os.Stderr, os.LookupEnv)
		stop()
		os.Exit(code)
	}
	admin := len(os.Args) >= 2 && os.Args[1] == "admin"
	artifacts := len(os.Args) >= 2 && os.Args[1] == "artifacts"
	if len(os.Args) != 2 && !admin && !artifacts {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	cfg, err := config.Load(os.LookupEnv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	tuneGC(os.Args[1], os.LookupEnv)
	logger := newLogger(cfg.LogLevel)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if admin {
		if err := runAdmin(ctx, os.Args[2:], cfg, os.Stdin, os.Stdout); err != nil {
			if errors.Is(err, errAdminUsage) {
				fmt.Fprintln(os.Stderr, adminUsage)
				os.Exit(2)
			}
			fmt.Fprintln(os.Stderr, "metaharvest admin:", err)
			os.Exit(1)
		}
		return
	}
	if artifacts {
		if err := runArtifacts(ctx, os.Args[2:], cfg, os.Stdout); err != nil {
			if errors.Is(err, errArtifactsUsage) {
				fmt.Fprintln(os.Stderr, artifactsUsage)
				os.Exit(2)
			}
			fmt.Fprintln(os.Stderr, "metaharvest artifacts:", err)
			os.Exit(1)
		}
		return
	}
	stopProfile := startCPUProfile(cfg.CPUProfile, logger)
	err = run(ctx, os.Args[1], cfg, logger)
	stopProfile()
	if err != nil {
		if errors.Is(err, errUsage) {
			fmt.Fprintln(os.Stderr, usage)
			os.Exit(2)
		}
		logger.Error("metaharvest stopped", slog.String("role", os.Args[1]), slog.String("error", err.Error()))
		os.Exit(1)
	}
}

// startCPUProfile writes a CPU profile of the process to path (CPU_PROFILE)
// until the returned function is called; nothing when path is empty.
func startCPUProfile(path string, logger *slog.Logger) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		logger.Warn("CPU_PROFILE: no profile", slog.String("error", err.Error()))
		if f != nil {
			f.Close()
		}
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// workerGCPercent is the collector's target of a process that runs a
// worker, unless the environment sets GOGC: a worker's live heap is a few
// MB and it allocates for every file, so the default GOGC=100 collects
// every few MB, about a seventh of its CPU on folders of small files; 400
// costs a few MB more (docs/performance.md). The binary decides it, not
// package worker: it is the whole process's setting.
const workerGCPercent = 400

func tuneGC(role string, lookup func(string) (string, bool)) {
	if _, set := lookup("GOGC"); set || (role != "worker" && role != "all") {
		return
	}
	debug.SetGCPercent(workerGCPercent)
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: l}))
}
