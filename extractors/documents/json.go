package documents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "json",
		DisplayName:    "JSON",
		Family:         extractors.FamilyDocuments,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Accept:         acceptJSON,
		Fields: []extractors.Field{
			{Path: "valid", Type: extractors.TypeBool, Doc: "true when the file is one well-formed JSON value (a file over 64 MiB is refused: an error)"},
			{Path: "error", Type: extractors.TypeString, Doc: "why the file is not valid JSON"},
			{Path: "top_level_type", Type: extractors.TypeString, Doc: "object, array, string, number, boolean or null"},
			{Path: "keys", Type: extractors.TypeString, Doc: "keys of the top-level object (at most 200)"},
			{Path: "key_count", Type: extractors.TypeNumber, Doc: "keys of the top-level object"},
			{Path: "element_count", Type: extractors.TypeNumber, Doc: "elements of the top-level array"},
			{Path: "max_depth", Type: extractors.TypeNumber, Doc: "deepest nesting of objects and arrays"},
			{Path: "text", Type: extractors.TypeText, Doc: "the string values, one a line, at most 256 KiB"},
			{Path: "text_truncated", Type: extractors.TypeBool, Doc: "true when the file holds more text than was kept"},
		},
		New: func(extractors.Env) (extractors.Extractor, error) {
			return walker{max: jsonMaxBytes, walk: walkJSON}, nil
		},
	})
}

func acceptJSON(f extractors.File) bool {
	return extractors.AcceptMIME([]string{"application/json", "application/geo+json", "application/ld+json",
		"application/x-ndjson", "application/manifest+json"}, "json", "geojson", "jsonld")(f)
}

// Caps of the json extractor: the bytes parsed (a single huge string is
// buffered whole by the decoder, so this bounds memory too; a larger file
// is refused: tooLarge), the keys listed, and the depth below which
// strings are still collected (deeper values are checked, not read).
const (
	jsonMaxBytes = 64 << 20
	jsonMaxKeys  = 200
	jsonMaxDepth = 64
	jsonMaxValue = 4 << 10 // of one string value in the text
)

// walkJSON reads one JSON value token by token: memory holds one token and
// the nesting, never the document.
func walkJSON(ctx context.Context, r io.Reader) (map[string]any, error) {
	src := &readErrs{r: r}
	dec := json.NewDecoder(src)
	dec.UseNumber()
	text := doctext.NewBuilder(doctext.MaxText)
	data := map[string]any{}
	var (
		// stack holds, per open container, whether it is an object and
		// whether the next string in it is a key.
		stack    []jsonLevel
		keys     []any
		keyCount int
		elements int
		maxDepth int
		tokens   int
	)
	fail := func(err error) (map[string]any, error) {
		if src.err != nil {
			return nil, doctext.ReadErr("json", src.err)
		}
		data["valid"] = false
		data["error"] = doctext.Clip(err.Error(), 200)
		text.Put(data)
		return data, nil
	}
	for {
		tokens++
		if tokens%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if tokens == 1 {
				return fail(errors.New("empty file"))
			}
			break
		}
		if err != nil {
			return fail(err)
		}
		depth := len(stack)
		top := depth == 0
		isKey := false
		closing := tok == json.Delim('}') || tok == json.Delim(']')
		if !top && !closing {
			lvl := &stack[depth-1]
			if lvl.object {
				isKey = lvl.wantKey
				lvl.wantKey = !lvl.wantKey
			}
			if depth == 1 {
				switch {
				case isKey:
					keyCount++
					if len(keys) < jsonMaxKeys {
						keys = append(keys, doctext.Clip(tok.(string), 256))
					}
				case !lvl.object:
					if d, ok := tok.(json.Delim); !ok || d == '[' || d == '{' {
						elements++
					}
				}
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if top {
					if _, seen := data["top_level_type"]; seen {
						return fail(errors.New("more than one value"))
					}
					data["top_level_type"] = map[json.Delim]string{'{': "object", '[': "array"}[v]
				}
				stack = append(stack, jsonLevel{object: v == '{', wantKey: v == '{'})
				if len(stack) > maxDepth {
					maxDepth = len(stack)
				}
			case '}', ']':
				stack = stack[:len(stack)-1]
			}
		case string:
			if top {
				if _, seen := data["top_level_type"]; seen {
					return fail(errors.New("more than one value"))
				}
				data["top_level_type"] = "string"
			}
			if !isKey && depth <= jsonMaxDepth {
				if !text.Full() {
					text.Separate("\n")
					text.WriteString(doctext.Clip(v, jsonMaxValue))
				} else {
					text.MarkTruncated()
				}
			}
		default:
			if top {
				if _, seen := data["top_level_type"]; seen {
					return fail(errors.New("more than one value"))
				}
				data["top_level_type"] = jsonScalarType(v)
			}
		}
	}
	data["valid"] = true
	data["max_depth"] = maxDepth
	switch data["top_level_type"] {
	case "object":
		data["key_count"] = keyCount
		if len(keys) > 0 {
			data["keys"] = keys
		}
	case "array":
		data["element_count"] = elements
	}
	text.Put(data)
	return data, nil
}

type jsonLevel struct {
	object  bool
	wantKey bool
}

func jsonScalarType(v any) string {
	switch v.(type) {
	case json.Number, float64:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// readErrs remembers a read error of the file, so that a decoder's error
// can be told apart from a failure to read (transient).
type readErrs struct {
	r   io.Reader
	err error
}

func (e *readErrs) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		e.err = err
	}
	return n, err
}
