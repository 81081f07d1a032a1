# metaharvest. `make run` starts the platform, `make test` runs the tests;
# both prepare the machine first (deploy/setup.sh). `make services` starts
# only what a test run alone needs, `make lint` checks the code's form.
SHELL := /bin/bash
GO ?= go
BIN := bin/metaharvest
export PATH := $(PATH):$(shell $(GO) env GOPATH)/bin
# Every build leaves out gin's MessagePack binding and renderer: the API
# speaks JSON only, and the codec behind them (github.com/ugorji/go) was
# the slowest package of the tree to compile, 28 to 35 s of a 2-core
# machine's CPU in each of the race and plain builds of `make test`.
# -trimpath: what the compiler makes of a package no longer depends on
# where the checkout is, so a second checkout of the same code (a
# worktree, CI's clean checkout) takes the project's compiled packages
# from Go's build cache instead of compiling them again for vet, the race
# build and the plain build. Compiling the race tests of a checkout at a
# new path took 107 s without it and 45 s with it (the linking is left) on
# a 2-core machine whose cache held another checkout's build.
export GOFLAGS := $(strip $(GOFLAGS) -tags=nomsgpack -trimpath)

DATA_DIR ?= $(CURDIR)/data
HTTP_ADDR ?= :8080
ADMIN_EMAIL ?= admin@example.com

.PHONY: run test test-faults services build bench lint setup clean admin-password

build:
	$(GO) build -o $(BIN) ./cmd/metaharvest

# The linters' versions (go install, into the cache; see lint).
STATICCHECK_VERSION := v0.8.2
GOIMPORTS_VERSION := v0.52.0

# lint defines lint(): gofmt, goimports and staticcheck over the module,
# their findings on stdout, non-zero when there are any (go vet apart:
# make test runs it on its own). The tools are built on first use.
define lint
lint() { \
  local tools sc gi files out lintrc=0; \
  tools="$${METAHARVEST_CACHE:-$${XDG_CACHE_HOME:-$$HOME/.cache}/metaharvest}"; \
  sc="$$tools/staticcheck-$(STATICCHECK_VERSION)/staticcheck"; gi="$$tools/goimports-$(GOIMPORTS_VERSION)/goimports"; \
  [ -x "$$sc" ] || GOFLAGS= GOBIN="$${sc%/*}" $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION); \
  [ -x "$$gi" ] || GOFLAGS= GOBIN="$${gi%/*}" $(GO) install golang.org/x/tools/cmd/goimports@$(GOIMPORTS_VERSION); \
  files=$$(git ls-files '*.go'); \
  out=$$(gofmt -l $$files); \
  if [ -n "$$out" ]; then echo "gofmt -l: not formatted (gofmt -w them):"; echo "$$out"; lintrc=1; fi; \
  out=$$("$$gi" -local "$$($(GO) list -m)" -l $$files); \
  if [ -n "$$out" ]; then echo "goimports -local: imports to group as the standard library, third parties, then this module's packages:"; echo "$$out"; lintrc=1; fi; \
  "$$sc" ./... || lintrc=1; \
  return $$lintrc; \
}
endef

# dbenv prepares the machine and sets dburl (the platform's database,
# created when missing) in the recipe's shell.
define dbenv
pgadmin=$$(deploy/setup.sh); \
dburl=$${DATABASE_URL:-$${pgadmin/\/postgres\?/\/metaharvest?}}; \
psql "$$pgadmin" -qtAc "SELECT 1 FROM pg_database WHERE datname='metaharvest'" | grep -q 1 || \
  psql "$$pgadmin" -qc "CREATE DATABASE metaharvest"
endef

# The admin password is generated once into $(DATA_DIR)/.admin-password
# (unless ADMIN_PASSWORD is set); `metaharvest admin bootstrap` prints it
# only when it works for this database, and otherwise how to reset it.
run: build
	@set -euo pipefail; \
	$(dbenv); \
	mkdir -p "$(DATA_DIR)"; \
	pwfile=""; \
	if [ -z "$${ADMIN_PASSWORD:-}" ]; then \
	  pwfile="$(DATA_DIR)/.admin-password"; \
	  if [ ! -s "$$pwfile" ]; then \
	    (umask 077; head -c 18 /dev/urandom | base64 | tr -d '/+=' > "$$pwfile"); \
	  fi; \
	  ADMIN_PASSWORD=$$(cat "$$pwfile"); \
	fi; \
	export DATABASE_URL="$$dburl" DATA_DIR="$(DATA_DIR)" HTTP_ADDR="$(HTTP_ADDR)" ADMIN_EMAIL="$(ADMIN_EMAIL)" ADMIN_PASSWORD; \
	$(BIN) migrate && $(BIN) admin bootstrap $$pwfile && exec $(BIN) all

