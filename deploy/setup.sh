#!/usr/bin/env bash
# Prepares a Debian machine for metaharvest: installs the missing packages
# (Postgres, Redis, media tools, Node.js, and curl and jq for the README's
# walkthrough) and the npm packages of the nsfw sidecar, starts Postgres
# and Redis when they are not running, and prints the Postgres admin URL
# that works here on stdout.
# Idempotent; needs root for installs. Usage: deploy/setup.sh [--s3]
# (--s3: also what only the tests need: an S3 test server, chromium).
# It says one line (on stderr) per step it takes; the output of the tools
# it runs is shown only when one fails.
set -euo pipefail

log() { echo "setup: $*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
# quiet runs a command with its output kept aside, and shows that output
# (on stderr) only when the command fails.
quiet() {
  local out rc=0
  out=$(mktemp)
  "$@" >"$out" 2>&1 || rc=$?
  if [ "$rc" != 0 ]; then
    log "failed ($rc): $*"
    cat "$out" >&2
  fi
  rm -f "$out"
  return "$rc"
}

pkgs=(postgresql redis-server ffmpeg mediainfo libimage-exiftool-perl tesseract-ocr tesseract-ocr-eng poppler-utils
      pocketsphinx pocketsphinx-en-us fonts-dejavu-core curl jq)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm run the nsfw sidecar (below); Debian's are enough, and a
# machine with its own node (another packaging) keeps it.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  missing+=(nodejs npm)
fi
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  quiet as_root apt-get update -qq
  quiet as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The nsfw extractor's sidecar: nsfwjs and TensorFlow.js exactly as
# deploy/nsfw/package-lock.json says, into deploy/nsfw/node_modules (no
# install scripts: none of them needs one). Done again only when the lock
# changed.
nsfw="$(cd "$(dirname "$0")" && pwd)/nsfw"
if ! cmp -s "$nsfw/package-lock.json" "$nsfw/node_modules/.metaharvest-lock"; then
  log "installing the nsfw sidecar (npm ci in deploy/nsfw)"
  quiet npm ci --prefix "$nsfw" --omit=dev --ignore-scripts --no-audit --no-fund
  cp "$nsfw/package-lock.json" "$nsfw/node_modules/.metaharvest-lock"
fi

if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  log "starting postgres"
  ver=$(ls /etc/postgresql | sort -V | tail -n 1)
  quiet as_root pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
pg_isready -q -h 127.0.0.1 -p 5432 || { log "postgres does not answer on 127.0.0.1:5432"; exit 1; }

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  log "starting redis"
  as_root mkdir -p /var/lib/redis /var/log/redis
  quiet as_root redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/metaharvest.log
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 && break; sleep 0.5; done
fi
redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null || { log "redis does not answer on 127.0.0.1:6379"; exit 1; }

# A fresh Debian Postgres only trusts the local socket for the postgres
# user; give it a password for TCP if trust is not configured.
url="postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
if ! psql "$url" -qtAc 'SELECT 1' >/dev/null 2>&1; then
  url="postgres://postgres:postgres@127.0.0.1:5432/postgres?sslmode=disable"
  if ! psql "$url" -qtAc 'SELECT 1' >/dev/null 2>&1; then
    log "setting a local password for the postgres role (TCP access for metaharvest)"
    quiet as_root runuser -u postgres -- psql -qc "ALTER ROLE postgres PASSWORD 'postgres'"
  fi
fi

# The settings a harvest of many small files into a large platform needs
# from the local Postgres (checked on every run, applied with ALTER SYSTEM
# and one restart when they differ): memory to keep the indexes it writes
# at random (a quarter of the RAM, at most 8 GB: with the default 128 MB a
# platform of a million items writes each file a third slower, see
# make bench), and checkpoints spaced for bulk writes.
mem_mb=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo 2>/dev/null || echo 0)
sb_mb=$(( mem_mb / 4 )); [ "$sb_mb" -gt 8192 ] && sb_mb=8192
if [ "$sb_mb" -ge 256 ] && [ -d /etc/postgresql ] && command -v pg_ctlcluster >/dev/null; then
  want="shared_buffers=$((sb_mb * 128)) effective_cache_size=$((mem_mb / 2 * 128)) max_wal_size=4096 checkpoint_timeout=900"
  have=$(psql "$url" -qtAc "SELECT string_agg(name || '=' || setting, ' ' ORDER BY array_position(
    ARRAY['shared_buffers', 'effective_cache_size', 'max_wal_size', 'checkpoint_timeout'], name::text))
    FROM pg_settings WHERE name IN ('shared_buffers', 'effective_cache_size', 'max_wal_size', 'checkpoint_timeout')" 2>/dev/null || true)
  if [ "$have" != "$want" ]; then
    log "configuring postgres for harvests (shared_buffers ${sb_mb}MB, spaced checkpoints) and restarting it"
    quiet psql "$url" -qc "ALTER SYSTEM SET shared_buffers = '${sb_mb}MB'" \
      -c "ALTER SYSTEM SET effective_cache_size = '$((mem_mb / 2))MB'" \
      -c "ALTER SYSTEM SET max_wal_size = '4GB'" -c "ALTER SYSTEM SET checkpoint_timeout = '15min'"
    ver=$(ls /etc/postgresql | sort -V | tail -n 1)
    quiet as_root pg_ctlcluster --skip-systemctl-redirect "$ver" main restart
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
    pg_isready -q -h 127.0.0.1 -p 5432 || { log "postgres does not answer after its restart"; exit 1; }
  fi
fi

if [ "${1:-}" = "--s3" ]; then
  # Tests only: the queue dashboard's test drives a headless Chromium.
  if ! command -v chromium >/dev/null; then
    log "installing chromium (browser test of the queue dashboard)"
    quiet as_root apt-get update -qq
    quiet as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium
  fi
  gobin=$(go env GOPATH)/bin
  if ! command -v versitygw >/dev/null && [ ! -x "$gobin/versitygw" ]; then
    log "building versitygw (S3 server for tests)"
    quiet env GOFLAGS= go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
  fi
fi
echo "$url"
