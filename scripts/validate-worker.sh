#!/usr/bin/env bash
# validate-worker.sh: does the model, calibrated on two live runs, predict
# the example Worker at concurrencies it was not calibrated on?
#
# For each limit it starts the example Worker under `wrangler dev` (loopback,
# examples/worker/dev.sh, with the wrangler var LIMIT set), measures one
# caller keeping C requests in flight (examples/worker/closed-loop.yaml) at
# every C with `attack -repeat R`, stops the Worker, calibrates the model
# (`simulate -calibrate`) on the runs at the fit concurrencies, and predicts
# every other cell from that calibration (`simulate -compare` with the
# calibrated scenario). Nothing is tuned per cell.
#
# It prints, and writes to OUT/matrix.md, one line per cell: the live max
# ratio (median of the repeats, and their range), the predicted median and
# 95% band, whether the live median is inside the band, the relative
# error, and the most requests allowed on one count, live and in the model
# (the race: how many read a count before any of their writes), and the
# cells whose band is a point while their repeats differ (none, if the fit
# is right); then, over the held-out cells, the share inside the band and the
# median relative error, against the bar (>= 90% inside, median error
# <= 15%).
#
# Each cell's repeats run inside one 60 s window (the script waits for a
# window with room for them), so no run is cut by a window boundary.
#
# Usage: scripts/validate-worker.sh [-limits 5,20] [-c 1,2,8,32,64] [-fit 1,8]
#                                   [-repeat 3] [-duration 3s] [-out DIR] [-from DIR]
#                                   [-check] [-max-error PCT] [-plain]
#                                   [-scenario FILE] [-worker SCRIPT]
#   -plain      the matrix from a plain scenario (examples/worker/plain.yaml:
#               no server: section, no live.warmup), as a new user has it,
#               against the example Worker (OUT/example) and against a second
#               limiter without the example's X-Overshoot-* fields
#               (src/plain.js, OUT/plain-js), then the bar over both
#   -scenario   the scenario file to attack and calibrate (default
#               examples/worker/closed-loop.yaml)
#   -worker     the Worker's script, relative to examples/worker (dev.sh's
#               WORKER_MAIN; default wrangler.jsonc's main, src/index.js)
#   -duration   each run's length in whole seconds (e.g. 3s)
#   -from       measure nothing: take the live runs (L<limit>-C<c>.json) from
#               an earlier OUT directory and calibrate and predict again, to
#               judge a change to the model on the same measurements (the
#               runs' scenario may have changed since: its file is taken
#               as it is now, with -force)
#   -check      exit 1 when the held-out cells miss the bar (scripts/lib/bar.sh)
#   -max-error  exit 1 when a held-out cell outside its band is more than
#               PCT percent off (CI uses 40: a sanity bar, since the model's
#               band is narrower than the live repeats' spread at high C; a
#               cell inside its band passes)
# Environment: VALIDATE_PORT (first port, default 8790); dev.sh's own
# (OVERSHOOT_WORKER_CACHE, ...).
#
# Every request goes to 127.0.0.1; each run is bounded by -duration.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
. scripts/lib/bar.sh

limits=5,20
concs=1,2,8,32,64
fitc=1,8
repeat=3
duration=3s
out=""
from=""
check=0
maxerr=""
plain=0
scenario=examples/worker/closed-loop.yaml
worker=""
args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	-plain) plain=1; shift ;;
	-scenario) scenario=$2; shift 2 ;;
	-worker) worker=$2; shift 2 ;;
	-limits) limits=$2; shift 2 ;;
	-c) concs=$2; shift 2 ;;
	-fit) fitc=$2; shift 2 ;;
	-repeat) repeat=$2; shift 2 ;;
	-duration) duration=$2; shift 2 ;;
	-out) out=$2; shift 2 ;;
	-from) from=$2; shift 2 ;;
	-check) check=1; shift ;;
	-max-error) maxerr=$2; shift 2 ;;
	*) echo "usage: $0 [-limits 5,20] [-c 1,2,8,32,64] [-fit 1,8] [-repeat 3] [-duration 3s] [-out DIR] [-from DIR] [-check] [-max-error PCT] [-plain] [-scenario FILE] [-worker SCRIPT]" >&2; exit 2 ;;
	esac
