#!/usr/bin/env bash
# bench/scale-curve.sh — cost against trace length for docs/performance.md: CPU seconds and peak RSS of one
# `ringsched simulate` run (one thread) per strategy, for the first 1k, 10k, 100k and all 1,069,211 jobs of the tiled
# Philly trace, at two loads: 16,384 GPUs (offered load 0.12) and 2,048 GPUs (0.95). Writes CSV
# `load,gpus,strategy,jobs,cpu_s,peak_rss_mb,events,decisions` on stdout; plot it with `scripts/plot scale FILE`.
# Usage: bench/scale-curve.sh [BUILD_DIR] [STRATEGY ...]   (default: eight fifo precompute tiresias)
# A run over RINGSCHED_SCALE_LIMIT_S (default 120) CPU seconds is killed and left out (with a note on stderr).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build}"
shift || true
bin="$build/bin/ringsched"
[[ -x "$bin" ]] || { echo "bench/scale-curve.sh: no $bin; build first" >&2; exit 2; }
strategies=("$@")
[[ ${#strategies[@]} -gt 0 ]] || strategies=(eight fifo precompute tiresias)
limit="${RINGSCHED_SCALE_LIMIT_S:-120}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "load,gpus,strategy,jobs,cpu_s,peak_rss_mb,events,decisions"
for setting in "0.12:16384:philly-1m-16384.json" "0.95:2048:philly-1m-2048.json"; do
  IFS=: read -r load gpus cfg <<<"$setting"
  for s in "${strategies[@]}"; do
    for jobs in 1000 10000 100000 1069211; do
      rc=0
      ( ulimit -t "$limit"; /usr/bin/time -f "%U %S %M" -o "$tmp/time" "$bin" simulate --config "$here/scale/$cfg" \
          --strategies "$s" --jobs "$jobs" --threads 1 --quiet --stats --format json >"$tmp/out.json" 2>"$tmp/err" ) || rc=$?
      if [[ $rc -ne 0 ]]; then
        echo "bench/scale-curve.sh: $s, $jobs jobs on $gpus GPUs: stopped (exit $rc, limit $limit CPU s)" >&2
        break  # longer traces only cost more
      fi
      read -r user sys rss < <(tail -1 "$tmp/time")
      read -r events decisions < <(/usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["stats"]; print(s["events"], s["decisions"])' "$tmp/out.json")
      awk -v l="$load" -v g="$gpus" -v s="$s" -v j="$jobs" -v u="$user" -v y="$sys" -v r="$rss" -v e="$events" -v d="$decisions" \
        'BEGIN{printf "%s,%s,%s,%s,%.2f,%.0f,%s,%s\n", l, g, s, j, u+y, r/1024, e, d}'
    done
  done
done
