package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"github.com/redis/go-redis/v9"

	"github.com/metaharvest/metaharvest/internal/testproc"
	"github.com/metaharvest/metaharvest/models"
)

// The fault tests restart Redis and Postgres under a running harvest. They
// never touch the shared servers on 6379 and 5432: each starts a private
// server of its own on a free port, in a temporary directory.

// privateRedis is a redis-server with AOF persistence (appendfsync always:
// every acknowledged write is on disk before the answer).
type privateRedis struct {
	t    *testing.T
	dir  string
	port string
	cmd  *exec.Cmd
	done chan struct{}
}

func startPrivateRedis(t *testing.T) *privateRedis {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed (deploy/setup.sh installs it)")
	}
	_, port, _ := net.SplitHostPort(testproc.FreeAddr(t))
	r := &privateRedis{t: t, dir: t.TempDir(), port: port}
	r.start()
	t.Cleanup(r.kill)
	return r
}

func (r *privateRedis) URL() string { return "redis://127.0.0.1:" + r.port + "/0" }

func (r *privateRedis) start() {
	r.t.Helper()
	r.cmd = exec.Command("redis-server", "--port", r.port, "--bind", "127.0.0.1", "--dir", r.dir,
		"--appendonly", "yes", "--appendfsync", "always", "--save", "", "--maxmemory-policy", "noeviction",
		"--logfile", filepath.Join(r.dir, "redis.log"))
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("start redis-server: %v", err)
	}
	r.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { cmd.Wait(); close(done) }(r.cmd, r.done)
	opt, _ := redis.ParseURL(r.URL())
	c := redis.NewClient(opt)
	defer c.Close()
	deadline := time.Now().Add(20 * time.Second)
	for c.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(r.dir, "redis.log"))
			r.t.Fatalf("private redis does not answer:\n%s", log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill ends the server as a crash would (SIGKILL): no shutdown save.
func (r *privateRedis) kill() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGKILL)
	<-r.done
}

// restart kills the server and starts it again on the same port and
// directory; it reloads its data from the append-only file.
func (r *privateRedis) restart(down time.Duration) {
	r.kill()
	time.Sleep(down)
	r.start()
}

// privatePostgres is a Postgres cluster made by initdb in a temporary
// directory, run by the postgres user when the tests run as root (initdb
// refuses root), listening on 127.0.0.1 at a free port.
type privatePostgres struct {
	t    *testing.T
	bin  string
	dir  string
	port string
	cred *syscall.Credential
	cmd  *exec.Cmd
	done chan struct{}
}

// postgresBin finds the newest installed server binaries.
func postgresBin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi < vj
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i]
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p)
	}
	return ""
}

func startPrivatePostgres(t *testing.T) *privatePostgres {
	t.Helper()
	bin := postgresBin()
	if bin == "" {
		t.Skip("Postgres server binaries (initdb) are not installed (deploy/setup.sh installs postgresql)")
	}
	dir, err := os.MkdirTemp("", "mh-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	_, port, _ := net.SplitHostPort(testproc.FreeAddr(t))
	pg := &privatePostgres{t: t, bin: bin, dir: dir, port: port}
	if os.Getuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root without a postgres user to run a private cluster")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		pg.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	initdb := pg.command("initdb", "-D", pg.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions")
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	pg.start()
	t.Cleanup(pg.stop)
	db, err := sql.Open("pgx", pg.adminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE DATABASE metaharvest`); err != nil {
		t.Fatal(err)
	}
	mdb, err := sql.Open("pgx", pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer mdb.Close()
	if err := models.Migrate(context.Background(), mdb); err != nil {
		t.Fatal(err)
	}
	return pg
}

func (pg *privatePostgres) data() string { return filepath.Join(pg.dir, "data") }

func (pg *privatePostgres) adminURL() string {
	return "postgres://postgres@127.0.0.1:" + pg.port + "/postgres?sslmode=disable"
}

// URL is the platform's database on the private cluster.
func (pg *privatePostgres) URL() string {
	return "postgres://postgres@127.0.0.1:" + pg.port + "/metaharvest?sslmode=disable"
}

func (pg *privatePostgres) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(pg.bin, name), args...)
	cmd.Dir = pg.dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "LC_ALL=C.UTF-8"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: pg.cred, Pdeathsig: syscall.SIGKILL}
	return cmd
}

// start runs the postmaster in the foreground of a child process. fsync
// is off: the tests crash the server process, not the machine, and the
// kernel keeps what was written.
func (pg *privatePostgres) start() {
	pg.t.Helper()
	pg.cmd = pg.command("postgres", "-D", pg.data(), "-p", pg.port, "-k", pg.dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=200",
		"-c", "shared_buffers=32MB", "-c", "log_min_messages=fatal")
	logf, err := os.Create(filepath.Join(pg.dir, fmt.Sprintf("postgres-%d.log", time.Now().UnixNano())))
	if err != nil {
		pg.t.Fatal(err)
	}
	pg.cmd.Stdout, pg.cmd.Stderr = logf, logf
	if err := pg.cmd.Start(); err != nil {
		pg.t.Fatalf("start postgres: %v", err)
	}
	pg.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { cmd.Wait(); logf.Close(); close(done) }(pg.cmd, pg.done)
	db, _ := sql.Open("pgx", pg.adminURL())
	defer db.Close()
	deadline := time.Now().Add(60 * time.Second)
	for db.Ping() != nil {
		select {
		case <-pg.done:
			pg.t.Fatalf("postgres exited at start:\n%s", pg.logs())
		default:
		}
		if time.Now().After(deadline) {
			pg.t.Fatalf("private postgres does not answer:\n%s", pg.logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (pg *privatePostgres) logs() string {
	files, _ := filepath.Glob(filepath.Join(pg.dir, "postgres-*.log"))
	var b strings.Builder
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		b.Write(raw)
	}
	return b.String()
}

// crash stops the server as a crash would: SIGQUIT is Postgres's immediate
// shutdown (every backend quits at once, no checkpoint; the next start
// replays the write-ahead log).
func (pg *privatePostgres) crash() {
	if pg.cmd == nil || pg.cmd.Process == nil {
		return
	}
	_ = pg.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-pg.done:
	case <-time.After(30 * time.Second):
		_ = pg.cmd.Process.Signal(syscall.SIGKILL)
		<-pg.done
	}
}

func (pg *privatePostgres) restart(down time.Duration) {
	pg.crash()
	time.Sleep(down)
	pg.start()
}

func (pg *privatePostgres) stop() {
	if pg.cmd == nil || pg.cmd.Process == nil {
		return
	}
	_ = pg.cmd.Process.Signal(syscall.SIGINT) // fast shutdown
	select {
	case <-pg.done:
	case <-time.After(30 * time.Second):
		_ = pg.cmd.Process.Signal(syscall.SIGKILL)
		<-pg.done
	}
}
