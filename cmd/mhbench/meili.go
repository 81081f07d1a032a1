package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/meilisearch/meilisearch-go"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/testmeili"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/meili"
	"github.com/metaharvest/metaharvest/search/searchtest"
	"github.com/metaharvest/metaharvest/storage"
	"github.com/metaharvest/metaharvest/worker"
)

// The Meilisearch suite (-only meili): the platform with the Meilisearch
// backend against a Meilisearch started here (internal/testmeili, the
// binary deploy/setup.sh --s3 installs):
//   - small files end to end against bare Meilisearch ingest of the same
//     documents (read back from the platform's index and posted again in
//     batches of 500 without waiting, until the last task succeeded), into
//     an index with the platform's settings and one with 9 filterable
//     attributes, each holding the documents of the rounds before, as the
//     platform's index does; with where Meilisearch spent its time (the
//     longest steps of its batches' progress traces);
//   - large files end to end against coreutils md5sum, sha1sum, sha256sum;
//   - freshness: batch commit to searchable, in as many harvests as
//     rounds (one harvest's p99 is about its slowest commit: the goal is
//     read, as the others, as the median of the rounds');
//   - search through the API at 200k documents, beside the Postgres
//     backend on the same corpus.
func benchMeili(ctx context.Context, smallN, rounds int, large [][2]int, searchN int, profileDir string, extraEnv []string) error {
	if _, err := testmeili.Binary(); err != nil {
		fmt.Printf("meilisearch suite skipped: %v\n\n", err)
		return nil
	}
	dir, err := os.MkdirTemp("", "mhbench-meili-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	srv, err := testmeili.Launch(dir)
	if err != nil {
		return err
	}
	defer srv.Kill()
	fmt.Printf("meilisearch %s (internal/testmeili)\n", testmeili.Version)
	if err := benchMeiliSmall(ctx, srv, smallN, rounds, profileDir, extraEnv); err != nil {
		return err
	}
	env, err := newMeiliEnv(ctx, srv)
	if err != nil {
		return err
	}
	defer env.close()
	for _, l := range large {
		if err := benchLarge(ctx, env, l[0], l[1]); err != nil {
			return err
		}
	}
	if searchN == 0 {
		return nil
	}
	return benchMeiliSearch(ctx, srv, searchN)
}

// newMeiliEnv is newEnv with the Meilisearch backend (indexes prefixed by
// the run's namespace).
func newMeiliEnv(ctx context.Context, srv *testmeili.Server) (*env, error) {
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
	cfg.MeiliURL, cfg.MeiliAPIKey = srv.URL, srv.Key
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
	engine, err := meili.New(ctx, meili.Config{URL: srv.URL, APIKey: srv.Key, IndexPrefix: cfg.RedisNamespace + "_", DB: db,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	e.engine = engine
	e.deps = worker.Deps{Config: cfg, DB: db, Queue: client, RedisOpt: opt, Search: engine, Logger: slog.New(slog.DiscardHandler)}
	e.resume()
	return e, nil
}

func benchMeiliSmall(ctx context.Context, srv *testmeili.Server, n, rounds int, profileDir string, extraEnv []string) error {
	root, err := os.MkdirTemp("", "mhbench-meili-small-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	if err := writeSmallFiles(root, n); err != nil {
		return err
	}
	bin, err := metaharvestBinary(root)
	if err != nil {
		return err
	}
	p, err := startPlatform(ctx, bin, "meili all", platformOptions{roles: []string{"all"}, profileDir: profileDir,
		env: append([]string{"MEILI_URL=" + srv.URL, "MEILI_API_KEY=" + srv.Key}, extraEnv...)})
	if err != nil {
		return err
	}
	defer p.close()
	items := p.ns + "_items"
	client := meilisearch.New(srv.URL, meilisearch.WithAPIKey(srv.Key), meilisearch.WithCustomClient(meili.HTTPClient()))
	settings := settingsLabel(extraEnv, "the defaults")
	fmt.Printf("small files with Meilisearch (user path): %d x 4 KiB (store, mime_type, hashes), metaharvest all with MEILI_URL and %s, from the harvest POST until a search through the API counts every file, against bare Meilisearch ingest of the same documents\n", n, settings)
	// The bare indexes live through the rounds, as the platform's does:
	// each round adds the documents of a new location to all three, so
	// that each ingest goes into an index of the same size.
	// The platform's settings: an engine made on another prefix gives its
	// index exactly those.
	prefix := "bare" + ids.New()[:6] + "_"
	if _, err := meili.New(ctx, meili.Config{URL: srv.URL, APIKey: srv.Key, IndexPrefix: prefix, Logger: slog.New(slog.DiscardHandler)}); err != nil {
		return err
	}
	// Nine filterable attributes, nothing else set.
	uid := "nine" + ids.New()[:6]
	info, err := client.CreateIndexWithContext(ctx, &meilisearch.IndexConfig{Uid: uid, PrimaryKey: search.FieldID})
	if err == nil {
		_, err = client.WaitForTaskWithContext(ctx, info.TaskUID, 20*time.Millisecond)
	}
	if err != nil {
		return err
	}
	filterable := []any{"_location_groups", "_container_groups", "location_id", "store_container_id", "mime_type", "type", "extension", "size", "last_modified"}
	if info, err = client.Index(uid).UpdateFilterableAttributesWithContext(ctx, &filterable); err == nil {
		_, err = client.WaitForTaskWithContext(ctx, info.TaskUID, 20*time.Millisecond)
	}
	if err != nil {
		return err
	}
	defer func() {
		for _, idx := range []string{prefix + "items", prefix + "segments", prefix + "fields", uid} {
			client.DeleteIndexWithContext(context.Background(), idx)
		}
	}()
	meiliCPU := func() float64 { return procCPU(srv.Pid()) }
	r := ratios{}
	lastLoc := ""
	for round := 1; round <= rounds; round++ {
		m0, began := meiliCPU(), time.Now()
		run, err := p.harvest(ctx, storage.KindFilesystem, map[string]string{"path": root}, "media", smallFileExtractors, int64(n))
		if err != nil {
			return err
		}
		platformMeili := meiliCPU() - m0
		lastLoc = run.locID
		batches, err := meiliBatches(ctx, client, items, began)
		if err != nil {
			return err
		}
		docs, err := meiliDocuments(ctx, client, items, run.locID)
		if err != nil {
			return err
		}
		if len(docs) != n {
			return fmt.Errorf("the platform's index has %d documents of the harvest, want %d", len(docs), n)
		}
		m0, bareBegan := meiliCPU(), time.Now()
		tp, err := bareIngest(ctx, client, prefix+"items", docs)
		if err != nil {
			return err
		}
		bareMeili := meiliCPU() - m0
		bareBatches, err := meiliBatches(ctx, client, prefix+"items", bareBegan)
		if err != nil {
			return err
		}
		t9, err := bareIngest(ctx, client, uid, docs)
		if err != nil {
			return err
		}
		ofs := float64(n) / run.searchable.Seconds()
		pfs, nfs := float64(n)/tp.Seconds(), float64(n)/t9.Seconds()
		r.add("e2e", ofs/pfs)
		r.add("nine", ofs/nfs)
		r.add("cpu", platformMeili/bareMeili)
		fmt.Printf("  round %d: metaharvest searchable %6.0f files/s (%s); bare Meilisearch, platform settings %6.0f docs/s, ratio %.2fx; 9 filterable %6.0f docs/s, ratio %.2fx\n",
			round, ofs, run.searchable.Round(time.Millisecond), pfs, ofs/pfs, nfs, ofs/nfs)
		fmt.Printf("           Meilisearch CPU per document: under the platform's feed %.0f µs (with the %d counts the client searched meanwhile), under the bare feed %.0f µs, ratio %.2fx; %d documents received for %d files\n",
			platformMeili/float64(n)*1e6, run.searches, bareMeili/float64(n)*1e6, platformMeili/bareMeili, batches.docs, n)
		// The harvest and Meilisearch share the machine's CPUs: with every
		// CPU busy all along, the harvest's searchable time would be its
		// CPU over the CPUs, which bounds the ratio this machine allows.
		total := run.platform + run.postgres + run.cpu.redis + platformMeili
		fmt.Printf("           CPU of the harvest: metaharvest %.1f s, its Postgres backends %.1f s, Redis %.1f s, Meilisearch %.1f s; ratio possible on %d CPUs %.2fx\n",
			run.platform, run.postgres, run.cpu.redis, platformMeili, runtime.NumCPU(), tp.Seconds()/(total/float64(runtime.NumCPU())))
		fmt.Printf("           Meilisearch indexed the harvest in %s; the bare ingest in %s\n", batches, bareBatches)
		fmt.Printf("           its longest steps, harvest: %s\n", batches.topSteps(6))
		fmt.Printf("           bare ingest: %s\n", bareBatches.topSteps(6))
	}
	// What the client's waiting cost Meilisearch: a count through the
	// API's search of the last round's files.
	const asks = 20
	m0, start := meiliCPU(), time.Now()
	for range asks {
		if _, err := p.searchCount(ctx, lastLoc); err != nil {
			return err
		}
	}
	fmt.Printf("  one count through the API's search of %d documents (of %d): %.1f ms, Meilisearch CPU %.1f ms\n",
		n, rounds*n, ms(time.Since(start))/asks, (meiliCPU()-m0)*1000/asks)
	fmt.Printf("  median ratio against bare ingest, platform settings  %5.2fx  (goal >= 0.5x)\n", r.median("e2e"))
	fmt.Printf("  median ratio against bare ingest, 9 filterable       %5.2fx\n", r.median("nine"))
	fmt.Printf("  median Meilisearch CPU per document, platform's feed / bare feed  %5.2fx  (goal <= 1.3x)\n", r.median("cpu"))
	engine, err := meili.New(ctx, meili.Config{URL: srv.URL, APIKey: srv.Key, IndexPrefix: p.ns + "_", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	var pooled []time.Duration
	var p99s []time.Duration
	for round := 1; round <= rounds; round++ {
		began := time.Now()
		fresh, err := p.watch(ctx, storage.KindFilesystem, map[string]string{"path": root}, "media", smallFileExtractors, int64(n), engine)
		if err != nil {
			return err
		}
		if len(fresh) == 0 {
			return errors.New("freshness: no batch commit seen")
		}
		pooled = append(pooled, fresh...)
		p50, p99 := percentiles(fresh)
		p99s = append(p99s, p99)
		queued, indexing, err := meiliTaskTimes(ctx, client, items, began)
		if err != nil {
			return err
		}
		if len(queued) == 0 {
			return fmt.Errorf("meilisearch finished no task on %s during the harvest", items)
		}
		q50, q99 := percentiles(queued)
		i50, i99 := percentiles(indexing)
		fmt.Printf("  freshness, harvest %d: %d batch commits watched; commit -> searchable p50 %s, p99 %s\n",
			round, len(fresh), p50.Round(time.Millisecond), p99.Round(time.Millisecond))
		fmt.Printf("           of which in Meilisearch, %d tasks: enqueued -> started p50 %s, p99 %s; started -> succeeded p50 %s, p99 %s\n",
			len(queued), q50.Round(time.Millisecond), q99.Round(time.Millisecond), i50.Round(time.Millisecond), i99.Round(time.Millisecond))
	}
	medianP99, _ := percentiles(p99s)
	p50, p99 := percentiles(pooled)
	fmt.Printf("  median of the harvests' freshness p99  %s  (goal <= 2 s); all %d commits: p50 %s, p99 %s, max %s\n\n",
		medianP99.Round(time.Millisecond), len(pooled),
		p50.Round(time.Millisecond), p99.Round(time.Millisecond), maxDuration(pooled).Round(time.Millisecond))
	return nil
}

// meiliTaskTimes reads the tasks Meilisearch finished on an index since a
// moment, and returns how long each waited in its queue and how long the
// batch that indexed it took: the part of the freshness spent in
// Meilisearch, the rest being the platform's, from commit to enqueued.
func meiliTaskTimes(ctx context.Context, c meilisearch.ServiceManager, uid string, since time.Time) (queued, indexing []time.Duration, err error) {
	q := &meilisearch.TasksQuery{IndexUIDS: []string{uid}, Statuses: []meilisearch.TaskStatus{meilisearch.TaskStatusSucceeded}, Limit: 1000}
	for {
		res, err := c.GetTasksWithContext(ctx, q)
		if err != nil {
			return nil, nil, err
		}
		for _, t := range res.Results {
			if t.EnqueuedAt.Before(since) {
				return queued, indexing, nil
			}
			queued = append(queued, t.StartedAt.Sub(t.EnqueuedAt))
			indexing = append(indexing, t.FinishedAt.Sub(t.StartedAt))
		}
		if res.Next == 0 || len(res.Results) == 0 {
			return queued, indexing, nil
		}
		q.From = res.Next
	}
}

// batchStats sums the batches Meilisearch ran on an index: how many,
// the documents they indexed, and the time they took.
type batchStats struct {
	n, docs int
	busy    time.Duration
	// steps sums the leaves of the batches' progress traces (the steps
	// Meilisearch timed, "processing tasks > indexing > extracting words"
	// and the like): where the busy time went.
	steps map[string]time.Duration
}

// addTrace adds the leaves of one batch's progress trace to steps.
func (b *batchStats) addTrace(trace map[string]string) {
	if b.steps == nil {
		b.steps = map[string]time.Duration{}
	}
	for k, v := range trace {
		leaf := true
		for other := range trace {
			if strings.HasPrefix(other, k+" > ") {
				leaf = false
				break
			}
		}
		if d, err := time.ParseDuration(v); err == nil && leaf {
			b.steps[strings.TrimPrefix(k, "processing tasks > ")] += d
		}
	}
}

// topSteps names the longest steps, longest first.
func (b batchStats) topSteps(n int) string {
	names := make([]string, 0, len(b.steps))
	for k := range b.steps {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return b.steps[names[i]] > b.steps[names[j]] })
	var parts []string
	for _, k := range names[:min(n, len(names))] {
		parts = append(parts, fmt.Sprintf("%s %s", k, b.steps[k].Round(time.Millisecond)))
	}
	return strings.Join(parts, "; ")
}

func (b batchStats) String() string {
	if b.n == 0 {
		return "no batch"
	}
	return fmt.Sprintf("%d batches of %.0f documents on average, busy %s (%s a batch)",
		b.n, float64(b.docs)/float64(b.n), b.busy.Round(time.Millisecond), (b.busy / time.Duration(b.n)).Round(time.Millisecond))
}

// meiliBatches reads the batches Meilisearch started on an index since a
// moment, newest first (the client library sends afterStartedAt in a
// format Meilisearch refuses: the moment is compared here).
func meiliBatches(ctx context.Context, c meilisearch.ServiceManager, uid string, since time.Time) (batchStats, error) {
	var st batchStats
	q := &meilisearch.BatchesQuery{IndexUIDs: []string{uid}, Limit: 1000}
	for {
		res, err := c.GetBatchesWithContext(ctx, q)
		if err != nil {
			return st, err
		}
		for _, b := range res.Results {
			if b.StartedAt.Before(since) {
				return st, nil
			}
			st.n++
			if d, ok := b.Details["indexedDocuments"].(float64); ok {
				st.docs += int(d)
			}
			if !b.FinishedAt.IsZero() {
				st.busy += b.FinishedAt.Sub(b.StartedAt)
			}
			if b.Stats != nil {
				st.addTrace(b.Stats.ProgressTrace)
			}
		}
		if res.Next == 0 || len(res.Results) == 0 {
			return st, nil
		}
		q.From = res.Next
	}
}

// meiliDocuments reads back the documents of a location as the platform
// stored them.
func meiliDocuments(ctx context.Context, c meilisearch.ServiceManager, uid, locID string) ([]json.RawMessage, error) {
	var out []json.RawMessage
	const page = 5000
	for offset := int64(0); ; offset += page {
		var res struct {
			Results []json.RawMessage `json:"results"`
		}
		var raw meilisearch.DocumentsResult
		err := c.Index(uid).GetDocumentsWithContext(ctx, &meilisearch.DocumentsQuery{Offset: offset, Limit: page,
			Filter: fmt.Sprintf("location_id = %q", locID)}, &raw)
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(raw)
		if err := json.Unmarshal(b, &res); err != nil {
			return nil, err
		}
		out = append(out, res.Results...)
		if len(res.Results) < page {
			return out, nil
		}
	}
}

// bareIngest posts documents in batches of 500 without waiting between
// them and returns the time until the last task succeeded.
func bareIngest(ctx context.Context, c meilisearch.ServiceManager, uid string, docs []json.RawMessage) (time.Duration, error) {
	pk := search.FieldID
	start := time.Now()
	var last int64
	for i := 0; i < len(docs); i += 500 {
		var buf bytes.Buffer
		for _, d := range docs[i:min(i+500, len(docs))] {
			buf.Write(d)
			buf.WriteByte('\n')
		}
		info, err := c.Index(uid).AddDocumentsNdjsonWithContext(ctx, buf.Bytes(), &meilisearch.DocumentOptions{PrimaryKey: &pk})
		if err != nil {
			return 0, err
		}
		last = info.TaskUID
	}
	t, err := c.WaitForTaskWithContext(ctx, last, 10*time.Millisecond)
	if err != nil {
		return 0, err
	}
	if t.Status != meilisearch.TaskStatusSucceeded {
		return 0, fmt.Errorf("bare ingest: task %d %s: %s", t.UID, t.Status, t.Error.Message)
	}
	return time.Since(start), nil
}

// benchMeiliSearch indexes the same generated corpus in both backends and
// times a name query and a terms aggregation through the API of each.
func benchMeiliSearch(ctx context.Context, srv *testmeili.Server, docs int) error {
	dbURL, drop, err := scratchDB(ctx)
	if err != nil {
		return err
	}
	defer drop()
	db, err := models.Open(dbURL)
	if err != nil {
		return err
	}
	defer func() { s, _ := db.DB(); s.Close() }()
	cfg, err := config.Load(os.LookupEnv)
	if err != nil {
		return err
	}
	cfg.RedisNamespace = "bench" + ids.New()[:8]
	pg, err := search.Open(search.Config{DB: db})
	if err != nil {
		return err
	}
	me, err := meili.New(ctx, meili.Config{URL: srv.URL, APIKey: srv.Key, IndexPrefix: cfg.RedisNamespace + "_", DB: db,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	corpus := searchtest.NewCorpus(docs, 7, time.Now())
	fmt.Printf("search with Meilisearch beside Postgres: %d item documents, through the API (admin)\n", docs)
	for _, eng := range []search.Engine{pg, me} {
		start := time.Now()
		for i := 0; i < len(corpus.Docs); i += 1000 {
			if err := eng.Upsert(ctx, corpus.Docs[i:min(i+1000, len(corpus.Docs))]); err != nil {
				return err
			}
		}
		if err := me.Sync(ctx); err != nil {
			return err
		}
		fmt.Printf("  %-8s index built in %s (%.0f docs/s)\n", eng.Name(), time.Since(start).Round(time.Millisecond), float64(docs)/time.Since(start).Seconds())
	}
	sqlDB, _ := db.DB()
	for _, t := range []string{"search_documents", "search_sources", "search_fulltext", "search_flat", "search_numbers"} {
		sqlDB.ExecContext(ctx, `VACUUM ANALYZE `+t)
	}
	name := search.Request{Query: searchtest.MarkerName, Limit: 20}
	agg := search.Request{Limit: 20, Aggregations: &search.Aggregations{Terms: []search.TermsAgg{{Name: "mime", Field: "mime_type"}}}}
	type result struct{ nameP50, nameP99, aggP50 time.Duration }
	results := map[string]result{}
	for _, eng := range []search.Engine{pg, me} {
		client, base, tok, stop, err := startAPI(ctx, cfg, db, eng, apiOnly)
		if err != nil {
			return err
		}
		var names, aggs []time.Duration
		for r := -3; r < 60; r++ {
			t0 := time.Now()
			if err := apiCall(client, base, tok, "POST", "/api/data/search", name, nil); err != nil {
				stop()
				return err
			}
			d1 := time.Since(t0)
			t0 = time.Now()
			if err := apiCall(client, base, tok, "POST", "/api/data/search", agg, nil); err != nil {
				stop()
				return err
			}
			if r >= 0 {
				names, aggs = append(names, d1), append(aggs, time.Since(t0))
			}
		}
		stop()
		n50, n99 := percentiles(names)
		a50, _ := percentiles(aggs)
		results[eng.Name()] = result{n50, n99, a50}
		// A second api on the same database: a fresh admin is not made twice.
		cfg.RedisNamespace = "bench" + ids.New()[:8]
	}
	for _, name := range []string{"postgres", "meili"} {
		r := results[name]
		fmt.Printf("  %-8s name query p50 %7.2f ms  p99 %7.2f ms   terms aggregation (mime_type, every document) p50 %7.2f ms\n",
			name, ms(r.nameP50), ms(r.nameP99), ms(r.aggP50))
	}
	fmt.Println()
	return nil
}
