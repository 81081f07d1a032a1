package metrics

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"
)

// Sources are what /metrics reads when scraped.
type Sources struct {
	Redis     redis.Cmdable
	Namespace string // REDIS_NAMESPACE
	// Inspector reads the queues; Queues are their full names (with the
	// namespace) and Short names them for labels (without it).
	Inspector *asynq.Inspector
	Queues    []string
	Short     func(queue string) string
	DB        *sql.DB // the search outbox
	Logger    *slog.Logger
}

// scrapeTimeout bounds each source read by a scrape: a Redis or Postgres
// that does not answer costs the scraper a few seconds, not its timeout.
const scrapeTimeout = 5 * time.Second

// poolStale is the age past which a process's published pool statistics
// are taken for those of a process that is gone.
const poolStale = 30 * time.Second

// NewRegistry builds the registry /metrics serves: the deployment's totals,
// the queues, the search outbox, the connection pools, and the Go runtime
// and process statistics of the serving process.
func NewRegistry(src Sources) *prometheus.Registry {
	if src.Logger == nil {
		src.Logger = slog.New(slog.DiscardHandler)
	}
	if src.Short == nil {
		src.Short = func(q string) string { return q }
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(&scrape{src: src})
	return reg
}

// Handler serves reg in the Prometheus text format. A source that fails is
// logged and left out; the others are served.
func Handler(reg *prometheus.Registry, logger *slog.Logger) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError,
		ErrorLog: promLogger{logger}, Timeout: 2 * scrapeTimeout})
}

type promLogger struct{ l *slog.Logger }

func (p promLogger) Println(v ...any) {
	if p.l != nil {
		p.l.Warn("metrics scrape", slog.Any("error", v))
	}
}

// scrape is an unchecked collector: the series it yields depend on what the
// totals hold, so it describes none up front.
type scrape struct{ src Sources }

func (s *scrape) Describe(chan<- *prometheus.Desc) {}

func (s *scrape) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	s.totals(ctx, ch)
	s.pools(ctx, ch)
	s.queues(ch)
	s.outbox(ctx, ch)
}

// gaugeDesc names a series read when scraped.
type gaugeDesc struct {
	name, help string
	labels     []string
	counter    bool
}

func gaugeDescs() []gaugeDesc {
	return []gaugeDesc{
		{QueueTasks, "Tasks in a queue by state (pending, active, scheduled, retry, archived).", []string{"queue", "state"}, false},
		{QueueLatency, "Age of the oldest pending task of a queue (0 when none waits).", []string{"queue"}, false},
		{QueueProcessed, "Tasks a queue has processed since Redis was created (success or failure).", []string{"queue"}, true},
		{QueueFailed, "Tasks of a queue whose handler failed, since Redis was created.", []string{"queue"}, true},
		{Workers, "Worker processes (asynq servers) serving this deployment's queues.", nil, false},
		{OutboxDepth, "Items whose search document is stale: saved, not yet in the search engine.", nil, false},
		{OutboxOldest, "Age of the oldest item waiting in the search outbox (0 when empty).", nil, false},
		{DBConnections, "Postgres connections of a process's pool by state (in_use, idle).", []string{"instance", "role", "state"}, false},
		{DBConnectionsMax, "Largest Postgres pool a process allows (0: no limit).", []string{"instance", "role"}, false},
		{DBWaits, "Times a process waited for a free Postgres connection.", []string{"instance", "role"}, true},
		{DBWaitSeconds, "Time a process spent waiting for a free Postgres connection.", []string{"instance", "role"}, true},
	}
}

func desc(name string) (*prometheus.Desc, prometheus.ValueType) {
	for _, g := range gaugeDescs() {
		if g.name == name {
			vt := prometheus.GaugeValue
			if g.counter {
				vt = prometheus.CounterValue
			}
			return prometheus.NewDesc(name, g.help, g.labels, nil), vt
		}
	}
	panic("metrics: no description of " + name)
}

func (s *scrape) emit(ch chan<- prometheus.Metric, name string, v float64, labels ...string) {
	d, vt := desc(name)
	ch <- prometheus.MustNewConstMetric(d, vt, v, labels...)
}

// histo accumulates one histogram series of the totals.
type histo struct {
	labels []string
	counts []float64 // per bucket, +Inf last
	sum    float64
}

