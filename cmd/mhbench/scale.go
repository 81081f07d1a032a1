package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/api"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/web"
)

// benchScale: what a platform holding n items costs. Two platforms: an
// empty one, and one seeded with n items (copies of harvested rows, made
// in SQL: items, their activity rows and search documents, under new ids
// and names, in locations of their own, half of them behind a group the
// searching user is not in). Each of the rounds (five unless told)
// harvests 10k new small files into each platform; the median ratio of
// their costs per file is the figure. Then the searches of a user who sees about half of the
// seeded platform are timed through the api: file names, and a terms
// aggregation over everything.
func benchScale(ctx context.Context, n, rounds int) error {
	const files = 10_000
	empty, err := newEnv(ctx)
	if err != nil {
		return err
	}
	defer empty.close()
	full, err := newEnv(ctx)
	if err != nil {
		return err
	}
	defer full.close()
	fmt.Printf("scale: %d items seeded; harvests of %d small files on an empty and on the seeded platform, %d interleaved rounds\n", n, files, rounds)

	// harvest times one harvest, and then does what the platform does in
	// the background after it (settle), apart.
	harvest := func(e *env, label string) (time.Duration, cpuTimes, cpuTimes, error) {
		root := filepath.Join(e.dir, label)
		if err := writeSmallFiles(root, files); err != nil {
			return 0, cpuTimes{}, cpuTimes{}, err
		}
		e.resetStatements()
		cpu0 := readCPU()
		run, err := e.harvestE2E(ctx, root, smallFileExtractors, files, false)
		c := readCPU().sub(cpu0)
		e.printStatements(label)
		if err != nil {
			return 0, c, cpuTimes{}, err
		}
		deferred, err := e.settle(ctx)
		return run.searchable, c, deferred, err
	}
	// The rows to copy: one harvest into the platform to seed.
	if _, _, _, err := harvest(full, "template"); err != nil {
		return err
	}
	start := time.Now()
	if err := full.seed(ctx, n); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	fmt.Printf("  seeded %d items in %s (SQL copies of harvested rows; then VACUUM ANALYZE, as autovacuum would, and a CHECKPOINT)\n", n, time.Since(start).Round(time.Second))
	perFile := func(d time.Duration, c cpuTimes) string {
		return fmt.Sprintf("%6.0f files/s, CPU per file %3.0f µs (metaharvest %3.0f, postgres %3.0f)", float64(files)/d.Seconds(),
			(c.self+c.postgres+c.redis)/files*1e6, c.self/files*1e6, c.postgres/files*1e6)
	}
	total := func(c cpuTimes) float64 { return c.self + c.postgres + c.redis }
	deferredPerFile := func(d cpuTimes) string {
		return fmt.Sprintf("then in the background %3.0f µs per file (GIN merge, VACUUM ANALYZE)", total(d)/files*1e6)
	}
	var ratios, cpuRatios []float64
	for round := 1; round <= rounds; round++ {
		te, ce, de, err := harvest(empty, fmt.Sprintf("round%d", round))
		if err != nil {
			return err
		}
		tf, cf, df, err := harvest(full, fmt.Sprintf("round%d", round))
		if err != nil {
			return err
		}
		ratios = append(ratios, tf.Seconds()/te.Seconds())
		cpuRatios = append(cpuRatios, (total(cf)+total(df))/(total(ce)+total(de)))
		fmt.Printf("  round %d: empty platform %s\n                           %s\n           seeded     %s\n                           %s; ratio %.2fx\n",
			round, perFile(te, ce), deferredPerFile(de), perFile(tf, cf), deferredPerFile(df), ratios[len(ratios)-1])
	}
	if rounds > 0 {
		sort.Float64s(ratios)
		sort.Float64s(cpuRatios)
		fmt.Printf("  median cost per file, seeded / empty  %5.2fx  (target <= 1.2x)\n", ratios[len(ratios)/2])
		fmt.Printf("  median CPU per file with the background work, seeded / empty  %5.2fx\n", cpuRatios[len(cpuRatios)/2])
	}
	return full.benchScaleSearch(ctx)
}

