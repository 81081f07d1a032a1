package families_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

// docs/extractors.md's table of every extractor lies between these markers
// and is rendered from the registry (every family linked, as the binary
// links them).
const (
	tablePath  = "../../docs/extractors.md"
	tableBegin = "<!-- extractors table: generated from the registry (go test ./extractors/families -run TestExtractorTable -update) -->"
	tableEnd   = "<!-- end of the extractors table -->"
)

// updating reports whether the test runs with -update, the flag the
// project's golden files use (extractortest registers it; this test binary
// links extractortest through standard_test.go).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// extractorTable renders the registered extractors as a Markdown table, by
// family in the order of extractors.Families, then by name.
func extractorTable(reg *extractors.Registry) string {
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

// TestExtractorTable fails when the extractor table of docs/extractors.md
// is not what the registry says (an extractor added, renamed, moved to
// another family, a setting added); -update rewrites it.
func TestExtractorTable(t *testing.T) {
	raw, err := os.ReadFile(tablePath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i, j := strings.Index(doc, tableBegin), strings.Index(doc, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no extractor table between %q and %q", tablePath, tableBegin, tableEnd)
	}
	start := i + len(tableBegin) + 1
	want := extractorTable(extractors.Default)
	if doc[start:j] == want {
		return
	}
	if updating() {
		if err := os.WriteFile(tablePath, []byte(doc[:start]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: extractor table rewritten", tablePath)
		return
	}
	t.Errorf("%s: the extractor table is stale (go test ./extractors/families -run TestExtractorTable -update rewrites it); want:\n%s", tablePath, want)
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