// totals turns the deployment's totals into series.
func (s *scrape) totals(ctx context.Context, ch chan<- prometheus.Metric) {
	all, err := s.src.Redis.HGetAll(ctx, TotalsKey(s.src.Namespace)).Result()
	if err != nil {
		ch <- prometheus.NewInvalidMetric(prometheus.NewDesc("metaharvest_totals", "", nil, nil), err)
		return
	}
	histos := map[string]*histo{} // name + label part -> histogram
	for field, raw := range all {
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			continue
		}
		parts := strings.Split(field, sep)
		if len(parts) < 2 {
			continue
		}
		name := parts[1]
		sp, ok := specs[name]
		if !ok {
			continue // written by another version
		}
		switch {
		case parts[0] == "c" && sp.kind == counter && len(parts) == 2+len(sp.labels):
			ch <- prometheus.MustNewConstMetric(prometheus.NewDesc(name, sp.help, sp.labels, nil),
				prometheus.CounterValue, v, parts[2:]...)
		case parts[0] == "b" && sp.kind == histogram && len(parts) == 3+len(sp.labels):
			b, err := strconv.Atoi(parts[2])
			if err != nil || b < 0 || b > len(sp.buckets) {
				continue
			}
			h := histoOf(histos, name, sp, parts[3:])
			h.counts[b] += v
		case parts[0] == "s" && sp.kind == histogram && len(parts) == 2+len(sp.labels):
			histoOf(histos, name, sp, parts[2:]).sum += v
		}
	}
	for key, h := range histos {
		name, _, _ := strings.Cut(key, sep)
		sp := specs[name]
		cum := map[float64]uint64{}
		var n float64
		for i, bound := range sp.buckets {
			n += h.counts[i]
			cum[bound] = uint64(n)
		}
		n += h.counts[len(sp.buckets)]
		ch <- prometheus.MustNewConstHistogram(prometheus.NewDesc(name, sp.help, sp.labels, nil),
			uint64(n), h.sum, cum, h.labels...)
	}
}

func histoOf(all map[string]*histo, name string, sp spec, labels []string) *histo {
	key := name + labelPart(labels)
	h := all[key]
	if h == nil {
		h = &histo{labels: labels, counts: make([]float64, len(sp.buckets)+1)}
		all[key] = h
	}
	return h
}

// pools yields the connection pools the live processes published, and
// forgets those of processes gone quiet.
func (s *scrape) pools(ctx context.Context, ch chan<- prometheus.Metric) {
	key := poolsKey(TotalsKey(s.src.Namespace))
	all, err := s.src.Redis.HGetAll(ctx, key).Result()
	if err != nil {
		return // the totals already reported Redis failing
	}
	now := time.Now()
	for instance, raw := range all {
		var p poolStats
		if json.Unmarshal([]byte(raw), &p) != nil || now.Sub(time.Unix(p.At, 0)) > poolStale {
			s.src.Redis.HDel(ctx, key, instance)
			continue
		}
		s.emit(ch, DBConnections, float64(p.InUse), instance, p.Role, "in_use")
		s.emit(ch, DBConnections, float64(p.Idle), instance, p.Role, "idle")
		s.emit(ch, DBConnectionsMax, float64(p.Max), instance, p.Role)
		s.emit(ch, DBWaits, float64(p.Waits), instance, p.Role)
		s.emit(ch, DBWaitSeconds, p.WaitSeconds, instance, p.Role)
	}
}

// queues yields depth, latency and throughput of every queue of the
// deployment (zeros for a queue asynq has not seen yet).
func (s *scrape) queues(ch chan<- prometheus.Metric) {
	insp := s.src.Inspector
	if insp == nil {
		return
	}
	known, err := insp.Queues()
	if err != nil {
		ch <- prometheus.NewInvalidMetric(prometheus.NewDesc(QueueTasks, "", nil, nil), err)
		return
	}
	exists := map[string]bool{}
	for _, q := range known {
		exists[q] = true
	}
	ours := map[string]bool{}
	for _, q := range s.src.Queues {
		ours[q] = true
		var info asynq.QueueInfo
		if exists[q] {
			got, err := insp.GetQueueInfo(q)
			if err != nil {
				ch <- prometheus.NewInvalidMetric(prometheus.NewDesc(QueueTasks, "", nil, nil), err)
				continue
			}
			info = *got
		}
		short := s.src.Short(q)
		for state, n := range map[string]int{"pending": info.Pending, "active": info.Active,
			"scheduled": info.Scheduled, "retry": info.Retry, "archived": info.Archived} {
			s.emit(ch, QueueTasks, float64(n), short, state)
		}
		s.emit(ch, QueueLatency, math.Max(info.Latency.Seconds(), 0), short)
		s.emit(ch, QueueProcessed, float64(info.ProcessedTotal), short)
		s.emit(ch, QueueFailed, float64(info.FailedTotal), short)
	}
	servers, err := insp.Servers()
	if err != nil {
		return
	}
	n := 0
	for _, srv := range servers {
		for q := range srv.Queues {
			if ours[q] {
				n++
				break
			}
		}
	}
	s.emit(ch, Workers, float64(n))
}

// outbox yields the search outbox's depth and age.
func (s *scrape) outbox(ctx context.Context, ch chan<- prometheus.Metric) {
	if s.src.DB == nil {
		return
	}
	var n int64
	var oldest float64
	err := s.src.DB.QueryRowContext(ctx, `SELECT count(*),
		coalesce(extract(epoch FROM clock_timestamp() - min(enqueued_at)), 0)::float8 FROM search_outbox`).Scan(&n, &oldest)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(prometheus.NewDesc(OutboxDepth, "", nil, nil), err)
		return
	}
	s.emit(ch, OutboxDepth, float64(n))
	s.emit(ch, OutboxOldest, math.Max(oldest, 0))
}
