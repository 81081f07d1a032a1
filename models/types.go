package models

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"hash"
	"hash/fnv"
	"strings"
)

func newFNV() hash.Hash64 { return fnv.New64a() }

// Strings maps a Postgres text[] column.
type Strings []string

var arrayEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// Value renders a Postgres array literal.
func (s Strings) Value() (driver.Value, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(arrayEscaper.Replace(v))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String(), nil
}

// Scan parses a Postgres array literal of text.
func (s *Strings) Scan(src any) error {
	var text string
	switch v := src.(type) {
	case nil:
		*s = nil
		return nil
	case string:
		text = v
	case []byte:
		text = string(v)
	default:
		return fmt.Errorf("scan text[]: unexpected %T", src)
	}
	out, err := parseArray(text)
	if err != nil {
		return err
	}
	*s = out
	return nil
}

func parseArray(text string) ([]string, error) {
	if len(text) < 2 || text[0] != '{' || text[len(text)-1] != '}' {
		return nil, fmt.Errorf("scan text[]: malformed %q", text)
	}
	body := text[1 : len(text)-1]
	out := []string{}
	if body == "" {
		return out, nil
	}
	var cur strings.Builder
	quoted, inQuotes, escaped := false, false, false
	flush := func() {
		v := cur.String()
		if !quoted && v == "NULL" {
			v = ""
		}
		out = append(out, v)
		cur.Reset()
		quoted = false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case escaped:
			cur.WriteByte(c)
			escaped = false
		case c == '\\':
			escaped = true
		case c == '"':
			inQuotes = !inQuotes
			quoted = true
		case c == ',' && !inQuotes:
			flush()
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return out, nil
}

// JSON maps a jsonb column holding any JSON value.
type JSON json.RawMessage

// Value stores the raw JSON ('null' when empty, so NOT NULL columns get a value).
func (j JSON) Value() (driver.Value, error) {
	if len(j) == 0 {
		return "{}", nil
	}
	return string(j), nil
}

// Scan copies the JSON text.
func (j *JSON) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*j = nil
	case string:
		*j = JSON(v)
	case []byte:
		*j = append(JSON(nil), v...)
	default:
		return fmt.Errorf("scan jsonb: unexpected %T", src)
	}
	return nil
}

// MarshalJSON lets JSON columns be embedded in responses as they are.
func (j JSON) MarshalJSON() ([]byte, error) {
	if len(j) == 0 {
		return []byte("null"), nil
	}
	return j, nil
}

// UnmarshalJSON keeps the raw bytes.
func (j *JSON) UnmarshalJSON(b []byte) error {
	*j = append(JSON(nil), b...)
	return nil
}

// MustJSON marshals v, which must be marshalable.
func MustJSON(v any) JSON {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("models: marshal %T: %v", v, err))
	}
	return JSON(b)
}
