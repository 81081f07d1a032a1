package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// platform is the built metaharvest binary running as a user runs it: one
// `metaharvest all` process, or an `api` and a `worker` process, on a
// scratch database and Redis namespace, with the configuration's defaults
// (WORKER_CONCURRENCY and the rest are not set, so that the defaults are
// what is measured), its logs at the default level into a file. Everything
// the suites do to it goes through its HTTP API, as a user's client would.
type platform struct {
	label  string
	procs  []*platformProc
	api    string // base URL
	token  string
	client *http.Client
	db     *gorm.DB // read only to explain a failure
	dir    string
	ns     string
	close  func()
}

type platformProc struct {
	role   string
	cmd    *exec.Cmd
	exited chan struct{}
}

const (
	platformAdmin = "bench@example.com"
	// userPoll is how often a user's client counts through search while a
	// harvest runs (a page refreshing, a script waiting).
	userPoll = 100 * time.Millisecond
	// finePoll is how often it counts once the count's pace says the last
	// files are due: as often as the in-process harvest's wait looks, so
	// that the two figures are read to the same precision (every
	// userPoll, a harvest of a second read up to a tenth longer).
	finePoll = 20 * time.Millisecond
)

// platformOptions are what a suite sets beyond the defaults.
type platformOptions struct {
	roles []string // "all", or "api" and "worker"
	env   []string // extra variables (MEILI_URL=...)
	// profileDir: each process writes a CPU profile of its life there
	// (CPU_PROFILE), for -profile.
	profileDir string
}

