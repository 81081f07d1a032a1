package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/testproc"
	"github.com/metaharvest/metaharvest/search"
)

// TestWorkerKilledMidDrain: a deployment of an api and one worker, no
// scheduler. The harvest makes every file searchable in its own
// transactions; then the whole index must be rebuilt from the outbox (as
// after an upgrade whose migration marks every item dirty), and the
// worker is killed with SIGKILL while it drains. A new worker takes the
// rows the dead one held at once (its transaction died with it: no lease
// to wait for), and every item is searchable exactly once.
func TestWorkerKilledMidDrain(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	root := t.TempDir()
	const n = 6000
	randomFiles(t, n, 256, func(name string, data []byte) {
		path := filepath.Join(root, "media", name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	c := startAPI(t, p, "ADMIN_EMAIL=admin@example.com", "ADMIN_PASSWORD=drain-password-1")
	w := testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2", "HARVEST_BATCH_FILES=500"))
	c.token = c.call("POST", "/api/login", map[string]string{"email": "admin@example.com", "password": "drain-password-1"}, 200)["token"].(string)
	locID := c.call("POST", "/api/data/v3/locations", map[string]any{"kind": "filesystem", "name": "Archive",
		"config": map[string]any{"path": root}}, 201)["id"].(string)
	ctrID := c.call("GET", "/api/data/locations/"+locID+"/containers", nil, 200)["containers"].([]any)[0].(map[string]any)["id"].(string)
	c.call("POST", "/api/control/harvest", map[string]any{"location_id": locID, "container_id": ctrID}, 202)

	searchCount := func() int {
		r := c.call("POST", "/api/data/search", map[string]any{"limit": 1,
			"filters":      map[string]any{"terms": []map[string]any{{"field": "location_id", "value": locID}}},
			"aggregations": map[string]any{"terms": []map[string]any{{"name": "n", "field": "location_id"}}}}, 200)
		buckets := r["aggregations"].(map[string]any)["terms"].(map[string]any)["n"].(map[string]any)["buckets"].([]any)
		if len(buckets) == 0 {
			return 0
		}
		return int(buckets[0].(map[string]any)["count"].(float64))
	}
	deadline := time.Now().Add(3 * time.Minute)
	for searchCount() < n {
		if time.Now().After(deadline) || w.Exited() {
			t.Fatalf("harvest not searchable: %d of %d (worker exited: %v)\n%s", searchCount(), n, w.Exited(), w.Output())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d := p.outboxDepth(); d != 0 {
		t.Fatalf("the harvest went through the outbox: %d rows", d)
	}

	// The index is lost and every item marked, as an upgrade that rebuilds
	// it does; the worker's indexer is woken by the notification.
	err := p.db.Exec(`TRUNCATE search_documents, search_numbers, search_segments`).Error
	if err == nil {
		err = search.MarkDirtyWhere(p.db, "true")
	}
	if err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(time.Minute)
	for {
		if d := p.outboxDepth(); d > 0 && d < n {
			break // a batch is indexed: the worker is draining
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker does not drain: outbox %d", p.outboxDepth())
		}
		time.Sleep(2 * time.Millisecond)
	}
	w.Kill()
	killed := time.Now()
	left := p.outboxDepth()
	if left == 0 {
		t.Fatal("the drain finished before the kill: make it bigger")
	}
	t.Logf("SIGKILL with %d of %d items still to index", left, n)
	// The dead drainer held its rows in its transaction, which died with
	// it: none of them carries a lease a new worker would have to wait
	// for (read from the rows, not timed beside parallel tests).
	var leased int64
	p.db.Raw(`SELECT count(*) FROM search_outbox WHERE claimed_until IS NOT NULL`).Scan(&leased)
	if leased != 0 {
		t.Fatalf("%d outbox rows are leased to the dead worker", leased)
	}

	w2 := testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
	deadline = time.Now().Add(3 * time.Minute) // a poll deadline, not a measure
	for p.outboxDepth() != 0 || p.searchHas(ctrID) != n {
		if time.Now().After(deadline) || w2.Exited() {
			t.Fatalf("not converged: outbox %d, search has %d of %d\n%s", p.outboxDepth(), p.searchHas(ctrID), n, w2.Output())
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("search converged %s after the kill", time.Since(killed).Round(10*time.Millisecond))
	if got := searchCount(); got != n {
		t.Fatalf("a search counts %d documents, want %d", got, n)
	}
	var docs, distinct, items int64
	p.db.Raw(`SELECT count(*), count(DISTINCT id) FROM search_documents`).Row().Scan(&docs, &distinct)
	p.db.Raw(`SELECT count(*) FROM items WHERE deleted_at IS NULL`).Scan(&items)
	if docs != n || distinct != n || items != n {
		t.Fatalf("%d documents (%d distinct) for %d items, want %d", docs, distinct, items, n)
	}
}
