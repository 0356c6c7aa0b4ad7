#!/usr/bin/env bash
# dgraph-cluster.sh — build and run a throw-away, single-node Dgraph v25
# cluster (one zero, one alpha) on 127.0.0.1 for integration tests and CI.
#
# Usage:
#   scripts/dgraph-cluster.sh build          build .cache/dgraph/dgraph (skipped when up to date)
#   scripts/dgraph-cluster.sh start [DIR]    start zero + alpha, wait until healthy, print the URI
#   scripts/dgraph-cluster.sh stop [DIR]     stop alpha then zero; remove the data dir unless DIR was given
#   scripts/dgraph-cluster.sh status [DIR]   show pids, ports and health of the running cluster
#   scripts/dgraph-cluster.sh uri [DIR]      print the dgraph:// URI of the running cluster
#   scripts/dgraph-cluster.sh env [DIR]      print `export TOTALRECALL_TEST_DGRAPH=...` (for eval)
#
# Typical use (as in .ci/run):
#   uri=$(bash scripts/dgraph-cluster.sh start)
#   trap 'bash scripts/dgraph-cluster.sh stop' EXIT
#   TOTALRECALL_TEST_DGRAPH=$uri go test ./...
# or, in an interactive shell:
#   bash scripts/dgraph-cluster.sh start >/dev/null
#   eval "$(bash scripts/dgraph-cluster.sh env)"
#
# Only the URI is written to stdout; all progress and diagnostics go to stderr.
#
# Environment:
#   DGRAPH_BIN                 use this dgraph binary instead of building one
#   DGRAPH_PORT_OFFSET         added to every Dgraph port via --port_offset (default 100):
#                                zero  grpc 5080+o, http 6080+o
#                                alpha internal 7080+o, http 8080+o, grpc 9080+o
#   DGRAPH_ZERO_PORT_OFFSET    offset for zero only  (default: DGRAPH_PORT_OFFSET)
#   DGRAPH_ALPHA_PORT_OFFSET   offset for alpha only (default: DGRAPH_PORT_OFFSET)
#   DGRAPH_START_TIMEOUT       seconds to wait for alpha to become healthy (default 90)
#   DGRAPH_STOP_TIMEOUT        seconds to wait after SIGTERM before SIGKILL (default 10);
#                              zero usually needs the SIGKILL: its raft loop keeps
#                              waiting for the (already stopped) alpha
#   DGRAPH_ZERO_STOP_TIMEOUT   the same for zero only (default: DGRAPH_STOP_TIMEOUT)
#   DGRAPH_CACHE_MB            alpha cache size in MB (default 256)
#
# The data dir of the last `start` is recorded in .cache/dgraph/current, so
# `stop`, `status`, `uri` and `env` work without arguments.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODDIR="$ROOT/scripts/dgraph"
CACHE="$ROOT/.cache/dgraph"
BIN_DEFAULT="$CACHE/dgraph"
STATE="$CACHE/current"
DGRAPH_PKG="github.com/hypermodeinc/dgraph/v25/dgraph"

PORT_OFFSET="${DGRAPH_PORT_OFFSET:-100}"
ZERO_OFFSET="${DGRAPH_ZERO_PORT_OFFSET:-$PORT_OFFSET}"
ALPHA_OFFSET="${DGRAPH_ALPHA_PORT_OFFSET:-$PORT_OFFSET}"
START_TIMEOUT="${DGRAPH_START_TIMEOUT:-90}"
STOP_TIMEOUT="${DGRAPH_STOP_TIMEOUT:-10}"
ZERO_STOP_TIMEOUT="${DGRAPH_ZERO_STOP_TIMEOUT:-$STOP_TIMEOUT}"
CACHE_MB="${DGRAPH_CACHE_MB:-256}"

ZERO_GRPC=$((5080 + ZERO_OFFSET))
ZERO_HTTP=$((6080 + ZERO_OFFSET))
ALPHA_INTERNAL=$((7080 + ALPHA_OFFSET))
ALPHA_HTTP=$((8080 + ALPHA_OFFSET))
ALPHA_GRPC=$((9080 + ALPHA_OFFSET))

