package storage_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/storage"
)

// One versitygw for the whole package; s3 tests use distinct buckets.
func TestMain(m *testing.M) { os.Exit(testbucket.RunMain(m)) }

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// listAll pages through a container with limit and checks the paging
// contract on the way: pages no longer than limit, paths strictly
// increasing across pages (so each file is seen once, in order).
func listAll(t *testing.T, loc storage.Location, container, cursor string, limit int) []storage.Entry {
	t.Helper()
	ctx := testCtx(t)
	var all []storage.Entry
	for pages := 0; ; pages++ {
		if pages > 100000 {
			t.Fatal("paging does not end")
		}
		page, next, err := loc.ListItems(ctx, container, cursor, limit)
		if err != nil {
			t.Fatalf("ListItems(%q, %q, %d): %v", container, cursor, limit, err)
		}
		if len(page) > limit {
			t.Fatalf("page of %d entries for limit %d", len(page), limit)
		}
		for _, e := range page {
			if len(all) > 0 && e.Path <= all[len(all)-1].Path {
				t.Fatalf("path %q after %q: not strictly increasing", e.Path, all[len(all)-1].Path)
			}
			all = append(all, e)
		}
		if next == "" {
			return all
		}
		if next <= cursor {
			t.Fatalf("next cursor %q does not advance past %q", next, cursor)
		}
		cursor = next
	}
}

func paths(entries []storage.Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Path
	}
	return out
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readAll(t *testing.T, rc io.ReadCloser) string {
	t.Helper()
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snapshot records every name, mode, size and content below dir, without
// following symlinks, to prove an operation changed nothing.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		switch {
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			v += " -> " + target
		}
		out[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	var diffs []string
	for k, v := range after {
		if before[k] != v {
			diffs = append(diffs, "changed/added "+k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			diffs = append(diffs, "removed "+k)
		}
	}
	if len(diffs) > 0 {
		slices.Sort(diffs)
		t.Fatalf("%s changed the tree: %s", what, strings.Join(diffs, ", "))
	}
}

func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("err = %v, want %v", err, target)
	}
}

func wantConfigError(t *testing.T, err error, field string) *storage.ConfigError {
	t.Helper()
	var ce *storage.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v (%T), want *storage.ConfigError for %q", err, err, field)
	}
	if ce.Field != field {
		t.Fatalf("ConfigError field %q (%s), want %q", ce.Field, ce.Problem, field)
	}
	return ce
}
