#!/usr/bin/env bash
# bench-attack.sh: how fast is overshoot's attack runner next to the vegeta
# CLI? Both attack the same built-in target (attack -serve, memory store, no
# store latency) on 127.0.0.1 with the same closed loop (CONCURRENCY requests
# in flight, no rate limit) for the same DURATION, each writing every result
# to a vegeta results file. Rounds alternate which runner goes first, so that
# neither always meets a warmer (or a busier) machine.
#
# Both rates are computed the same way, by `vegeta report` from each run's
# results file: requests completed / wall time of the attack, from the first
# request sent to the last response received (report's duration + wait).
# Prints each round's rates and ratio, then the median and the spread
# (min-max) of the ratios (goal: median >= 0.95).
#
# Traffic goes to 127.0.0.1 only (the target is started here) and each run
# stops after DURATION.
#
# The vegeta CLI is built from go.mod's tool directive (go tool vegeta); it
# is not added to the repository.
#
# Usage: scripts/bench-attack.sh
# Environment: DURATION (default 10s), CONCURRENCY (default 8), ROUNDS (default 5)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
duration="${DURATION:-10s}"
conc="${CONCURRENCY:-8}"
rounds="${ROUNDS:-5}"

tmp="$(mktemp -d)"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "building attack and the vegeta CLI ..." >&2
go build -o "$tmp/attack" ./cmd/attack
go build -o "$tmp/vegeta" github.com/tsenart/vegeta/v12

"$tmp/attack" -serve -store memory -set store.latency=0s >"$tmp/serve.out" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 100); do
  url="$(sed -n 's/^overshoot target: \(http[^ ]*\).*/\1/p' "$tmp/serve.out" | head -1)"
  [[ -n "$url" ]] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$tmp/serve.out" >&2; echo "bench-attack: the target did not start" >&2; exit 1; }
  sleep 0.1
done
[[ -n "$url" ]] || { echo "bench-attack: the target did not print its URL" >&2; exit 1; }
case "$url" in
  http://127.0.0.1:*) ;;
  *) echo "bench-attack: the target is at $url, not on 127.0.0.1" >&2; exit 1 ;;
esac
echo "target $url, $conc in flight, $duration per run, $rounds rounds, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

num() { # num KEY FILE: the first number after "KEY": in a JSON file
  grep -o "\"$1\": *[0-9.eE+-]*" "$2" | head -1 | sed 's/.*: *//'
}
str() { # str KEY FILE: the first string after "KEY": in a JSON file
  grep -o "\"$1\": *\"[^\"]*\"" "$2" | head -1 | sed 's/.*: *"//; s/"$//'
}

# rate FILE: requests completed per second of the attack's wall time, from
# a vegeta results file.
rate() {
  "$tmp/vegeta" report -type=json <"$1" >"$tmp/report.json"
  awk -v n="$(num requests "$tmp/report.json")" -v d="$(num duration "$tmp/report.json")" -v w="$(num wait "$tmp/report.json")" \
    'BEGIN { printf "%.1f", n / ((d + w) / 1e9) }'
}

run_vegeta() {
  echo "GET $url" | "$tmp/vegeta" attack -rate=0 -workers="$conc" -max-workers="$conc" -duration="$duration" \
    -header "X-Anon-Token: bench-vegeta" -header "X-Forwarded-For: 10.9.9.9" >"$tmp/vegeta.bin"
  rate "$tmp/vegeta.bin"
}

run_attack() {
  rm -rf "$tmp/reports"
  "$tmp/attack" -url "$url" -duration "$duration" -max-requests 1000000000 \
    -set "traffic.bot.closed_loop.concurrency=$conc" -json -out "$tmp/reports" >"$tmp/attack.json"
  rate "$(str results_file "$tmp/attack.json")"
}

ratios=()
for r in $(seq 1 "$rounds"); do
  if (( r % 2 )); then
    v="$(run_vegeta)"; a="$(run_attack)"; first=vegeta
  else
    a="$(run_attack)"; v="$(run_vegeta)"; first=attack
  fi
  ratio="$(awk -v a="$a" -v v="$v" 'BEGIN { printf "%.3f", a / v }')"
  ratios+=("$ratio")
  printf 'round %d (%s first): vegeta CLI %.0f req/s, attack %.0f req/s, ratio %s\n' "$r" "$first" "$v" "$a" "$ratio"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '
  { x[NR] = $1 }
  END {
    med = NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2
    printf "attack/vegeta throughput ratio: median %.3f, spread %.3f-%.3f over %d rounds (goal: median >= 0.95)\n", med, x[1], x[NR], NR
  }'
