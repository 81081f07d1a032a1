package extractors

import (
	"errors"
	"fmt"
)

var (
	// ErrUnsupported is returned (possibly wrapped) by an extractor that does not
	// handle this kind of file. It is not a failure of the file and is never
	// retried.
	ErrUnsupported = errors.New("file type not supported by this extractor")

	// ErrUnavailable is wrapped by Run's error for an extractor that cannot run
	// here: unknown name, not implemented in this release, or a tool missing.
	ErrUnavailable = errors.New("extractor unavailable")

	// ErrOutputLimit is wrapped by RunTool's error when a program writes more to
	// stdout than the limit allows.
	ErrOutputLimit = errors.New("output limit exceeded")
)

// Transient marks err as a failure of the environment (I/O on a network mount, a
// provider timing out, a cancelled harvest) that may succeed when retried. Errors
// not wrapped with Transient are deterministic. Transient(nil) is nil.
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return &transientError{err: err}
}

type transientError struct{ err error }

func (e *transientError) Error() string   { return e.err.Error() }
func (e *transientError) Unwrap() error   { return e.err }
func (e *transientError) Transient() bool { return true }

// IsTransient reports whether err, or an error it wraps, was marked with
// Transient (or has a Transient() bool method returning true). Everything else
// is deterministic and should not be retried.
func IsTransient(err error) bool {
	var t interface{ Transient() bool }
	return errors.As(err, &t) && t.Transient()
}

// PanicError is the error of an extractor that panicked. Its message holds only
// the extractor name and panic value, so that equal crashes group under the same
// error hash; Stack is there for the log.
type PanicError struct {
	Name  string
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("extractor %s panicked: %v", e.Name, e.Value)
}

// Unwrap returns the panic value when it is an error (a runtime error, say).
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}
