package extractors

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// Each kind of setting checks its values in the one message format;
// empty is no value (the default applies before).
func TestSettingCheck(t *testing.T) {
	t.Parallel()
	pages := Setting{Name: "max_pages", Env: "T_MAX_PAGES", Kind: KindInt, Default: "50", Min: 1, Max: 1000}
	threshold := Setting{Name: "threshold", Env: "T_THRESHOLD", Kind: KindNumber, Default: "0.5", Min: 0, Above: true, Max: 1}
	pixels := Setting{Name: "max_pixels", Env: "T_MAX_PIXELS", Kind: KindInt, Default: "100", Min: 1}
	model := Setting{Name: "model", Env: "T_MODEL", Kind: KindChoice, Default: "small", Choices: "small large"}
	text := Setting{Name: "url", Env: "T_URL", Kind: KindText}
	for _, tc := range []struct {
		s    Setting
		v    string
		want string // "" when v is a value of s
	}{
		{pages, "1", ""}, {pages, " 1000 ", ""}, {pages, "", ""},
		{pages, "0", `setting T_MAX_PAGES = "0": want a whole number from 1 to 1000`},
		{pages, "1001", `setting T_MAX_PAGES = "1001": want a whole number from 1 to 1000`},
		{pages, "2.5", `setting T_MAX_PAGES = "2.5": want a whole number from 1 to 1000`},
		{pages, "lots", `setting T_MAX_PAGES = "lots": want a whole number from 1 to 1000`},
		{threshold, "1", ""}, {threshold, "0.01", ""},
		{threshold, "0", `setting T_THRESHOLD = "0": want a number above 0, at most 1`},
		{threshold, "NaN", `setting T_THRESHOLD = "NaN": want a number above 0, at most 1`},
		{threshold, "Inf", `setting T_THRESHOLD = "Inf": want a number above 0, at most 1`},
		{pixels, "99999999999", ""},
		{pixels, "-1", `setting T_MAX_PIXELS = "-1": want a whole number of at least 1`},
		{model, "large", ""},
		{model, "Large", `setting T_MODEL = "Large": want one of small, large`},
		{text, "anything at all", ""},
		{pages, strings.Repeat("9", 60), `setting T_MAX_PAGES = "` + strings.Repeat("9", 40) + `...": want a whole number from 1 to 1000`},
	} {
		err := tc.s.Check(tc.v)
		if got := ""; err != nil {
			got = err.Error()
			if got != tc.want {
				t.Errorf("Check(%s, %q) = %q, want %q", tc.s.Env, tc.v, got, tc.want)
			}
		} else if tc.want != "" {
			t.Errorf("Check(%s, %q) accepted, want %q", tc.s.Env, tc.v, tc.want)
		}
	}
}

// Register refuses a malformed declaration, a default that is not a value
// of its own setting included.
func TestRegisterChecksSettingDeclarations(t *testing.T) {
	t.Parallel()
	for _, s := range []Setting{
		{Name: "n", Env: "T_N"}, // no kind
		{Name: "n", Env: "T_N", Kind: "float"},
		{Name: "n", Kind: KindText},
		{Name: "n", Env: "T_N", Kind: KindInt, Min: 10, Max: 5},
		{Name: "n", Env: "T_N", Kind: KindInt, Default: "0", Min: 1, Max: 5},
		{Name: "n", Env: "T_N", Kind: KindChoice},
	} {
		if err := NewRegistry().Register(Info{Name: "x", Family: FamilyTechnical, Settings: []Setting{s}}); err == nil {
			t.Errorf("Register with %+v accepted", s)
		}
	}
	twice := []Setting{{Name: "n", Env: "T_N", Kind: KindText}, {Name: "n", Env: "T_M", Kind: KindText}}
	if err := NewRegistry().Register(Info{Name: "x", Family: FamilyTechnical, Settings: twice}); err == nil {
		t.Error("a setting declared twice accepted")
	}
}

