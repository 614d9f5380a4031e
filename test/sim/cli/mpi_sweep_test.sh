#!/usr/bin/env bash
# test/sim/cli/mpi_sweep_test.sh RINGSCHED SWEEP_FILE — a sweep over 2 MPI ranks must write the same bytes as one
# process (run by ctest when ringsched was built with MPI).
set -euo pipefail
bin="$1"
cfg="$2"
dir="$(mktemp -d "${TMPDIR:-/tmp}/ringsched-mpi-sweep.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
# OpenMPI allocates at MPI_Init and never frees: not our leaks.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
"$bin" sweep --quiet --threads 1 --config "$cfg" --out "$dir/one"
mpirun --allow-run-as-root --oversubscribe -np 2 "$bin" sweep --quiet --threads 1 --config "$cfg" --out "$dir/two" \
  2>"$dir/two.log" || { cat "$dir/two.log" >&2; exit 1; }
grep -q "on 2 rank(s)" "$dir/two.log" || { echo "mpirun did not give 2 ranks:" >&2; cat "$dir/two.log" >&2; exit 1; }
for f in sweep.json runs.csv cells.csv; do
  cmp "$dir/one/$f" "$dir/two/$f" || { echo "MPI sweep: $f differs between 1 and 2 ranks" >&2; exit 1; }
done
echo "MPI sweep: identical output for 1 process and 2 ranks"

# A rank that fails alone (rank 0 here, before a batch, while rank 1 waits in the gather) must stop every rank within
# seconds, with a message, instead of leaving them waiting forever.
set +e
RINGSCHED_SWEEP_FAIL_RANK=0 timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$bin" sweep --quiet \
  --threads 1 --config "$cfg" --out "$dir/fail" 2>"$dir/fail.log"
rc=$?
set -e
if [ "$rc" = 124 ] || [ "$rc" = 0 ]; then
  echo "MPI sweep: a failing rank gave exit $rc (124: the other rank hung)" >&2
  cat "$dir/fail.log" >&2
  exit 1
fi
grep -q "stopping every rank" "$dir/fail.log" || { echo "no failure message:" >&2; cat "$dir/fail.log" >&2; exit 1; }
echo "MPI sweep: a failing rank stops every rank (exit $rc)"
