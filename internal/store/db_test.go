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
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for _, imp := range ast.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if strings.HasPrefix(path, "gorm.io/") || strings.HasPrefix(path, "github.com/jackc/") || path == "database/sql" {
					t.Errorf("%s imports %s: reach the database through internal/store", f, path)
				}
			}
		}
	}
	if checked < 60 {
		t.Fatalf("only %d files checked", checked)
	}
}
