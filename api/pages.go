package api

import (
	"context"
	"net"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/auth"
)

// Pages is the web UI as the api sees it (package web; the api does not
// import it): a handler for the paths it owns. The router hands it every
// request no JSON route matched whose path it owns, after the api's
// middleware (request id, panic recovery, access log, metrics, body limit).
type Pages interface {
	http.Handler
	Owns(path string) bool
}

// pagesRoute is the metrics label of every page request (one series for all
// of them, whatever the path).
const pagesRoute = "/(pages)"

// MountPages serves p's paths; call it once, before serving.
func (s *Server) MountPages(p Pages) { s.pages = p }

// SessionTokens is the api's token signer: the web UI issues its session
// cookies (access.SessionCookie) with it, so that the api accepts them.
func (s *Server) SessionTokens() *auth.Tokens { return s.tokens }

type clientIPKey struct{}

// servePage hands c to the pages, with the client address the router
// resolved (see SignIn).
func (s *Server) servePage(c *gin.Context) {
	c.Set(routeLabelKey, pagesRoute)
	r := c.Request.WithContext(context.WithValue(c.Request.Context(), clientIPKey{}, c.ClientIP()))
	s.pages.ServeHTTP(c.Writer, r)
}

// clientIPOf is the client address of a request served through servePage
// (its remote address otherwise).
func clientIPOf(r *http.Request) string {
	if ip, ok := r.Context().Value(clientIPKey{}).(string); ok {
		return ip
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
