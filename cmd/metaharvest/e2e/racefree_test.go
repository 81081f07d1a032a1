package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// make test runs the packages of the Makefile's RACE_FREE list without the
// race detector, on the grounds that their code starts no goroutine and
// shares no state guarded by hand. This test keeps those grounds true for
// every listed tree but cmd/: no go statement, no import of sync/atomic,
// and of sync only Once (lazy set-up that is safe by construction). cmd/
// is listed for another reason: its tests start the metaharvest binary
// and Chromium as processes, and the binary is built without the race
// detector whatever the tests run with.
func TestRaceFreePackagesStartNoGoroutine(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	// The list may go on over lines that end in a backslash.
	m := regexp.MustCompile(`(?m)^RACE_FREE := ((?:.*\\\n)*.+)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("Makefile: no RACE_FREE line")
	}
	dirs := strings.Fields(strings.ReplaceAll(string(m[1]), "\\\n", " "))
	if len(dirs) < 4 {
		t.Fatalf("Makefile: RACE_FREE read as %q", dirs)
	}
	checked := 0
	for _, dir := range dirs {
		if dir == "cmd" {
			continue
		}
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			checked++
			for _, problem := range concurrency(t, path) {
				t.Errorf("%s; the package belongs out of RACE_FREE in the Makefile, or the code elsewhere", problem)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 40 {
		t.Fatalf("only %d files checked", checked)
	}
}

// concurrency lists what in a Go file starts goroutines or synchronises
// them by hand.
func concurrency(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	syncName := ""
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		switch p {
		case "sync/atomic":
			found = append(found, fset.Position(imp.Pos()).String()+" imports sync/atomic")
		case "sync":
			syncName = "sync"
			if imp.Name != nil {
				syncName = imp.Name.Name
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			found = append(found, fset.Position(n.Pos()).String()+" starts a goroutine")
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && syncName != "" && id.Name == syncName && n.Sel.Name != "Once" {
				found = append(found, fset.Position(n.Pos()).String()+" uses sync."+n.Sel.Name)
			}
		}
		return true
	})
	return found
}
