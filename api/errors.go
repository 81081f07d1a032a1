package api

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
)

// renderError is the one place errors become responses. Anything that is
// not an *apperr.Error is logged with the request id and answered as a
// generic 500, so internals never leak.
func (s *Server) renderError(c *gin.Context, err error) {
	e, ok := apperr.As(err)
	if !ok {
		switch {
		case store.IsDuplicate(err):
			e = apperr.Conflict(apperr.CodeConflict, "an object with the same unique value exists")
		case isBodyTooLarge(err):
			e = apperr.TooLarge("the request body is too large")
		default:
			s.Logger.ErrorContext(c.Request.Context(), "request failed",
				slog.String("request_id", requestIDOf(c)), slog.String("error", err.Error()),
				slog.String("method", c.Request.Method), slog.String("path", c.FullPath()))
			e = apperr.Internal()
		}
	}
	if e.RetryAfter > 0 {
		c.Header("Retry-After", strconv.Itoa(int(e.RetryAfter.Seconds()+0.999)))
	}
	c.AbortWithStatusJSON(e.Status, gin.H{"error": e})
}

func isBodyTooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}

func notFoundRoute(c *gin.Context) error {
	return apperr.New(apperr.CodeRouteNotFound, "no route %s %s", c.Request.Method, c.Request.URL.Path)
}

func methodNotAllowed(c *gin.Context) error {
	return apperr.New(apperr.CodeMethodNotAllowed, "method %s is not allowed on %s", c.Request.Method, c.Request.URL.Path)
}

func forbiddenScope(scope string) error {
	return apperr.New(apperr.CodeMissingScope, "this action needs the scope %q", scope)
}