done
command -v jq >/dev/null || { echo "validate-worker.sh: needs jq" >&2; exit 1; }
out=${out:-reports/validate-worker/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
port=${VALIDATE_PORT:-8790}

if [ "$plain" = 1 ]; then
	# The same matrix, from the plain scenario, once per Worker; then the
	# bar over the held-out cells of both. Each run of this script gets the
	# arguments given, without -plain and -out (and -from, per Worker).
	rest=()
	i=0
	while [ $i -lt ${#args[@]} ]; do
		case "${args[$i]}" in
		-plain) i=$((i + 1)) ;;
		-out | -from | -scenario | -worker) i=$((i + 2)) ;;
		*) rest+=("${args[$i]}"); i=$((i + 1)) ;;
		esac
	done
	status=0
	for w in example:src/index.js plain-js:src/plain.js; do
		name=${w%%:*}
		VALIDATE_PORT=$port "$0" "${rest[@]}" -scenario examples/worker/plain.yaml -worker "${w#*:}" -out "$out/$name" ${from:+-from "$from/$name"} || status=1
		port=$((port + 10))
	done
	{
		echo "# -plain: examples/worker/plain.yaml against two Workers"
		for w in example plain-js; do echo "$w: $(grep '^held-out cells:' "$out/$w/matrix.md")"; done
	} >"$out/matrix.md"
	verdict=$(bar_verdict "both Workers, " "$out"/*/held.json)
	echo "$verdict" | tee -a "$out/matrix.md"
	echo "wrote $out/matrix.md" >&2
	if [ "$check" = 1 ] && [[ "$verdict" == *MISSES* ]]; then exit 1; fi
	exit $status
fi

bin=$(mktemp -d)
started=""
cleanup() {
	if [ -n "$started" ]; then examples/worker/dev.sh stop "$started" >/dev/null 2>&1 || true; fi
	rm -rf "$bin"
}
trap cleanup EXIT
go build -o "$bin/attack" ./cmd/attack
go build -o "$bin/simulate" ./cmd/simulate

IFS=, read -r -a limit_list <<<"$limits"
IFS=, read -r -a c_list <<<"$concs"
IFS=, read -r -a fit_list <<<"$fitc"
# room waits until the Worker's current window (floor(unix time / 60 s), on
# this machine's clock, which wrangler dev shares) has at least $1 seconds
# left, so that every repeat of a cell counts in one window from its first
# request, as the model predicts it.
room() {
	local left
	left=$(awk -v need="$1" -v now="$(date +%s.%N)" 'BEGIN { l = 60 - (now % 60); if (l < need) printf "%.2f", l + 0.2; else print 0 }')
	if [ "$left" != 0 ]; then echo "waiting ${left}s for the next window" >&2; sleep "$left"; fi
}
is_fit() { local c; for c in "${fit_list[@]}"; do [ "$c" = "$1" ] && return 0; done; return 1; }

if [ -n "$from" ]; then
	echo "# the live runs of $from ($(head -1 "$from/matrix.md" 2>/dev/null | sed 's/^# //')), predicted again $(date -u +%FT%TZ)" | tee "$out/matrix.md"
else
	echo "# $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ), repeats $repeat of $duration, $scenario, Worker ${worker:-src/index.js}" | tee "$out/matrix.md"
fi
# measure runs every cell of limit $1 against the Worker, into $out.
measure() {
	local limit=$1 c url
	url=$(WORKER_VARS="LIMIT:$limit" WORKER_MAIN="$worker" examples/worker/dev.sh start "$port")
	started=$port
	for c in "${c_list[@]}"; do
		room "$(awk -v r="$repeat" -v d="${duration%s}" 'BEGIN { print r * (d + 1.5) }')"
		echo "limit $limit, C=$c: attack -repeat $repeat" >&2
		"$bin/attack" -url "$url" -no-report -json -repeat "$repeat" \
			-set "limiter.limit=$limit" -set "traffic.caller.closed_loop.concurrency=$c" \
			-set "live.duration=$duration" -set "duration=$duration" \
			"$scenario" >"$out/L$limit-C$c.json" 2>"$out/L$limit-C$c.err" ||
			{ echo "validate-worker.sh: the attack at limit $limit, C=$c failed:" >&2; cat "$out/L$limit-C$c.err" >&2; exit 1; }
	done
	examples/worker/dev.sh stop "$port" >/dev/null
	started=""
	port=$((port + 1))
}
for limit in "${limit_list[@]}"; do
	if [ -n "$from" ]; then
		for c in "${c_list[@]}"; do
			cp "$from/L$limit-C$c.json" "$out/" ||
				{ echo "validate-worker.sh: -from $from has no run for limit $limit, C=$c" >&2; exit 1; }
		done
	else
		measure "$limit"
	fi

	runs=()
	for c in "${fit_list[@]}"; do runs+=("$out/L$limit-C$c.json"); done
	echo "limit $limit: calibrate on C in {$fitc}" >&2
	(IFS=,; "$bin/simulate" ${from:+-force} -calibrate "${runs[*]}" -out "$out/cal-L$limit") >"$out/cal-L$limit.txt" 2>"$out/cal-L$limit.err" ||
		{ echo "validate-worker.sh: calibrating limit $limit failed:" >&2; cat "$out/cal-L$limit.err" >&2; exit 1; }
	for c in "${c_list[@]}"; do
		"$bin/simulate" ${from:+-force} -compare "$out/L$limit-C$c.json" -no-report -json "$out/cal-L$limit/calibrated.yaml" \
			2>/dev/null | jq -c '.comparison' >"$out/L$limit-C$c.cmp.json"
	done
done

# The matrix, from the files written above.
{
	echo
	echo "| limit | C | role | live max ratio: median (range) | predicted median | predicted 95% band (of the median of the repeats) | inside | relative error | read on one count: live / model |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for limit in "${limit_list[@]}"; do
		for c in "${c_list[@]}"; do
			role=held-out
			is_fit "$c" && role=fitted
			jq -r --arg limit "$limit" --arg c "$c" --arg role "$role" --slurpfile cmp "$out/L$limit-C$c.cmp.json" \
				'$cmp[0] as $k | "| \($limit) | \($c) | \($role) | \(.repeats.max_ratio.median) (\(.repeats.max_ratio.min)-\(.repeats.max_ratio.max)) | \($k.predicted_median * 1000 | round / 1000) | \($k.predicted_band[0] * 1000 | round / 1000)-\($k.predicted_band[1] * 1000 | round / 1000) | \(if $k.inside_band then "yes" else "NO" end) | \($k.relative_error * 1000 | round / 10)% | \($k.measured_read_group // "-") / \($k.predicted_read_group // "-") |"' \
				"$out/L$limit-C$c.json"
		done
	done
	echo
	# A band that is a point while the live repeats differ is a defect
	# (issue 27): name every such cell, fitted or held out.
	points=$(for limit in "${limit_list[@]}"; do
		for c in "${c_list[@]}"; do
			jq -r --arg cell "limit $limit, C=$c" --slurpfile cmp "$out/L$limit-C$c.cmp.json" \
				'select($cmp[0].predicted_band[0] == $cmp[0].predicted_band[1] and .repeats.max_ratio.min != .repeats.max_ratio.max) | "\($cell) (band \($cmp[0].predicted_band[0]), repeats \(.repeats.max_ratio.min)-\(.repeats.max_ratio.max))"' \
				"$out/L$limit-C$c.json"
		done
	done | paste -sd ';' -)
	echo "bands that are a point while the live repeats differ: ${points:-none}"
	echo
	for limit in "${limit_list[@]}"; do
		echo "limit $limit, calibrated on C in {$fitc}:"
		sed -n '2,/^$/p' "$out/cal-L$limit.txt"
	done
} | tee -a "$out/matrix.md"

# The bar, over the held-out cells.
held=()
for limit in "${limit_list[@]}"; do
	for c in "${c_list[@]}"; do is_fit "$c" || held+=("$out/L$limit-C$c.cmp.json"); done
done
bar_finish "$out" "$from" "$check" "$maxerr" "${held[@]}"
