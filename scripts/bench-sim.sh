#!/usr/bin/env bash
# bench-sim.sh runs the simulator's speed benchmarks (BenchmarkLibrary: every
# scenario of the library as simulate runs it; BenchmarkClients: the cost per
# request at 1, 100 and 10,000 clients) and compares them with the committed
# baseline, bench/baseline.txt, using benchstat. With -callgrind it also
# counts the instructions per simulated request of the default and botnet
# scenarios under valgrind: counts, unlike times, repeat on a busy machine
# (within about 0.5%), so they are what to judge a change by there. It
# counts the hand loops of the same scenarios too (BenchmarkHandLoop, issue
# 14's yardstick) and prints the model's count over theirs. With -clients
# it counts BenchmarkClients' ends instead, 1 and 10,000 clients, for the
# model and the hand loop, with the garbage collector off (GOGC=off, which
# the benchmarks keep), and prints what a request costs at 10,000 over 1.
#
# usage: scripts/bench-sim.sh [-base FILE] [-count N] [-bench REGEXP] [-callgrind] [-clients] [-update]
#   -base FILE    compare with FILE (default bench/baseline.txt; the speed
#                 before issue 14's work is bench/before-issue14.txt)
#   -count N      runs of each benchmark (default 6; benchstat wants >= 6)
#   -bench RE     which benchmarks (default 'Library|Clients')
#   -callgrind    also count instructions per request (needs valgrind)
#   -clients      with -callgrind: count 1 and 10,000 clients instead
#                 (about 10 minutes)
#   -update       write the results to bench/baseline.txt
#
# The benchmarks are built with the profile cmd/simulate is built with
# (cmd/simulate/default.pgo, profile-guided optimisation), as users run it.
# After a large change to the model, regenerate that profile with
#   go test -run '^$' -bench 'Library/(default|botnet|store-comparison|virtual-caches|outage)$' \
#       -benchtime 3s -cpuprofile cmd/simulate/default.pgo ./internal/model/
#
# The last table it prints (median req/cpu-s, and the ratio to the
# baseline's median) is what the README's Speed section quotes.
set -euo pipefail
cd "$(dirname "$0")/.."

benchstat=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
pgo=cmd/simulate/default.pgo
base=bench/baseline.txt
count=6
bench='Library|Clients'
callgrind=0
clients=0
update=0
while [ $# -gt 0 ]; do
	case "$1" in
	-base) base=$2; shift 2 ;;
	-count) count=$2; shift 2 ;;
	-bench) bench=$2; shift 2 ;;
	-callgrind) callgrind=1; shift ;;
	-clients) clients=1; shift ;;
	-update) update=1; shift ;;
	*) echo "usage: $0 [-base FILE] [-count N] [-bench REGEXP] [-callgrind] [-clients] [-update]" >&2; exit 2 ;;
	esac
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
new=$work/new.txt

echo "# $(go version), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)" | tee "$new"
go test -pgo="$pgo" -run '^$' -bench "$bench" -count "$count" ./internal/model/ | tee -a "$new"

if [ "$callgrind" = 1 ]; then
	# One process per count, on one thread, without asynchronous preemption
	# (its signals upset callgrind). Instructions per request are the
	# difference between 5 iterations and 1, over the 4 iterations' requests,
	# so that process start and compilation cancel out.
	go test -c -pgo="$pgo" -o "$work/model.test" ./internal/model/
	# The hand loops (BenchmarkHandLoop, issue 14's yardstick: the same
	# model written out by hand, the same counts) are counted too, and the
	# model's count is printed over theirs.
	instr() { # benchmark iterations -> "instructions requests-per-op"
		GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
			--callgrind-out-file="$work/cg.out" "$work/model.test" -test.run='^$' \
			-test.bench="$1\$" -test.benchtime="$2x" >"$work/cg.txt" 2>&1
		ir=$(grep -E '^(summary|totals):' "$work/cg.out" | head -1 | awk '{print $2}')
		reqs=$(awk '/req\/op/ { for (i = 1; i < NF; i++) if ($(i+1) == "req/op") print $i }' "$work/cg.txt")
		echo "$ir $reqs"
	}
	perreq() { # benchmark [iterations] -> instructions per request
		n=${2:-5}
		read -r i1 _ < <(instr "$1" 1)
		read -r in r < <(instr "$1" "$n")
		awk -v a="$i1" -v b="$in" -v n="$n" -v r="$r" 'BEGIN { printf "%.0f", (b - a) / ((n - 1) * r) }'
	}
	if [ "$clients" = 1 ]; then
		# 9 iterations, and no collection at all: the 10,000 clients'
		# set-up brings collections on, and where their marking falls
		# moved the count by hundreds.
		export GOGC=off
		for b in Clients HandLoop; do
			one=$(perreq "Benchmark$b/clients=1" 9)
			many=$(perreq "Benchmark$b/clients=10000" 9)
			echo "BenchmarkInstructions/$b-clients=1 1 $one instr/req" | tee -a "$new"
			echo "BenchmarkInstructions/$b-clients=10000 1 $many instr/req" | tee -a "$new"
			awk -v b="$b" -v one="$one" -v many="$many" 'BEGIN { printf "# %s: 10,000 clients / 1 client %.2fx in instructions\n", b, many / one }' | tee -a "$new"
		done
		unset GOGC
	fi
	for s in $([ "$clients" = 1 ] || echo default botnet); do
		m=$(perreq "BenchmarkLibrary/$s")
		h=$(perreq "BenchmarkHandLoop/$s")
		echo "BenchmarkInstructions/$s 1 $m instr/req" | tee -a "$new"
		echo "BenchmarkInstructions/handloop-$s 1 $h instr/req" | tee -a "$new"
		awk -v s="$s" -v m="$m" -v h="$h" 'BEGIN { printf "# %s: model / hand loop %.2fx in instructions\n", s, m / h }' | tee -a "$new"
	done
fi

echo
go run "$benchstat" "$base" "$new" || true

echo
echo "| benchmark | baseline req/cpu-s (median) | now | ratio |"
echo "|---|---|---|---|"
awk '
function median(arr, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j+1] = arr[j]; arr[j+1] = t }
	return n % 2 ? arr[(n+1)/2] : (arr[n/2] + arr[n/2+1]) / 2
}
FNR == 1 { f++ }
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	for (i = 3; i < NF; i++) if ($(i+1) == "req/cpu-s" || $(i+1) == "instr/req") {
		unit[name] = $(i+1); k = f SUBSEP name; n[k]++; v[k, n[k]] = $i
		if (!(name in seen)) { seen[name] = 1; order[++m] = name }
	}
}
END {
	for (x = 1; x <= m; x++) {
		name = order[x]
		for (g = 1; g <= 2; g++) { k = g SUBSEP name; delete a; for (i = 1; i <= n[k]; i++) a[i] = v[k, i]; med[g] = n[k] ? median(a, n[k]) : 0 }
		r = med[1] > 0 && med[2] > 0 ? sprintf("%.2fx", unit[name] == "instr/req" ? med[1] / med[2] : med[2] / med[1]) : "-"
		fmt = unit[name] == "instr/req" ? "%.0f" : "%.2f M"
		d = unit[name] == "instr/req" ? 1 : 1e6
		printf "| %s (%s) | " fmt " | " fmt " | %s |\n", name, unit[name], med[1] / d, med[2] / d, r
	}
}' "$base" "$new"

if [ "$update" = 1 ]; then
	cp "$new" bench/baseline.txt
	echo "wrote bench/baseline.txt"
fi
