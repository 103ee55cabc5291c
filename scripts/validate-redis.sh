#!/usr/bin/env bash
# validate-redis.sh: does the model's redis store, calibrated on two live
# runs, predict real Redis (a primary, two replicas, three sentinels that
# attack starts, -redis-harness) in the cells it was not calibrated on?
#
# From the plain scenario (examples/redis/plain.yaml: one caller keeping C
# requests in flight, store.kind redis at its defaults), each cell is run
# live with `attack -store redis -redis-harness -repeat R` and predicted
# with `simulate compare`. The cells: replication lag injected (a faults:
# link-latency on both replicas for the whole run) in -lags x reads from the
# primary or a replica x C in -c; then the failover cells (-failover): the
# primary killed at -kill-at, with fail-open and fail-closed, read-then-write
# and limiter.update atomic, at C = -failover-c with the lag -failover-lag, each
# run -failover-duration long (the promoted replica must serve before the run
# ends: the harness's sentinels take a second to call the primary down).
# The model is calibrated once (`simulate calibrate -fit -fit`) on the cells
# -fit-cells (lag 0 read from the primary at C = 1: the round trip; lag 0
# read from the primary at C = 8: the host's throughput and the race; lag
# 200 ms read from a replica at C = 1, where every request writes: a
# command's share of a request's time, which the two others, one command a
# request, cannot tell from the request's own; since 2026-12-03 no lag 0
# replica cell: none of these tells the loopback replication lag, which
# calibrate then holds at the scenario's, measured by
# TestReplicationLagLoopback, where a lag 0 replica cell at C = 8 fitted it
# to the saturated host's, too long at C = 1), and
# every other cell is predicted from that
# calibration; nothing is set per cell but the cell's own -set values,
# which the live run and the prediction share. Since 2026-12-04 (-again 1,
# the default) the fitted cells are run once more after all the others
# (<cell>.end.json) and the calibration fits both runs of each: the live
# host's speed moves from one minute to the next (docs/validation.md, "A
# host whose speed moves from one minute to the next"), and the fit's miss
# on its own runs, by which every band is widened (calibrated.misfit), then
# holds how far it moved over the matrix.
#
# It prints, and writes to OUT/matrix.md, one line per cell: the live max
# ratio (median of the repeats, and their range), the predicted median and
# band, whether the live median is inside, the relative error, and the
# mechanism: the lost updates and the stale reads the live ledger counted
# ("-" where it counts none: a token bucket's timestamps), beside the
# model's rates. A cell
# the model cannot predict (the model's redis store without an atomic
# update) is marked "model: not yet" and left out of the bar. Then, over
# the held-out cells, the share inside the band and the median relative
# error against the bar (>= 90% inside, median error <= 15%).
#
# Usage: scripts/validate-redis.sh [-lags 0,20ms,200ms] [-reads primary,replica]
#          [-c 1,8,32] [-fit-cells lag0-primary-C1,lag0-primary-C8,lag200ms-replica-C1] [-failover 1|0] [-failover-c 8]
#          [-failover-lag 200ms] [-kill-at 1s] [-policies fail-open,fail-closed]
#          [-updates read-then-write,atomic] [-failover-duration 8s] [-repeat 3] [-duration 3s]
#          [-fit PATHS] [-trials N] [-cells NAMES] [-again 1|0] [-calibrated FILE] [-out DIR]
#          [-from DIR] [-check] [-max-error PCT]
#   -fit         what simulate calibrate fits (default store.redis.latency,store.redis.service,
#                store.redis.request_service,store.redis.replication_lag,
#                spread:store.redis.latency+store.redis.service+store.redis.request_service:
#                simulate's default fit of a redis scenario)
#   -fit-cells   the cells calibrated on, by name
#   -trials      trials per evaluation of the calibration (default 40 since
#                2026-12-02; in one comparison, -from r-final, 20 fitted request_service anywhere
#                from 77 to 147 us over the fit and its repeats, with 40 137 to 156 us)
#   -cells       run and predict only these cells of the matrix, by name, besides
#                the fitted ones: a reduced matrix calibrated on this machine
#                (the CI's, TestValidateRedis)
#   -again       1 (default): run the fitted cells again after the others and fit
#                both runs of each; 0: once, first (as before 2026-12-04 21:40 UTC).
#                With -from, the runs again are taken when the directory has them
#   -calibrated  predict from this calibrated scenario, calibrating nothing
#                (its fitted cells are then held out too)
#   -from        measure nothing: take the live runs (<cell>.json) from an
#                earlier OUT directory and calibrate and predict again
#   -check       exit 1 when the held-out cells miss the bar
#   -max-error   exit 1 when a held-out cell outside its band is more than PCT percent off
# Environment: none. Every server is started by attack on loopback and
# stopped with it; each run is bounded by -duration.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
. scripts/lib/bar.sh

