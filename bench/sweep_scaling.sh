#!/usr/bin/env bash
# bench/sweep_scaling.sh [RINGSCHED] — wall time of the 1,000-cell Table 3 sweep on 1 thread, 2 threads and 2 MPI
# ranks x 1 thread, with the speed-ups; also checks the three outputs are byte-identical.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${1:-$root/build/bin/ringsched}"
cfg="$root/bench/sweep-table3-1000.json"
dir="$(mktemp -d "${TMPDIR:-/tmp}/ringsched-scaling.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); awk "BEGIN{printf \"%.2f\", $e-$s}"; }
t1=$(t "$bin" sweep --quiet --threads 1 --config "$cfg" --out "$dir/t1")
t2=$(t "$bin" sweep --quiet --threads 2 --config "$cfg" --out "$dir/t2")
r2=$(t mpirun --allow-run-as-root --oversubscribe -np 2 "$bin" sweep --quiet --threads 1 --config "$cfg" --out "$dir/r2")
echo "1,000 cells (16,000 runs of 100 jobs), $(nproc) cores:"
echo "  1 thread:          $t1 s ($(awk "BEGIN{printf \"%.1f\", 1000/$t1}") cells/s)"
echo "  2 threads:         $t2 s ($(awk "BEGIN{printf \"%.1f\", 1000/$t2}") cells/s), speed-up $(awk "BEGIN{printf \"%.2f\", $t1/$t2}")x"
echo "  2 ranks x 1 thread: $r2 s ($(awk "BEGIN{printf \"%.1f\", 1000/$r2}") cells/s), speed-up $(awk "BEGIN{printf \"%.2f\", $t1/$r2}")x"
for f in sweep.json runs.csv cells.csv; do
  cmp -s "$dir/t1/$f" "$dir/t2/$f" && cmp -s "$dir/t1/$f" "$dir/r2/$f" || { echo "  $f differs!"; exit 1; }
done
echo "  outputs identical across the three runs"
