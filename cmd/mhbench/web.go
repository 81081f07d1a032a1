package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// benchWeb: what the web UI's pages cost on a platform of n items (the
// scale suite's seeding: copies of 10k harvested small files, half of them
// behind a group the user is not in). Each page is timed from the request
// to the last byte of its HTML, on loopback, signed in as that user: the
// search page (file names as users type them, and the empty search, which
// counts every facet over everything the user sees) and item pages. Then
// the JavaScript and CSS each page loads, gzipped as a server would send
// them.
func benchWeb(ctx context.Context, n int) error {
	const files = 10_000
	e, err := newEnv(ctx)
	if err != nil {
		return err
	}
	defer e.close()
	fmt.Printf("web: %d items seeded; the web UI's pages through the api, signed in as a user who sees about half\n", n)
	root := filepath.Join(e.dir, "template")
	if err := writeSmallFiles(root, files); err != nil {
		return err
	}
	if _, err := e.harvestE2E(ctx, root, smallFileExtractors, files, false); err != nil {
		return err
	}
	start := time.Now()
	if err := e.seed(ctx, n); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	fmt.Printf("  seeded %d items in %s\n", n, time.Since(start).Round(time.Second))

	client, base, adminTok, stop, err := startAPI(ctx, e.cfg, e.db, e.engine, withPages)
	if err != nil {
		return err
	}
	defer stop()
	var role, user struct{ ID string }
	if err := apiCall(client, base, adminTok, "POST", "/api/data/roles", map[string]any{"name": "viewers",
		"scopes": []string{"search:read", "items:read", "segments:read", "captions:read"}}, &role); err != nil {
		return err
	}
	if err := apiCall(client, base, adminTok, "POST", "/api/data/users", map[string]any{"email": "viewer@example.com",
		"password": "bench-password-3", "role_id": role.ID}, &user); err != nil {
		return err
	}
	if err := apiCall(client, base, adminTok, "PUT", "/api/data/v3/users/"+user.ID+"/groups/seeded", nil, nil); err != nil {
		return err
	}
	page, err := signInPages(base, "viewer@example.com", "bench-password-3")
	if err != nil {
		return err
	}

	var names, itemIDs []string
	if err := e.db.Raw(`SELECT name FROM items WHERE location_id IN ('seed00','seed01','seed02','seed03','seed04') ORDER BY md5(id) LIMIT 20`).
		Scan(&names).Error; err != nil {
		return err
	}
	if err := e.db.Raw(`SELECT id FROM items WHERE location_id IN ('seed00','seed01','seed02','seed03','seed04') ORDER BY md5(id || 'page') LIMIT 20`).
		Scan(&itemIDs).Error; err != nil {
		return err
	}
	if len(names) == 0 || len(itemIDs) == 0 {
		return fmt.Errorf("no seeded items to show")
	}
	var searches, empties, items []string
	for i, name := range names {
		q := name
		if i%2 == 1 {
			q = trimExt(name[len("s0000_"):])
		}
		searches = append(searches, "/?q="+url.QueryEscape(q))
	}
	empties = append(empties, "/")
	for _, id := range itemIDs {
		items = append(items, "/items/"+url.PathEscape(id))
	}
	timeAll := func(paths []string, rounds int) ([]time.Duration, error) {
		var out []time.Duration
		for r := -1; r < rounds; r++ { // a warm-up round
			for _, p := range paths {
				t0 := time.Now()
				if _, err := page(p); err != nil {
					return nil, err
				}
				if r >= 0 {
					out = append(out, time.Since(t0))
				}
			}
		}
		return out, nil
	}
	report := func(label string, paths []string, rounds int) error {
		ts, err := timeAll(paths, rounds)
		if err != nil {
			return err
		}
		p50, p99 := percentiles(ts)
		fmt.Printf("    %-48s p50 %6.2f ms  p99 %6.2f ms  (target p50 <= 50 ms, p99 <= 200 ms)\n", label, ms(p50), ms(p99))
		return nil
	}
	fmt.Printf("  server time of a page (HTML, loopback, %d samples each):\n", 200)
	if err := report(fmt.Sprintf("search page, by file name (%d names)", len(searches)), searches, 10); err != nil {
		return err
	}
	// The baseline: the same searches through the JSON API (results only,
	// no facets), by the same user.
	userTok, err := login(client, base, "viewer@example.com", "bench-password-3")
	if err != nil {
		return err
	}
	var apiTimes []time.Duration
	for r := -1; r < 10; r++ {
		for i, name := range names {
			q := name
			if i%2 == 1 {
				q = trimExt(name[len("s0000_"):])
			}
			t0 := time.Now()
			if err := apiCall(client, base, userTok, "POST", "/api/data/search", map[string]any{"query": q, "limit": 20}, nil); err != nil {
				return err
			}
			if r >= 0 {
				apiTimes = append(apiTimes, time.Since(t0))
			}
		}
	}
	a50, a99 := percentiles(apiTimes)
	fmt.Printf("    %-48s p50 %6.2f ms  p99 %6.2f ms  (baseline)\n", "  the same searches through the JSON API", ms(a50), ms(a99))
	if err := report("search page, empty (every facet over everything)", empties, 200); err != nil {
		return err
	}
	if err := report(fmt.Sprintf("item page (%d items)", len(items)), items, 10); err != nil {
		return err
	}

	fmt.Printf("  JavaScript and CSS a page loads (gzipped; target <= 100 KB):\n")
	for _, p := range []string{"/signin", "/", searches[0], items[0]} {
		js, css, err := pageAssets(page, p)
		if err != nil {
			return err
		}
		fmt.Printf("    %-48s %6.1f KB  (JS %5.1f KB, CSS %5.1f KB)\n", p, float64(js+css)/1000, float64(js)/1000, float64(css)/1000)
	}
	fmt.Println()
	return nil
}

