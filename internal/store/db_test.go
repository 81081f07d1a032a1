package store

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The api's handlers, its access model, the web pages, the scheduler, the
// job starter and the worker's task handlers reach the database through
// this package only: none of their files imports the driver (they name
// store.DB). Tests may: they seed rows directly. No worker file needs the
// driver: its transactions are store.DB's Transaction, its statements
// store functions.
func TestHandlersDoNotImportTheDriver(t *testing.T) {
	checked := 0
	root := filepath.Join("..", "..")
	for _, dir := range []string{filepath.Join(root, "api"), filepath.Join(root, "api", "access"), filepath.Join(root, "web"),
		filepath.Join(root, "scheduler"), filepath.Join(root, "internal", "jobs"), filepath.Join(root, "worker")} {
		for f, paths := range driverImports(t, dir) {
			checked++
			for _, path := range paths {
				t.Errorf("%s imports %s: reach the database through internal/store", f, path)
			}
		}
	}
	if checked < 60 {
		t.Fatalf("only %d files checked", checked)
	}
}

// Package search (not its engines, search/postgres and search/meili, which
// keep their indexes with SQL and HTTP of their own) runs its statements
// through internal/store (searchdocs.go, searchoutbox.go,
// searchvisibility.go, searchconn.go), and names the database as
// store.DB. One file is the exception: indexer.go LISTENs on a
// driver connection of its own (pgx's, through database/sql), which a
// statement cannot do; it may import those and nothing else of the driver.
func TestSearchDoesNotImportTheDriver(t *testing.T) {
	listen := map[string]bool{"database/sql": true, "database/sql/driver": true, "github.com/jackc/pgx/v5/stdlib": true}
	checked := 0
	for f, paths := range driverImports(t, filepath.Join("..", "..", "search")) {
		checked++
		for _, path := range paths {
			if filepath.Base(f) == "indexer.go" && listen[path] {
				continue
			}
			t.Errorf("%s imports %s: run the statement through internal/store", f, path)
		}
	}
	if checked < 15 {
		t.Fatalf("only %d files checked", checked)
	}
}

// driverImports returns, for each non-test Go file of dir, the packages of
// the database driver it imports: gorm, pgx (github.com/jackc) and
// database/sql with its sub-packages.
func driverImports(t *testing.T, dir string) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = nil
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "gorm.io/") || strings.HasPrefix(path, "github.com/jackc/") ||
				path == "database/sql" || strings.HasPrefix(path, "database/sql/") {
				out[f] = append(out[f], path)
			}
		}
	}
	return out
}
