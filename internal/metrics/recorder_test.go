package metrics

import (
	"context"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"

	"github.com/metaharvest/metaharvest/internal/testredis"
)

func gather(t *testing.T, src Sources) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := NewRegistry(src).Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

// Counts of several processes add up in the totals; a histogram keeps its
// buckets (upper bounds inclusive), sum and count; a flush that cannot
// reach Redis keeps its counts for the next one.
func TestRecordersAddUpInTheTotals(t *testing.T) {
	t.Parallel()
	ns := testredis.Namespace(t)
	opt, _ := redis.ParseURL(testredis.URL())
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	ctx := context.Background()
	a := NewRecorder(RecorderConfig{Redis: rdb, Namespace: ns, Role: "worker"})
	b := NewRecorder(RecorderConfig{Redis: rdb, Namespace: ns, Role: "api"})
	a.Items(3, 1)
	b.Items(2, 0)
	a.Extractor("hashes", 5*time.Millisecond, false) // below the first bound (0.01)
	a.Extractor("hashes", 10*time.Millisecond, true) // exactly on it: bounds are inclusive
	a.Extractor("hashes", 20*time.Minute, false)     // above every bound: +Inf only
	b.HTTP("/api/data/items/:id", "GET", 404, 2*time.Millisecond)
	a.Add("no_such_metric", 1)      // ignored
	a.Add(ItemsHarvested, 1, "bad") // wrong labels: ignored

	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer down.Close()
	offline := NewRecorder(RecorderConfig{Redis: down, Namespace: ns})
	offline.Items(7, 0)
	if err := offline.Flush(ctx); err == nil {
		t.Fatal("flush to an unreachable Redis succeeded")
	}
	offline.rdb = rdb // Redis is back
	for _, r := range []*Recorder{a, b, offline} {
		if err := r.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Flush(ctx); err != nil { // nothing new: nothing added
		t.Fatal(err)
	}
	fams := gather(t, Sources{Redis: rdb, Namespace: ns})
	if v := fams[ItemsHarvested].Metric[0].Counter.GetValue(); v != 12 {
		t.Fatalf("items harvested %v, want 12", v)
	}
	if v := fams[ItemsFailed].Metric[0].Counter.GetValue(); v != 1 {
		t.Fatalf("items failed %v", v)
	}
	h := fams[ExtractorDuration].Metric[0].Histogram
	if h.GetSampleCount() != 3 || h.GetSampleSum() < 1200 {
		t.Fatalf("histogram count %d sum %v", h.GetSampleCount(), h.GetSampleSum())
	}
	cum := map[float64]uint64{}
	for _, bk := range h.Bucket {
		cum[bk.GetUpperBound()] = bk.GetCumulativeCount()
	}
	if cum[0.01] != 2 || cum[0.05] != 2 || cum[900] != 2 {
		t.Fatalf("buckets %v", cum)
	}
	if v := fams[ExtractorErrors].Metric[0].Counter.GetValue(); v != 1 {
		t.Fatalf("extractor errors %v", v)
	}
	m := fams[HTTPRequests].Metric[0]
	labels := map[string]string{}
	for _, l := range m.Label {
		labels[l.GetName()] = l.GetValue()
	}
	if labels["route"] != "/api/data/items/:id" || labels["status"] != "404" || m.Counter.GetValue() != 1 {
		t.Fatalf("http series %v", m)
	}
	// Another namespace's totals are apart.
	if other := gather(t, Sources{Redis: rdb, Namespace: ns + "x"}); other[ItemsHarvested] != nil {
		t.Fatal("another namespace sees these totals")
	}
}

// A nil recorder records nothing and never fails.
func TestNilRecorder(t *testing.T) {
	var r *Recorder
	r.Items(1, 1)
	r.HTTP("/x", "GET", 200, time.Second)
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Run(context.Background(), nil)
}
