package api

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
)

// credentialFor authenticates a request to rt. Every route takes a bearer
// login token or API key; two take a second kind of credential as well:
// /metrics the scraper's METRICS_TOKEN, the queue dashboard a browser
// session cookie.
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
	return s.authenticate(c)
}

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
