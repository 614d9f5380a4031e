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

# A rank that cannot read the sweep file (missing on its machine) stops every rank with its message, exit 2; ranks
# that read different contents at the same path are refused (they would mix their results under rank 0's hash).
run_split() {  # run_split NAME RANK1_CONFIG: rank 0 reads $cfg, rank 1 reads RANK1_CONFIG
  set +e
  timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 sh -c '
    if [ "${OMPI_COMM_WORLD_RANK:-0}" = 1 ]; then c="$3"; else c="$2"; fi
    exec "$1" sweep --quiet --threads 1 --config "$c" --out "$4"' sh "$bin" "$cfg" "$2" "$dir/$1" 2>"$dir/$1.log"
  rc=$?
  set -e
}
run_split missing "$dir/no-such-sweep.json"
if [ "$rc" != 2 ] || ! grep -q "rank 1: .*no-such-sweep.json" "$dir/missing.log"; then
  echo "MPI sweep: a rank that cannot read its config gave exit $rc (124: hung):" >&2
  cat "$dir/missing.log" >&2
  exit 1
fi
echo "MPI sweep: a rank that cannot read its config stops every rank (exit 2, named)"
# The same sweep with one more replicate, its base named by absolute path (it sits in another folder).
/usr/bin/python3 -c '
import json, os, sys
d = json.load(open(sys.argv[1]))
d["replicates"] = d.get("replicates", 1) + 1
if isinstance(d.get("base"), str) and not d["base"].startswith("builtin:"):
    d["base"] = os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])), d["base"])
json.dump(d, open(sys.argv[2], "w"))' "$cfg" "$dir/other.json"
run_split differ "$dir/other.json"
if [ "$rc" != 2 ] || ! grep -q "ranks read different sweep files" "$dir/differ.log"; then
  echo "MPI sweep: ranks with different configs gave exit $rc:" >&2
  cat "$dir/differ.log" >&2
  exit 1
fi
echo "MPI sweep: ranks with different sweep files are refused (exit 2)"
