package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Sign-in: a signed-out browser is sent to the form with the page it
// wanted; a wrong password is a message; the right one sets the session
// cookie and returns to the page; next never leads off the site; a
// rate-limited account gets a message and Retry-After; sign-out clears the
// cookie and the pages are closed again.
func TestSignInAndOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for target, next := range map[string]string{"/": "/", "/items/abc?t=3": "/items/abc?t=3", "/moments?q=x": "/moments?q=x"} {
		rec := e.browse("GET", target, nil, nil)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/signin?next="+url.QueryEscape(next) {
			t.Errorf("signed out %s: %d %q", target, rec.Code, rec.Header().Get("Location"))
		}
	}
	form := e.page("/signin?next=%2Fitems%2Fabc", nil, http.StatusOK)
	if !strings.Contains(form, `name="next" value="/items/abc"`) || !strings.Contains(form, `<label for="password">`) {
		t.Fatalf("sign-in form: %s", form)
	}
	if css := e.browse("GET", e.ui.assets.url("css/app.css"), nil, nil); css.Code != 200 ||
		!strings.Contains(css.Header().Get("Cache-Control"), "immutable") || css.Header().Get("Content-Type") != "text/css; charset=utf-8" {
		t.Fatalf("stylesheet: %d %v", css.Code, css.Header())
	}

	bad := e.browse("POST", "/signin", nil, url.Values{"email": {adminEmail}, "password": {"wrong-password"}, "next": {"/"}})
	if bad.Code != http.StatusUnauthorized || !strings.Contains(bad.Body.String(), "Wrong email or password") || len(bad.Result().Cookies()) != 0 {
		t.Fatalf("wrong password: %d %s", bad.Code, bad.Body)
	}
	if r := e.browse("POST", "/signin", nil, url.Values{"email": {adminEmail}, "password": {strings.Repeat("p", 129)}}); r.Code != 400 ||
		!strings.Contains(r.Body.String(), "at most 128") {
		t.Fatalf("long password: %d %s", r.Code, r.Body)
	}

	ok := e.browse("POST", "/signin", nil, url.Values{"email": {adminEmail}, "password": {adminPassword}, "next": {"/items/abc?t=3"}})
	if ok.Code != http.StatusSeeOther || ok.Header().Get("Location") != "/items/abc?t=3" {
		t.Fatalf("sign in: %d %v", ok.Code, ok.Header())
	}
	set := ok.Header().Get("Set-Cookie")
	for _, attr := range []string{"mh_session=", "Path=/", "Max-Age=3600", "HttpOnly", "SameSite=Strict"} {
		if !strings.Contains(set, attr) {
			t.Errorf("Set-Cookie %q lacks %s", set, attr)
		}
	}
	if strings.Contains(set, "Secure") {
		t.Errorf("Secure over plain HTTP: %q", set)
	}
	cookie := ok.Result().Cookies()[0]
	e.page("/", cookie, http.StatusOK)
	// Signed in, the form sends the browser on.
	if r := e.browse("GET", "/signin?next=%2Fmoments", cookie, nil); r.Code != http.StatusSeeOther || r.Header().Get("Location") != "/moments" {
		t.Fatalf("signin while signed in: %d %v", r.Code, r.Header())
	}

	// next is a local path or nothing.
	for _, next := range []string{"//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:alert(1)", "evil", "/%0d%0aSet-Cookie:x", "\\\\evil"} {
		r := e.browse("POST", "/signin", nil, url.Values{"email": {adminEmail}, "password": {adminPassword}, "next": {next}})
		loc := r.Header().Get("Location")
		if r.Code != http.StatusSeeOther || (loc != "/" && loc != next) || strings.Contains(loc, "evil") || strings.HasPrefix(loc, "//") {
			t.Errorf("next %q: %d %q", next, r.Code, loc)
		}
	}
	// A form posted from another site is refused.
	req := httptestForm("/signin", url.Values{"email": {adminEmail}, "password": {adminPassword}})
	req.Header.Set("Origin", "https://evil.example")
	if r := e.serve(req); r.Code != http.StatusForbidden || len(r.Result().Cookies()) != 0 {
		t.Fatalf("cross-site sign-in: %d", r.Code)
	}

	// Another site cannot sign the user out either (the one state-changing
	// page action besides signing in).
	forgedOut := httptestForm("/signout", url.Values{})
	forgedOut.Header.Set("Sec-Fetch-Site", "cross-site")
	forgedOut.AddCookie(cookie)
	if r := e.serve(forgedOut); r.Code != http.StatusForbidden || strings.Contains(r.Header().Get("Set-Cookie"), "mh_session") {
		t.Fatalf("cross-site sign-out: %d %v", r.Code, r.Header())
	}

	// Sign-out clears the cookie.
	out := e.browse("POST", "/signout", cookie, url.Values{})
	if out.Code != http.StatusSeeOther || out.Header().Get("Location") != "/signin" || !strings.Contains(out.Header().Get("Set-Cookie"), "mh_session=;") ||
		!strings.Contains(out.Header().Get("Set-Cookie"), "Max-Age=0") {
		t.Fatalf("sign out: %d %v", out.Code, out.Header())
	}

	// A forged cookie and a disabled user's cookie open nothing.
	forged := *cookie
	forged.Value = cookie.Value[:len(cookie.Value)-2] + "xx"
	if r := e.browse("GET", "/", &forged, nil); r.Code != http.StatusSeeOther {
		t.Fatalf("forged cookie: %d", r.Code)
	}
	uid := e.user("reader@example.com", "search:read")
	reader := e.signIn("reader@example.com", userPassword)
	e.page("/", reader, http.StatusOK)
	e.must(e.db.Exec("UPDATE users SET enabled = false WHERE id = ?", uid).Error)
	if r := e.browse("GET", "/", reader, nil); r.Code != http.StatusSeeOther {
		t.Fatalf("disabled user: %d", r.Code)
	}

	// Failures are rate limited like POST /api/login's, and said so.
	var last *http.Response
	for i := 0; i <= e.cfg.LoginMaxFailures; i++ {
		last = e.browse("POST", "/signin", nil, url.Values{"email": {"victim@example.com"}, "password": {"nope"}}).Result()
	}
	limited := e.browse("POST", "/signin", nil, url.Values{"email": {"victim@example.com"}, "password": {"nope"}})
	if limited.Code != http.StatusTooManyRequests || limited.Header().Get("Retry-After") == "" || !strings.Contains(limited.Body.String(), "Too many failed sign-ins") {
		t.Fatalf("rate limit: %d %v %s (before: %d)", limited.Code, limited.Header(), limited.Body, last.StatusCode)
	}
}

func httptestForm(target string, form url.Values) *http.Request {
	req, _ := http.NewRequest("POST", target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.RemoteAddr = "192.0.2.1:1234"
	return req
}

func TestLocalPath(t *testing.T) {
	for in, want := range map[string]string{
		"/": "/", "/items/x?t=1": "/items/x?t=1", "": "/", "//evil": "/", "/\\evil": "/", "https://evil/": "/",
		"evil": "/", "/a\nb": "/", "///evil": "/", "/%2F%2Fevil": "/%2F%2Fevil",
	} {
		if got := localPath(in); got != want {
			t.Errorf("localPath(%q) = %q, want %q", in, got, want)
		}
	}
}
