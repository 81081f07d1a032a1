// Package apperr is the one error model of metaharvest: an error code, a
// human message, optional per-field problems, and the HTTP status they map to.
// The api renders these as {"error":{"code","message","fields"}}; anything
// else reaching the renderer is an internal error.
package apperr

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Error is an error a client is allowed to see.
type Error struct {
	Status     int               `json:"-"`
	Code       string            `json:"code"`
	Message    string            `json:"message"`
	Fields     map[string]string `json:"fields,omitempty"`
	RetryAfter time.Duration     `json:"-"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// As returns the *Error inside err, if any.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// New builds an error with an explicit status.
func New(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// BadRequest is a 400 with a code of its own.
func BadRequest(code, format string, args ...any) *Error {
	return New(http.StatusBadRequest, code, format, args...)
}

// Invalid is a 400 validation error naming the offending fields.
func Invalid(fields map[string]string) *Error {
	e := New(http.StatusBadRequest, "validation_failed", "the request has invalid fields")
	e.Fields = fields
	return e
}

// InvalidField is Invalid for one field.
func InvalidField(field, problem string) *Error {
	return Invalid(map[string]string{field: problem})
}

// Unauthorized is a 401: no credential, or one that does not work.
func Unauthorized(format string, args ...any) *Error {
	return New(http.StatusUnauthorized, "unauthorized", format, args...)
}

// Forbidden is a 403: the credential works but may not do this.
func Forbidden(format string, args ...any) *Error {
	return New(http.StatusForbidden, "forbidden", format, args...)
}

// NotFound is a 404 for an object of the given kind.
func NotFound(kind, id string) *Error {
	return New(http.StatusNotFound, "not_found", "%s %q not found", kind, id)
}

// Conflict is a 409.
func Conflict(code, format string, args ...any) *Error {
	return New(http.StatusConflict, code, format, args...)
}

// TooLarge is a 413.
func TooLarge(format string, args ...any) *Error {
	return New(http.StatusRequestEntityTooLarge, "too_large", format, args...)
}

// TooManyRequests is a 429 with the wait the client should observe.
func TooManyRequests(retryAfter time.Duration, format string, args ...any) *Error {
	e := New(http.StatusTooManyRequests, "rate_limited", format, args...)
	e.RetryAfter = retryAfter
	return e
}

// Unavailable is a 503: a dependency (search engine, database) is down.
func Unavailable(format string, args ...any) *Error {
	return New(http.StatusServiceUnavailable, "unavailable", format, args...)
}

// Internal is the body given for any error that is not an *Error.
func Internal() *Error {
	return New(http.StatusInternalServerError, "internal_error", "an unexpected error occurred")
}
