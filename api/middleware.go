package api

import (
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
)

const requestIDKey = "request_id"

var safeRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// requestID takes a sane X-Request-ID from the client or makes one, and
// returns it in the response.
func (s *Server) requestID(c *gin.Context) {
	id := c.GetHeader("X-Request-ID")
	if !safeRequestID.MatchString(id) {
		id = ids.New()
	}
	c.Set(requestIDKey, id)
	c.Header("X-Request-ID", id)
	c.Next()
}

func requestIDOf(c *gin.Context) string { return c.GetString(requestIDKey) }

// recoverPanics turns a panic into a logged 500 with the JSON error body.
func (s *Server) recoverPanics(c *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.Logger.ErrorContext(c.Request.Context(), "panic serving request",
				slog.String("request_id", requestIDOf(c)), slog.String("panic", fmt.Sprint(v)),
				slog.String("stack", string(debug.Stack())))
			c.AbortWithStatusJSON(http.StatusInternalServerError, gin.H{"error": apperr.Internal()})
		}
	}()
	c.Next()
}

// accessLog writes one JSON line per request. The query string is left out:
// it may carry tokens.
func (s *Server) accessLog(c *gin.Context) {
	start := time.Now()
	c.Next()
	status := c.Writer.Status()
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	s.Logger.LogAttrs(c.Request.Context(), level, "http request",
		slog.String("request_id", requestIDOf(c)),
		slog.String("method", c.Request.Method),
		slog.String("path", c.Request.URL.Path),
		slog.Int("status", status),
		slog.Int64("duration_ms", time.Since(start).Milliseconds()),
		slog.String("client_ip", c.ClientIP()),
	)
}

// limitBody bounds request bodies, except uploads which enforce their own
// limit while streaming.
func (s *Server) limitBody(c *gin.Context) {
	if c.Request.Body != nil && !strings.HasPrefix(c.Request.URL.Path, "/files/") {
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, s.Config.MaxBodyBytes)
	}
	c.Next()
}
