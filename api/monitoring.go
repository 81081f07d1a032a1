package api

import (
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/hibiken/asynqmon"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/queue"
)

// The queue dashboard (asynqmon) is mounted at /monitoring. Its pages and
// read calls need system:read, its actions (retry, delete, pause...)
// system:write; administrators hold both. A script passes its bearer token
// as everywhere else; a browser, which cannot, logs in once at
// /api/monitoring/login and then holds a session cookie that is:
//   - HttpOnly (no script reads it) and SameSite=Strict (no other site's
//     page makes the browser send it, so no cross-site request forgery);
//   - scoped to /monitoring (no other route accepts it) and Secure when the
//     deployment is served over HTTPS;
//   - short-lived (monitoringSessionTTL) and signed with the deployment's
//     token secret, and each request still checks that the user exists, is
//     enabled and holds the scope.
const (
	monitoringRoot       = "/monitoring"
	monitoringLoginPath  = "/api/monitoring/login"
	monitoringCookie     = "mh_monitoring"
	monitoringSessionTTL = 30 * time.Minute
)

func isMonitoringRoute(rt Route) bool { return strings.HasPrefix(rt.Path, monitoringRoot+"/") }

// dashboards are made on first use: a read-only one for callers without
// system:write (asynqmon hides the action buttons and refuses anything but
// GET) and a full one.
type dashboards struct {
	once     sync.Once
	ro, full *asynqmon.HTTPHandler
	err      error
}

// GET|POST|DELETE /monitoring/*path
func (s *Server) monitoring(c *gin.Context) error {
	d := &s.dashboards
	d.once.Do(func() {
		opt, err := queue.RedisOpt(s.Config.RedisURL)
		if err != nil {
			d.err = err
			return
		}
		d.ro = asynqmon.New(asynqmon.Options{RootPath: monitoringRoot, RedisConnOpt: opt, ReadOnly: true})
		d.full = asynqmon.New(asynqmon.Options{RootPath: monitoringRoot, RedisConnOpt: opt})
	})
	if d.err != nil {
		return d.err
	}
	h := d.ro
	if principalOf(c).Can("system:write") {
		h = d.full
	}
	c.Header("X-Frame-Options", "DENY")
	c.Header("Referrer-Policy", "no-referrer")
	c.Header("Cache-Control", "no-store")
	h.ServeHTTP(c.Writer, c.Request)
	return nil
}

// GET /monitoring: the dashboard lives below /monitoring/.
func (s *Server) monitoringRedirect(c *gin.Context) error {
	c.Redirect(http.StatusSeeOther, monitoringRoot+"/")
	return nil
}

// monitoringSession authenticates a request by its dashboard cookie. ok is
// false when there is no valid cookie (the bearer token is tried next).
func (s *Server) monitoringSession(c *gin.Context) (*Principal, bool, error) {
	return s.cookieSession(c, monitoringCookie)
}

// cookieSession authenticates a request by the session token in cookie
// name: ok is false when there is none, or it is forged or expired, or its
// user is gone or disabled.
func (s *Server) cookieSession(c *gin.Context, name string) (*Principal, bool, error) {
	raw, err := c.Cookie(name)
	if err != nil || raw == "" || len(raw) > 4096 {
		return nil, false, nil
	}
	userID, err := s.tokens.ParseSession(raw)
	if err != nil {
		return nil, false, nil
	}
	p, err := s.loadPrincipal(c, userID, nil)
	if err != nil {
		if err == errBadCredential {
			return nil, false, nil
		}
		return nil, false, err
	}
	return p, true, nil
}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>metaharvest: queue dashboard</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{font-family:sans-serif;max-width:22em;margin:4em auto}label,input,button{display:block;width:100%;margin:.4em 0}
.problem{color:#a00}</style></head>
<body><h1>Queue dashboard</h1>
{{if .Problem}}<p class="problem" id="problem">{{.Problem}}</p>{{end}}
<form method="post" action="/api/monitoring/login">
<label for="email">Email</label><input id="email" name="email" type="email" maxlength="254" required autocomplete="username" value="{{.Email}}">
<label for="password">Password</label><input id="password" name="password" type="password" maxlength="128" required autocomplete="current-password">
<button id="login" type="submit">Log in</button>
</form></body></html>
`))

// renderLoginPage shows the login form, with the problem of a failed
// attempt. It always answers 200: the platform's non-2xx answers are JSON
// error bodies, and a browser shows this page whatever the status.
func (s *Server) renderLoginPage(c *gin.Context, email, problem string) {
	c.Header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	c.Header("X-Frame-Options", "DENY")
	c.Header("Cache-Control", "no-store")
	c.Status(http.StatusOK)
	c.Header("Content-Type", "text/html; charset=utf-8")
	_ = loginPage.Execute(c.Writer, struct{ Email, Problem string }{email, problem})
}

// GET /api/monitoring/login
func (s *Server) monitoringLoginPage(c *gin.Context) error {
	s.renderLoginPage(c, "", "")
	return nil
}

// POST /api/monitoring/login: a form (email, password) from the login page.
// On success the session cookie is set and the browser sent to the
// dashboard; otherwise the page comes back with the reason (a rate-limited
// client also gets Retry-After).
func (s *Server) monitoringLogin(c *gin.Context) error {
	email, password := c.PostForm("email"), c.PostForm("password")
	if email == "" || password == "" || utf8.RuneCountInString(email) > 254 || utf8.RuneCountInString(password) > 128 {
		s.renderLoginPage(c, "", "Give your email (at most 254 characters) and password (at most 128).")
		return nil
	}
	u, err := s.checkPassword(c, email, password)
	if err != nil {
		ae, ok := apperr.As(err)
		if !ok {
			return err
		}
		if ae.RetryAfter > 0 {
			c.Header("Retry-After", formatSeconds(ae.RetryAfter))
		}
		s.renderLoginPage(c, email, ae.Message)
		return nil
	}
	p, err := s.loadPrincipal(c, u.ID, nil)
	if err != nil {
		return err
	}
	if !p.Can("system:read") {
		s.renderLoginPage(c, email, `This account may not see the queue dashboard (it needs the scope "system:read").`)
		return nil
	}
	ttl := min(monitoringSessionTTL, s.Config.TokenTTL)
	token, err := s.tokens.IssueSession(u.ID, ttl)
	if err != nil {
		return err
	}
	if err := record(s.DB.WithContext(c.Request.Context()), p, "authenticate", "login", u.ID, ""); err != nil {
		return err
	}
	http.SetCookie(c.Writer, &http.Cookie{Name: monitoringCookie, Value: token, Path: monitoringRoot,
		MaxAge: int(ttl.Seconds()), HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: c.Request.TLS != nil || strings.HasPrefix(s.Config.BaseURL, "https://")})
	c.Redirect(http.StatusSeeOther, monitoringRoot+"/")
	return nil
}

func formatSeconds(d time.Duration) string { return strconv.Itoa(int(d.Seconds() + 0.999)) }