# Sets the admin's password to the one in $(DATA_DIR)/.admin-password (for
# a database whose admin was created with another one).
admin-password: build
	@set -euo pipefail; \
	$(dbenv); \
	DATABASE_URL="$$dburl" $(BIN) admin reset-password "$(ADMIN_EMAIL)" < "$(DATA_DIR)/.admin-password"

# go vet, then lint's other checks (gofmt, goimports, staticcheck), run
# while the machine is prepared (they overlap the package downloads of
# deploy/setup.sh) and their findings are printed once setup is done. The
# lint checks cost 66 CPU seconds with staticcheck's cache empty (about 3
# with it full, as on a machine that ran them before), and building
# staticcheck on a fresh machine about 80 more. On a fresh machine
# setup.sh builds the S3 test server meanwhile; the builds take turns
# (flock on a file both know: setup.sh reads it from METAHARVEST_GO_LOCK).
# Side by side, go vet and that build each compiled the packages both
# need (the standard library first) for itself: 369 CPU seconds and 187 s
# for the two from an empty Go cache, against 305 CPU seconds and 164 s
# one after the other. go vet runs without -race: its checks read the
# same code either way, and its race build would analyse every dependency
# a second time (the race build of the packages is made by the race tests
# once, as they need it). On a fresh machine, go vet -race ./... compiled
# what only the plain tests use a second time, with the race detector:
# 70 s of CPU.
# The race detector runs over the packages whose code starts goroutines or
# shares state between them (worker, search, storage, the extractor
# framework, internal, ...). RACE_FREE are tested without it; none of
# their code starts a goroutine or holds a lock (cmd/metaharvest/e2e's
# TestRaceFreePackagesStartNoGoroutine keeps it so):
# - api and web: their tests are HTTP calls one after the other. With the
#   race detector the api tests took 131 CPU seconds instead of 30.
# - cmd: its tests start the metaharvest binary (always built without the
#   race detector) and Chromium as processes.
# - the extractor families below: each runs one file through a tool or a
#   parser. The worker's tests run them side by side under the race
#   detector. Without it their own tests take 121 CPU seconds instead of
#   179 (office 1 instead of 10, faces 5 instead of 15).
# On a 2-core machine, both cores busy throughout, the race detector on
# every package made go test alone take 917 s (1881 core-seconds).
# -vet=off: go test's own vet pass (a subset of go vet's checks) would
# analyse every package again, its dependencies too, once per build mode:
# 84 s of CPU on a fresh machine for findings go vet has reported.
# -parallel 4: four parallel tests at a time in a package (the default is
# one per core). Most of the process, browser and api tests wait on other
# processes, Postgres or the browser; on two cores go test took 500 s at
# the default and 448 to 469 s at 4 (with internal/testdb's drops out of
# the tests' way), the cores busy about 90 % of the time.
# -count=1: every run runs every test. go test would otherwise replay a
# package's last pass from its cache when its code and files did not
# change, but the tests talk to Postgres, Redis, ffmpeg and the other
# servers and tools, which the cache knows nothing of: a replayed pass
# proves nothing about this run.
RACE_FREE := api web cmd extractors/archive extractors/broadcast extractors/captions extractors/documents \
  extractors/faces extractors/office extractors/probe extractors/recognition extractors/video
