package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/apperr"
)

// The session is a cookie (access.SessionCookie) holding a signed session
// token with its expiry. It is:
//   - HttpOnly: no script reads it;
//   - SameSite=Strict: no other site's page makes the browser send it;
//   - Secure when the deployment is served over HTTPS;
//   - checked against the user on every request (enabled, role scopes), so
//     that disabling a user ends their sessions at once.
//
// The api accepts the same cookie on its GET and HEAD routes (the player's
// media, artifact images), and on its state-changing routes with the
// session's CSRF token in access.CSRFHeader from this origin: the pages'
// scripts act through the JSON API (web/assets/js/api.js), so that an
// action from a page has the API's validation, scopes and audit events.

type signInPage struct {
	base
	Email   string
	Next    string
	Problem string
}

// GET /signin
func (u *UI) signInPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	next := localPath(r.URL.Query().Get("next"))
	if p != nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return nil
	}
	u.render(w, r, http.StatusOK, "signin", &signInPage{base: u.base(r, nil, "Sign in"), Next: next})
	return nil
}

// POST /signin: a form (email, password, next). On success the cookie is set
// and the browser sent to next (a local path only).
func (u *UI) signIn(w http.ResponseWriter, r *http.Request, _ *access.Principal) error {
	if !access.SameOrigin(r) {
		return &pageError{http.StatusForbidden, "Not allowed", "This form may only be sent from this site."}
	}
	email, password := r.PostFormValue("email"), r.PostFormValue("password")
	next := localPath(r.PostFormValue("next"))
	page := &signInPage{base: u.base(r, nil, "Sign in"), Email: email, Next: next}
	if email == "" || password == "" || utf8.RuneCountInString(email) > 254 || utf8.RuneCountInString(password) > 128 {
		if utf8.RuneCountInString(email) > 254 {
			page.Email = ""
		}
		page.Problem = "Give your email (at most 254 characters) and your password (at most 128)."
		u.render(w, r, http.StatusBadRequest, "signin", page)
		return nil
	}
	user, err := u.SignIn(r, email, password)
	if err != nil {
		ae, ok := apperr.As(err)
		if !ok {
			return err
		}
		if ae.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(ae.RetryAfter.Seconds()+0.999)))
			page.Problem = "Too many failed sign-ins. Try again in " + humanWait(ae.RetryAfter) + "."
		} else {
			page.Problem = "Wrong email or password."
		}
		u.render(w, r, ae.Status, "signin", page)
		return nil
	}
	token, err := u.Sessions.IssueSession(user.ID, u.SessionTTL)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: access.SessionCookie, Value: token, Path: "/",
		MaxAge: int(u.SessionTTL.Seconds()), HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: u.SecureCookies})
	http.Redirect(w, r, next, http.StatusSeeOther)
	return nil
}

// POST /signout clears the cookie. (The token itself stays valid until it
// expires: a copy taken before would still work; the cookie is HttpOnly
// and Secure over HTTPS, so that copy is hard to take.)
func (u *UI) signOut(w http.ResponseWriter, r *http.Request, _ *access.Principal) error {
	if !access.SameOrigin(r) {
		return &pageError{http.StatusForbidden, "Not allowed", "This form may only be sent from this site."}
	}
	http.SetCookie(w, &http.Cookie{Name: access.SessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: u.SecureCookies})
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
	return nil
}

// localPath returns next when it is a path on this site ("/items/x?t=3"),
// else "/": never another host ("//evil", "/\evil", "https://evil"), so that
// a link to the sign-in page cannot send a person elsewhere after it.
func localPath(next string) string {
	if next == "" || len(next) > 2048 || next[0] != '/' || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n\t") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || !strings.HasPrefix(u.Path, "/") {
		return "/"
	}
	return next
}

func humanWait(d time.Duration) string {
	switch s := int(d.Seconds() + 0.999); {
	case s < 60:
		return strconv.Itoa(s) + " seconds"
	case s < 120:
		return "a minute"
	default:
		return strconv.Itoa((s+59)/60) + " minutes"
	}
}
