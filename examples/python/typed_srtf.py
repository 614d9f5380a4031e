#!/usr/bin/python3
"""examples/python/typed_srtf.py — a heterogeneity-aware SRTF written in Python, run by ringsched's C++ engine on a
cluster with two GPU types (workloads/examples/typed-pools.json) and compared with the built-ins that choose types
there (docs/python.md, "GPU types").

The policy, `typed_srtf` (preemptive, decided afresh at every event): every active job asks for `gpus` GPUs (within
its class's limits); jobs go in order of believed remaining time on their fastest type (believed remaining work /
the highest believed throughput over the cluster's types; ties: earlier arrival, lower id), and each, in that
order, gets the GPU type with the highest believed throughput that still has room for it (ties: the pool listed
first), or waits (a running job is stopped). A job already on the chosen type at the same count keeps running.
tests/test_typed.py checks that this class gives exactly the JCTs of its C++ twin
(test/strategies/test_typed_srtf_twin.cpp).

Run after building (Debian's /usr/bin/python3, which the shebang names; the build tree's package is found without
PYTHONPATH):
    examples/python/typed_srtf.py [--seeds 5] [--config PATH] [--out out/typed]
"""

import argparse
import json
import os
import sys

from find_ringsched import ROOT, import_ringsched

ringsched = import_ringsched("typed_srtf.py")
TYPED = os.path.join(ROOT, "workloads", "examples", "typed-pools.json")


class TypedSrtf(ringsched.Strategy):
    def __init__(self, gpus=4):
        if not (isinstance(gpus, int) and gpus >= 1):
            raise ValueError(f"gpus must be an int >= 1, got {gpus!r}")
        self.gpus = gpus

    def decide(self, snapshot):
        pools = snapshot.pools
        free = [p.gpus for p in pools]  # afresh: every job may be placed again (preemptive)
        plan = []
        for job in snapshot.jobs:
            need = max(job.min_gpus, min(self.gpus, job.max_gpus))
            rates = [job.believed_throughput(need, gpu_type=p.gpu_type) for p in pools]
            best = max(rates)
            left = job.believed_remaining_work() / best if best > 0 else float("inf")
            plan.append((left, job.arrival_s, job.id, job, need, rates))
        plan.sort(key=lambda t: t[:3])
        out = {}
        for _, _, _, job, need, rates in plan:
            # The fastest type with room (ties: the pool listed first); types where it cannot run are skipped.
            fits = [p for p in range(len(pools)) if rates[p] > 0 and free[p] >= need]
            if not fits:
                if job.gpus > 0:
                    out[job.id] = 0
                continue
            p = min(fits, key=lambda q: (-rates[q], q))
            free[p] -= need
            if job.gpus != need or job.pool != p:
                out[job.id] = (pools[p].gpu_type, need)
        return out


def register(name="typed_srtf"):
    ringsched.register_strategy(name, TypedSrtf, params=["gpus"], default_beliefs="oracle", gpu_types=True,
                                description="Shortest believed remaining time first, each job on the fastest type "
                                "with room.")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default=TYPED, help="experiment config (JSON; default the typed-pools example)")
    ap.add_argument("--seeds", type=int, default=5, help="replicates per cell")
    ap.add_argument("--out", help="also write summary.json, jobs.csv, ... here")
    args = ap.parse_args(argv)
    register()
    try:
        with open(args.config) as f:
            config = json.load(f)
        # The config's own strategies (typed-pools.json: rigid FIFO on the first pool with room, and on the fastest
        # type with room), the built-ins that choose types with oracle beliefs, and this policy.
        config["strategies"] = config.get("strategies", []) + [
            {"name": "precompute", "beliefs": "oracle"},
            {"name": "optimus", "beliefs": "oracle"},
            {"name": "typed_srtf", "params": {"gpus": 4}},
        ]
        res = ringsched.simulate(config, seeds=args.seeds, base_dir=os.path.dirname(os.path.abspath(args.config)))
    except (OSError, ValueError) as e:
        print(f"typed_srtf.py: {e}", file=sys.stderr)
        return 2
    jct = res.mean_jct_s()
    levels = list(dict.fromkeys(level for level, _ in jct))
    labels = list(dict.fromkeys(label for _, label in jct))
    print("mean JCT (min), %d seeds" % args.seeds)
    print("| strategy | " + " | ".join(levels) + " |")
    print("|---|" + "---:|" * len(levels))
    for label in labels:
        print(f"| {label} | " + " | ".join(f"{jct[(level, label)] / 60:.1f}" for level in levels) + " |")
    if args.out:
        res.write(args.out)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
