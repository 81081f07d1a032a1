package api

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/metrics"
)

// scrape reads /metrics with token and parses the text format.
func (e *env) scrape(token string) map[string]*dto.MetricFamily {
	e.t.Helper()
	if err := e.srv.Metrics.Flush(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	r := e.do("GET", "/metrics", token, nil).status(200)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(r.Body))
	if err != nil {
		e.t.Fatalf("parse /metrics: %v\n%s", err, r.Body)
	}
	return fams
}

// value is the value of the series of fam whose labels include want (the
// count of a histogram); found is false when there is none.
func value(fams map[string]*dto.MetricFamily, fam string, want map[string]string) (v float64, found bool) {
	f := fams[fam]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for k, w := range want {
			if have[k] != w {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// /metrics answers administrators and the scraper's token, 401 without a
// credential (the token is not taken by any other route), 403 without
// system:read; requests are counted by route template and status.
func TestMetricsAccessAndHTTPSeries(t *testing.T) {
	t.Parallel()
	const scraperToken = "scraper-token-0123456789"
	e := newEnv(t, func(c *config.Config) { c.MetricsToken = scraperToken })
	e.do("GET", "/metrics", "", nil).status(401)
	e.do("GET", "/metrics", "wrong-token-0123456789", nil).status(401)
	_, reader := e.userWithScopes("reader@example.com", "search:read")
	e.do("GET", "/metrics", reader, nil).status(403)
	e.do("GET", "/api/control/system/stats", scraperToken, nil).status(401)
	_, operator := e.userWithScopes("operator@example.com", "system:read")
	e.do("GET", "/metrics", operator, nil).status(200)

	before := e.scrape(scraperToken)
	was, _ := value(before, "metaharvest_http_requests_total", map[string]string{"route": "/api/data/roles", "status": "200"})
	e.do("GET", "/api/data/roles", e.adminToken, nil).status(200)
	e.do("GET", "/api/data/roles", e.adminToken, nil).status(200)
	e.do("GET", "/api/data/roles/no-such-role", e.adminToken, nil).status(404)
	e.do("GET", "/no/such/"+strings.Repeat("x", 50), e.adminToken, nil).status(404)
	after := e.scrape(e.adminToken)
	if v, _ := value(after, "metaharvest_http_requests_total", map[string]string{"route": "/api/data/roles", "method": "GET", "status": "200"}); v != was+2 {
		t.Fatalf("GET /api/data/roles 200: %v, want %v", v, was+2)
	}
	if v, _ := value(after, "metaharvest_http_requests_total", map[string]string{"route": "/api/data/roles/:id", "status": "404"}); v != 1 {
		t.Fatalf("GET /api/data/roles/:id 404: %v", v)
	}
	if v, _ := value(after, "metaharvest_http_requests_total", map[string]string{"route": "unmatched", "status": "404"}); v != 1 {
		t.Fatalf("unmatched 404: %v", v)
	}
	for _, m := range after["metaharvest_http_requests_total"].Metric {
		for _, l := range m.Label {
			if strings.Contains(l.GetValue(), "no-such") || strings.Contains(l.GetValue(), "xxxx") {
				t.Fatalf("a raw path became a label: %v", m)
			}
		}
	}
	if n, _ := value(after, "metaharvest_http_request_duration_seconds", map[string]string{"route": "/api/data/roles"}); n < 2 {
		t.Fatalf("duration histogram count %v", n)
	}
	// The queues of the deployment are there, named without the namespace,
	// and move when a harvest is asked for; so is the search outbox and
	// this process's connection pool.
	for _, q := range []string{"walk", "index", "stage01", "stage10"} {
		if _, ok := value(after, "metaharvest_queue_tasks", map[string]string{"queue": q, "state": "pending"}); !ok {
			t.Errorf("no pending series of queue %s", q)
		}
	}
	w := newActWorld(e)
	locID, ctrID := w.location("loc1", nil, nil)
	e.do("POST", "/api/control/harvest", e.adminToken, map[string]any{"location_id": locID, "container_id": ctrID,
		"ignore_recently_walked": true}).status(202)
	moved := e.scrape(scraperToken)
	if v, _ := value(moved, "metaharvest_queue_tasks", map[string]string{"queue": "walk", "state": "pending"}); v != 1 {
		t.Fatalf("walk queue pending: %v", v)
	}
	if _, ok := value(moved, "metaharvest_search_outbox_depth", nil); !ok {
		t.Error("no outbox depth")
	}
	if _, ok := value(moved, "metaharvest_db_connections", map[string]string{"role": "api", "state": "in_use"}); !ok {
		t.Error("no connection pool series of this api")
	}
	for name := range moved {
		if strings.HasPrefix(name, "metaharvest_") {
			if _, ok := metrics.Documented()[name]; !ok {
				t.Errorf("series %s is not documented in internal/metrics", name)
			}
		}
	}
}

// The scraper token is refused when METRICS_TOKEN is unset, whatever it is.
func TestMetricsWithoutScraperToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.do("GET", "/metrics", "", nil).status(401)
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Header.Set("Authorization", "Bearer ")
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("empty bearer: %d", rec.Code)
	}
}