// seed copies the harvested items (and their activity rows and search
// documents) until the platform holds about n more, in ten locations of
// their own: five behind group "seeded", five behind group "hidden". Names, ids and the
// words of the names change with each copy; the rest of each document is
// its original's.
func (e *env) seed(ctx context.Context, n int) error {
	var templates int64
	if err := e.db.Raw(`SELECT count(*) FROM items WHERE deleted_at IS NULL AND location_id NOT LIKE 'seed%'`).Scan(&templates).Error; err != nil {
		return err
	}
	if templates == 0 {
		return fmt.Errorf("no items to copy")
	}
	copies := (int64(n) + templates - 1) / templates
	db := e.db.WithContext(ctx)
	if err := db.Exec(`INSERT INTO groups (id, name) VALUES ('seeded', 'seeded'), ('hidden', 'hidden') ON CONFLICT DO NOTHING`).Error; err != nil {
		return err
	}
	for l := 0; l < 10; l++ {
		loc := fmt.Sprintf("seed%02d", l)
		if err := db.Exec(`INSERT INTO locations (id, kind, name, config) VALUES (?, 'filesystem', ?, '{"path": "/srv/seed"}')`, loc, loc).Error; err != nil {
			return err
		}
		if err := db.Exec(`INSERT INTO containers (id, location_id, name) VALUES (?, ?, 'media')`, models.ContainerID(loc, "media"), loc).Error; err != nil {
			return err
		}
		group := "seeded"
		if l >= 5 {
			group = "hidden"
		}
		if err := db.Exec(`INSERT INTO location_groups (location_id, group_id) VALUES (?, ?)`, loc, group).Error; err != nil {
			return err
		}
	}
	// The visibility classes of the seeded documents.
	if err := db.Exec(`INSERT INTO search_visibility (location_groups, container_groups) VALUES ('{seeded}', '{}'), ('{hidden}', '{}')
		ON CONFLICT DO NOTHING`).Error; err != nil {
		return err
	}
	// One statement per copy and table, so that the work goes in steps a
	// crash would not lose much of, as a harvest's batches.
	// The activity rows keep their originals' sizes (the copy's prefix
	// replaces the start of the name and path): the pages the seed fills
	// then keep the room a harvest's own pages keep, less than one more
	// row. Prefixed, every row was 12 bytes longer than a harvest's, every
	// seeded page had room for exactly one of them, and the free space map
	// (VACUUM's) sent each row a harvest inserts to a page of its own:
	// measured, 10,010 rows on 10,010 pages, a full-page image each after a
	// checkpoint, where a platform that harvested such files puts them on
	// about 460.
	for c := int64(0); c < copies; c++ {
		loc := fmt.Sprintf("seed%02d", c%10)
		ctr := models.ContainerID(loc, "media")
		prefix := fmt.Sprintf("s%04d_", c)
		err := db.Transaction(func(tx *gorm.DB) error {
			if err := tx.Exec(`
INSERT INTO items (id, location_id, container_id, path, name, size, etag, last_modified, mime_type, harvested_etag,
    last_harvested, last_request_id, harvest_failed, last_seen_at, metadata, results, created_at, updated_at)
SELECT md5(? || i.id), ?, ?, ? || i.path, ? || i.name, i.size, i.etag, i.last_modified, i.mime_type, i.harvested_etag,
    i.last_harvested, i.last_request_id, i.harvest_failed, i.last_seen_at,
    jsonb_set(i.metadata, '{store,name}', to_jsonb(? || i.name)), i.results, i.created_at, i.updated_at
FROM items i WHERE i.location_id NOT LIKE 'seed%'`, prefix, loc, ctr, prefix, prefix, prefix).Error; err != nil {
				return err
			}
			if err := tx.Exec(`
INSERT INTO activities (dedupe_key, ts, kind, request_id, name, source, item_id, count, bytes, error, error_hash, duration,
    runs, run_ms, run_end_us)
SELECT '', a.ts, a.kind, md5(? || a.request_id), overlay(a.name placing ? from 1), overlay(a.source placing ? from 1), md5(? || a.item_id), a.count, a.bytes,
    a.error, a.error_hash, a.duration, a.runs, a.run_ms, a.run_end_us
FROM activities a JOIN items i ON i.id = a.item_id
WHERE a.kind = 'harvestend' AND i.location_id NOT LIKE 'seed%'`, prefix, prefix, prefix, prefix).Error; err != nil {
				return err
			}
			return tx.Exec(`
INSERT INTO search_documents (vis, size, last_modified, id, type, name, extension, mime_type, location_id, location_name,
    container_id, container_name, keys, tsv, extra, dates)
SELECT (SELECT v.id FROM search_visibility v WHERE v.location_groups = (CASE WHEN ? THEN '{seeded}' ELSE '{hidden}' END)::text[]
            AND v.container_groups = '{}'),
       d.size, d.last_modified, md5(? || d.id), d.type, ? || d.name, d.extension, d.mime_type, ?, ?, ?, d.container_name, d.keys,
       setweight(to_tsvector('metaharvest_words', search_tsv_text(? || d.name)), 'A') || ts_filter(d.tsv, '{d}'),
       jsonb_set(d.extra, '{store,name}', to_jsonb(? || d.name)), d.dates
FROM search_documents d WHERE d.location_id NOT LIKE 'seed%'`, c%10 < 5, prefix, prefix, loc, loc, ctr, prefix, prefix).Error
		})
		if err != nil {
			return fmt.Errorf("copy %d: %w", c, err)
		}
	}
	for _, t := range []string{"items", "activities", "search_documents", "search_numbers", "jobs"} {
		if err := db.Exec(`VACUUM ANALYZE ` + t).Error; err != nil {
			return err
		}
	}
	// The seeding leaves gigabytes of dirty pages that a platform holding
	// its items for a while has long written; left alone, the checkpoint
	// that writes them (requested by WAL volume, spread over minutes)
	// lands in a round and decides its figure (measured: a round with it
	// 2.11x, the others 1.24x and 1.10x). The harvests still pay the
	// full-page images of the pages they touch first after it.
	return db.Exec(`CHECKPOINT`).Error
}

