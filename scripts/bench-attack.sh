#!/usr/bin/env bash
# bench-attack.sh: how fast is overshoot's attack runner next to the vegeta
# CLI? Both attack the same built-in target (attack -serve, memory store, no
# store latency) on 127.0.0.1 in the same run, in alternating rounds, with the
# same closed loop (CONCURRENCY requests in flight, no rate limit), each
# writing every result to a results file. Prints each round's rates and the
# ratio attack/vegeta (goal: >= 0.9).
#
# The vegeta CLI is built from go.mod's tool directive (go tool vegeta); it
# is not added to the repository.
#
# Usage: scripts/bench-attack.sh
# Environment: DURATION (default 5s), CONCURRENCY (default 8), ROUNDS (default 2)
#
# Rates: vegeta's is `vegeta report`'s "rate" (requests sent / attack time);
# attack's is summary.json's live.achieved_rate (responses / run time, which
# also covers the last responses' wait), so the ratio slightly favours vegeta.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
duration="${DURATION:-5s}"
conc="${CONCURRENCY:-8}"
rounds="${ROUNDS:-2}"

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
echo "target $url, $conc in flight, $duration per run, $rounds rounds" >&2

num() { # num KEY FILE: the first number after "KEY": in a JSON file
  grep -o "\"$1\": *[0-9.eE+-]*" "$2" | head -1 | sed 's/.*: *//'
}

sum_v=0
sum_a=0
for r in $(seq 1 "$rounds"); do
  echo "GET $url" | "$tmp/vegeta" attack -rate=0 -workers="$conc" -max-workers="$conc" -duration="$duration" \
    -header "X-Anon-Token: bench-vegeta" -header "X-Forwarded-For: 10.9.9.9" >"$tmp/vegeta.bin"
  "$tmp/vegeta" report -type=json <"$tmp/vegeta.bin" >"$tmp/vegeta.json"
  v="$(num rate "$tmp/vegeta.json")"

  "$tmp/attack" -url "$url" -duration "$duration" -max-requests 1000000000 \
    -set "traffic.bot.closed_loop.concurrency=$conc" -json -out "$tmp/reports" >"$tmp/attack.json"
  a="$(num achieved_rate "$tmp/attack.json")"

  printf 'round %d: vegeta CLI %.0f req/s, attack %.0f req/s, ratio %.3f\n' "$r" "$v" "$a" "$(awk -v a="$a" -v v="$v" 'BEGIN{print a/v}')"
  sum_v="$(awk -v s="$sum_v" -v x="$v" 'BEGIN{print s+x}')"
  sum_a="$(awk -v s="$sum_a" -v x="$a" 'BEGIN{print s+x}')"
done
ratio="$(awk -v a="$sum_a" -v v="$sum_v" 'BEGIN{printf "%.3f", a/v}')"
echo "attack/vegeta throughput ratio: $ratio (goal >= 0.9)"
