#!/usr/bin/env bash
# bench/scale.sh — the scale study of docs/performance.md: CPU seconds and peak RSS of one `ringsched simulate` run per
# (config, strategy), one thread, outputs discarded. Usage: bench/scale.sh [BUILD_DIR] [CONFIG.json:strategy ...]
# With no pairs it times the targets of issues 13 and 23 (bench/scale/*.json: every strategy on the tiled Pollux
# trace, the 1.07 M-job Philly trace at load 0.95, `pollux` on 2,048 GPUs, Gavel's policies at 10x scale). Prints a
# Markdown table; a run over RINGSCHED_SCALE_LIMIT_S (default 120) CPU seconds is killed and reported as "> limit".
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build}"
shift || true
bin="$build/bin/ringsched"
[[ -x "$bin" ]] || { echo "bench/scale.sh: no $bin; build first (cmake --build build)" >&2; exit 2; }
limit="${RINGSCHED_SCALE_LIMIT_S:-120}"
pairs=("$@")
if [[ ${#pairs[@]} -eq 0 ]]; then
  for s in eight precompute optimus tiresias srtf fifo afs exploratory; do pairs+=("pollux-tiled-80k.json:$s"); done
  for s in eight precompute optimus tiresias srtf fifo afs; do pairs+=("philly-80k-256.json:$s"); done
  for s in eight precompute optimus tiresias; do pairs+=("philly-80k-2048.json:$s"); done
  for s in eight precompute tiresias; do pairs+=("philly-1m-16384.json:$s"); done
  for s in eight fifo srtf precompute optimus tiresias; do pairs+=("philly-1m-2048.json:$s"); done
  pairs+=("optimal-10k-1024.json:optimal" "pollux-32x-2048.json:pollux")
  for s in gavel_fifo gavel_fifo_perf max_min_fairness max_min_fairness_perf finish_time_fairness_perf; do
    pairs+=("gavel-10x.json:$s")
  done
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "| config | strategy | CPU s | peak RSS MB | events | decisions |"
echo "|---|---|---|---|---|---|"
for p in "${pairs[@]}"; do
  cfg="${p%%:*}"
  strat="${p##*:}"
  [[ -f "$cfg" ]] || cfg="$here/scale/$cfg"
  rc=0
  ( ulimit -t "$limit"; /usr/bin/time -f "%U %S %M" -o "$tmp/time" "$bin" simulate --config "$cfg" --strategies "$strat" \
      --threads 1 --quiet --stats --format json >"$tmp/out.json" 2>"$tmp/err" ) || rc=$?
  if [[ $rc -ne 0 ]]; then
    if grep -q "CPU time limit\|Killed" "$tmp/err" "$tmp/time" 2>/dev/null || [[ $rc -ge 128 ]]; then
      echo "| $(basename "$cfg" .json) | $strat | > $limit | - | - | - |"
    else
      echo "| $(basename "$cfg" .json) | $strat | failed (exit $rc): $(head -c 200 "$tmp/err") | | | |"
    fi
    continue
  fi
  read -r user sys rss < <(tail -1 "$tmp/time")
  stats="$(/usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1])).get("stats",{}); print(s.get("events","-"), s.get("decisions","-"))' "$tmp/out.json" 2>/dev/null || echo "- -")"
  read -r events decisions <<<"$stats"
  cpu="$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u+s}')"
  echo "| $(basename "$cfg" .json) | $strat | $cpu | $((rss / 1024)) | $events | $decisions |"
done
