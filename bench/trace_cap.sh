#!/usr/bin/env bash
# bench/trace_cap.sh — a capped run on a huge trace (issue 25): writes a generic trace of ROWS rows (default
# 10,000,000, about 148 MB, unsorted submit times) to a temporary folder, then times `ringsched simulate --jobs 20`
# and `--jobs 100000` on it (eight, one thread) with wall seconds and peak RSS. The trace is streamed and only the
# first `--jobs` rows by submit time are held, so memory follows the cap, not the file.
# Usage: bench/trace_cap.sh [BUILD_DIR] [ROWS]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build}"
rows="${2:-10000000}"
bin="$build/bin/ringsched"
[[ -x "$bin" ]] || { echo "bench/trace_cap.sh: no $bin; build first (cmake --build build)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "bench/trace_cap.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
[[ "$rows" =~ ^[1-9][0-9]{0,8}$ ]] || { echo "bench/trace_cap.sh: ROWS must be an integer 1..999999999" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
awk -v n="$rows" 'BEGIN { srand(1); print "timestamp,duration,num_gpus";
  for (i = 0; i < n; i++) printf "%d,%d,%d\n", int(rand() * 1e7), 60 + int(rand() * 7140), 2 ^ int(rand() * 4) }' \
  > "$tmp/trace.csv"
cat > "$tmp/cfg.json" <<JSON
{
  "cluster": {"nodes": 32, "gpus_per_node": 8},
  "workload": {"catalog": "paper", "trace": {"file": "trace.csv", "format": "generic"}},
  "strategies": ["eight"],
  "seeds": 1,
  "output": {"events": "none"}
}
JSON
echo "trace: $rows rows, $(du -m "$tmp/trace.csv" | cut -f1) MB"
echo "| --jobs | wall s | peak RSS MB |"
echo "|---|---|---|"
for jobs in 20 100000; do
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$bin" simulate --config "$tmp/cfg.json" --jobs "$jobs" --threads 1 \
    --quiet > /dev/null 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  read -r wall kb < "$tmp/time"
  echo "| $jobs | $wall | $((kb / 1024)) |"
done