// settle does at once, untimed, what a platform does in the background
// after a harvest: the merge of the GIN pending lists (the workers'
// Maintain), and the VACUUM and ANALYZE autovacuum would start now, by its
// thresholds and the tables' settings (autovacuumDue). Left to run on
// their own they fall into the next timed harvest, the other platform's:
// the empty platform's small tables are due after each of its harvests,
// so its autovacuum was timed as the seeded platform's harvest. It
// returns the CPU this took.
func (e *env) settle(ctx context.Context) (cpuTimes, error) {
	cpu0 := readCPU()
	if m, ok := e.engine.(search.Maintainer); ok {
		if err := m.Maintain(ctx); err != nil {
			return cpuTimes{}, err
		}
	}
	db := e.db.WithContext(ctx)
	if err := db.Exec(`SELECT gin_clean_pending_list(i.indexrelid::regclass)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
		WHERE i.indrelid = 'search_documents'::regclass AND a.amname = 'gin'`).Error; err != nil {
		return cpuTimes{}, err
	}
	if err := autovacuumNow(ctx, e.db); err != nil {
		return cpuTimes{}, err
	}
	return readCPU().sub(cpu0), nil
}

// autovacuumNow runs the VACUUM and ANALYZE autovacuum would start now on
// db's tables (autovacuumDue), which the bench's machines may have turned
// off, or run at their own moment.
func autovacuumNow(ctx context.Context, db *gorm.DB) error {
	db = db.WithContext(ctx)
	// The statistics autovacuum decides on reach the shared counters within
	// a second of a transaction's end.
	time.Sleep(time.Second)
	var due []struct {
		Relname         string
		Vacuum, Analyze bool
	}
	if err := db.Raw(autovacuumDue).Scan(&due).Error; err != nil {
		return err
	}
	for _, t := range due {
		var stmt string
		switch {
		case t.Vacuum && t.Analyze:
			stmt = "VACUUM ANALYZE "
		case t.Vacuum:
			stmt = "VACUUM "
		case t.Analyze:
			stmt = "ANALYZE "
		default:
			continue
		}
		if err := db.Exec(stmt + `"` + t.Relname + `"`).Error; err != nil {
			return err
		}
	}
	return nil
}

