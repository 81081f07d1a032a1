// Command mhbench measures metaharvest against bare baselines in the same
// run, on the same files, and prints ratios (make bench). It needs the
// local Postgres and Redis that `make bench` prepares.
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"time"

	"github.com/hibiken/asynq"
	_ "github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/extractors"
	_ "github.com/metaharvest/metaharvest/extractors/standard" // every extractor family
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/worker"
)

func main() {
	smallN := flag.Int("small", 20000, "number of 4 KiB files")
	largeMiB := flag.Int("large-mib", 1024, "total size of the large files in MiB (two files)")
	only := flag.String("only", "", "run one suite: harvest, search or extractors")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	if err := run(*smallN, *largeMiB, *only); err != nil {
		fmt.Fprintln(os.Stderr, "mhbench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(smallN, largeMiB int, only string) error {
	ctx := context.Background()
	fmt.Printf("metaharvest bench — %s, %d CPUs\n\n", runtime.Version(), runtime.NumCPU())
	if only == "" || only == "harvest" {
		env, err := newEnv(ctx)
		if err != nil {
			return err
		}
		defer env.close()
		if err := benchSmall(ctx, env, smallN); err != nil {
			return err
		}
		if err := benchLarge(ctx, env, largeMiB); err != nil {
			return err
		}
	}
	if only == "" || only == "search" {
		if err := benchSearch(ctx); err != nil {
			return err
		}
	}
	if only == "" || only == "extractors" {
		env, err := newEnv(ctx)
		if err != nil {
			return err
		}
		defer env.close()
		if err := benchExtractors(ctx, env); err != nil {
			return err
		}
	}
	return nil
}

// env is a throwaway database, Redis namespace and data dir.
type env struct {
	cfg     config.Config
	db      *gorm.DB
	client  *asynq.Client
	opt     asynq.RedisConnOpt
	dir     string
	dropDB  func()
	workers context.CancelFunc
	starter *jobs.Starter
}

func adminURL() string {
	if v := os.Getenv("TEST_DATABASE_URL"); v != "" {
		return v
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// scratchDB creates a migrated database and returns its URL and a drop func.
func scratchDB(ctx context.Context) (string, func(), error) {
	admin, err := sql.Open("pgx", adminURL())
	if err != nil {
		return "", nil, err
	}
	name := "mh_bench_" + ids.New()[:12]
	if _, err := admin.ExecContext(ctx, fmt.Sprintf(`CREATE DATABASE %q`, name)); err != nil {
		admin.Close()
		return "", nil, err
	}
	u, _ := url.Parse(adminURL())
	u.Path = "/" + name
	drop := func() {
		admin.Exec(fmt.Sprintf(`DROP DATABASE IF EXISTS %q WITH (FORCE)`, name))
		admin.Close()
	}
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		drop()
		return "", nil, err
	}
	defer db.Close()
	if err := models.Migrate(ctx, db); err != nil {
		drop()
		return "", nil, err
	}
	return u.String(), drop, nil
}

func newEnv(ctx context.Context) (*env, error) {
	cfg, err := config.Load(os.LookupEnv)
	if err != nil {
		return nil, err
	}
	dbURL, drop, err := scratchDB(ctx)
	if err != nil {
		return nil, err
	}
	cfg.DatabaseURL = dbURL
	cfg.RedisNamespace = "bench" + ids.New()[:8]
	dir, err := os.MkdirTemp("", "mhbench-")
	if err != nil {
		return nil, err
	}
	cfg.DataDir = filepath.Join(dir, "data")
	db, err := models.Open(dbURL)
	if err != nil {
		return nil, err
	}
	opt, err := queue.RedisOpt(cfg.RedisURL)
	if err != nil {
		return nil, err
	}
	client := asynq.NewClient(opt)
	e := &env{cfg: cfg, db: db, client: client, opt: opt, dir: dir, dropDB: drop,
		starter: &jobs.Starter{DB: db, Queue: client, Names: queue.Names{Namespace: cfg.RedisNamespace}, Registry: extractors.Default}}
	wctx, cancel := context.WithCancel(ctx)
	e.workers = cancel
	engine, err := search.Open(search.Config{DB: db})
	if err != nil {
		return nil, err
	}
	go worker.Run(wctx, worker.Deps{Config: cfg, DB: db, Queue: client, RedisOpt: opt, Search: engine,
		Logger: slog.New(slog.DiscardHandler)})
	return e, nil
}

func (e *env) close() {
	e.workers()
	e.client.Close()
	if s, err := e.db.DB(); err == nil {
		s.Close()
	}
	e.dropDB()
	insp := asynq.NewInspector(e.opt)
	for _, q := range (queue.Names{Namespace: e.cfg.RedisNamespace}).All() {
		insp.DeleteQueue(q, true)
	}
	insp.Close()
	os.RemoveAll(e.dir)
}

// startHarvest makes a folder location of root (its container "media")
// and starts a harvest of it; it returns the location and request ids.
func (e *env) startHarvest(ctx context.Context, root string, extractorNames []string) (locID, req string, err error) {
	locID = ids.New()
	if err := e.db.Create(&models.Location{ID: locID, Kind: "filesystem", Name: locID,
		Config: models.MustJSON(map[string]string{"path": root})}).Error; err != nil {
		return "", "", err
	}
	ctrID := models.ContainerID(locID, "media")
	if err := e.db.Create(&models.Container{ID: ctrID, LocationID: locID, Name: "media"}).Error; err != nil {
		return "", "", err
	}
	req, err = e.starter.Start(ctx, jobs.Spec{LocationID: locID, ContainerID: ctrID, Force: true, Extractors: extractorNames})
	return locID, req, err
}

// harvest walks a folder location and waits until every file is done.
func (e *env) harvest(ctx context.Context, root string, extractorNames []string, want int64) (time.Duration, error) {
	start := time.Now()
	_, req, err := e.startHarvest(ctx, root, extractorNames)
	if err != nil {
		return 0, err
	}
	deadline := start.Add(30 * time.Minute)
	for {
		// Poll the job row (a primary-key read; its counters move in the
		// same transaction as the rows), then confirm with one count: a
		// count(*) every few ms would itself load Postgres.
		var job models.Job
		if err := e.db.Where("request_id = ?", req).Take(&job).Error; err != nil {
			return 0, err
		}
		if job.WalkComplete && job.IndexedCount+job.ErrorCount >= want {
			took := time.Since(start)
			var n int64
			e.db.Model(&models.Activity{}).Where("request_id = ? AND kind = 'harvestend'", req).Count(&n)
			if n < want {
				return 0, fmt.Errorf("harvest of %s: job counters say done but %d of %d items have ended", root, n, want)
			}
			return took, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("harvest of %s not done: %d of %d", root, job.IndexedCount, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func timeCmd(name string, args ...string) (time.Duration, error) {
	start := time.Now()
	cmd := exec.Command(name, args...)
	cmd.Stdout = nil
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("%s: %v: %s", name, err, out)
	}
	return time.Since(start), nil
}

func benchSmall(ctx context.Context, e *env, n int) error {
	root := filepath.Join(e.dir, "small")
	buf := make([]byte, 4096)
	for i := 0; i < n; i++ {
		p := filepath.Join(root, "media", fmt.Sprintf("d%03d", i%100), fmt.Sprintf("f%06d.bin", i))
		if i < 100 {
			os.MkdirAll(filepath.Dir(p), 0o755)
		}
		rand.Read(buf)
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			return err
		}
	}
	// Three rounds, baseline and harvest interleaved on the same files; the
	// median ratio is the figure (single runs of a sub-second baseline vary
	// by a third on a shared 2-core machine).
	fmt.Printf("small files: %d x 4 KiB (default profile: store, mime_type, hashes; DB rows and activity per file)\n", n)
	var ratios []float64
	for round := 1; round <= 3; round++ {
		base, err := timeCmd("sh", "-c", "find '"+root+"' -type f -print0 | xargs -0 -P2 sha256sum > /dev/null")
		if err != nil {
			return err
		}
		cpu0 := readCPU()
		ours, err := e.harvest(ctx, root, nil, int64(n))
		if err != nil {
			return err
		}
		cpu := readCPU().sub(cpu0)
		bfs := float64(n) / base.Seconds()
		ofs := float64(n) / ours.Seconds()
		ratios = append(ratios, ofs/bfs)
		fmt.Printf("  round %d: find | xargs -P2 sha256sum %8.0f files/s; metaharvest %6.0f files/s (%s); ratio %.3fx\n",
			round, bfs, ofs, ours.Round(time.Millisecond), ofs/bfs)
		fmt.Printf("           CPU per file: metaharvest %3.0f µs, postgres %3.0f µs, redis %2.0f µs; CPUs busy %.0f%%\n",
			cpu.self/float64(n)*1e6, cpu.postgres/float64(n)*1e6, cpu.redis/float64(n)*1e6,
			100*(cpu.self+cpu.postgres+cpu.redis)/ours.Seconds()/float64(runtime.NumCPU()))
	}
	sort.Float64s(ratios)
	fmt.Printf("  median ratio                          %10.3fx  (target >= 0.10x)\n\n", ratios[1])
	return nil
}

func benchLarge(ctx context.Context, e *env, totalMiB int) error {
	root := filepath.Join(e.dir, "large")
	dir := filepath.Join(root, "media")
	os.MkdirAll(dir, 0o755)
	var files []string
	buf := make([]byte, 1<<20)
	for i := 0; i < 2; i++ {
		p := filepath.Join(dir, fmt.Sprintf("large%d.bin", i))
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		for j := 0; j < totalMiB/2; j++ {
			rand.Read(buf)
			if _, err := f.Write(buf); err != nil {
				f.Close()
				return err
			}
		}
		f.Close()
		files = append(files, p)
	}
	// Warm the page cache so both sides read from memory.
	for _, f := range files {
		if _, err := timeCmd("cat", f); err != nil {
			return err
		}
	}
	var base time.Duration
	for _, tool := range []string{"md5sum", "sha1sum", "sha256sum"} {
		d, err := timeCmd(tool, files...)
		if err != nil {
			return err
		}
		base += d
	}
	ours, err := e.harvest(ctx, root, []string{"hashes"}, 2)
	if err != nil {
		return err
	}
	mb := float64(totalMiB) * 1.048576
	fmt.Printf("large files: 2 files, %d MiB in all (md5 + sha1 + sha256)\n", totalMiB)
	fmt.Printf("  baseline  md5sum; sha1sum; sha256sum   %8.0f MB/s  (%s)\n", mb/base.Seconds(), base.Round(time.Millisecond))
	fmt.Printf("  metaharvest harvest (one read)        %8.0f MB/s  (%s)\n", mb/ours.Seconds(), ours.Round(time.Millisecond))
	fmt.Printf("  ratio                                 %8.3fx  (target >= 1.0x)\n\n", base.Seconds()/ours.Seconds())
	return nil
}