// startPlatform starts bin with opts.roles and waits until its api signs
// the administrator in.
func startPlatform(ctx context.Context, bin, label string, opts platformOptions) (_ *platform, err error) {
	p := &platform{label: label, client: &http.Client{Timeout: 5 * time.Minute}}
	var closers []func()
	p.close = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	if p.dir, err = os.MkdirTemp("", "mhbench-platform-"); err != nil {
		return nil, err
	}
	closers = append(closers, func() { os.RemoveAll(p.dir) })
	cfg, err := config.Load(os.LookupEnv)
	if err != nil {
		return nil, err
	}
	dbURL, drop, err := scratchDB(ctx)
	if err != nil {
		return nil, err
	}
	closers = append(closers, drop)
	if p.db, err = models.Open(dbURL); err != nil {
		return nil, err
	}
	closers = append(closers, func() {
		if s, err := p.db.DB(); err == nil {
			s.Close()
		}
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	password := ids.New()
	p.ns = "benchu" + ids.New()[:8]
	closers = append(closers, func() { dropNamespace(cfg.RedisURL, p.ns) })
	logs, err := os.Create(filepath.Join(p.dir, "log.json"))
	if err != nil {
		return nil, err
	}
	closers = append(closers, func() { logs.Close() })
	env := []string{"DATABASE_URL=" + dbURL, "REDIS_URL=" + cfg.RedisURL, "REDIS_NAMESPACE=" + p.ns,
		"DATA_DIR=" + filepath.Join(p.dir, "data"), "HTTP_ADDR=" + addr, "ADMIN_EMAIL=" + platformAdmin,
		"ADMIN_PASSWORD=" + password, "HARVEST_REFRESH_TIME=86400", "MEILI_URL="}
	for _, kv := range os.Environ() {
		// The bench's own environment may tune the platform (GOGC, ...),
		// but never what a suite sets.
		k, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "WORKER_") && k != "LOG_LEVEL" && !strings.HasPrefix(k, "MEILI_") {
			env = append([]string{kv}, env...)
		}
	}
	env = append(env, opts.env...)
	for _, role := range opts.roles {
		cmd := exec.Command(bin, role)
		cmd.Env = env
		if opts.profileDir != "" {
			cmd.Env = append(cmd.Env, "CPU_PROFILE="+filepath.Join(opts.profileDir, strings.ReplaceAll(label, " ", "_")+"-"+role+".pprof"))
		}
		cmd.Stdout, cmd.Stderr = logs, logs
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		pr := &platformProc{role: role, cmd: cmd, exited: make(chan struct{})}
		go func() { cmd.Wait(); close(pr.exited) }()
		p.procs = append(p.procs, pr)
		closers = append(closers, func() { pr.stop() })
	}
	p.api = "http://" + addr
	deadline := time.Now().Add(time.Minute)
	for {
		var out struct {
			Token string `json:"token"`
		}
		status, err := p.call(ctx, "POST", "/api/login", map[string]string{"email": platformAdmin, "password": password}, &out)
		if err == nil && status == http.StatusOK && out.Token != "" {
			p.token = out.Token
			return p, nil
		}
		for _, pr := range p.procs {
			select {
			case <-pr.exited:
				return nil, fmt.Errorf("metaharvest %s exited before answering (log: %s)", pr.role, tail(filepath.Join(p.dir, "log.json")))
			default:
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("metaharvest %s did not answer on %s: %d %v", label, addr, status, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// pause stops the platform's processes (SIGSTOP) while another is
// measured: an idle worker polls Redis, and only what a user runs should
// use the machine; resume continues them.
func (p *platform) pause() {
	for _, pr := range p.procs {
		if pr.cmd.Process != nil {
			pr.cmd.Process.Signal(syscall.SIGSTOP)
		}
	}
}

func (p *platform) resume() {
	for _, pr := range p.procs {
		if pr.cmd.Process != nil {
			pr.cmd.Process.Signal(syscall.SIGCONT)
		}
	}
}

// stop interrupts the process and waits for it (it writes its profile).
func (pr *platformProc) stop() {
	if pr.cmd.Process == nil {
		return
	}
	pr.cmd.Process.Signal(syscall.SIGCONT) // a paused one, too
	pr.cmd.Process.Signal(os.Interrupt)
	select {
	case <-pr.exited:
	case <-time.After(30 * time.Second):
		pr.cmd.Process.Kill()
		<-pr.exited
	}
}

// exitedErr is err, with the log's end when one of the platform's
// processes has exited (a refused connection says no more).
func (p *platform) exitedErr(err error) error {
	for _, pr := range p.procs {
		select {
		case <-pr.exited:
			return fmt.Errorf("%w: metaharvest %s exited: %v (log: %s)", err, pr.role, pr.cmd.ProcessState, tail(filepath.Join(p.dir, "log.json")))
		default:
		}
	}
	return err
}

// tail is the end of a log file, for an error message.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return strings.TrimSpace(string(b))
}

// cpu is the CPU seconds (user + system) the platform's processes used so
// far, with the programs they ran and waited for.
func (p *platform) cpu() float64 {
	var s float64
	for _, pr := range p.procs {
		if pr.cmd.Process != nil {
			s += procCPU(pr.cmd.Process.Pid)
		}
	}
	return s
}

// dbCPU is the CPU seconds used so far by the Postgres backends connected
// to db's database: the share of a Postgres server other work also uses
// (other databases) that this platform costs. Backends that ended are not
// counted (the pools keep theirs open).
func dbCPU(db *gorm.DB) float64 {
	var pids []int
	if err := db.Raw(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`).Scan(&pids).Error; err != nil {
		return 0
	}
	var s float64
	for _, pid := range pids {
		s += procCPU(pid)
	}
	return s
}

// procCPU reads /proc/<pid>/stat: utime, stime, cutime, cstime.
func procCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0
	}
	fields := strings.Fields(s[end+1:])
	if len(fields) < 15 {
		return 0
	}
	var sum float64
	for _, f := range fields[11:15] {
		v, _ := strconv.ParseFloat(f, 64)
		sum += v
	}
	return sum / clockTicks
}

func (p *platform) call(ctx context.Context, method, path string, body, out any) (int, error) {
	var r io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.api+path, r)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if p.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, p.exitedErr(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return resp.StatusCode, nil
}

// addLocation creates a location through the API and returns it with the
// id of its container named container.
func (p *platform) addLocation(ctx context.Context, kind string, cfg map[string]string, container string) (locID, ctrID string, err error) {
	var loc struct {
		ID string `json:"id"`
	}
	if _, err := p.call(ctx, "POST", "/api/data/v3/locations", map[string]any{"kind": kind, "name": "bench " + ids.New()[:8],
		"config": cfg}, &loc); err != nil {
		return "", "", err
	}
	var page struct {
		Containers []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"containers"`
	}
	if _, err := p.call(ctx, "GET", "/api/data/locations/"+loc.ID+"/containers?prefix="+container, nil, &page); err != nil {
		return "", "", err
	}
	for _, c := range page.Containers {
		if c.Name == container {
			return loc.ID, c.ID, nil
		}
	}
	return "", "", fmt.Errorf("location %s has no container %q", loc.ID, container)
}

// userRun is one harvest through the API.
type userRun struct {
	locID, requestID string
	// searchable: from the POST until a search through the API counted
	// every file.
	searchable time.Duration
	// cpu: CPU seconds of the platform's processes, of the Postgres
	// backends of its database, and of Redis and Meilisearch during the
	// run.
	cpu      cpuTimes
	platform float64
	postgres float64
	// searches: how many searches the client made while waiting.
	searches int
}

// harvest creates a location (kind, cfg) through the API, POSTs a harvest
// of its container with extractorNames, and counts through search until
// want files are found (nextPoll).
func (p *platform) harvest(ctx context.Context, kind string, cfg map[string]string, container string, extractorNames []string, want int64) (userRun, error) {
	locID, ctrID, err := p.addLocation(ctx, kind, cfg, container)
	if err != nil {
		return userRun{}, err
	}
	cpu0, self0, pg0 := readCPU(), p.cpu(), dbCPU(p.db)
	start := time.Now()
	var started struct {
		RequestID string `json:"request_id"`
	}
	if _, err := p.call(ctx, "POST", "/api/control/harvest", map[string]any{"location_id": locID, "container_id": ctrID,
		"extractors": extractorNames, "override_extractors": true, "force": true, "ignore_recently_walked": true}, &started); err != nil {
		return userRun{}, err
	}
	run := userRun{locID: locID, requestID: started.RequestID}
	deadline := start.Add(30 * time.Minute)
	for {
		asked := time.Now()
		n, err := p.searchCount(ctx, locID)
		if err != nil {
			return run, err
		}
		run.searches++
		if n >= want {
			run.searchable = asked.Sub(start)
			break
		}
		if run.searches%20 == 0 {
			if err := p.jobFailed(ctx, started.RequestID); err != nil {
				return run, err
			}
		}
		if time.Now().After(deadline) {
			return run, fmt.Errorf("%s: harvest not searchable after 30 minutes (%d of %d)", p.label, n, want)
		}
		time.Sleep(time.Until(nextPoll(start, asked, n, want)))
	}
	run.cpu, run.platform, run.postgres = readCPU().sub(cpu0), p.cpu()-self0, dbCPU(p.db)-pg0
	if timelineTo != nil {
		var acts []models.Activity
		if err := p.db.Where("request_id = ?", started.RequestID).Order("ts").Find(&acts).Error; err != nil {
			return run, err
		}
		writeTimeline(timelineTo, start, run, acts)
	}
	return run, p.jobFailed(ctx, started.RequestID)
}

// timelineTo, when set (-timeline), receives where each harvest through
// the API spent its time (writeTimeline).
var timelineTo io.Writer

// writeTimeline writes a harvest's report rows as times since its POST:
// when its walk pages were listed, when each extractor's runs ended (the
// first and the last), when its files' batches were recorded, and when
// the client's count found them all. The gap between the last two is the
// client's wait for its next count.
func writeTimeline(w io.Writer, start time.Time, run userRun, acts []models.Activity) {
	type span struct {
		what        string
		first, last time.Duration
	}
	var spans []*span
	byWhat := map[string]*span{}
	for _, a := range acts {
		var what string
		switch a.Kind {
		case models.ActivityWalk:
			what = "walk"
		case models.ActivityExtractor:
			what = a.Name
		case models.ActivityHarvestEnd:
			what = "recorded"
		default:
			continue
		}
		at := a.TS.Sub(start)
		s := byWhat[what]
		if s == nil {
			s = &span{what: what, first: at, last: at}
			byWhat[what] = s
			spans = append(spans, s)
		}
		s.first, s.last = min(s.first, at), max(s.last, at)
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("+%dms", d.Milliseconds()) }
	fmt.Fprint(w, "    from the POST:")
	for _, s := range spans {
		if s.first == s.last {
			fmt.Fprintf(w, " %s %s;", s.what, ms(s.first))
		} else {
			fmt.Fprintf(w, " %s %s..%s;", s.what, ms(s.first), ms(s.last))
		}
	}
	fmt.Fprintf(w, " searchable %s (%d counts)\n", ms(run.searchable), run.searches)
}

// nextPoll is when a client waiting for want files counts again, having
// counted n at asked of a harvest started at start: userPoll later, or
// sooner when the count's pace so far (n over the time since the start)
// says the rest are searchable sooner, but not before finePoll.
func nextPoll(start, asked time.Time, n, want int64) time.Time {
	wait := userPoll
	if n > 0 && n < want {
		pace := float64(n) / asked.Sub(start).Seconds()
		due := time.Duration(float64(want-n) / pace * float64(time.Second))
		wait = min(wait, max(due, finePoll))
	}
	return asked.Add(wait)
}

// jobFailed reads the job through the API and reports failed files.
func (p *platform) jobFailed(ctx context.Context, requestID string) error {
	var job struct {
		State  string `json:"state"`
		Counts struct {
			Failed int64 `json:"failed"`
		} `json:"counts"`
	}
	if _, err := p.call(ctx, "GET", "/api/control/harvest/"+requestID, nil, &job); err != nil {
		return err
	}
	if job.Counts.Failed == 0 && job.State != "failed" {
		return nil
	}
	var failed models.Activity
	p.db.Where("request_id = ? AND error <> ''", requestID).Limit(1).Find(&failed)
	return fmt.Errorf("%s: harvest %s: %d files failed (%s: %s)", p.label, job.State, job.Counts.Failed, failed.Name, failed.Error)
}

// searchCount counts the documents of a location through the API's search
// (an administrator's, filtered on the location, counted exactly by a
// terms aggregation).
func (p *platform) searchCount(ctx context.Context, locID string) (int64, error) {
	var res search.Response
	if _, err := p.call(ctx, "POST", "/api/data/search", search.Request{
		Limit:        1,
		Filters:      &search.Filters{Terms: []search.Term{{Field: search.FieldLocationID, Value: search.FlexString(locID)}}},
		Aggregations: &search.Aggregations{Terms: []search.TermsAgg{{Name: "n", Field: search.FieldLocationID, Size: 1}}},
	}, &res); err != nil {
		return 0, err
	}
	if res.Aggregations == nil {
		return 0, errors.New("search answered without aggregations")
	}
	for _, b := range res.Aggregations.Terms["n"].Buckets {
		if b.Key == locID {
			return b.Count, nil
		}
	}
	return 0, nil
}

// watch harvests as harvest does and, every 5 ms, reads the job's counters
// from the platform's database (they move in each batch's transaction:
// the batch commits) and counts the location's documents with engine
// (straight, not through the API, whose requests would load the
// platform): how long after its commit each batch became searchable.
func (p *platform) watch(ctx context.Context, kind string, cfg map[string]string, container string, extractorNames []string,
	want int64, engine search.Engine) ([]time.Duration, error) {
	locID, ctrID, err := p.addLocation(ctx, kind, cfg, container)
	if err != nil {
		return nil, err
	}
	var started struct {
		RequestID string `json:"request_id"`
	}
	if _, err := p.call(ctx, "POST", "/api/control/harvest", map[string]any{"location_id": locID, "container_id": ctrID,
		"extractors": extractorNames, "override_extractors": true, "force": true, "ignore_recently_walked": true}, &started); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Minute)
	var commits, searches []seen
	for {
		var job models.Job
		if err := p.db.Where("request_id = ?", started.RequestID).Take(&job).Error; err != nil {
			return nil, err
		}
		done := job.IndexedCount + job.ErrorCount
		if len(commits) == 0 || commits[len(commits)-1].n != done {
			commits = append(commits, seen{time.Now(), done})
		}
		asked := time.Now()
		n, err := engineCount(ctx, engine, locID)
		if err != nil {
			return nil, err
		}
		searches = append(searches, seen{asked, n})
		if n >= want {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: harvest not searchable after 30 minutes (%d of %d)", p.label, n, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return freshness(commits, searches), p.jobFailed(ctx, started.RequestID)
}