# Each phase says how long it took (on stderr), so that a slow run shows
# where its time went. A phase that fails does not stop the next ones: go
# vet, lint, the tests with -race and the other tests all run, and the end
# of the output lists every failure together (go vet's and lint's
# findings, the failing tests and packages of each phase); make test then
# exits non-zero. Only a failed set-up stops it (nothing could be tested).
test:
	@set -euo pipefail; \
	phase() { echo "make test: $$1 took $$((SECONDS - $$2)) s" >&2; }; \
	racefree="^$$($(GO) list -m)/($(subst $(eval ) ,|,$(strip $(RACE_FREE))))(/|$$)"; \
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; touch "$$tmp/go.lock" "$$tmp/failures"; \
	$(lint); \
	( exec 9> "$$tmp/go.lock"; flock 9; \
	  $(GO) vet ./... > "$$tmp/vet" 2>&1 || touch "$$tmp/vet.failed"; \
	  lint > "$$tmp/lint" 2>&1 || touch "$$tmp/lint.failed" ) & vet=$$!; \
	pgadmin=$$(METAHARVEST_GO_LOCK="$$tmp/go.lock" deploy/setup.sh --s3); phase "set-up" 0; \
	wait $$vet || true; cat "$$tmp/vet" "$$tmp/lint"; phase "set-up, go vet and lint" 0; \
	if [ -e "$$tmp/vet.failed" ]; then { echo "go vet:"; sed 's/^/    /' "$$tmp/vet"; } >> "$$tmp/failures"; fi; \
	if [ -e "$$tmp/lint.failed" ]; then { echo "lint:"; sed 's/^/    /' "$$tmp/lint"; } >> "$$tmp/failures"; fi; \
	export TEST_DATABASE_URL="$${TEST_DATABASE_URL:-$$pgadmin}"; \
	pkgs=$$($(GO) list ./...); \
	tests() { \
	  local name=$$1 t=$$SECONDS rc=0; shift; \
	  $(GO) test -vet=off -count=1 -parallel 4 -timeout 20m "$$@" 2>&1 | tee "$$tmp/out" || rc=$$?; \
	  phase "$$name" $$t; \
	  if [ "$$rc" != 0 ]; then { echo "$$name:"; \
	    grep -E '^ *--- FAIL: |^FAIL[[:space:]]|^panic: |^[^[:space:]]+\.go:[0-9]+:[0-9]+: ' "$$tmp/out" | sed 's/^/    /' || \
	    echo "    go test exited with status $$rc"; } >> "$$tmp/failures"; fi; \
	}; \
	tests "the tests with -race" -race $$(grep -vE "$$racefree" <<< "$$pkgs"); \
	tests "the other tests" $$(grep -E "$$racefree" <<< "$$pkgs"); \
	if [ -s "$$tmp/failures" ]; then echo; echo "make test: FAILED"; cat "$$tmp/failures"; exit 1; fi

# What one test needs, for running it alone (`go test ./api -run TestX`):
# deploy/setup.sh --s3 installs what is missing (the S3 test server,
# Meilisearch and Chromium, which the tests start themselves when they
# need them) and starts Postgres and Redis; the line printed on stdout
# points go test at them: paste it, or eval "$$(make -s services)". A test
# whose service is not running fails at once saying to run this.
services:
	@set -euo pipefail; \
	pgadmin=$$(deploy/setup.sh --s3); \
	echo "make services: Postgres and Redis are running; for go test in this shell:" >&2; \
	echo "export TEST_DATABASE_URL='$${TEST_DATABASE_URL:-$$pgadmin}' GOFLAGS='$(GOFLAGS)'"

# The fault tests alone (they are part of `make test` too): workers killed,
# Redis and Postgres restarted, the search backend stopped, graceful stops.
FAULT_TESTS := Killed|Restart|SearchBackendDown|GracefulStop|GivesBack
test-faults:
	@set -euo pipefail; \
	pgadmin=$$(deploy/setup.sh --s3); \
	export TEST_DATABASE_URL="$${TEST_DATABASE_URL:-$$pgadmin}"; \
	$(GO) test -count=1 -v -run '$(FAULT_TESTS)' ./cmd/metaharvest/e2e

# The bench needs the test servers too (versitygw for the s3 suite,
# Meilisearch for the meili suite): setup.sh --s3.
bench: build
	@set -euo pipefail; \
	pgadmin=$$(deploy/setup.sh --s3); \
	export TEST_DATABASE_URL="$${TEST_DATABASE_URL:-$$pgadmin}"; \
	$(GO) run ./cmd/mhbench

# make lint: gofmt, go vet, staticcheck, and the imports' grouping (the
# standard library, third parties, then this module's own packages, as
# goimports -local sets them). staticcheck and goimports are installed on
# first use, at STATICCHECK_VERSION and GOIMPORTS_VERSION, into the cache
# deploy/setup.sh uses (one directory per version, like the S3 test
# server). staticcheck runs its default checks: the tree passes them all.
lint:
	@set -euo pipefail; \
	$(lint); \
	lintrc=0; lint || lintrc=1; \
	$(GO) vet ./... || lintrc=1; \
	exit $$lintrc

clean:
	rm -rf bin