lags=0,20ms,200ms
reads=primary,replica
concs=1,8,32
fitcells=lag0-primary-C1,lag0-primary-C8,lag200ms-replica-C1
failover=1
failc=8
policies=fail-open,fail-closed
updates=read-then-write,atomic
failduration=8s
faillag=200ms
killat=1s
repeat=3
duration=3s
fit=store.redis.latency,store.redis.service,store.redis.request_service,store.redis.replication_lag,spread:store.redis.latency+store.redis.service+store.redis.request_service
trials=40
calibrated=""
only=""
again=1
out=""
from=""
check=0
maxerr=""
scenario=examples/redis/plain.yaml
usage="usage: $0 [-lags 0,20ms,200ms] [-reads primary,replica] [-c 1,8,32] [-fit-cells lag0-primary-C1,lag0-primary-C8,lag200ms-replica-C1] [-failover 1|0] [-failover-c 8] [-failover-lag 200ms] [-kill-at 1s] [-policies fail-open,fail-closed] [-updates read-then-write,atomic] [-failover-duration 8s] [-repeat 3] [-duration 3s] [-fit PATHS] [-trials N] [-cells NAMES] [-again 1|0] [-calibrated FILE] [-out DIR] [-from DIR] [-check] [-max-error PCT]"
while [ $# -gt 0 ]; do
	case "$1" in
	-lags) lags=$2; shift 2 ;;
	-reads) reads=$2; shift 2 ;;
	-c) concs=$2; shift 2 ;;
	-fit-cells) fitcells=$2; shift 2 ;;
	-failover) failover=$2; shift 2 ;;
	-failover-c) failc=$2; shift 2 ;;
	-failover-lag) faillag=$2; shift 2 ;;
	-kill-at) killat=$2; shift 2 ;;
	-policies) policies=$2; shift 2 ;;
	-updates) updates=$2; shift 2 ;;
	-failover-duration) failduration=$2; shift 2 ;;
	-repeat) repeat=$2; shift 2 ;;
	-duration) duration=$2; shift 2 ;;
	-fit) fit=$2; shift 2 ;;
	-trials) trials=$2; shift 2 ;;
	-calibrated) calibrated=$2; shift 2 ;;
	-cells) only=$2; shift 2 ;;
	-again) again=$2; shift 2 ;;
	-out) out=$2; shift 2 ;;
	-from) from=$2; shift 2 ;;
	-check) check=1; shift ;;
	-max-error) maxerr=$2; shift 2 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
command -v jq >/dev/null || { echo "validate-redis.sh: needs jq" >&2; exit 1; }
if [ -z "$from" ]; then
	for b in redis-server redis-sentinel; do
		command -v $b >/dev/null || { echo "validate-redis.sh: needs $b: apt-get install -y redis-server redis-sentinel" >&2; exit 1; }
	done