// signInPages signs in through the sign-in form and returns a function
// that fetches a page with the session (its body; an error unless 200).
func signInPages(base, email, password string) (func(path string) ([]byte, error), error) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	get := func(path string) ([]byte, error) {
		res, err := c.Get(base + path)
		if err != nil {
			return nil, err
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil {
			return nil, err
		}
		if res.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET %s: %d %.300s", path, res.StatusCode, body)
		}
		return body, nil
	}
	form, err := get("/signin")
	if err != nil {
		return nil, err
	}
	vals := url.Values{"email": {email}, "password": {password}}
	// Hidden fields of the form (a CSRF token) go back as they came.
	for _, m := range hiddenInput.FindAllSubmatch(form, -1) {
		vals.Set(string(m[1]), string(m[2]))
	}
	res, err := c.PostForm(base+"/signin", vals)
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	if _, err := get("/"); err != nil {
		return nil, fmt.Errorf("sign in: %w", err)
	}
	return get, nil
}

var (
	hiddenInput = regexp.MustCompile(`<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"`)
	scriptSrc   = regexp.MustCompile(`<script[^>]*\bsrc="([^"]+)"`)
	styleHref   = regexp.MustCompile(`<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"|<link[^>]*href="([^"]+)"[^>]*rel="stylesheet"`)
	jsImport    = regexp.MustCompile(`(?m)^\s*import\s+(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]`)
)

// pageAssets sums the gzipped sizes of the scripts (with the modules they
// import) and style sheets the page at path loads.
func pageAssets(get func(string) ([]byte, error), path string) (js, css int, err error) {
	html, err := get(path)
	if err != nil {
		return 0, 0, err
	}
	seen := map[string]bool{}
	var fetch func(ref string, isJS bool) error
	fetch = func(ref string, isJS bool) error {
		u, err := url.Parse(ref)
		if err != nil {
			return err
		}
		key := u.Path
		if seen[key] {
			return nil
		}
		seen[key] = true
		body, err := get(u.String())
		if err != nil {
			return err
		}
		n := gzipSize(body)
		if !isJS {
			css += n
			return nil
		}
		js += n
		for _, m := range jsImport.FindAllSubmatch(body, -1) {
			dep, err := u.Parse(string(m[1]))
			if err != nil {
				return err
			}
			if err := fetch(dep.String(), true); err != nil {
				return err
			}
		}
		return nil
	}
	page, _ := url.Parse(path)
	for _, m := range scriptSrc.FindAllSubmatch(html, -1) {
		ref, _ := page.Parse(htmlUnescape(string(m[1])))
		if err := fetch(ref.String(), true); err != nil {
			return 0, 0, err
		}
	}
	for _, m := range styleHref.FindAllSubmatch(html, -1) {
		h := string(m[1])
		if h == "" {
			h = string(m[2])
		}
		ref, _ := page.Parse(htmlUnescape(h))
		if err := fetch(ref.String(), false); err != nil {
			return 0, 0, err
		}
	}
	return js, css, nil
}

func htmlUnescape(s string) string { return strings.ReplaceAll(s, "&amp;", "&") }

func gzipSize(b []byte) int {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	w.Write(b)
	w.Close()
	return buf.Len()
}
