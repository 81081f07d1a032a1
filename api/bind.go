package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
)

// decodeJSON reads the request body as JSON into dst whatever the
// Content-Type says (clients of the original product omit it). Syntax and
// type errors answer 400 naming the field.
func decodeJSON(c *gin.Context, dst any) error {
	return decode(c, dst, false)
}

// decodeStrictJSON is decodeJSON refusing unknown fields, for bodies where a
// client could mean something by a field we would otherwise ignore.
func decodeStrictJSON(c *gin.Context, dst any) error {
	return decode(c, dst, true)
}

func decode(c *gin.Context, dst any, strict bool) error {
	if c.Request.Body == nil {
		return apperr.BadRequest(apperr.CodeEmptyBody, "a JSON body is required")
	}
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		return err // MaxBytesError renders as 413
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return apperr.BadRequest(apperr.CodeEmptyBody, "a JSON body is required")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return apperr.BadRequest(apperr.CodeMalformedJSON, "the body must hold a single JSON value")
	}
	return nil
}

func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return apperr.BadRequest(apperr.CodeMalformedJSON, "malformed JSON at offset %d", syn.Offset)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return apperr.BadRequest(apperr.CodeMalformedJSON, "the body must be a JSON %s", jsonKind(typ.Type.Kind().String()))
		}
		return apperr.InvalidField(field, fmt.Sprintf("must be %s", jsonKind(typ.Type.Kind().String())))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apperr.BadRequest(apperr.CodeMalformedJSON, "the JSON body ends early")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return apperr.InvalidField(name, "unknown or not allowed field")
	}
	return apperr.BadRequest(apperr.CodeMalformedJSON, "the body is not valid JSON")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "bool":
		return "a boolean"
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	}
	return "of another type"
}

// required adds "is required" problems for empty string fields.
func required(problems map[string]string, fields map[string]string) {
	for name, v := range fields {
		if strings.TrimSpace(v) == "" {
			problems[name] = "is required"
		}
	}
}

// invalidIf returns a validation error when problems is not empty.
func invalidIf(problems map[string]string) error {
	if len(problems) > 0 {
		return apperr.Invalid(problems)
	}
	return nil
}