fi
out=${out:-reports/validate-redis/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/attack" ./cmd/attack
go build -o "$bin/simulate" ./cmd/simulate

IFS=, read -r -a lag_list <<<"$lags"
IFS=, read -r -a read_list <<<"$reads"
IFS=, read -r -a c_list <<<"$concs"
IFS=, read -r -a fit_list <<<"$fitcells"
IFS=, read -r -a policy_list <<<"$policies"
IFS=, read -r -a update_list <<<"$updates"

# The cells, one each: name|the -set values the live run and the prediction
# share, separated by ;|the live run's -redis-read.
cells=()
for lag in "${lag_list[@]}"; do
	for rd in "${read_list[@]}"; do
		for c in "${c_list[@]}"; do
			sets="live.duration=$duration;duration=$duration;store.redis.read=$rd;traffic.caller.closed_loop.concurrency=$c"
			[ "$lag" = 0 ] || sets="$sets;faults=[{at: 0s, kind: link-latency, target: replicas, latency: $lag}]"
			cells+=("lag$lag-$rd-C$c|$sets|$rd")
		done
	done
done
if [ "$failover" = 1 ]; then
	for pol in "${policy_list[@]}"; do
		for up in "${update_list[@]}"; do
			sets="live.duration=$failduration;duration=$failduration;store.redis.read=primary;traffic.caller.closed_loop.concurrency=$failc;limiter.error_policy=$pol;limiter.update=$up"
			sets="$sets;faults=[{at: 0s, kind: link-latency, target: replicas, latency: $faillag}, {at: $killat, kind: kill-primary}]"
			cells+=("kill-$pol-$up|$sets|primary")
		done
	done
fi
given=$calibrated # a calibration given: no cell was fitted
# among X A B...: is X one of A B...?
among() {
	local x=$1 c
	shift
	for c in "$@"; do [ "$x" = "$c" ] && return 0; done
	return 1
}
is_fit() { [ -z "$given" ] && among "$1" "${fit_list[@]}"; }
# With -cells, only the cells it names and the fitted ones.
if [ -n "$only" ]; then
	IFS=, read -r -a only_list <<<"$only"
	names=()
	for cell in "${cells[@]}"; do names+=("${cell%%|*}"); done
	for o in "${only_list[@]}"; do
		among "$o" "${names[@]}" || { echo "validate-redis.sh: -cells names $o, which is not a cell of this matrix (see -lags, -reads, -c, -failover)" >&2; exit 2; }
	done
	kept=()
	for cell in "${cells[@]}"; do
		name=${cell%%|*}
		if is_fit "$name" || among "$name" "${only_list[@]}"; then kept+=("$cell"); fi
	done
	cells=("${kept[@]}")
fi
# setargs prints -set and each of the ;-separated values of $1, NUL-separated.
setargs() { local s; IFS=';' read -r -a ss <<<"$1"; for s in "${ss[@]}"; do printf '%s\0%s\0' -set "$s"; done; }

if [ -n "$from" ]; then
	echo "# the live runs of $from ($(head -1 "$from/matrix.md" 2>/dev/null | sed 's/^# //')), predicted again $(date -u +%FT%TZ)" | tee "$out/matrix.md"
else
	echo "# $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ), repeats $repeat of $duration, $scenario, redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p')" | tee "$out/matrix.md"
fi

# live FILE CELL: run the cell (name|sets|read) live into $out/FILE.json.
live() {
	local file=$1 name sets rd
	IFS='|' read -r name sets rd <<<"$2"
	echo "$file: attack -repeat $repeat" >&2
	mapfile -d '' sa < <(setargs "$sets")
	"$bin/attack" -store redis -redis-harness -redis-read "$rd" -redis-timeout 300ms -no-report -json -repeat "$repeat" \
		"${sa[@]}" "$scenario" >"$out/$file.json" 2>"$out/$file.err" ||
		{ echo "validate-redis.sh: the attack of cell $name failed:" >&2; cat "$out/$file.err" >&2; exit 1; }
}

# The live runs; with -again 1, the fitted cells once more at the end.
ends=() # the fitted cells that have a run at the end
for cell in "${cells[@]}"; do
	name=${cell%%|*}
	if [ -n "$from" ]; then
		cp "$from/$name.json" "$out/" || { echo "validate-redis.sh: -from $from has no run $name.json" >&2; exit 1; }
		continue
	fi
	live "$name" "$cell"
done
if [ "$again" = 1 ]; then
	for cell in "${cells[@]}"; do
		name=${cell%%|*}
		is_fit "$name" || continue
		if [ -n "$from" ]; then
			[ -f "$from/$name.end.json" ] || continue
			cp "$from/$name.end.json" "$out/"
		else
			live "$name.end" "$cell"
		fi
		ends+=("$name")
	done
fi

# The calibration, on the fitted cells.
if [ -z "$calibrated" ]; then
	runs=()
	for c in "${fit_list[@]}"; do
		[ -f "$out/$c.json" ] || { echo "validate-redis.sh: -fit-cells names $c, which is not a cell of this matrix" >&2; exit 2; }
		runs+=("$out/$c.json")
		! among "$c" "${ends[@]}" || runs+=("$out/$c.end.json")
	done
	echo "calibrate on $fitcells: -fit $fit" >&2
	(IFS=,; "$bin/simulate" calibrate ${from:+-force} -fit "$fit" -trials "$trials" -out "$out/cal" "${runs[*]}") >"$out/cal.txt" 2>"$out/cal.err" ||
		{ echo "validate-redis.sh: the calibration failed:" >&2; cat "$out/cal.err" >&2; exit 1; }
	calibrated=$out/cal/calibrated.yaml
fi

# The rows: each cell's run, then the fitted cells' runs at the end.
rows=()
for cell in "${cells[@]}"; do
	name=${cell%%|*}
	role=held-out
	is_fit "$name" && role=fitted
	rows+=("$name|$role")
done
for name in "${ends[@]}"; do rows+=("$name.end|fitted, run again at the end"); done

# The predictions: a cell the model refuses gets {"not_yet": why}.
for row in "${rows[@]}"; do
	name=${row%%|*}
	if "$bin/simulate" compare ${from:+-force} -no-report -json "$out/$name.json" "$calibrated" >"$out/$name.sim.json" 2>"$out/$name.sim.err"; then
		jq -c '.comparison' "$out/$name.sim.json" >"$out/$name.cmp.json"
	else
		jq -n -c --arg why "$(head -c 300 "$out/$name.sim.err")" '{not_yet: $why}' >"$out/$name.cmp.json"
	fi
done

# The table.
{
	echo
	echo "| cell | role | live max ratio: median (range) | predicted median | predicted band | inside | relative error | lost updates: live count / rate, model rate | stale reads: live / model rate | requests a second: live / model |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	for row in "${rows[@]}"; do
		IFS='|' read -r name role <<<"$row"
		jq -r --arg name "$name" --arg role "$role" --slurpfile cmp "$out/$name.cmp.json" '
			def r3: . * 1000 | round / 1000;
			def chk($n): ($cmp[0].checks // []) | map(select(.name == $n)) | .[0];
			$cmp[0] as $k |
			"| \($name) | \($role) | \(.repeats.max_ratio.median) (\(.repeats.max_ratio.min)-\(.repeats.max_ratio.max)) | " +
			(if $k.not_yet then "model: not yet | - | - | - |"
			 else "\($k.predicted_median | r3) | \($k.predicted_band[0] | r3)-\($k.predicted_band[1] | r3) | \(if $k.inside_band then "yes" else "NO" end) | \($k.relative_error * 1000 | round / 10)% |" end) +
			" \(.kv.lost_updates) / \((if .kv.writes > 0 then .kv.lost_updates / .kv.writes else 0 end) | r3), \(chk("lost_update.rate").predicted_median // "-" | if type == "number" then r3 else . end) |" +
			" \(chk("stale_read.rate") | if . != null and .observed then (.measured | r3) else "-" end) / \(chk("stale_read.rate").predicted_median // "-" | if type == "number" then r3 else . end) |" +
			" \($k.rate | if . != null and .observed then "\(.measured | round) / \(.predicted_median | round)\(if .inside_band then "" else " (\(.measured / .predicted_median * 100 - 100 | round | if . > 0 then "+\(.)" else "\(.)" end)%)" end)" else "-" end) |"' "$out/$name.json"
	done
	echo
	[ ! -f "$out/cal.txt" ] || { echo "calibrated on $fitcells:"; sed -n '1,/^$/p' "$out/cal.txt"; }
	notyet=$(for cell in "${cells[@]}"; do jq -r --arg n "${cell%%|*}" 'select(.not_yet) | "\($n): \(.not_yet)"' "$out/${cell%%|*}.cmp.json"; done)
	[ -z "$notyet" ] || { echo "model: not yet (left out of the bar):"; echo "$notyet" | sed 's/^/  /'; }
} | tee -a "$out/matrix.md"

# The bar, over the held-out cells the model predicts.
held=()
for cell in "${cells[@]}"; do
	name=${cell%%|*}
	if ! is_fit "$name" && jq -e 'has("not_yet") | not' "$out/$name.cmp.json" >/dev/null; then held+=("$out/$name.cmp.json"); fi
done
bar_finish "$out" "$from" "$check" "$maxerr" "${held[@]}"
