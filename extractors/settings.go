package extractors

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// SettingKind is what a setting's value is; the registry checks values
// against it (and the bounds of the Setting) once, when it is configured,
// so that every extractor reports a bad value in the same words.
type SettingKind string

// Setting kinds.
const (
	// KindText is any text (a URL, a key, a path, a list the extractor
	// parses itself).
	KindText SettingKind = "text"
	// KindInt is a whole number within Min and Max.
	KindInt SettingKind = "integer"
	// KindNumber is a finite number within Min and Max.
	KindNumber SettingKind = "number"
	// KindChoice is one of the words of Choices.
	KindChoice SettingKind = "choice"
)

// Setting is a configuration value an extractor reads from the environment.
type Setting struct {
	// Name is how the extractor asks Env for it ("languages", "key").
	Name string
	// Env is the environment variable that sets it ("TESSERACT_LANGUAGES").
	Env string
	// Aliases are former names of Env, read in order when Env is unset or
	// empty, so that a deployment configured before a rename keeps working
	// (NSFW_SIDECAR_DIR for VISION_SIDECAR_DIR).
	Aliases []string
	// Kind is what its value is.
	Kind SettingKind
	// Default applies when the variable is unset or empty.
	Default string
	// Min and Max bound an integer or a number, both included; Max 0 means
	// no upper bound.
	Min, Max float64
	// Above makes Min excluded (a threshold above 0).
	Above bool
	// Choices are the values of a KindChoice setting, separated by spaces.
	Choices string
	// Secret values (provider keys) are never logged or returned.
	Secret bool
	// Required settings make the extractor unavailable while unset.
	Required bool
	// Doc says what it is, for docs/extractors.md and the extractor list.
	Doc string
}

// Want says what a value of s must be ("a whole number from 1 to 1000"),
// for error messages, docs/extractors.md and the extractor list.
func (s Setting) Want() string {
	switch s.Kind {
	case KindInt, KindNumber:
		what := "a number"
		if s.Kind == KindInt {
			what = "a whole number"
		}
		lo := "of at least " + num(s.Min)
		if s.Above {
			lo = "above " + num(s.Min)
		}
		switch {
		case s.Max == 0:
			return what + " " + lo
		case s.Above:
			return what + " " + lo + ", at most " + num(s.Max)
		}
		return what + " from " + num(s.Min) + " to " + num(s.Max)
	case KindChoice:
		return "one of " + strings.Join(strings.Fields(s.Choices), ", ")
	}
	return "text"
}

// Check reports whether v is a value of s. An empty v is no value (the
// setting is unset; Required says whether that is allowed). The error is
// the one format of setting errors:
//
//	setting DOCUMENT_PAGES_MAX_PAGES = "0": want a whole number from 1 to 1000
func (s Setting) Check(v string) error {
	v = strings.TrimSpace(v)
	if v == "" || s.Kind == KindText {
		return nil
	}
	if _, err := s.parse(v); err != nil {
		return err
	}
	return nil
}

// parse returns the value v of a number or whole-number setting, or the
// error of Check.
func (s Setting) parse(v string) (float64, error) {
	var (
		f  float64
		ok bool
	)
	switch s.Kind {
	case KindInt:
		n, err := strconv.Atoi(v)
		f, ok = float64(n), err == nil
	case KindNumber:
		var err error
		f, err = strconv.ParseFloat(v, 64)
		ok = err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	case KindChoice:
		ok = slices.Contains(strings.Fields(s.Choices), v)
	}
	if ok && (s.Kind == KindInt || s.Kind == KindNumber) {
		ok = (f > s.Min || !s.Above && f == s.Min) && (s.Max == 0 || f <= s.Max)
	}
	if !ok {
		if len(v) > 40 {
			v = v[:40] + "..."
		}
		return 0, fmt.Errorf("setting %s = %q: want %s", s.Env, v, s.Want())
	}
	return f, nil
}

