// Package apperr is the one error model of metaharvest: an error code, a
// human message, optional per-field problems, and the HTTP status they map to.
// The api renders these as {"error":{"code","message","fields"}}; anything
// else reaching the renderer is an internal error.
package apperr

import (
	"errors"
	"fmt"
	"time"
)

// Error is an error a client is allowed to see.
type Error struct {
	Status     int               `json:"-"`
	Code       Code              `json:"code"`
	Message    string            `json:"message"`
	Fields     map[string]string `json:"fields,omitempty"`
	RetryAfter time.Duration     `json:"-"`
}

func (e *Error) Error() string { return e.Code.String() + ": " + e.Message }

// As returns the *Error inside err, if any.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// New builds an error with the code's status (the table in codes.go).
func New(code Code, format string, args ...any) *Error {
	return &Error{Status: code.Status(), Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithStatus answers e with another status than its code's: for a refusal
// whose status a library chose (the file server's).
func (e *Error) WithStatus(status int) *Error {
	e.Status = status
	return e
}

// BadRequest is New for a 400 code; the name says what the caller means,
// TestConstructorStatuses checks the code is one.
func BadRequest(code Code, format string, args ...any) *Error {
	return New(code, format, args...)
}

// Invalid is a 400 validation error naming the offending fields.
func Invalid(fields map[string]string) *Error {
	e := New(CodeValidationFailed, "the request has invalid fields")
	e.Fields = fields
	return e
}

// InvalidField is Invalid for one field.
func InvalidField(field, problem string) *Error {
	return Invalid(map[string]string{field: problem})
}

// Unauthorized is a 401: no credential, or one that does not work.
func Unauthorized(format string, args ...any) *Error {
	return New(CodeUnauthorized, format, args...)
}

// Forbidden is a 403: the credential works but may not do this.
func Forbidden(format string, args ...any) *Error {
	return New(CodeForbidden, format, args...)
}

// NotFound is a 404 for an object of the given kind.
func NotFound(kind, id string) *Error {
	return New(CodeNotFound, "%s %q not found", kind, id)
}

// Conflict is New for a 409 code (checked like BadRequest).
func Conflict(code Code, format string, args ...any) *Error {
	return New(code, format, args...)
}

// TooLarge is a 413.
func TooLarge(format string, args ...any) *Error {
	return New(CodeTooLarge, format, args...)
}

// TooManyRequests is a 429 with the wait the client should observe.
func TooManyRequests(retryAfter time.Duration, format string, args ...any) *Error {
	e := New(CodeRateLimited, format, args...)
	e.RetryAfter = retryAfter
	return e
}

// Unavailable is a 503: a dependency (search engine, database) is down.
func Unavailable(format string, args ...any) *Error {
	return New(CodeUnavailable, format, args...)
}

// Internal is the body given for any error that is not an *Error.
func Internal() *Error {
	return New(CodeInternalError, "an unexpected error occurred")
}
