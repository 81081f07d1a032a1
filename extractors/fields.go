package extractors

import (
	"fmt"
	"log/slog"
	"regexp"
	"time"
)

// FieldType is the type of a declared field.
type FieldType string

// Field types. Text is a long string (document text, a transcript): searched
// as words and highlighted, but not a filter value, sort key or bucket.
const (
	TypeString FieldType = "string"
	TypeNumber FieldType = "number"
	TypeBool   FieldType = "bool"
	TypeDate   FieldType = "date" // RFC 3339 string
	TypeText   FieldType = "text"
)

// Field is one value an extractor writes in its Data.
type Field struct {
	// Path below the extractor's name, dot-separated ("video.duration"). A
	// value inside a list of objects is named through the list
	// ("streams.codec" for every stream's codec).
	Path string
	Type FieldType
	// Doc says what the value is, with its unit ("seconds", "dBFS").
	Doc string
}

// Declared is a field with its full search path ("mediainfo.video.duration").
type Declared struct {
	Path      string
	Type      FieldType
	Doc       string
	Extractor string
}

var fieldPath = regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_]+)*$`)

func checkFields(info Info) error {
	seen := map[string]bool{}
	for _, f := range info.Fields {
		if !fieldPath.MatchString(f.Path) {
			return fmt.Errorf("register extractor %s: field path %q is not lower-case dotted words", info.Name, f.Path)
		}
		switch f.Type {
		case TypeString, TypeNumber, TypeBool, TypeDate, TypeText:
		default:
			return fmt.Errorf("register extractor %s: field %s has type %q", info.Name, f.Path, f.Type)
		}
		if seen[f.Path] {
			return fmt.Errorf("register extractor %s: field %s declared twice", info.Name, f.Path)
		}
		seen[f.Path] = true
	}
	return nil
}

// Env is what an extractor is made with (Info.New): its settings, the
// shared runner of external programs, a logger.
type Env struct {
	// Settings of this extractor by Setting.Name (defaults applied).
	Settings map[string]string
	// Declared are the extractor's declarations (Info.Settings), which
	// the typed accessors (Int, Number, Choice) parse by.
	Declared []Setting
	// Runner starts external programs, capping the heavy ones.
	Runner *Runner
	// Logger for the rare event an extractor logs itself (a helper process
	// restarted). Never nil when made by a Registry.
	Logger *slog.Logger
	// NoFaceDescriptors is the platform's FACIAL_RECOGNITION=false
	// (Config.NoFaceDescriptors): faces are still found and counted, no
	// descriptor is made.
	NoFaceDescriptors bool
}

// Get returns a setting ("" when neither set nor defaulted).
func (e Env) Get(name string) string { return e.Settings[name] }

// Config is how a process configures a Registry (Registry.Configure).
type Config struct {
	// Lookup reads an environment variable; main passes os.LookupEnv.
	// Nil means none is set.
	Lookup func(key string) (string, bool)
	// Runner is shared by every extractor; nil means NewRunner(0).
	Runner *Runner
	Logger *slog.Logger
	// Observer, when set, is told of every Outcome that Run and RunOne
	// produce: the extractor's name, the time it took and its error (nil on
	// success). The worker's metrics are fed from here, so no extractor
	// measures itself. It is called from the harvesting goroutines: it must
	// be quick and safe for concurrent use.
	Observer func(name string, took time.Duration, err error)
	// NoFaceDescriptors turns facial recognition off (internal/config's
	// FacialRecognition false, FACIAL_RECOGNITION=false): vendor_faces
	// finds and counts faces but makes no descriptor. The zero value, on,
	// is the platform's default.
	NoFaceDescriptors bool
}

// Shape is a set of fields that several extractors write alike (a local
// analysis and its provider-backed twin, whose data the same summaries
// read), declared once by path, type and a doc that holds for all of them.
type Shape []Field

// Fields returns the shape's fields as one extractor declares them: docs
// replaces the doc of the paths it names (what this extractor says of its
// own way of finding them), and extra are the fields only it writes. A doc
// for a path outside the shape is a bug of the declaration: it panics, at
// init.
func (s Shape) Fields(docs map[string]string, extra ...Field) []Field {
	out := make([]Field, 0, len(s)+len(extra))
	used := 0
	for _, f := range s {
		if d, ok := docs[f.Path]; ok {
			f.Doc = d
			used++
		}
		out = append(out, f)
	}
	if used != len(docs) {
		panic(fmt.Sprintf("extractors: Shape.Fields: docs %v name paths outside the shape", docs))
	}
	return append(out, extra...)
}
