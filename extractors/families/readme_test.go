package families_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

// The README's extractor table lies between these markers and is rendered
// from the registry (every family linked, as the binary links them).
const (
	readmePath  = "../../../README.md"
	tableBegin  = "<!-- extractors table: generated from the registry by extractors/families (UPDATE_README=1 go test ./extractors/families -run TestREADMETable) -->"
	tableEnd    = "<!-- end of the extractors table -->"
	updateIfSet = "UPDATE_README"
)

// readmeTable renders the registered extractors as a Markdown table, by
// family in the order of extractors.Families, then by name.
func readmeTable(reg *extractors.Registry) string {
	var b strings.Builder
	b.WriteString("| family | extractor | name | default | tools | provider | settings |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	all := reg.All() // by name
	for _, f := range extractors.Families() {
		for _, info := range all {
			if info.Family != f {
				continue
			}
			def := "off"
			switch {
			case info.Always:
				def = "always"
			case info.DefaultEnabled:
				def = "on"
			}
			var settings []string
			for _, s := range info.Settings {
				settings = append(settings, settingCell(s))
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s | %s | %s |\n", f.Name(), info.Name, cell(info.DisplayName), def,
				cell(strings.Join(info.Tools, ", ")), cell(info.Provider), strings.Join(settings, "; "))
		}
	}
	return b.String()
}

// settingCell is one setting as the table shows it: its variable, its
// default or that it is required, and what its values are.
func settingCell(s extractors.Setting) string {
	out := "`" + s.Env + "`"
	switch {
	case s.Required:
		out += " (required)"
	case s.Default != "" && !s.Secret:
		out += " = `" + s.Default + "`"
	}
	if s.Kind != extractors.KindText {
		out += " (" + s.Want() + ")"
	}
	return cell(out)
}

// cell escapes what would break a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// TestREADMETable fails when the README's extractor table is not what the
// registry says (an extractor added, renamed, moved to another family, a
// setting added); UPDATE_README=1 rewrites it.
func TestREADMETable(t *testing.T) {
	raw, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	i, j := strings.Index(readme, tableBegin), strings.Index(readme, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md: no extractor table between %q and %q", tableBegin, tableEnd)
	}
	start := i + len(tableBegin) + 1
	want := readmeTable(extractors.Default)
	if readme[start:j] == want {
		return
	}
	if os.Getenv(updateIfSet) != "" {
		if err := os.WriteFile(readmePath, []byte(readme[:start]+want+readme[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("README.md: extractor table rewritten")
		return
	}
	t.Errorf("README.md's extractor table is stale (UPDATE_README=1 go test ./extractors/families -run TestREADMETable rewrites it); want:\n%s", want)
}

// Every name a client of the original product may send for another
// extractor names one the binary links (the alias table cannot drift).
func TestAliasesNameLinkedExtractors(t *testing.T) {
	t.Parallel()
	for alias, target := range extractors.Aliases() {
		if _, ok := extractors.Default.Get(target); !ok {
			t.Errorf("alias %s -> %s: not registered", alias, target)
		}
		if _, ok := extractors.Default.Get(alias); ok {
			t.Errorf("alias %s is also a registered name", alias)
		}
		if got, ok := extractors.Default.Resolve(alias); !ok || got != target {
			t.Errorf("Resolve(%s) = %q, %v; want %s", alias, got, ok, target)
		}
	}
}
