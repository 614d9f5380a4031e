#!/usr/bin/env bash
# bench/gavel.sh — CPU seconds of Gavel's two continuous experiments (docs/fidelity.md "Gavel"): every rate and seed
# of workloads/examples/gavel-continuous.json and gavel-continuous-multigpu.json, one `simulate` per policy, one
# thread (bench/scale.sh does the timing). Usage: bench/gavel.sh [BUILD_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
examples="$here/../workloads/examples"
pairs=()
for cfg in gavel-continuous gavel-continuous-multigpu; do
  for s in gavel_fifo gavel_fifo_perf max_min_fairness max_min_fairness_perf finish_time_fairness_perf; do
    pairs+=("$examples/$cfg.json:$s")
  done
done
RINGSCHED_SCALE_LIMIT_S="${RINGSCHED_SCALE_LIMIT_S:-600}" exec "$here/scale.sh" "${1:-$here/../build}" "${pairs[@]}"
