package postgres_test

import (
	"context"
	"database/sql"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/postgres"
	"github.com/metaharvest/metaharvest/search/searchtest"
)

// BenchmarkSearch100k loads 100,000 generated documents (BENCH_DOCS
// overrides) and measures the latency of a mix of typical queries. It
// reports p50 and p99 per query and over the mix, in milliseconds, and the
// mix's p50 as a ratio to a primary-key lookup of one document on the same
// database (the bare baseline).
//
//	go test ./search/postgres -run '^$' -bench Search100k -benchtime 1x
func BenchmarkSearch100k(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("BENCH_DOCS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	c := searchtest.NewCorpus(n, 7, time.Now())
	var e *postgres.Engine
	var db *sql.DB
	if url := os.Getenv("BENCH_DATABASE_URL"); url != "" {
		// A database kept between runs to iterate on queries: migrated and
		// loaded by the first run (when it holds no document), reused after.
		gdb, err := models.Open(url)
		if err != nil {
			b.Fatal(err)
		}
		if e, err = postgres.New(gdb); err != nil {
			b.Fatal(err)
		}
		db, _ = gdb.DB()
		if err := models.Migrate(ctx, db); err != nil {
			b.Fatal(err)
		}
		var docs int64
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM search_documents`).Scan(&docs); err != nil {
			b.Fatal(err)
		}
		if docs == 0 {
			loadBench(ctx, b, e, db, c)
		}
	} else {
		var gdb *gorm.DB
		e, gdb = newEngineDB(b)
		db, _ = gdb.DB()
		loadBench(ctx, b, e, db, c)
	}

	user := search.Visibility{GroupIDs: []string{searchtest.GroupA}}
	admin := search.Visibility{All: true}
	terms := func(ts ...search.Term) *search.Filters { return &search.Filters{Terms: ts} }
	mix := []struct {
		name string
		req  search.Request
		vis  search.Visibility
	}{
		{"word", search.Request{Query: "river"}, user},
		{"rare-word", search.Request{Query: searchtest.MarkerCaption}, user},
		{"prefix", search.Request{Query: "zeppe"}, user},
		{"two-words", search.Request{Query: "forest harbor"}, user},
		{"placeholder", search.Request{}, user},
		{"type-sort-date", search.Request{Types: []string{"video"}, SortFields: []search.SortField{{Field: "last_modified"}}}, user},
		{"range-7d-sort-size", search.Request{Filters: &search.Filters{Ranges: []search.Range{{Field: "last_modified", From: "now-7d"}}},
			SortFields: []search.SortField{{Field: "size"}}}, user},
		{"word-type-location", search.Request{Query: "forest", Types: []string{"image"},
			Filters: terms(search.Term{Field: "location_name", Value: "archive"})}, user},
		{"nested-term", search.Request{Filters: terms(search.Term{Field: "mediainfo.video.codec", Value: "hevc"})}, user},
		{"nested-range-sort-name", search.Request{Filters: &search.Filters{Ranges: []search.Range{{Field: "mediainfo.video.duration", From: "60", To: "600"}}},
			SortFields: []search.SortField{{Field: "name", Asc: true}}}, user},
		{"exists-word", search.Request{Query: "city", Filters: &search.Filters{Exists: []string{"captions"}}}, user},
		{"word-50-highlights", search.Request{Query: "sunset", Limit: 50}, admin},
		{"hit-counts", search.Request{Query: "market", HitCounts: map[string]int{}}, user},
		{"terms-aggs-all", search.Request{Aggregations: &search.Aggregations{Terms: []search.TermsAgg{
			{Name: "type", Field: "type"}, {Name: "ext", Field: "extension"}}}}, user},
		{"word-aggs", search.Request{Query: "river", Aggregations: &search.Aggregations{
			Terms:   []search.TermsAgg{{Name: "loc", Field: "location_name"}},
			Metrics: []search.MetricAgg{{Name: "size", Field: "size", Type: "sum"}}}}, user},
	}

	// Warm up, then run the mix round-robin.
	for _, q := range mix {
		if _, err := e.Search(ctx, q.req, q.vis); err != nil {
			b.Fatalf("%s: %v", q.name, err)
		}
	}
	rounds := 40
	if v, err := strconv.Atoi(os.Getenv("BENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	per := make([][]time.Duration, len(mix))
	var all []time.Duration
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		for r := 0; r < rounds; r++ {
			for i, q := range mix {
				t0 := time.Now()
				if _, err := e.Search(ctx, q.req, q.vis); err != nil {
					b.Fatalf("%s: %v", q.name, err)
				}
				d := time.Since(t0)
				per[i] = append(per[i], d)
				all = append(all, d)
			}
		}
	}
	b.StopTimer()

	// Baseline: fetch one document by primary key, same pool, same rounds.
	var base []time.Duration
	for r := 0; r < rounds*len(mix); r++ {
		id := c.Docs[r%len(c.Docs)].ID()
		t0 := time.Now()
		var doc string
		if err := db.QueryRowContext(ctx, `SELECT doc::text FROM search_sources WHERE id = $1`, id).Scan(&doc); err != nil {
			b.Fatal(err)
		}
		base = append(base, time.Since(t0))
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for i, q := range mix {
		b.Logf("%-24s p50 %7.2f ms  p99 %7.2f ms", q.name, ms(pct(per[i], 50)), ms(pct(per[i], 99)))
	}
	b.Logf("%-24s p50 %7.2f ms  p99 %7.2f ms", "MIX", ms(pct(all, 50)), ms(pct(all, 99)))
	b.Logf("%-24s p50 %7.2f ms  p99 %7.2f ms", "baseline pk lookup", ms(pct(base, 50)), ms(pct(base, 99)))
	b.ReportMetric(ms(pct(all, 50)), "p50-ms")
	b.ReportMetric(ms(pct(all, 99)), "p99-ms")
	b.ReportMetric(float64(pct(all, 50))/float64(pct(base, 50)), "p50/pk-lookup")
}

// loadBench indexes the corpus in batches of 1,000 (as the outbox drainer
// does), logs the throughput, and analyzes the tables.
func loadBench(ctx context.Context, b *testing.B, e *postgres.Engine, db *sql.DB, c *searchtest.Corpus) {
	start := time.Now()
	for i := 0; i < len(c.Docs); i += 1000 {
		if err := e.Upsert(ctx, c.Docs[i:min(i+1000, len(c.Docs))]); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < len(c.Segments); i += 1000 {
		if err := e.UpsertSegments(ctx, c.Segments[i:min(i+1000, len(c.Segments))]); err != nil {
			b.Fatal(err)
		}
	}
	load := time.Since(start)
	b.Logf("loaded %d documents and %d segments in %v (%.0f docs/s)", len(c.Docs), len(c.Segments), load.Round(time.Millisecond), float64(len(c.Docs))/load.Seconds())
	if _, err := db.ExecContext(ctx, `VACUUM ANALYZE`); err != nil {
		b.Fatal(err)
	}
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}