// autovacuumDue lists the tables autovacuum would vacuum or analyze now:
// dead rows, rows inserted since the last vacuum and rows changed since
// the last analyze above threshold + scale factor x rows, with each
// table's own settings where it has them.
var autovacuumDue = `
WITH o AS (
    SELECT s.relname, s.n_dead_tup, s.n_ins_since_vacuum, s.n_mod_since_analyze, greatest(c.reltuples, 0) AS n,
        ` + autovacuumSetting("autovacuum_vacuum_threshold") + ` AS vt,
        ` + autovacuumSetting("autovacuum_vacuum_scale_factor") + ` AS vs,
        ` + autovacuumSetting("autovacuum_vacuum_insert_threshold") + ` AS it,
        ` + autovacuumSetting("autovacuum_vacuum_insert_scale_factor") + ` AS isf,
        ` + autovacuumSetting("autovacuum_analyze_threshold") + ` AS at,
        ` + autovacuumSetting("autovacuum_analyze_scale_factor") + ` AS asf
    FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
)
SELECT relname,
       n_dead_tup > vt + vs * n OR (it >= 0 AND n_ins_since_vacuum > it + isf * n) AS vacuum,
       n_mod_since_analyze > at + asf * n AS analyze
FROM o`

// autovacuumSetting is the SQL of a table's (c) autovacuum setting: its
// own storage parameter, else the server's.
func autovacuumSetting(name string) string {
	return `coalesce((SELECT split_part(x, '=', 2)::float8 FROM unnest(c.reloptions) x WHERE split_part(x, '=', 1) = '` + name + `'),
                 current_setting('` + name + `')::float8)`
}

