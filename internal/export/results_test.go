package export_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/metaharvest/metaharvest/extractors/families" // the declared fields, as in production
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/export"
	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/internal/testmeili"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/meili"
	"github.com/metaharvest/metaharvest/search/postgres"
	"github.com/metaharvest/metaharvest/search/searchtest"
)

// docs makes n item documents: every seventh is in the hidden group, the
// others in the visible one or in none (public).
func docs(from, n int) []search.Document {
	out := make([]search.Document, 0, n)
	for i := from; i < from+n; i++ {
		groups := []any{}
		switch i % 7 {
		case 0:
			groups = []any{"hidden"}
		case 1, 2, 3:
			groups = []any{"seen"}
		}
		d := search.Document{
			search.FieldID:              fmt.Sprintf("%032x", i*2654435761%(1<<40)),
			search.FieldName:            fmt.Sprintf("clip %06d.mp4", i),
			search.FieldMimeType:        "video/mp4",
			search.FieldType:            models.TypeVideo,
			search.FieldSize:            float64(1000 + i),
			search.FieldLocationID:      "loc",
			search.FieldLocationName:    "Archive",
			search.FieldContainerID:     "ctr",
			search.FieldContainerName:   "media",
			search.FieldStoreURL:        fmt.Sprintf("filesystem://Archive/media/clip %06d.mp4", i),
			search.FieldLocationGroups:  groups,
			search.FieldContainerGroups: []any{},
			"mediainfo":                 map[string]any{"duration": float64(i%600) + 0.5, "streams": []any{map[string]any{"codec": "h264"}, map[string]any{"codec": "aac"}}},
		}
		if i%5 == 0 {
			d[search.FieldName] = fmt.Sprintf("=HYPERLINK(\"x\") %d, \"quoted\"\nline", i)
		}
		out = append(out, d)
	}
	return out
}

func load(t testing.TB, e search.Engine, n int) {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < n; i += 2000 {
		if err := e.Upsert(ctx, docs(i, min(2000, n-i))); err != nil {
			t.Fatal(err)
		}
	}
}

var seen = search.Visibility{GroupIDs: []string{"seen"}}

// visibleCount is how many of n documents seen may see.
func visibleCount(n int) int {
	c := 0
	for i := range n {
		if i%7 != 0 {
			c++
		}
	}
	return c
}

// flushCounter counts the writes and flushes an export makes.
type flushCounter struct {
	bytes.Buffer
	flushes int
}

func (f *flushCounter) Flush() { f.flushes++ }

func TestMain(m *testing.M) { os.Exit(testmeili.RunMain(m)) }

// TestResultsCSVAndJSONLines exports through both engines: the Postgres
// one and a real Meilisearch.
func TestResultsCSVAndJSONLines(t *testing.T) {
	t.Parallel()
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		e, err := postgres.New(testdb.New(t))
		if err != nil {
			t.Fatal(err)
		}
		checkResults(t, e)
	})
	t.Run("meili", func(t *testing.T) {
		t.Parallel()
		srv := testmeili.Shared(t)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		e, err := meili.New(ctx, meili.Config{URL: srv.URL, APIKey: srv.Key, IndexPrefix: testmeili.Prefix(t)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Drop(context.Background()) })
		checkResults(t, e)
	})
}

