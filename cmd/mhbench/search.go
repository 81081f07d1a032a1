package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"time"

	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	_ "github.com/metaharvest/metaharvest/search/postgres"
	"github.com/metaharvest/metaharvest/search/searchtest"
)

// benchSearch indexes a generated corpus of 100k item documents, then runs
// the same query mix through the HTTP API (real server on loopback, login
// token, JSON both ways) and straight against the engine, interleaved so
// both see the same machine. The difference is what the API adds.
func benchSearch(ctx context.Context) error {
	const docs = 100_000
	dbURL, drop, err := scratchDB(ctx)
	if err != nil {
		return err
	}
	defer drop()
	db, err := models.Open(dbURL)
	if err != nil {
		return err
	}
	defer func() { s, _ := db.DB(); s.Close() }()
	eng, err := search.Open(search.Config{DB: db})
	if err != nil {
		return err
	}
	corpus := searchtest.NewCorpus(docs, 7, time.Now())
	start := time.Now()
	for i := 0; i < len(corpus.Docs); i += 1000 {
		if err := eng.Upsert(ctx, corpus.Docs[i:min(i+1000, len(corpus.Docs))]); err != nil {
			return err
		}
	}
	build := time.Since(start)
	sqlDB, _ := db.DB()
	for _, t := range []string{"search_documents", "search_sources", "search_fulltext", "search_flat", "search_numbers"} {
		sqlDB.ExecContext(ctx, `VACUUM ANALYZE `+t)
	}

	// An api with an admin and a user who sees group A's documents.
	cfg, err := config.Load(os.LookupEnv)
	if err != nil {
		return err
	}
	cfg.RedisNamespace = "bench" + ids.New()[:8]
	client, base, adminTok, stop, err := startAPI(ctx, cfg, db, eng, apiOnly)
	if err != nil {
		return err
	}
	defer stop()
	if err := db.Create(&models.Group{ID: searchtest.GroupA, Name: "group A"}).Error; err != nil {
		return err
	}
	if err := apiCall(client, base, adminTok, "POST", "/api/data/roles", map[string]any{"name": "searchers", "scopes": []string{"search:read"}}, nil); err != nil {
		return err
	}
	var role struct{ Roles []struct{ ID, Name string } }
	apiCall(client, base, adminTok, "GET", "/api/data/roles", nil, &role)
	roleID := ""
	for _, r := range role.Roles {
		if r.Name == "searchers" {
			roleID = r.ID
		}
	}
	var user struct{ ID string }
	if err := apiCall(client, base, adminTok, "POST", "/api/data/users", map[string]any{"email": "user@example.com", "password": "bench-password-2", "role_id": roleID}, &user); err != nil {
		return err
	}
	apiCall(client, base, adminTok, "PUT", "/api/data/v3/users/"+user.ID+"/groups/"+searchtest.GroupA, nil, nil)
	userTok, err := login(client, base, "user@example.com", "bench-password-2")
	if err != nil {
		return err
	}

	userVis := search.Visibility{GroupIDs: []string{searchtest.GroupA}}
	adminVis := search.Visibility{All: true}
	terms := func(ts ...search.Term) *search.Filters { return &search.Filters{Terms: ts} }
	mix := []struct {
		req   search.Request
		admin bool
	}{
		{search.Request{Query: "river"}, false},
		{search.Request{Query: searchtest.MarkerCaption}, false},
		{search.Request{Query: "forest harbor"}, false},
		{search.Request{}, false},
		{search.Request{Types: []string{"video"}, SortFields: []search.SortField{{Field: "last_modified"}}}, false},
		{search.Request{Filters: &search.Filters{Ranges: []search.Range{{Field: "last_modified", From: "now-7d"}}}, SortFields: []search.SortField{{Field: "size"}}}, false},
		{search.Request{Query: "forest", Types: []string{"image"}, Filters: terms(search.Term{Field: "location_name", Value: "archive"})}, false},
		{search.Request{Filters: terms(search.Term{Field: "mediainfo.video.codec", Value: "hevc"})}, false},
		{search.Request{Query: "sunset", Limit: 50}, true},
		{search.Request{Query: "market", HitCounts: map[string]int{}}, false},
		{search.Request{Aggregations: &search.Aggregations{Terms: []search.TermsAgg{{Name: "type", Field: "type"}, {Name: "ext", Field: "extension"}}}}, false},
		{search.Request{Query: "river", Aggregations: &search.Aggregations{Terms: []search.TermsAgg{{Name: "loc", Field: "location_name"}},
			Metrics: []search.MetricAgg{{Name: "size", Field: "size", Type: "sum"}}}}, false},
	}
	for i := range mix {
		if mix[i].req.Limit == 0 {
			mix[i].req.Limit = 20 // a body must name its limit (1..1000); Go's zero asks the engine for its default
		}
	}
	var viaAPI, direct []time.Duration
	const rounds = 25
	for r := -2; r < rounds; r++ { // two warm-up rounds
		for _, q := range mix {
			tok, vis := userTok, userVis
			if q.admin {
				tok, vis = adminTok, adminVis
			}
			t0 := time.Now()
			if _, err := eng.Search(ctx, q.req, vis); err != nil {
				return err
			}
			d1 := time.Since(t0)
			t0 = time.Now()
			if err := apiCall(client, base, tok, "POST", "/api/data/search", q.req, nil); err != nil {
				return err
			}
			d2 := time.Since(t0)
			if r >= 0 {
				direct, viaAPI = append(direct, d1), append(viaAPI, d2)
			}
		}
	}
	dp50, dp99 := percentiles(direct)
	ap50, ap99 := percentiles(viaAPI)
	fmt.Printf("search: %d item documents (Postgres backend), index built in %s (%.0f docs/s)\n", docs, build.Round(time.Millisecond), float64(docs)/build.Seconds())
	fmt.Printf("  query mix of %d queries x %d rounds (words, phrases, filters, sorts, aggregations, hit counts; a non-admin user)\n", len(mix), rounds)
	fmt.Printf("  bare engine (engine.Search)      p50 %7.2f ms   p99 %7.2f ms\n", ms(dp50), ms(dp99))
	fmt.Printf("  through the API (HTTP, auth)     p50 %7.2f ms   p99 %7.2f ms\n", ms(ap50), ms(ap99))
	fmt.Printf("  API overhead                     p50 %+7.2f ms (target <= +5 ms)   p99 %.2fx (target <= 1.5x)\n\n", ms(ap50-dp50), float64(ap99)/float64(dp99))
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2], s[min(len(s)-1, len(s)*99/100)]
}

func login(c *http.Client, base, email, password string) (string, error) {
	var out struct{ Token string }
	if err := apiCall(c, base, "", "POST", "/api/login", map[string]string{"email": email, "password": password}, &out); err != nil {
		return "", err
	}
	return out.Token, nil
}

func apiCall(c *http.Client, base, token, method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, base+path, r)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}
