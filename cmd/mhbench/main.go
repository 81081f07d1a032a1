// Command mhbench measures metaharvest against bare baselines in the same
// run, on the same files, and prints ratios (make bench). It needs the
// local Postgres and Redis that `make bench` prepares.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	_ "github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/extractors"
	_ "github.com/metaharvest/metaharvest/extractors/families" // every extractor family
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
	large := flag.String("large", "20x25,2x512", "large-file sets, FILESxMIB separated by commas")
	spaceN := flag.Int("space-items", 200_000, "items harvested for the space suite")
	scaleN := flag.Int("scale-items", 1_000_000, "items seeded for the scale suite")
	scaleRounds := flag.Int("scale-rounds", 5, "harvest rounds of the scale suite (0: only its searches)")
	webN := flag.Int("web-items", 200_000, "items seeded for the web suite")
	peopleN := flag.String("people-faces", "10000,100000,1000000", "face counts of the people suite, ascending, separated by commas")
	only := flag.String("only", "", "run these suites, separated by commas: user, harvest, space, scale, search, s3, artifacts, web, extractors, meili, people")
	rounds := flag.Int("rounds", 5, "rounds of the user and meili suites' small files (and the meili suite's freshness harvests)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	memprofile := flag.String("memprofile", "", "write an allocation profile of the run to this file (the in-process harvests' allocations, beside the bench's own)")
	profileDir := flag.String("profile", "", "directory where each metaharvest process the suites start writes a CPU profile of its life")
	timeline := flag.Bool("timeline", false, "after each harvest through the API, print when its walk, extractors, recording and the client's count came, from the POST")
	platformEnv := flag.String("env", "", "settings for the metaharvest processes the user and meili suites start, KEY=VALUE separated by commas (e.g. WORKER_CONCURRENCY=8), instead of the defaults")
	flag.Parse()
	if _, set := os.LookupEnv("GOGC"); !set {
		// The in-process worker runs with the collector's target
		// metaharvest's main gives worker processes.
		debug.SetGCPercent(400)
	}
	if *timeline {
		timelineTo = os.Stdout
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	cfg := benchConfig{smallN: *smallN, spaceN: *spaceN, scaleN: *scaleN, scaleRounds: *scaleRounds, webN: *webN,
		only: strings.FieldsFunc(*only, func(r rune) bool { return r == ',' }), rounds: max(1, *rounds), profileDir: *profileDir,
		env: strings.FieldsFunc(*platformEnv, func(r rune) bool { return r == ',' })}
	if cfg.profileDir != "" {
		if abs, err := filepath.Abs(cfg.profileDir); err == nil {
			cfg.profileDir = abs
		}
		os.MkdirAll(cfg.profileDir, 0o755)
	}
	for _, n := range strings.Split(*peopleN, ",") {
		var v int
		if _, err := fmt.Sscanf(strings.TrimSpace(n), "%d", &v); err != nil || v < 100 || v%10 != 0 {
			fmt.Fprintf(os.Stderr, "mhbench: -people-faces: %q is not a count of faces (a multiple of 10, at least 100)\n", n)
			os.Exit(2)
		}
		cfg.peopleN = append(cfg.peopleN, v)
	}
	for _, set := range strings.FieldsFunc(*large, func(r rune) bool { return r == ',' }) {
		var files, mib int
		if _, err := fmt.Sscanf(strings.TrimSpace(set), "%dx%d", &files, &mib); err != nil || files < 1 || mib < 1 {
			fmt.Fprintf(os.Stderr, "mhbench: -large: %q is not FILESxMIB\n", set)
			os.Exit(2)
		}
		cfg.large = append(cfg.large, [2]int{files, mib})
	}
	err := run(cfg)
	if *memprofile != "" {
		if werr := writeAllocs(*memprofile); werr != nil {
			fmt.Fprintln(os.Stderr, "mhbench: -memprofile:", werr)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mhbench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// writeAllocs writes the process's allocation profile (every allocation
// sampled since it started) to path.
func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

type benchConfig struct {
	smallN, spaceN, scaleN, webN int
	scaleRounds                  int
	large                        [][2]int
	only                         []string
	rounds                       int
	profileDir                   string
	env                          []string // the user suite's platforms' settings
	peopleN                      []int
}

func run(cfg benchConfig) error {
	ctx := context.Background()
	fmt.Printf("metaharvest bench — %s, %d CPUs\n\n", runtime.Version(), runtime.NumCPU())
	suite := func(name string) bool { return len(cfg.only) == 0 || slices.Contains(cfg.only, name) }
	if suite("user") {
		if err := benchUserPath(ctx, cfg); err != nil {
			return err
		}
	}
	if suite("harvest") {
		env, err := newEnv(ctx)
		if err != nil {
			return err
		}
		defer env.close()
		if err := benchSmall(ctx, env, cfg.smallN); err != nil {
			return err
		}
		for _, l := range cfg.large {
			if err := benchLarge(ctx, env, l[0], l[1]); err != nil {
				return err
			}
		}
	}
	if suite("space") {
		if err := benchSpace(ctx, cfg.spaceN); err != nil {
			return err
		}
	}
	if suite("scale") {
		if err := benchScale(ctx, cfg.scaleN, cfg.scaleRounds); err != nil {
			return err
		}
	}
	if suite("search") {
		if err := benchSearch(ctx); err != nil {
			return err
		}
	}
	if suite("s3") {
		if err := benchS3(ctx, cfg.profileDir); err != nil {
			return err
		}
	}
	if suite("artifacts") {
		if err := benchArtifacts(ctx); err != nil {
			return err
		}
	}
	if suite("web") {
		if err := benchWeb(ctx, cfg.webN); err != nil {
			return err
		}
	}
	if suite("meili") {
		if err := benchMeili(ctx, cfg.smallN, cfg.rounds, cfg.large, cfg.webN, cfg.profileDir, cfg.env); err != nil {
			return err
		}
	}
	if suite("people") {
		if err := benchPeople(ctx, cfg.peopleN); err != nil {
			return err
		}
	}
	if suite("extractors") {
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
	// deps and done: the in-process worker, so that it can be stopped
	// while other platforms are measured (pause, resume).
	deps    worker.Deps
	done    chan struct{}
	starter *jobs.Starter
	engine  search.Engine
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
		if os.Getenv("MHBENCH_KEEP") != "" {
			fmt.Printf("(database %s kept: MHBENCH_KEEP is set)\n", name)
			admin.Close()
			return
		}
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
	models.SizePool(db, cfg.DBMaxConns) // as the binary does
	opt, err := queue.RedisOpt(cfg.RedisURL)
	if err != nil {
		return nil, err
	}
	client := asynq.NewClient(opt)
	e := &env{cfg: cfg, db: db, client: client, opt: opt, dir: dir, dropDB: drop,
		starter: &jobs.Starter{DB: db, Queue: client, Names: queue.Names{Namespace: cfg.RedisNamespace}, Registry: extractors.Default}}
	engine, err := search.Open(search.Config{DB: db})
	if err != nil {
		return nil, err
	}
	e.engine = engine
	e.deps = worker.Deps{Config: cfg, DB: db, Queue: client, RedisOpt: opt, Search: engine, Logger: slog.New(slog.DiscardHandler)}
	e.resume()
	return e, nil
}

// pause stops the in-process worker (an idle worker still polls Redis);
// resume starts it again.
func (e *env) pause() {
	if e.workers != nil {
		e.workers()
		<-e.done
		e.workers = nil
	}
}

func (e *env) resume() {
	if e.workers != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	e.workers, e.done = cancel, done
	go func() { defer close(done); worker.Run(ctx, e.deps) }()
}

func (e *env) close() {
	e.pause()
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
	e.dropRedisKeys()
	os.RemoveAll(e.dir)
}

// dropRedisKeys deletes what asynq keeps of the run's queues besides
// their tasks (daily counters, unique-task locks), about 250 keys a
// harvest that DeleteQueue leaves behind.
func (e *env) dropRedisKeys() {
	rdb, err := queue.RedisClient(e.cfg.RedisURL)
	if err != nil {
		return
	}
	defer rdb.Close()
	ctx := context.Background()
	iter := rdb.Scan(ctx, 0, "asynq:{"+e.cfg.RedisNamespace+":*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	for start := 0; start < len(keys); start += 500 {
		rdb.Del(ctx, keys[start:min(start+500, len(keys))]...)
	}
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

func timeCmd(name string, args ...string) (time.Duration, error) {
	start := time.Now()
	cmd := exec.Command(name, args...)
	cmd.Stdout = nil
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("%s: %v: %s", name, err, out)
	}
	return time.Since(start), nil
}

// smallFileExtractors is the small-file workload of issue #8: mime_type and
// hashes (store always runs). The default profile would also run every
// enabled media extractor on the few random files the sniffer takes for
// MP3 or FLAC (about 1 in 3,000: dozens of ffprobe runs per 20,000 files,
// more or fewer with each run's random bytes).
var smallFileExtractors = []string{"mime_type", "hashes"}

func benchSmall(ctx context.Context, e *env, n int) error {
	root := filepath.Join(e.dir, "small")
	if err := writeSmallFiles(root, n); err != nil {
		return err
	}
	// Five rounds, baseline and harvest interleaved on the same files; the
	// median ratio is the figure (single runs of a sub-second baseline vary
	// by a third on a shared 2-core machine, and rounds of the harvest by a
	// fifth). A fourth round watches the
	// batches become searchable (freshness); its polling loads Postgres, so
	// it is not timed.
	fmt.Printf("small files: %d x 4 KiB (store, mime_type, hashes), end to end: from the harvest request until a search counts every file\n", n)
	var ratios, recordedRatios []float64
	for round := 1; round <= 5; round++ {
		base, err := timeCmd("sh", "-c", "find '"+root+"' -type f -print0 | xargs -0 -P2 sha256sum > /dev/null")
		if err != nil {
			return err
		}
		cpu0 := readCPU()
		run, err := e.harvestE2E(ctx, root, smallFileExtractors, int64(n), false)
		if err != nil {
			return err
		}
		cpu := readCPU().sub(cpu0)
		bfs := float64(n) / base.Seconds()
		ofs := float64(n) / run.searchable.Seconds()
		rfs := float64(n) / run.recorded.Seconds()
		ratios = append(ratios, ofs/bfs)
		recordedRatios = append(recordedRatios, rfs/bfs)
		fmt.Printf("  round %d: find | xargs -P2 sha256sum %8.0f files/s; metaharvest searchable %6.0f files/s (%s), ratio %.3fx\n",
			round, bfs, ofs, run.searchable.Round(time.Millisecond), ofs/bfs)
		fmt.Printf("           harvest recorded %6.0f files/s (%s), ratio %.3fx\n", rfs, run.recorded.Round(time.Millisecond), rfs/bfs)
		fmt.Printf("           CPU per file: metaharvest %3.0f µs, postgres %3.0f µs, redis %2.0f µs; CPUs busy %.0f%%\n",
			cpu.self/float64(n)*1e6, cpu.postgres/float64(n)*1e6, cpu.redis/float64(n)*1e6,
			100*(cpu.self+cpu.postgres+cpu.redis)/run.searchable.Seconds()/float64(runtime.NumCPU()))
	}
	sort.Float64s(ratios)
	sort.Float64s(recordedRatios)
	fmt.Printf("  median ratio, searchable (end to end)  %8.3fx  (target >= 0.10x)\n", ratios[len(ratios)/2])
	fmt.Printf("  median ratio, recorded (harvest only)  %8.3fx\n", recordedRatios[len(recordedRatios)/2])
	run, err := e.harvestE2E(ctx, root, smallFileExtractors, int64(n), true)
	if err != nil {
		return err
	}
	p50, p99 := percentiles(run.freshness)
	fmt.Printf("  freshness: %d batch commits watched; commit -> searchable p50 %s, p99 %s, max %s  (target p99 <= 1 s)\n\n",
		len(run.freshness), p50.Round(time.Millisecond), p99.Round(time.Millisecond), maxDuration(run.freshness).Round(time.Millisecond))
	return nil
}

func maxDuration(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

// benchLarge harvests files files of mib MiB each (md5, sha1 and sha256 in
// one read) against coreutils' md5sum, sha1sum and sha256sum run one after
// the other over the same files, warm in the page cache, in three
// interleaved rounds.
func benchLarge(ctx context.Context, e *env, files, mib int) error {
	root := filepath.Join(e.dir, fmt.Sprintf("large%dx%d", files, mib))
	paths, mb, err := largeSet(root, files, mib)
	if err != nil {
		return err
	}
	fmt.Printf("large files: %d x %d MiB (md5 + sha1 + sha256), end to end\n", files, mib)
	var ratios, recordedRatios []float64
	for round := 1; round <= 3; round++ {
		base, err := coreutils(paths)
		if err != nil {
			return err
		}
		run, err := e.harvestE2E(ctx, root, []string{"hashes"}, int64(files), false)
		if err != nil {
			return err
		}
		ratios = append(ratios, base.Seconds()/run.searchable.Seconds())
		recordedRatios = append(recordedRatios, base.Seconds()/run.recorded.Seconds())
		fmt.Printf("  round %d: md5sum; sha1sum; sha256sum %6.0f MB/s (%s); metaharvest searchable %6.0f MB/s (%s), ratio %.2fx; recorded %.2fx\n",
			round, mb/base.Seconds(), base.Round(time.Millisecond), mb/run.searchable.Seconds(), run.searchable.Round(time.Millisecond),
			ratios[len(ratios)-1], recordedRatios[len(recordedRatios)-1])
	}
	sort.Float64s(ratios)
	sort.Float64s(recordedRatios)
	fmt.Printf("  median ratio, searchable (end to end)  %8.2fx  (target >= 1.3x)\n", ratios[1])
	fmt.Printf("  median ratio, recorded (harvest only)  %8.2fx\n\n", recordedRatios[1])
	return nil
}
