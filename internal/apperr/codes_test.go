package apperr

import (
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite the error code enum of api/openapi.yaml from the table")

const openapiPath = "../../api/openapi.yaml"

// TestCodesTable: every declared code has a name of its own and an error
// status.
func TestCodesTable(t *testing.T) {
	seen := map[string]Code{}
	for _, c := range Codes() {
		name := c.String()
		if !regexp.MustCompile(`^[a-z][a-z_]*[a-z]$`).MatchString(name) {
			t.Errorf("code %d has the name %q: give it a row in codes.go", c, name)
		}
		if other, dup := seen[name]; dup {
			t.Errorf("codes %d and %d are both named %q", other, c, name)
		}
		seen[name] = c
		if s := c.Status(); s < 400 || s > 599 {
			t.Errorf("code %q has the status %d", name, s)
		}
	}
	if len(seen) != int(codeEnd)-1 {
		t.Errorf("%d codes, %d names", codeEnd-1, len(seen))
	}
}

// TestErrorBody: the code is its name in the JSON body, and the status the
// table's.
func TestErrorBody(t *testing.T) {
	e := NotFound("item", "x")
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"code":"not_found","message":"item \"x\" not found"}` || e.Status != http.StatusNotFound {
		t.Errorf("%d %s", e.Status, b)
	}
	if e.Error() != `not_found: item "x" not found` {
		t.Errorf("Error() = %q", e.Error())
	}
	if e := New(CodeContentRefused, "no").WithStatus(http.StatusBadRequest); e.Status != http.StatusBadRequest {
		t.Errorf("WithStatus: %d", e.Status)
	}
}

// openapiEnumLine is the line of openapi.yaml that holds the enum.
var openapiEnumLine = regexp.MustCompile(`(?m)^(\s*)code: \{type: string(, enum: \[[^\]]*\])?\}(.*)$`)

func enumFromTable() []string {
	var names []string
	for _, c := range Codes() {
		names = append(names, c.String())
	}
	return names
}

// TestOpenAPIEnum: the enum of the error body's code in api/openapi.yaml is
// exactly the table's names, in the table's order, so that clients know
// every code the api can answer (the constructors take a Code, so a code
// the table does not declare does not compile).
func TestOpenAPIEnum(t *testing.T) {
	raw, err := os.ReadFile(openapiPath)
	if err != nil {
		t.Fatal(err)
	}
	want := enumFromTable()
	if *update {
		line := "code: {type: string, enum: [" + strings.Join(want, ", ") + "]}"
		locs := openapiEnumLine.FindAllSubmatchIndex(raw, -1)
		if len(locs) != 1 {
			t.Fatalf("%d lines of the form `code: {type: string...}` in %s, want the error schema's one", len(locs), openapiPath)
		}
		l := locs[0]
		out := append([]byte{}, raw[:l[3]]...)
		out = append(out, line...)
		out = append(out, raw[l[1]:]...)
		if err := os.WriteFile(openapiPath, out, 0o644); err != nil {
			t.Fatal(err)
		}
		raw = out
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Properties map[string]struct {
						Enum []string `yaml:"enum"`
					} `yaml:"properties"`
				} `yaml:"properties"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Components.Schemas["Error"].Properties["error"].Properties["code"].Enum
	in := map[string]bool{}
	for _, n := range got {
		in[n] = true
	}
	table := map[string]bool{}
	for _, n := range want {
		table[n] = true
		if !in[n] {
			t.Errorf("code %q is in the table (internal/apperr/codes.go), not in the enum of %s", n, openapiPath)
		}
	}
	for _, n := range got {
		if !table[n] {
			t.Errorf("code %q is in the enum of %s, not in the table (internal/apperr/codes.go)", n, openapiPath)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("the enum of components.schemas.Error's code in %s is not the table of internal/apperr/codes.go.\n"+
			"Declare a code in codes.go (constant and row), then rewrite the enum from it with:\n"+
			"\tgo test ./internal/apperr -run TestOpenAPIEnum -update", openapiPath)
	}
}

// TestConstructorStatuses: BadRequest and Conflict are only called with
// codes of their status (the name at the call tells the reader the status;
// the table decides it).
func TestConstructorStatuses(t *testing.T) {
	consts := codeConstants(t)
	want := map[string]int{"BadRequest": http.StatusBadRequest, "Conflict": http.StatusConflict}
	calls := 0
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != "../.." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules" || n == "deploy") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil // another package's file mid-edit is not this test's business
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			fn, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			status, ok := want[fn.Sel.Name]
			if !ok {
				return true
			}
			if pkg, ok := fn.X.(*ast.Ident); !ok || pkg.Name != "apperr" {
				return true
			}
			arg, ok := call.Args[0].(*ast.SelectorExpr)
			if !ok {
				t.Errorf("%s: apperr.%s with a code that is not a constant of the table", p, fn.Sel.Name)
				return true
			}
			c, ok := consts[arg.Sel.Name]
			if !ok {
				t.Errorf("%s: apperr.%s(%s): not a code", p, fn.Sel.Name, arg.Sel.Name)
			} else if c.Status() != status {
				t.Errorf("%s: apperr.%s(%s), a code of status %d: use apperr.New", p, fn.Sel.Name, arg.Sel.Name, c.Status())
			}
			calls++
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 10 {
		t.Fatalf("found %d calls of BadRequest and Conflict: the walk missed the api", calls)
	}
}

// codeConstants maps the names of the constants of codes.go to their codes.
func codeConstants(t *testing.T) map[string]Code {
	f, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Code{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for i, s := range g.Specs {
			for _, n := range s.(*ast.ValueSpec).Names {
				out[n.Name] = Code(i + 1) // iota + 1
			}
		}
	}
	if out["CodeNotConfigured"] != CodeNotConfigured || out["CodeValidationFailed"] != CodeValidationFailed {
		t.Fatalf("codes.go's constants are not read right: %v", out)
	}
	return out
}