// benchScaleSearch times searches through the api for a user of group
// "seeded", who sees the harvested (public) documents and half the seeded
// ones.
func (e *env) benchScaleSearch(ctx context.Context) error {
	cfg := e.cfg
	client, base, adminTok, stop, err := startAPI(ctx, cfg, e.db, e.engine, apiOnly)
	if err != nil {
		return err
	}
	defer stop()
	userTok, err := benchUser(client, base, adminTok, "seeded")
	if err != nil {
		return err
	}
	// Names as users type them: a whole file name, a file name without
	// its extension (the same file in every copy), the start of a name.
	var names []string
	if err := e.db.Raw(`SELECT name FROM items WHERE location_id LIKE 'seed%' ORDER BY md5(id) LIMIT 20`).Scan(&names).Error; err != nil {
		return err
	}
	kinds := []string{"a whole file name", "a name without its extension (one file's every copy)", "the start of a name"}
	nameQueries := make([][]search.Request, len(kinds))
	for i, n := range names {
		var q string
		switch i % 3 {
		case 0:
			q = n
		case 1:
			q = trimExt(n[len("s0000_"):])
		default:
			q = n[:len(n)-6]
		}
		nameQueries[i%3] = append(nameQueries[i%3], search.Request{Query: q, Limit: 20})
	}
	everything := search.Request{Limit: 1, Aggregations: &search.Aggregations{Terms: []search.TermsAgg{
		{Name: "types", Field: search.FieldType}, {Name: "mime", Field: search.FieldMimeType}}}}
	var seen struct {
		Aggregations struct {
			Terms map[string]search.TermsResult `json:"terms"`
		} `json:"aggregations"`
	}
	if err := apiCall(client, base, userTok, "POST", "/api/data/search", everything, &seen); err != nil {
		return err
	}
	var total int64
	for _, b := range seen.Aggregations.Terms["types"].Buckets {
		total += b.Count
	}
	timeAs := func(tok string, reqs []search.Request, rounds int) ([]time.Duration, error) {
		var out []time.Duration
		for r := -1; r < rounds; r++ { // a warm-up round
			for _, q := range reqs {
				t0 := time.Now()
				if err := apiCall(client, base, tok, "POST", "/api/data/search", q, nil); err != nil {
					return nil, err
				}
				if r >= 0 {
					out = append(out, time.Since(t0))
				}
			}
		}
		return out, nil
	}
	timeAll := func(reqs []search.Request, rounds int) ([]time.Duration, error) { return timeAs(userTok, reqs, rounds) }
	var all []time.Duration
	byKind := make([][]time.Duration, len(kinds))
	for k, qs := range nameQueries {
		if byKind[k], err = timeAll(qs, 10); err != nil {
			return err
		}
		all = append(all, byKind[k]...)
	}
	aggTimes, err := timeAll([]search.Request{everything}, 30)
	if err != nil {
		return err
	}
	n50, n99 := percentiles(all)
	a50, a99 := percentiles(aggTimes)
	fmt.Printf("  searches through the api, a user who sees about %d documents:\n", total)
	fmt.Printf("    by file name (%d names x 10 rounds)   p50 %6.2f ms  p99 %6.2f ms  (target p50 <= 10 ms, p99 <= 50 ms)\n", len(names), ms(n50), ms(n99))
	for k, ts := range byKind {
		p50, p99 := percentiles(ts)
		fmt.Printf("      %-52s p50 %6.2f ms  p99 %6.2f ms\n", kinds[k], ms(p50), ms(p99))
	}
	fmt.Printf("    terms aggregations over everything (type, mime_type)  p50 %6.2f ms  p99 %6.2f ms  (target p50 <= 100 ms)\n", ms(a50), ms(a99))

	// An administrator searches (every document counts) at rest, and
	// straight after a harvest, before what the platform does in the
	// background after one (settle).
	mime := search.Request{Limit: 1, Aggregations: &search.Aggregations{Terms: []search.TermsAgg{{Name: "mime", Field: search.FieldMimeType}}}}
	adminSearches := func(when string) error {
		aggAdmin, err := timeAs(adminTok, []search.Request{mime}, 30)
		if err != nil {
			return err
		}
		var all []time.Duration
		byKind := make([][]time.Duration, len(kinds))
		for k, qs := range nameQueries {
			if byKind[k], err = timeAs(adminTok, qs, 5); err != nil {
				return err
			}
			all = append(all, byKind[k]...)
		}
		n50, n99 := percentiles(all)
		a50, a99 := percentiles(aggAdmin)
		fmt.Printf("  searches through the api %s, an administrator (every document):\n", when)
		fmt.Printf("    terms aggregation over everything (mime_type)  p50 %6.2f ms  p99 %6.2f ms  (target p50 <= 100 ms)\n", ms(a50), ms(a99))
		fmt.Printf("    by file name (%d names x 5 rounds)   p50 %6.2f ms  p99 %6.2f ms  (target p50 <= 10 ms)\n", len(all)/5, ms(n50), ms(n99))
		for k, ts := range byKind {
			p50, p99 := percentiles(ts)
			fmt.Printf("      %-52s p50 %6.2f ms  p99 %6.2f ms\n", kinds[k], ms(p50), ms(p99))
		}
		return nil
	}
	if err := adminSearches("at rest"); err != nil {
		return err
	}
	const after = 10_000
	root := filepath.Join(e.dir, "after")
	if err := writeSmallFiles(root, after); err != nil {
		return err
	}
	if _, err := e.harvestE2E(ctx, root, smallFileExtractors, after, false); err != nil {
		return err
	}
	if err := adminSearches(fmt.Sprintf("straight after a harvest of %d more files", after)); err != nil {
		return err
	}
	fmt.Println()
	return nil
}

func trimExt(name string) string {
	if ext := filepath.Ext(name); ext != "" {
		return name[:len(name)-len(ext)]
	}
	return name
}

