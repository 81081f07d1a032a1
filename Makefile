# metaharvest. `make run` starts the platform, `make test` runs the tests;
# both prepare the machine first (deploy/setup.sh).
SHELL := /bin/bash
GO ?= go
BIN := bin/metaharvest
export PATH := $(PATH):$(shell $(GO) env GOPATH)/bin

DATA_DIR ?= $(CURDIR)/data
HTTP_ADDR ?= :8080
ADMIN_EMAIL ?= admin@example.com

.PHONY: run test build bench lint setup clean

build:
	$(GO) build -o $(BIN) ./cmd/metaharvest

run: build
	@set -euo pipefail; \
	pgadmin=$$(deploy/setup.sh); \
	dburl=$${DATABASE_URL:-$${pgadmin/\/postgres\?/\/metaharvest?}}; \
	psql "$$pgadmin" -qtAc "SELECT 1 FROM pg_database WHERE datname='metaharvest'" | grep -q 1 || \
	  psql "$$pgadmin" -qc "CREATE DATABASE metaharvest"; \
	mkdir -p "$(DATA_DIR)"; \
	if [ -z "$${ADMIN_PASSWORD:-}" ]; then \
	  if [ ! -s "$(DATA_DIR)/.admin-password" ]; then \
	    (umask 077; head -c 18 /dev/urandom | base64 | tr -d '/+=' > "$(DATA_DIR)/.admin-password"); \
	    echo "================================================================"; \
	    echo " bootstrap admin: $(ADMIN_EMAIL)"; \
	    echo " password:        $$(cat "$(DATA_DIR)/.admin-password")"; \
	    echo " (shown once; stored in $(DATA_DIR)/.admin-password)"; \
	    echo "================================================================"; \
	  fi; \
	  ADMIN_PASSWORD=$$(cat "$(DATA_DIR)/.admin-password"); \
	fi; \
	export DATABASE_URL="$$dburl" DATA_DIR="$(DATA_DIR)" HTTP_ADDR="$(HTTP_ADDR)" ADMIN_EMAIL="$(ADMIN_EMAIL)" ADMIN_PASSWORD; \
	$(BIN) migrate && exec $(BIN) all

test:
	@set -euo pipefail; \
	pgadmin=$$(deploy/setup.sh --s3); \
	export TEST_DATABASE_URL="$${TEST_DATABASE_URL:-$$pgadmin}"; \
	$(GO) vet ./...; \
	$(GO) test -race -timeout 20m ./...

bench: build
	@set -euo pipefail; \
	pgadmin=$$(deploy/setup.sh); \
	export TEST_DATABASE_URL="$${TEST_DATABASE_URL:-$$pgadmin}"; \
	$(GO) run ./cmd/mhbench

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf bin
