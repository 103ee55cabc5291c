# bar.sh: the validation bar, shared by validate-worker.sh and
# validate-redis.sh (source it; it defines functions only).

# bar_verdict PREFIX FILE...: one line over the held-out comparisons in the
# files (compare's JSON, one or more values each): how many are inside their
# bands, the median relative error, and whether that MEETS or MISSES the bar
# (>= 90% inside, median error <= 15%).
bar_verdict() {
	local prefix=$1
	shift
	jq -s -r --arg prefix "$prefix" '
		(map(select(.inside_band)) | length) as $in | length as $n |
		(map(.relative_error) | sort) as $e |
		(if $n == 0 then 0 elif $n % 2 == 1 then $e[($n - 1) / 2] else ($e[$n / 2 - 1] + $e[$n / 2]) / 2 end) as $med |
		"\($prefix)held-out cells: \($in) of \($n) inside the band (\(if $n > 0 then $in * 1000 / $n | round / 10 else 0 end)%), median relative error \($med * 1000 | round / 10)%; " +
		(if $n > 0 and $in * 10 >= $n * 9 and $med <= 0.15 then "MEETS" else "MISSES" end) + " the bar (>= 90% inside, median error <= 15%)"' "$@"
}

# bar_finish OUT FROM CHECK MAXERR FILE...: judges the held-out comparisons
# in the files, keeps them in OUT/held.json, appends the load average (when
# FROM is empty: the runs were measured now) and the verdict to
# OUT/matrix.md, and exits 1 when CHECK is 1 and the bar is missed, or when
# MAXERR is set and a cell outside its band is more than MAXERR percent off
# (a cell inside its band did not miss, however far its median is: a live
# 1 against a predicted 1.8 in a band of 1 to 2 is the model right).
bar_finish() {
	local out=$1 from=$2 check=$3 maxerr=$4 verdict worst
	shift 4
	verdict=$(bar_verdict "" "$@")
	jq -s -c '.[]' "$@" >"$out/held.json"
	[ -n "$from" ] || echo "(load average at the end $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ))" | tee -a "$out/matrix.md"
	echo | tee -a "$out/matrix.md"
	echo "$verdict" | tee -a "$out/matrix.md"
	echo "wrote $out/matrix.md" >&2
	if [ "$check" = 1 ] && [[ "$verdict" == *MISSES* ]]; then exit 1; fi
	if [ -n "$maxerr" ]; then
		worst=$(jq -s -r 'map(select(.inside_band | not) | .relative_error) | (max // 0) * 1000 | round / 10' "$@")
		if awk -v w="$worst" -v m="$maxerr" 'BEGIN { exit !(w > m) }'; then
			echo "the worst relative error of a held-out cell outside its band, ${worst}%, is above -max-error ${maxerr}%" | tee -a "$out/matrix.md"
			exit 1
		fi
		echo "the worst relative error of a held-out cell outside its band, ${worst}%, is within -max-error ${maxerr}%" | tee -a "$out/matrix.md"
	fi
}
