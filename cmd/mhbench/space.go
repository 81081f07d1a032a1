package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// benchSpace harvests n small files (store, mime_type, hashes) into an
// empty platform and reports the database's growth per item, table by
// table (indexes and TOAST included): items, their activity rows and the
// search index. The search outbox is reported apart: it must end empty and
// small.
func benchSpace(ctx context.Context, n int) error {
	e, err := newEnv(ctx)
	if err != nil {
		return err
	}
	defer e.close()
	before, err := e.tableSizes(ctx)
	if err != nil {
		return err
	}
	dbBefore, err := e.databaseSize(ctx)
	if err != nil {
		return err
	}
	root := filepath.Join(e.dir, "space")
	if err := writeSmallFiles(root, n); err != nil {
		return err
	}
	run, err := e.harvestE2E(ctx, root, smallFileExtractors, int64(n), false)
	if err != nil {
		return err
	}
	// What a user's platform holds a little after the harvest: autovacuum
	// has had its chance at the tables the harvest churned.
	time.Sleep(5 * time.Second)
	after, err := e.tableSizes(ctx)
	if err != nil {
		return err
	}
	dbAfter, err := e.databaseSize(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("space: %d items harvested (store, mime_type, hashes) in %s, searchable; database growth per item\n", n, run.searchable.Round(time.Millisecond))
	type grown struct {
		name  string
		bytes int64
	}
	var tables []grown
	for name, size := range after {
		if d := size - before[name]; d > 0 {
			tables = append(tables, grown{name, d})
		}
	}
	sort.Slice(tables, func(i, j int) bool { return tables[i].bytes > tables[j].bytes })
	for _, t := range tables {
		if float64(t.bytes)/float64(n) < 1 {
			continue
		}
		fmt.Printf("  %-24s %7.0f B/item  (%s)\n", t.name, float64(t.bytes)/float64(n), mib(t.bytes))
	}
	fmt.Printf("  whole database           %7.0f B/item  (%s; target <= 4096 B/item)\n", float64(dbAfter-dbBefore)/float64(n), mib(dbAfter-dbBefore))
	var outbox int64
	if err := e.db.Raw(`SELECT count(*) FROM search_outbox`).Scan(&outbox).Error; err != nil {
		return err
	}
	fmt.Printf("  search_outbox            %d rows, %s\n\n", outbox, mib(after["search_outbox"]))
	return nil
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// tableSizes is every table's size with its indexes and TOAST, by name.
func (e *env) tableSizes(ctx context.Context) (map[string]int64, error) {
	var rows []struct {
		Name string
		Size int64
	}
	err := e.db.WithContext(ctx).Raw(`SELECT c.relname AS name, pg_total_relation_size(c.oid) AS size
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p') AND n.nspname = 'public'`).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		out[r.Name] = r.Size
	}
	return out, nil
}

func (e *env) databaseSize(ctx context.Context) (int64, error) {
	var n int64
	err := e.db.WithContext(ctx).Raw(`SELECT pg_database_size(current_database())`).Scan(&n).Error
	return n, err
}

// writeSmallFiles writes n files of 4 KiB of random bytes below
// root/media, a hundred folders deep.
func writeSmallFiles(root string, n int) error {
	buf := make([]byte, 4096)
	for i := 0; i < n; i++ {
		p := filepath.Join(root, "media", fmt.Sprintf("d%03d", i%100), fmt.Sprintf("f%07d.bin", i))
		if i < 100 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
		}
		rand.Read(buf)
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			return err
		}
	}
	return nil
}
