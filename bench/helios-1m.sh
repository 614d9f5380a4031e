#!/usr/bin/env bash
# bench/helios-1m.sh — issue 40's speed target: a 1,000,000-row Helios-format trace under every trace strategy in
# < 30 s CPU and < 2 GB. The log is synthetic (scripts/helios_synthetic.py: Philly-shaped, Philly's 11 virtual
# clusters from workloads/data/helios/philly_vc.csv, 352 nodes x 8 GPUs, offered load 0.9 per VC, seed 1, the first
# 1,000,000 rows of 80 days), since the real Helios and Philly logs cannot be fetched here. Two configs: `vc` runs the
# Helios policies on the virtual clusters (consolidating placement), `flat` runs every trace strategy on the same
# 2,816 GPUs as one cluster. Usage: bench/helios-1m.sh [BUILD_DIR] [vc|flat:strategy ...]; prints bench/scale.sh's
# Markdown table (CPU seconds, peak RSS, events, decisions; one thread).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build}"
shift || true
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
vcs="$here/../workloads/data/helios/philly_vc.csv"
/usr/bin/python3 "$here/../scripts/helios_synthetic.py" "$vcs" --days 80 --seed 1 --out "$tmp/full.csv"
head -n 1000001 "$tmp/full.csv" >"$tmp/helios-1m.csv"
rm -f "$tmp/full.csv"
trace="\"trace\": {\"file\": \"$tmp/helios-1m.csv\", \"format\": \"helios\", \"oversize\": \"clamp\"}"
cat >"$tmp/vc.json" <<JSON
{"cluster": {"nodes": 352, "gpus_per_node": 8,
             "virtual_clusters": {"file": "$(cd "$(dirname "$vcs")" && pwd)/philly_vc.csv", "placement": "consolidate"}},
 "workload": {"catalog": "paper", $trace},
 "strategies": [{"name": "fifo"}], "seeds": 1}
JSON
cat >"$tmp/flat.json" <<JSON
{"cluster": {"nodes": 352, "gpus_per_node": 8},
 "workload": {"catalog": "paper", $trace},
 "strategies": [{"name": "fifo"}], "seeds": 1}
JSON
pairs=()
for p in "$@"; do pairs+=("$tmp/${p%%:*}.json:${p##*:}"); done
if [[ ${#pairs[@]} -eq 0 ]]; then
  for s in fifo sjf qssf srtf; do pairs+=("$tmp/vc.json:$s"); done
  for s in fifo sjf qssf srtf eight precompute tiresias optimus afs; do pairs+=("$tmp/flat.json:$s"); done
fi
"$here/scale.sh" "$build" "${pairs[@]}"
