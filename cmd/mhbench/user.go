package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/storage"
)

// The user suite (-only user): what users run. The built binary, started
// as `metaharvest all` and as `metaharvest api` + `metaharvest worker`
// (two processes) with the configuration's defaults, is given a folder
// location through its HTTP API and a harvest POSTed to it; the harvest is
// timed until a search through the API counts every file (searching every
// 100 ms from the POST, as a user's client waiting would). Beside it, in
// interleaved rounds on the same files: the in-process harvest (the worker
// inside mhbench, a diagnosis) and the bare baselines (find | xargs -P2
// sha256sum for small files; md5sum, sha1sum and sha256sum one after the
// other for large ones). Each platform has its own database.

// userPlatforms are the ways the binary is started.
var userPlatforms = []struct {
	label string
	roles []string
}{
	{"all", []string{"all"}},
	{"api+worker", []string{"api", "worker"}},
}

// userBench is the suite's platforms and in-process environment.
type userBench struct {
	platforms []*platform
	inproc    *env
}

func newUserBench(ctx context.Context, profileDir string, extraEnv []string) (*userBench, error) {
	dir, err := os.MkdirTemp("", "mhbench-bin-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir) // the running processes keep their binary open
	bin, err := metaharvestBinary(dir)
	if err != nil {
		return nil, err
	}
	b := &userBench{}
	for _, up := range userPlatforms {
		p, err := startPlatform(ctx, bin, up.label, platformOptions{roles: up.roles, profileDir: profileDir, env: extraEnv})
		if err != nil {
			b.close()
			return nil, err
		}
		b.platforms = append(b.platforms, p)
	}
	return b, nil
}

// running leaves only p running (the in-process worker when p is nil):
// the others are paused while it is measured.
func (b *userBench) running(p *platform) {
	for _, q := range b.platforms {
		if q != p {
			q.pause()
		}
	}
	if p != nil {
		b.inproc.pause()
		p.resume()
	} else {
		b.inproc.resume()
	}
}

func (b *userBench) close() {
	for _, p := range b.platforms {
		p.close()
	}
	if b.inproc != nil {
		b.inproc.close()
	}
}

// ratios collects a figure per round and prints its median.
type ratios map[string][]float64

func (r ratios) add(name string, v float64) { r[name] = append(r[name], v) }

func (r ratios) median(name string) float64 {
	s := append([]float64(nil), r[name]...)
	if len(s) == 0 {
		return 0
	}
	sort.Float64s(s)
	return s[len(s)/2]
}

// settingsLabel says which settings a suite's platforms run with: the
// -env ones over the defaults, or defaults when there are none.
func settingsLabel(env []string, defaults string) string {
	if len(env) == 0 {
		return defaults
	}
	return strings.Join(env, " ") + ", otherwise the defaults"
}

func benchUserPath(ctx context.Context, cfg benchConfig) error {
	settings := settingsLabel(cfg.env, fmt.Sprintf("the defaults on %d CPUs", runtime.NumCPU()))
	fmt.Printf("user path: the built binary as `metaharvest all` and as `api` + `worker`, %s, harvest POSTed through the API, searchable = a search through the API counts every file\n\n", settings)
	b, err := newUserBench(ctx, cfg.profileDir, cfg.env)
	if err != nil {
		return err
	}
	defer b.close()
	for _, kv := range cfg.env {
		// The in-process worker reads the same settings.
		if k, v, ok := strings.Cut(kv, "="); ok {
			os.Setenv(k, v)
		}
	}
	if b.inproc, err = newEnv(ctx); err != nil {
		return err
	}
	root, err := os.MkdirTemp("", "mhbench-user-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	if err := b.small(ctx, root, cfg.smallN, cfg.rounds); err != nil {
		return err
	}
	for _, l := range cfg.large {
		if err := b.large(ctx, root, l[0], l[1]); err != nil {
			return err
		}
	}
	return nil
}

func (b *userBench) small(ctx context.Context, root string, n, rounds int) error {
	dir := filepath.Join(root, "small")
	if err := writeSmallFiles(dir, n); err != nil {
		return err
	}
	fmt.Printf("user path, small files: %d x 4 KiB (store, mime_type, hashes), Postgres search; %d rounds\n", n, rounds)
	r := ratios{}
	lastLoc := ""
	for round := 1; round <= rounds; round++ {
		b.running(nil)
		b.inproc.pause() // the baseline runs alone
		base, err := timeCmd("sh", "-c", "find '"+dir+"' -type f -print0 | xargs -0 -P2 sha256sum > /dev/null")
		if err != nil {
			return err
		}
		bfs := float64(n) / base.Seconds()
		b.running(nil)
		cpu0, pg0 := readCPU(), dbCPU(b.inproc.db)
		in, err := b.inproc.harvestE2E(ctx, dir, smallFileExtractors, int64(n), false)
		if err != nil {
			return err
		}
		inCPU, inPG := readCPU().sub(cpu0), dbCPU(b.inproc.db)-pg0
		after, err := b.settleInProcess(ctx)
		if err != nil {
			return err
		}
		ifs := float64(n) / in.searchable.Seconds()
		r.add("in-process", ifs/bfs)
		fmt.Printf("  round %d: find | xargs -P2 sha256sum %6.0f files/s; in-process %5.0f files/s (%.3fx; CPU/file: process %3.0f µs, postgres %3.0f µs, redis %2.0f µs; %s)\n",
			round, bfs, ifs, ifs/bfs, inCPU.self/float64(n)*1e6, inPG/float64(n)*1e6, inCPU.redis/float64(n)*1e6, after)
		for _, p := range b.platforms {
			b.running(p)
			run, err := p.harvest(ctx, storage.KindFilesystem, map[string]string{"path": dir}, "media", smallFileExtractors, int64(n))
			if err != nil {
				return err
			}
			after, err := p.settle(ctx)
			if err != nil {
				return err
			}
			if p == b.platforms[0] {
				lastLoc = run.locID
			}
			fs := float64(n) / run.searchable.Seconds()
			r.add(p.label, fs/bfs)
			r.add(p.label+"/in-process", fs/ifs)
			fmt.Printf("           %-10s %5.0f files/s (%s, %.3fx; CPU/file: metaharvest %3.0f µs, postgres %3.0f µs, redis %2.0f µs; %d searches; %s)\n",
				p.label, fs, run.searchable.Round(time.Millisecond), fs/bfs, run.platform/float64(n)*1e6,
				run.postgres/float64(n)*1e6, run.cpu.redis/float64(n)*1e6, run.searches, after)
		}
	}
	// What the client's waiting cost: a count through search, on the
	// platform's index as it stands after the rounds.
	p := b.platforms[0]
	b.running(p)
	const asks = 20
	cpu0, pg0, start := p.cpu(), dbCPU(p.db), time.Now()
	for range asks {
		if _, err := p.searchCount(ctx, lastLoc); err != nil {
			return err
		}
	}
	fmt.Printf("  one count through the API's search of %d documents (of %d): %.1f ms, CPU metaharvest %.1f ms, postgres %.1f ms\n",
		n, rounds*n, ms(time.Since(start))/asks, (p.cpu()-cpu0)*1000/asks, (dbCPU(p.db)-pg0)*1000/asks)
	b.medians(r, "find | xargs -P2 sha256sum", "%.3fx", "0.12x")
	return nil
}

// medians prints the medians of a set's ratios: to the baseline (named,
// with its goal), of each platform and the in-process harvest, then of
// each platform to the in-process harvest.
func (b *userBench) medians(r ratios, baseline, format, goal string) {
	fmt.Printf("  median ratio to %s:", baseline)
	for _, name := range append(platformLabels(b), "in-process") {
		fmt.Printf("  %s "+format, name, r.median(name))
	}
	fmt.Printf("   (goal >= %s)\n  median ratio of the user path to the in-process harvest:", goal)
	for _, name := range platformLabels(b) {
		fmt.Printf("  %s %.2fx", name, r.median(name+"/in-process"))
	}
	fmt.Printf("   (goal >= 0.8x)\n\n")
}

func platformLabels(b *userBench) []string {
	var out []string
	for _, p := range b.platforms {
		out = append(out, p.label)
	}
	return out
}

// writeLarge writes files random files of mib MiB below root/media and
// returns their paths.
func writeLarge(root string, files, mib int) ([]string, error) {
	dir := filepath.Join(root, "media")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	buf := make([]byte, 1<<20)
	for i := 0; i < files; i++ {
		p := filepath.Join(dir, fmt.Sprintf("large%03d.bin", i))
		f, err := os.Create(p)
		if err != nil {
			return nil, err
		}
		for j := 0; j < mib; j++ {
			rand.Read(buf)
			if _, err := f.Write(buf); err != nil {
				f.Close()
				return nil, err
			}
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// largeSet writes files random files of mib MiB below dir/media, warm in
// the page cache (so that every side reads from memory), and returns their
// paths and their size in MB.
func largeSet(dir string, files, mib int) ([]string, float64, error) {
	paths, err := writeLarge(dir, files, mib)
	if err != nil {
		return nil, 0, err
	}
	if _, err := timeCmd("cat", paths...); err != nil {
		return nil, 0, err
	}
	return paths, float64(files*mib) * 1.048576, nil
}

// coreutils is the large files' baseline: md5sum, sha1sum and sha256sum
// one after the other over the files.
func coreutils(paths []string) (time.Duration, error) {
	var base time.Duration
	for _, tool := range []string{"md5sum", "sha1sum", "sha256sum"} {
		d, err := timeCmd(tool, paths...)
		if err != nil {
			return 0, err
		}
		base += d
	}
	return base, nil
}

func (b *userBench) large(ctx context.Context, root string, files, mib int) error {
	dir := filepath.Join(root, fmt.Sprintf("large%dx%d", files, mib))
	paths, mb, err := largeSet(dir, files, mib)
	if err != nil {
		return err
	}
	fmt.Printf("user path, large files: %d x %d MiB (store, hashes: md5 + sha1 + sha256)\n", files, mib)
	r := ratios{}
	for round := 1; round <= 3; round++ {
		b.running(nil)
		b.inproc.pause() // the baseline runs alone
		base, err := coreutils(paths)
		if err != nil {
			return err
		}
		b.running(nil)
		in, err := b.inproc.harvestE2E(ctx, dir, []string{"hashes"}, int64(files), false)
		if err != nil {
			return err
		}
		if _, err := b.settleInProcess(ctx); err != nil {
			return err
		}
		r.add("in-process", base.Seconds()/in.searchable.Seconds())
		var line strings.Builder
		for _, p := range b.platforms {
			b.running(p)
			run, err := p.harvest(ctx, storage.KindFilesystem, map[string]string{"path": dir}, "media", []string{"hashes"}, int64(files))
			if err != nil {
				return err
			}
			if _, err := p.settle(ctx); err != nil {
				return err
			}
			r.add(p.label, base.Seconds()/run.searchable.Seconds())
			r.add(p.label+"/in-process", in.searchable.Seconds()/run.searchable.Seconds())
			fmt.Fprintf(&line, "; %s %.0f MB/s (%.2fx, CPU %.1f s)", p.label, mb/run.searchable.Seconds(), base.Seconds()/run.searchable.Seconds(), run.platform)
		}
		fmt.Printf("  round %d: md5sum; sha1sum; sha256sum %4.0f MB/s; in-process %4.0f MB/s (%.2fx)%s\n", round, mb/base.Seconds(),
			mb/in.searchable.Seconds(), base.Seconds()/in.searchable.Seconds(), line.String())
	}
	b.medians(r, "coreutils md5sum; sha1sum; sha256sum", "%.2fx", "3x")
	return nil
}

// A platform is paused while another is measured, and it used to be
// paused the moment a search counted its last file: the work it does once
// a harvest has stopped writing (the Postgres engine merges the pending
// entries of its GIN indexes 300 ms after the last write, about half a
// second of Postgres CPU for 20,000 small files) then ran when it was
// resumed, in its next round, and each round but the first paid for the
// one before. A user's platform does that work between harvests: before
// the pause the suite lets it finish, then runs the VACUUM and ANALYZE
// autovacuum would start (this machine's may be off), as the scale suite
// does (env.settle), and prints what all of it cost.

const (
	// settleQuiet is how long a platform must stay idle: longer than the
	// engine waits after a last write before merging, plus the indexers'
	// interval.
	settleQuiet = time.Second
	// settleIdle is the share of a core below which it is idle: an idle
	// `metaharvest all` (its queues' polling, the indexers' looks) and
	// the bench's reading of its backends cost about 5 %, a merge or a
	// VACUUM a whole core.
	settleIdle = 0.2
	settleMax  = 20 * time.Second
)

// settled is the work done after a round, untimed.
type settled float64

func (s settled) String() string {
	return fmt.Sprintf("then %.2f s CPU in the background", float64(s))
}

// settle waits until the platform's processes and Postgres backends have
// been idle for settleQuiet (at most settleMax), runs the autovacuum work
// due, and returns the CPU they used meanwhile.
func (p *platform) settle(ctx context.Context) (settled, error) {
	const tick = 100 * time.Millisecond
	cpu := func() float64 { return p.cpu() + dbCPU(p.db) }
	start := time.Now()
	first := cpu()
	last, quietSince := first, start
	for time.Since(start) < settleMax && time.Since(quietSince) < settleQuiet {
		time.Sleep(tick)
		c := cpu()
		if c-last > settleIdle*tick.Seconds() {
			quietSince = time.Now()
		}
		last = c
	}
	if err := autovacuumNow(ctx, p.db); err != nil {
		return 0, err
	}
	return settled(cpu() - first), nil
}

// settleInProcess does the same for the in-process worker (env.settle).
func (b *userBench) settleInProcess(ctx context.Context) (settled, error) {
	c, err := b.inproc.settle(ctx)
	return settled(c.self + c.postgres + c.redis), err
}
