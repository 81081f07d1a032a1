package api

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/api/access"
)

// credentialFor authenticates a request to rt. Every route takes a bearer
// login token or API key; some take a second kind of credential as well:
// /metrics the scraper's METRICS_TOKEN, the queue dashboard its browser
// session cookie, and every GET or HEAD the web UI's session cookie
// (access.SessionCookie), so that a page's <video> and <img> elements can
// load item content and artifacts. A state-changing request never counts a
// cookie: a page cannot be made to change anything by another site, and the
// pages' own forms get their checks in the web package.
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
	}
	if readOnly(c.Request.Method) && c.GetHeader("Authorization") == "" {
		if p, ok, err := s.cookieSession(c, access.SessionCookie); ok || err != nil {
			return p, err
		}
	}
	return s.authenticate(c)
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