// Int returns the value of the KindInt setting name, declared in
// env.Declared. The registry checked every value before making the
// extractor; an Env made by hand gets Check's error.
func (e Env) Int(name string) (int, error) {
	f, err := e.typed(name, KindInt)
	return int(f), err
}

// Number returns the value of the KindNumber setting name, checked as Int
// is.
func (e Env) Number(name string) (float64, error) { return e.typed(name, KindNumber) }

// Choice returns the value of the KindChoice setting name, checked as Int
// is.
func (e Env) Choice(name string) (string, error) {
	s, v, err := e.declared(name, KindChoice)
	if err == nil {
		_, err = s.parse(v)
	}
	return v, err
}

func (e Env) typed(name string, kind SettingKind) (float64, error) {
	s, v, err := e.declared(name, kind)
	if err != nil {
		return 0, err
	}
	return s.parse(v)
}

// declared returns the declaration of the setting name, which must be of
// kind, and its value in e (its default when e has none).
func (e Env) declared(name string, kind SettingKind) (Setting, string, error) {
	i := slices.IndexFunc(e.Declared, func(s Setting) bool { return s.Name == name })
	if i < 0 {
		return Setting{}, "", fmt.Errorf("setting %s is not declared", name)
	}
	s := e.Declared[i]
	if s.Kind != kind {
		return Setting{}, "", fmt.Errorf("setting %s is %s, not %s", s.Env, s.Kind, kind)
	}
	v := strings.TrimSpace(e.Settings[name])
	if v == "" {
		v = s.Default
	}
	return s, v, nil
}

// checkSettings refuses a malformed declaration: a setting without name
// or variable, of an unknown kind, with bounds that cross, a choice
// without choices, a default that is not a value of its own kind, or a
// name declared twice.
func checkSettings(info Info) error {
	seen := map[string]bool{}
	for _, s := range info.Settings {
		var err error
		switch {
		case s.Name == "" || s.Env == "":
			err = errors.New("a setting without Name or Env")
		case seen[s.Name]:
			err = fmt.Errorf("setting %s declared twice", s.Name)
		case s.Kind != KindText && s.Kind != KindInt && s.Kind != KindNumber && s.Kind != KindChoice:
			err = fmt.Errorf("setting %s has kind %q", s.Env, s.Kind)
		case s.Max != 0 && s.Max < s.Min:
			err = fmt.Errorf("setting %s: Max %s below Min %s", s.Env, num(s.Max), num(s.Min))
		case s.Kind == KindChoice && len(strings.Fields(s.Choices)) == 0:
			err = fmt.Errorf("setting %s: a choice without Choices", s.Env)
		default:
			if e := s.Check(s.Default); e != nil {
				err = fmt.Errorf("default of %w", e)
			}
		}
		if err != nil {
			return fmt.Errorf("register extractor %s: %w", info.Name, err)
		}
		seen[s.Name] = true
	}
	return nil
}

// settingsOf resolves info's settings: values set in the environment, else
// defaults. missing lists the Env names of Required settings without
// value; bad is the first value that is not one of its setting (Check),
// nil when all are.
func settingsOf(info *Info, lookup func(string) (string, bool)) (vals map[string]string, missing []string, bad error) {
	vals = map[string]string{}
	for _, s := range info.Settings {
		v, ok := "", false
		if lookup != nil {
			v, ok = lookup(s.Env)
			v = strings.TrimSpace(v)
			for _, alias := range s.Aliases {
				if ok && v != "" {
					break
				}
				v, ok = lookup(alias)
				v = strings.TrimSpace(v)
			}
		}
		if !ok || v == "" {
			v = s.Default
		}
		if v == "" && s.Required {
			missing = append(missing, s.Env)
		}
		if err := s.Check(v); err != nil && bad == nil {
			bad = err
		}
		vals[s.Name] = v
	}
	return vals, missing, bad
}

// num formats a bound: no exponent, no trailing zeros.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