log() { printf '[dgraph-cluster] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
  sed -n '2,/^$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}

# http_get URL-PATH PORT — prints the response body; fails on non-2xx.
http_get() {
  local port="$1" path="$2"
  if command -v curl >/dev/null 2>&1; then
    curl -fsS --max-time 3 "http://127.0.0.1:${port}${path}" 2>/dev/null
  elif command -v wget >/dev/null 2>&1; then
    wget -q -T 3 -O - "http://127.0.0.1:${port}${path}" 2>/dev/null
  else
    # Plain bash fallback.
    local resp
    exec 3<>"/dev/tcp/127.0.0.1/${port}" || return 1
    printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$path" >&3
    resp="$(timeout 3 cat <&3)" || { exec 3<&-; return 1; }
    exec 3<&-
    case "${resp%%$'\r'*}" in
      "HTTP/"*" 2"??*) printf '%s' "${resp#*$'\r\n\r\n'}" ;;
      *) return 1 ;;
    esac
  fi
}

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# is_dgraph_pid PID — true when PID is alive and is a dgraph process.
is_dgraph_pid() {
  local pid="$1"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  if [[ -r "/proc/$pid/cmdline" ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'dgraph' || return 1
  fi
  return 0
}

# ---------------------------------------------------------------- build

cmd_build() {
  if [[ -n "${DGRAPH_BIN:-}" ]]; then
    [[ -x "$DGRAPH_BIN" ]] || die "DGRAPH_BIN=$DGRAPH_BIN is not executable"
    log "using DGRAPH_BIN=$DGRAPH_BIN"
    return 0
  fi
  if [[ -x "$BIN_DEFAULT" && "$BIN_DEFAULT" -nt "$MODDIR/go.sum" && "$BIN_DEFAULT" -nt "$MODDIR/go.mod" ]]; then
    log "dgraph binary is up to date: $BIN_DEFAULT"
    return 0
  fi
  command -v go >/dev/null 2>&1 || die "go is not installed; cannot build dgraph"
  mkdir -p "$CACHE"
  log "building Dgraph v25.0.0 into $BIN_DEFAULT (first build takes a few minutes)..."
  local start=$SECONDS
  # GOWORK=off: never let a workspace file at the repo root pull this module
  # into the main module's build.
  (cd "$MODDIR" && GOWORK=off go build -o "$BIN_DEFAULT.tmp" "$DGRAPH_PKG") >&2 \
    || { rm -f "$BIN_DEFAULT.tmp"; die "go build of dgraph failed"; }
  mv -f "$BIN_DEFAULT.tmp" "$BIN_DEFAULT"
  log "built dgraph in $((SECONDS - start))s"
}

dgraph_bin() {
  if [[ -n "${DGRAPH_BIN:-}" ]]; then printf '%s' "$DGRAPH_BIN"; else printf '%s' "$BIN_DEFAULT"; fi
}

# ---------------------------------------------------------------- state

# resolve_dir [DIR] — the data dir given, or the one recorded by `start`.
resolve_dir() {
  if [[ $# -ge 1 && -n "$1" ]]; then
    printf '%s' "$(cd "$1" 2>/dev/null && pwd || printf '%s' "$1")"
  elif [[ -f "$STATE" ]]; then
    head -n1 "$STATE"
  else
    return 1
  fi
}

cluster_uri() {
  local dir="$1"
  if [[ -f "$dir/uri" ]]; then
    cat "$dir/uri"
  else
    printf 'dgraph://127.0.0.1:%s\n' "$ALPHA_GRPC"
  fi
}

# ---------------------------------------------------------------- stop

# stop_pid NAME PIDFILE TIMEOUT — SIGTERM, wait up to TIMEOUT s, then SIGKILL.
stop_pid() {
  local name="$1" pidfile="$2" timeout="$3" pid
  [[ -f "$pidfile" ]] || return 0
  pid="$(cat "$pidfile" 2>/dev/null || true)"
  if ! is_dgraph_pid "$pid"; then
    rm -f "$pidfile"
    return 0
  fi
  log "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  local waited=0
  while kill -0 "$pid" 2>/dev/null; do
    if ((waited >= timeout * 10)); then
      log "$name did not exit ${timeout}s after SIGTERM, sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  # Give the kernel a moment to reap it.
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$pidfile"
}

stop_cluster() {
  local dir="$1"
  stop_pid alpha "$dir/alpha.pid" "$STOP_TIMEOUT"
  stop_pid zero "$dir/zero.pid" "$ZERO_STOP_TIMEOUT"
}

cmd_stop() {
  local given=0 dir
  if [[ $# -ge 1 && -n "$1" ]]; then given=1; fi
  if ! dir="$(resolve_dir "$@")"; then
    log "no running cluster recorded in $STATE; nothing to stop"
    return 0
  fi
  if [[ ! -d "$dir" ]]; then
    log "data dir $dir no longer exists"
    [[ $given -eq 1 ]] || rm -f "$STATE"
    return 0
  fi
  stop_cluster "$dir"
  if [[ -f "$STATE" && "$(head -n1 "$STATE")" == "$dir" ]]; then
    rm -f "$STATE"
  fi
  # Remove only folders this script created itself (marked by .owned).
  if [[ $given -eq 0 && -f "$dir/.owned" ]]; then
    rm -rf "$dir"
    log "removed $dir"
  fi
  log "stopped"
}

# ---------------------------------------------------------------- start

tail_logs() {
  local dir="$1" f
  for f in zero.log alpha.log; do
    if [[ -f "$dir/$f" ]]; then
      log "----- last 40 lines of $dir/$f -----"
      tail -n 40 "$dir/$f" >&2 || true
    fi
  done
}

# launch NAME DIR ARGS... — start a dgraph process detached from this shell
# (own session, no inherited stdio) so `uri=$(... start)` returns at once.
launch() {
  local name="$1" dir="$2"; shift 2
  local bin; bin="$(dgraph_bin)"
  # shellcheck disable=SC2016 # expanded by the inner bash, on purpose
  setsid bash -c 'echo $$ >"$1"; shift; cd "$1"; shift; exec "$@"' \
    _ "$dir/$name.pid" "$dir" "$bin" "$@" \
    </dev/null >>"$dir/$name.log" 2>&1 &
  disown $! 2>/dev/null || true
  local _
  for _ in $(seq 1 50); do [[ -s "$dir/$name.pid" ]] && break; sleep 0.1; done
  [[ -s "$dir/$name.pid" ]] || die "could not start $name"
}

start_failed() {
  local dir="$1" owned="$2"; shift 2
  log "error: $*"
  tail_logs "$dir"
  stop_cluster "$dir"
  if [[ -f "$STATE" && "$(head -n1 "$STATE")" == "$dir" ]]; then rm -f "$STATE"; fi
  if [[ "$owned" -eq 1 ]]; then rm -rf "$dir"; fi
  exit 1
}

cmd_start() {
  cmd_build

  if [[ -f "$STATE" ]]; then
    local prev; prev="$(head -n1 "$STATE")"
    if is_dgraph_pid "$(cat "$prev/alpha.pid" 2>/dev/null || true)" \
      || is_dgraph_pid "$(cat "$prev/zero.pid" 2>/dev/null || true)"; then
      die "a cluster is already running in $prev ($(cluster_uri "$prev")); run '$0 stop' first"
    fi
    rm -f "$STATE"
  fi

  local p
  for p in "$ZERO_GRPC" "$ZERO_HTTP" "$ALPHA_INTERNAL" "$ALPHA_HTTP" "$ALPHA_GRPC"; do
    if port_in_use "$p"; then
      die "port 127.0.0.1:$p is already in use; set DGRAPH_PORT_OFFSET to another value"
    fi
  done

  local dir owned=0
  if [[ $# -ge 1 && -n "$1" ]]; then
    mkdir -p "$1"
    dir="$(cd "$1" && pwd)"
  else
    dir="$(mktemp -d "${TMPDIR:-/tmp}/totalrecall-dgraph.XXXXXX")"
    touch "$dir/.owned"
    owned=1
  fi
  mkdir -p "$CACHE" "$dir/zero" "$dir/alpha"
  printf '%s\n' "$dir" >"$STATE"
  trap 'start_failed "$dir" "$owned" "interrupted"' INT TERM

  local t0=$SECONDS
  log "data dir: $dir"
  log "starting zero  (grpc 127.0.0.1:$ZERO_GRPC, http 127.0.0.1:$ZERO_HTTP)"
  launch zero "$dir" zero \
    --port_offset "$ZERO_OFFSET" \
    --my "127.0.0.1:$ZERO_GRPC" \
    --bindall=false \
    --wal "$dir/zero/zw" \
    --replicas 1 \
    --telemetry "reports=false; sentry=false;" \
    --logtostderr

  log "starting alpha (grpc 127.0.0.1:$ALPHA_GRPC, http 127.0.0.1:$ALPHA_HTTP, internal 127.0.0.1:$ALPHA_INTERNAL)"
  launch alpha "$dir" alpha \
    --port_offset "$ALPHA_OFFSET" \
    --my "127.0.0.1:$ALPHA_INTERNAL" \
    --zero "127.0.0.1:$ZERO_GRPC" \
    --bindall=false \
    --postings "$dir/alpha/p" \
    --wal "$dir/alpha/w" \
    --tmp "$dir/alpha/t" \
    --export "$dir/alpha/export" \
    --cache "size-mb=$CACHE_MB" \
    --security "whitelist=127.0.0.1,::1" \
    --telemetry "reports=false; sentry=false;" \
    --logtostderr

  local deadline=$((SECONDS + START_TIMEOUT)) body zpid apid
  zpid="$(cat "$dir/zero.pid")"
  apid="$(cat "$dir/alpha.pid")"
  while :; do
    is_dgraph_pid "$zpid" || start_failed "$dir" "$owned" "dgraph zero exited during startup"
    is_dgraph_pid "$apid" || start_failed "$dir" "$owned" "dgraph alpha exited during startup"
    if body="$(http_get "$ALPHA_HTTP" /health)" && [[ "$body" == *'"status":"healthy"'* ]]; then
      break
    fi
    if ((SECONDS >= deadline)); then
      start_failed "$dir" "$owned" "alpha did not become healthy within ${START_TIMEOUT}s"
    fi
    sleep 0.5
  done
  trap - INT TERM

  local uri="dgraph://127.0.0.1:$ALPHA_GRPC"
  printf '%s\n' "$uri" >"$dir/uri"
  log "healthy after $((SECONDS - t0))s; logs and pids in $dir"
  printf '%s\n' "$uri"
}

# ---------------------------------------------------------------- status / uri / env

cmd_status() {
  local dir
  dir="$(resolve_dir "$@")" || { log "no cluster recorded in $STATE"; return 1; }
  local name pid up=0
  for name in zero alpha; do
    pid="$(cat "$dir/$name.pid" 2>/dev/null || true)"
    if is_dgraph_pid "$pid"; then
      log "$name: running (pid $pid)"; up=$((up + 1))
    else
      log "$name: not running"
    fi
  done
  log "data dir: $dir"
  log "uri: $(cluster_uri "$dir")"
  local body
  if body="$(http_get "$ALPHA_HTTP" /health)"; then log "alpha health: $body"; fi
  [[ $up -eq 2 ]]
}

cmd_uri() {
  local dir
  dir="$(resolve_dir "$@")" || die "no cluster recorded in $STATE; run '$0 start' first"
  cluster_uri "$dir"
}

cmd_env() {
  printf 'export TOTALRECALL_TEST_DGRAPH=%s\n' "$(cmd_uri "$@")"
}

# ---------------------------------------------------------------- main

sub="${1:-}"
[[ $# -gt 0 ]] && shift
case "$sub" in
  build) cmd_build ;;
  start) cmd_start "$@" ;;
  stop) cmd_stop "$@" ;;
  status) cmd_status "$@" ;;
  uri) cmd_uri "$@" ;;
  env) cmd_env "$@" ;;
  -h | --help | help) usage ;;
  *) usage; exit 2 ;;
esac
