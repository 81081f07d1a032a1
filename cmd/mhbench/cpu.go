package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// cpuTimes are CPU seconds (user + system) used so far by this process
// (api and worker run in it) and by the local Postgres and Redis servers,
// and Meilisearch (when one runs), read from /proc: where a harvest's time
// goes.
type cpuTimes struct{ self, postgres, redis, meili float64 }

func (a cpuTimes) sub(b cpuTimes) cpuTimes {
	return cpuTimes{a.self - b.self, a.postgres - b.postgres, a.redis - b.redis, a.meili - b.meili}
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times (100 on Linux).
const clockTicks = 100

func readCPU() cpuTimes {
	t := cpuTimes{self: selfCPU()}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ... utime(14) stime(15) cutime(16)
		// cstime(17): fields after ")".
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		comm, fields := s[open+1:end], strings.Fields(s[end+1:])
		if len(fields) < 15 {
			continue
		}
		ut, _ := strconv.ParseFloat(fields[11], 64)
		st, _ := strconv.ParseFloat(fields[12], 64)
		sec := (ut + st) / clockTicks
		switch {
		case comm == "postgres":
			// With the children it reaped (the postmaster's backends
			// that ended), so a connection closed during a run keeps
			// its CPU in the sum.
			cut, _ := strconv.ParseFloat(fields[13], 64)
			cst, _ := strconv.ParseFloat(fields[14], 64)
			t.postgres += sec + (cut+cst)/clockTicks
		case strings.HasPrefix(comm, "redis-server"):
			t.redis += sec
		case comm == "meilisearch":
			t.meili += sec
		}
	}
	return t
}

// selfCPU is the CPU seconds this process used so far.
func selfCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