func checkResults(t *testing.T, e search.Engine) {
	const n = 2500
	load(t, e, n)
	searchtest.Settle(t, e)
	ctx := context.Background()

	var out flushCounter
	got, err := export.WriteResults(ctx, e, search.Request{}, seen, export.Results{Format: export.FormatCSV}, &out)
	if err != nil {
		t.Fatal(err)
	}
	want := visibleCount(n)
	rows, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got != want || len(rows) != want+1 {
		t.Fatalf("wrote %d results, %d rows; want %d", got, len(rows)-1, want)
	}
	if strings.Join(rows[0], ",") != strings.Join(export.DefaultFields, ",") {
		t.Fatalf("header %v", rows[0])
	}
	if out.flushes < (want+export.PageSize-1)/export.PageSize {
		t.Errorf("%d flushes for %d pages", out.flushes, want/export.PageSize)
	}
	ids := map[string]bool{}
	for _, r := range rows[1:] {
		if ids[r[0]] {
			t.Fatalf("%s twice", r[0])
		}
		ids[r[0]] = true
		if strings.HasPrefix(r[1], "=") {
			t.Fatalf("a formula-like name left as is: %q", r[1])
		}
	}
	// A formula-like name is text, its quotes and line break kept.
	var formula []string
	for _, r := range rows[1:] {
		if strings.HasPrefix(r[1], "'=HYPERLINK") {
			formula = r
			break
		}
	}
	if formula == nil || !strings.Contains(formula[1], "\"quoted\"\nline") {
		t.Fatalf("no quoted formula-like name in %v", rows[1:4])
	}

	// Chosen fields, a query, a filter and a maximum; JSON lines.
	out.Reset()
	req := search.Request{Filters: &search.Filters{Ranges: []search.Range{{Field: search.FieldSize, From: "1000", To: "1999"}}}}
	got, err = export.WriteResults(ctx, e, req, seen, export.Results{Format: export.FormatJSONL,
		Fields: []string{search.FieldName, "mediainfo.streams.codec", "mediainfo.duration"}, Max: 700}, &out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if got != 700 || len(lines) != 700 {
		t.Fatalf("max 700: wrote %d, %d lines", got, len(lines))
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if _, ok := first["_id"]; !ok || first["size"] != nil || first["mediainfo"] == nil {
		t.Fatalf("a line keeps _id and the chosen fields only: %v", first)
	}

	// Lists of values join in one cell.
	out.Reset()
	if _, err := export.WriteResults(ctx, e, search.Request{Query: "000042"}, search.Visibility{All: true},
		export.Results{Format: export.FormatCSV, Fields: []string{search.FieldName, "mediainfo.streams.codec"}}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "clip 000042.mp4,h264; aac") {
		t.Fatalf("query export:\n%s", out.String())
	}

	// Bad options are a 400 before anything is written.
	for _, o := range []export.Results{{Format: "xlsx"}, {Format: "csv", Fields: []string{"a b"}}, {Format: "csv", Max: export.MaxResults + 1},
		{Format: "csv", Fields: make([]string, export.MaxFields+1)}} {
		out.Reset()
		_, err := export.WriteResults(ctx, e, search.Request{}, seen, o, &out)
		if ae, ok := apperr.As(err); !ok || ae.Status != http.StatusBadRequest || out.Len() > 0 {
			t.Errorf("%+v: %v, %d bytes", o, err, out.Len())
		}
	}
}

// countingCSV reads CSV from r as it comes, checking that ids rise, and
// counts the rows.
func countingCSV(r io.Reader, rows *atomic.Int64) error {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	if _, err := cr.Read(); err != nil {
		return err
	}
	last := ""
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if rec[0] <= last {
			return fmt.Errorf("id %s after %s", rec[0], last)
		}
		last = rec[0]
		rows.Add(1)
	}
}

// TestResults100kInBoundedMemory exports 101,244 visible results (of
// 118,118) as CSV while a reader parses them, and measures the heap
// the export grows by. Not parallel: no other test of this package runs
// while it reads the heap.
func TestResults100kInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 117,000 documents")
	}
	db := testdb.New(t)
	e, err := postgres.New(db)
	if err != nil {
		t.Fatal(err)
	}
	// 2,002 documents through the engine, then 58 copies of each under
	// other ids, copied in SQL: the engine takes minutes to index 118,000
	// documents on this machine, a copy seconds.
	const n, copies = 2002, 58
	start := time.Now()
	load(t, e, n)
	var cols []string
	if err := db.Raw(`SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = 'search_documents' AND is_generated = 'NEVER' AND generation_expression IS NULL
		ORDER BY ordinal_position`).Scan(&cols).Error; err != nil || len(cols) == 0 {
		t.Fatalf("columns of search_documents: %v %v", cols, err)
	}
	exprs := make([]string, len(cols))
	for i, c := range cols {
		exprs[i] = "d." + c
		if c == "id" {
			exprs[i] = "md5(d.id || '-' || g)"
		}
	}
	if err := db.Exec(`INSERT INTO search_documents (`+strings.Join(cols, ", ")+`)
		SELECT `+strings.Join(exprs, ", ")+` FROM search_documents d, generate_series(1, ?) g`, copies).Error; err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded %d documents in %v", n*(copies+1), time.Since(start).Round(time.Millisecond))

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
			}
		}
	}()
	pr, pw := io.Pipe()
	var rows atomic.Int64
	readErr := make(chan error, 1)
	go func() { readErr <- countingCSV(pr, &rows) }()
	start = time.Now()
	got, err := export.WriteResults(context.Background(), e, search.Request{}, seen, export.Results{Format: export.FormatCSV}, pw)
	pw.CloseWithError(err)
	if rerr := <-readErr; rerr != nil {
		t.Fatal(rerr)
	}
	close(stop)
	<-sampled
	if err != nil {
		t.Fatal(err)
	}
	want := visibleCount(n) * (copies + 1)
	if want < 100_000 {
		t.Fatalf("only %d visible documents", want)
	}
	if got != want || rows.Load() != int64(want) {
		t.Fatalf("wrote %d, read %d rows; want %d", got, rows.Load(), want)
	}
	grew := float64(peak.Load()-min(peak.Load(), base)) / (1 << 20)
	t.Logf("exported %d results in %v; the heap grew by at most %.1f MiB over %.1f MiB", got, time.Since(start).Round(time.Millisecond),
		grew, float64(base)/(1<<20))
	// All of it as one page would be about 100 MB of documents (a CSV of
	// 13 MB); a page at a time stays far below.
	if grew > 40 {
		t.Errorf("the export grew the heap by %.1f MiB", grew)
	}
}