// The registry checks the configured values once, when configured: a bad
// one is logged in the one format, makes the extractor unavailable with
// that reason (New is never called), and its default applies when unset.
func TestConfiguredSettingsChecked(t *testing.T) {
	t.Parallel()
	var got int
	var made int
	r := NewRegistry()
	r.MustRegister(Info{Name: "pages", Family: FamilyDocuments, Version: "1", Implemented: true,
		Settings: []Setting{{Name: "max_pages", Env: "T_PAGES_MAX", Kind: KindInt, Default: "50", Min: 1, Max: 1000}},
		New: func(env Env) (Extractor, error) {
			made++
			var err error
			got, err = env.Int("max_pages")
			return hashes{}, err
		}})
	env := map[string]string{}
	var logs bytes.Buffer
	configure := func() {
		r.Configure(Config{Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
			Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	}

	configure() // unset: the default
	if ok, reason := r.Available("pages"); !ok {
		t.Fatalf("Available with the default: %q", reason)
	}
	if outs := Run(context.Background(), r, []string{"pages"}, sampleInput(t), time.Minute); outs[len(outs)-1].Err != nil || got != 50 {
		t.Fatalf("with the default: %v, max_pages %d", outs[len(outs)-1].Err, got)
	}
	if logs.Len() != 0 {
		t.Errorf("logged with good settings: %s", logs.String())
	}

	env["T_PAGES_MAX"] = "5000"
	configure()
	const want = `extractor pages: setting T_PAGES_MAX = "5000": want a whole number from 1 to 1000`
	if !strings.Contains(logs.String(), strings.ReplaceAll(want, `"`, `\"`)) {
		t.Errorf("log %q, want %q", logs.String(), want)
	}
	if errs := r.CheckSettings(); len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("CheckSettings = %v", errs)
	}
	if ok, reason := r.Available("pages"); ok || reason != `setting T_PAGES_MAX = "5000": want a whole number from 1 to 1000` {
		t.Errorf("Available out of range = %v, %q", ok, reason)
	}
	outs := Run(context.Background(), r, []string{"pages"}, sampleInput(t), time.Minute)
	if err := outs[len(outs)-1].Err; !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "T_PAGES_MAX") || made != 1 {
		t.Errorf("run out of range: %v (made %d times)", err, made)
	}

	env["T_PAGES_MAX"] = "12"
	configure()
	if outs := Run(context.Background(), r, []string{"pages"}, sampleInput(t), time.Minute); outs[len(outs)-1].Err != nil || got != 12 {
		t.Errorf("set: %v, max_pages %d", outs[len(outs)-1].Err, got)
	}
}

// The typed accessors of an Env made by hand check as the registry does,
// and refuse a setting that is not declared or of another kind.
func TestEnvTypedAccessors(t *testing.T) {
	t.Parallel()
	decl := []Setting{
		{Name: "n", Env: "T_N", Kind: KindInt, Default: "3", Min: 1, Max: 9},
		{Name: "f", Env: "T_F", Kind: KindNumber, Default: "0.5", Min: 0, Max: 1},
		{Name: "c", Env: "T_C", Kind: KindChoice, Default: "a", Choices: "a b"},
	}
	env := Env{Settings: map[string]string{"n": "7", "c": "b"}, Declared: decl}
	if n, err := env.Int("n"); n != 7 || err != nil {
		t.Errorf("Int = %d, %v", n, err)
	}
	if f, err := env.Number("f"); f != 0.5 || err != nil {
		t.Errorf("Number (default) = %v, %v", f, err)
	}
	if c, err := env.Choice("c"); c != "b" || err != nil {
		t.Errorf("Choice = %q, %v", c, err)
	}
	env.Settings["n"] = "10"
	if _, err := env.Int("n"); err == nil || err.Error() != `setting T_N = "10": want a whole number from 1 to 9` {
		t.Errorf("Int out of range: %v", err)
	}
	if _, err := env.Int("f"); err == nil {
		t.Error("Int of a number setting accepted")
	}
	if _, err := env.Int("missing"); err == nil {
		t.Error("Int of an undeclared setting accepted")
	}
}

// A renamed setting reads its former name when the new one is unset or
// empty; the new name wins when both are set.
func TestSettingAliases(t *testing.T) {
	t.Parallel()
	info := Info{Settings: []Setting{{Name: "dir", Env: "NEW_DIR", Aliases: []string{"OLD_DIR"}, Kind: KindText, Default: "d"}}}
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "d"},
		{map[string]string{"OLD_DIR": "old"}, "old"},
		{map[string]string{"NEW_DIR": "", "OLD_DIR": "old"}, "old"},
		{map[string]string{"NEW_DIR": "new", "OLD_DIR": "old"}, "new"},
	} {
		vals, _, _ := settingsOf(&info, func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
		if vals["dir"] != c.want {
			t.Errorf("%v: %q, want %q", c.env, vals["dir"], c.want)
		}
	}
}
