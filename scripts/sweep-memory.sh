#!/usr/bin/env bash
# sweep-memory.sh measures the peak memory (resident set) and time of a
# 10,000-point sweep as simulate runs it: default.yaml with 1 trial of 1 s
# per point, swept over 10,000 think times (0-9,999 us) and, with -limits,
# over limits 1-10,000 instead (each point's read groups as long as its
# limit). It runs the sweep three ways: without a report, with -json, and
# with the report. Issue 14's goal is under 1 GB.
#
# usage: scripts/sweep-memory.sh [-limits] [-points N]
# Needs GNU time (/usr/bin/time, Debian package "time").
set -euo pipefail
cd "$(dirname "$0")/.."

path=traffic.bot.closed_loop.think
unit=us
first=0
points=10000
while [ $# -gt 0 ]; do
	case "$1" in
	-limits) path=limiter.limit; unit=; first=1; shift ;;
	-points) points=$2; shift 2 ;;
	*) echo "usage: $0 [-limits] [-points N]" >&2; exit 2 ;;
	esac
done
if [ ! -x /usr/bin/time ]; then
	echo "$0: needs GNU time at /usr/bin/time (apt-get install time)" >&2
	exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -pgo=cmd/simulate/default.pgo -o "$work/simulate" ./cmd/simulate
{
	sed -e 's/^trials: .*/trials: 1/' -e 's/^duration: .*/duration: 1s/' scenarios/default.yaml
	printf '\nsweep:\n  - path: %s\n    values: [' "$path"
	seq -s ', ' -f "%.0f$unit" "$first" $((first + points - 1)) | tr -d '\n'
	printf ']\n'
} >"$work/sweep.yaml"

echo "# $points points over $path, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
for how in "-no-report" "-no-report -json" "-out $work/reports"; do
	# shellcheck disable=SC2086 # $how is several flags
	/usr/bin/time -f '%M %e' -o "$work/time" "$work/simulate" -workers 1 $how "$work/sweep.yaml" >/dev/null 2>"$work/err" ||
		{ cat "$work/err" >&2; exit 1; }
	awk -v how="${how%% $work*}" '{ printf "%-16s peak %5.0f MB, %s s\n", how, $1 / 1024, $2 }' "$work/time"
done