// benchUser makes a user with search:read in group and returns its token.
func benchUser(client *http.Client, base, adminTok, group string) (string, error) {
	var role struct{ ID string }
	if err := apiCall(client, base, adminTok, "POST", "/api/data/roles", map[string]any{"name": "searchers", "scopes": []string{"search:read"}}, &role); err != nil {
		return "", err
	}
	var user struct{ ID string }
	if err := apiCall(client, base, adminTok, "POST", "/api/data/users", map[string]any{"email": "user@example.com",
		"password": "bench-password-2", "role_id": role.ID}, &user); err != nil {
		return "", err
	}
	if err := apiCall(client, base, adminTok, "PUT", "/api/data/v3/users/"+user.ID+"/groups/"+group, nil, nil); err != nil {
		return "", err
	}
	return login(client, base, "user@example.com", "bench-password-2")
}

// With MHBENCH_STATEMENTS set (and pg_stat_statements loaded in the
// server), each harvest of the scale suite is followed by its most costly
// statements: where the time of a larger platform goes.
func (e *env) resetStatements() {
	if os.Getenv("MHBENCH_STATEMENTS") == "" {
		return
	}
	e.db.Exec(`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`)
	e.db.Exec(`SELECT pg_stat_statements_reset()`)
}

func (e *env) printStatements(label string) {
	if os.Getenv("MHBENCH_STATEMENTS") == "" {
		return
	}
	var top []struct {
		Calls int64
		Ms    float64
		FPI   int64
		Read  int64
		Q     string
	}
	e.db.Raw(`SELECT calls, total_exec_time AS ms, wal_fpi AS fpi, shared_blks_read AS read,
		left(regexp_replace(query, '\s+', ' ', 'g'), 90) AS q
		FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
		ORDER BY total_exec_time DESC LIMIT 8`).Scan(&top)
	fmt.Printf("    statements of %s:\n", label)
	for _, x := range top {
		fmt.Printf("      %6d calls %8.0f ms %7d full-page images %6d blocks read  %s\n", x.Calls, x.Ms, x.FPI, x.Read, x.Q)
	}
}

// withPages and apiOnly say whether startAPI mounts the web UI, as the
// api role serves it.
const withPages, apiOnly = true, false

// startAPI serves an api over db and engine on a loopback port (with the
// web UI's pages when pages is true), with an administrator logged in:
// the client, base URL and admin token to call it with, and stop to end it.
func startAPI(ctx context.Context, cfg config.Config, db *gorm.DB, engine search.Engine, pages bool) (client *http.Client, base, adminTok string, stop func(), err error) {
	rdb, err := queue.RedisClient(cfg.RedisURL)
	if err != nil {
		return nil, "", "", nil, err
	}
	if _, err := api.BootstrapAdmin(ctx, db, "admin@example.com", "bench-password-1"); err != nil {
		rdb.Close()
		return nil, "", "", nil, err
	}
	logger := slog.New(slog.DiscardHandler)
	srv, err := api.New(ctx, api.Deps{Config: cfg, DB: db, Redis: rdb, Search: engine, Logger: logger})
	if err != nil {
		rdb.Close()
		return nil, "", "", nil, err
	}
	if pages {
		ui, err := web.New(web.Deps{DB: db, Search: engine, Logger: logger, Sessions: srv.SessionTokens(), SignIn: srv.SignIn})
		if err != nil {
			rdb.Close()
			return nil, "", "", nil, err
		}
		srv.MountPages(ui)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		rdb.Close()
		return nil, "", "", nil, err
	}
	hs := &http.Server{Handler: srv.Handler()}
	go hs.Serve(ln)
	stop = func() { hs.Close(); rdb.Close() }
	base = "http://" + ln.Addr().String()
	client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	if adminTok, err = login(client, base, "admin@example.com", "bench-password-1"); err != nil {
		stop()
		return nil, "", "", nil, err
	}
	return client, base, adminTok, stop, nil
}
