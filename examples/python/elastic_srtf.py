#!/usr/bin/python3
"""examples/python/elastic_srtf.py — a scheduling policy written in Python, run by ringsched's C++ engine and
compared with the built-in `precompute` and `eight` on the held-out example (docs/python.md).

The policy, `elastic_srtf`: jobs in order of believed remaining time on one GPU (shortest first); each, in that
order, gets the largest power-of-two GPU count whose believed speed-up over half as many GPUs is at least
`min_gain` (capped by its max and by the GPUs left), or waits. A running job keeps its count unless the new one
differs by a factor of `resize_factor` or more, so that it restarts (checkpoint, resize, resume) only for a large
change.

Run after building (Debian's /usr/bin/python3, which the shebang names; the build tree's package is found without
PYTHONPATH):
    examples/python/elastic_srtf.py [--seeds 5] [--config PATH] [--out out/elastic]
"""

import argparse
import os
import sys

from find_ringsched import ROOT, import_ringsched


ringsched = import_ringsched("elastic_srtf.py")
HELDOUT = os.path.join(ROOT, "workloads", "examples", "heldout.json")


class ElasticSrtf(ringsched.Strategy):
    def __init__(self, min_gain=1.4, resize_factor=2):
        if not min_gain >= 1.0:
            raise ValueError(f"min_gain must be >= 1, got {min_gain!r}")
        if not (isinstance(resize_factor, int) and resize_factor >= 1):
            raise ValueError(f"resize_factor must be an int >= 1, got {resize_factor!r}")
        self.min_gain = min_gain
        self.resize_factor = resize_factor

    def target(self, job):
        """The count doubling reaches while each doubling speeds the job up by min_gain (believed)."""
        w = job.min_gpus
        while 2 * w <= job.max_gpus and job.believed_throughput(2 * w) >= self.min_gain * job.believed_throughput(w):
            w *= 2
        return w

    def decide(self, snapshot):
        free = snapshot.total_gpus
        want = {}
        for job in sorted(snapshot.jobs, key=lambda j: (j.believed_time(j.min_gpus), j.arrival_s, j.id)):
            w = self.target(job)
            if job.gpus > 0 and max(w, job.gpus) < self.resize_factor * min(w, job.gpus):
                w = job.gpus  # a small change: not worth a restart
            while w > free and w // 2 >= job.min_gpus:
                w //= 2
            if w > free:
                w = 0
            want[job.id] = w
            free -= w
        return {j.id: want[j.id] for j in snapshot.jobs if want[j.id] != j.gpus}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default=HELDOUT, help="experiment config (JSON; default the held-out example)")
    ap.add_argument("--seeds", type=int, default=5, help="replicates per cell (the config has 20)")
    ap.add_argument("--out", help="also write summary.json, jobs.csv, ... here (for examples/python/plot_results.py)")
    args = ap.parse_args(argv)
    ringsched.register_strategy("elastic_srtf", ElasticSrtf, params=["min_gain", "resize_factor"],
                                default_beliefs="history",
                                description="Shortest believed remaining time first, doubling while it pays.")
    try:
        res = ringsched.simulate(args.config, seeds=args.seeds, strategies=["eight", "precompute", "elastic_srtf"])
    except ringsched.InputError as e:
        print(f"elastic_srtf.py: {e}", file=sys.stderr)
        return 2
    print(res.table("table3", reports=False))
    if args.out:
        res.write(args.out)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
