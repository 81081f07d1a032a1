package api

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/access"
)

// credentialFor authenticates a request to rt. Every route takes a bearer
// login token or API key; some take a second kind of credential as well:
// /metrics the scraper's METRICS_TOKEN, the queue dashboard its browser
// session cookie, and every GET or HEAD the web UI's session cookie
// (access.SessionCookie), so that a page's <video> and <img> elements can
// load item content and artifacts. A state-changing request counts that
// cookie only with the session's CSRF token (access.CSRFHeader) from the
// platform's own origin (access.SameOrigin): the pages' scripts act through
// the api, and another site cannot make a browser do so.
func (s *Server) credentialFor(c *gin.Context, rt Route) (*Principal, error) {
	if rt.Path == metricsPath {
		if p, ok := s.scraper(c); ok {
			return p, nil
		}
	}
	if isMonitoringRoute(rt) && c.GetHeader("Authorization") == "" {
		if p, ok, err := s.monitoringSession(c); ok || err != nil {
			return p, err
		}
		// The web UI's session opens the dashboard too, its actions
		// included: the dashboard's script cannot send the CSRF token, so
		// there, as for the dashboard's own cookie, SameSite=Strict and
		// the origin check are the protection.
		if access.SameOrigin(c.Request) {
			if p, ok, err := s.cookieSession(c, access.SessionCookie); ok || err != nil {
				return p, err
			}
		}
	}
	if c.GetHeader("Authorization") == "" && (readOnly(c.Request.Method) || s.pageAction(c)) {
		if p, ok, err := s.cookieSession(c, access.SessionCookie); ok || err != nil {
			return p, err
		}
	}
	return s.authenticate(c)
}

// pageAction reports whether a state-changing request comes from a page of
// the web UI: the session cookie's CSRF token in its header, sent from this
// origin.
func (s *Server) pageAction(c *gin.Context) bool {
	raw, err := c.Cookie(access.SessionCookie)
	if err != nil || raw == "" || len(raw) > 4096 {
		return false
	}
	return access.SameOrigin(c.Request) && s.tokens.CheckCSRF(raw, c.GetHeader(access.CSRFHeader))
}

func readOnly(method string) bool { return method == http.MethodGet || method == http.MethodHead }

// authFailed answers a request that could not be authenticated: the JSON
// 401 for everything, except a browser opening a dashboard page, which is
// sent to the dashboard's login page.
func (s *Server) authFailed(c *gin.Context, rt Route, err error) {
	if isMonitoringRoute(rt) && c.Request.Method == http.MethodGet &&
		strings.Contains(c.GetHeader("Accept"), "text/html") {
		c.Redirect(http.StatusSeeOther, monitoringLoginPath)
		c.Abort()
		return
	}
	s.renderError(c, err)
}
