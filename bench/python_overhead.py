#!/usr/bin/python3
"""bench/python_overhead.py — the CPU cost of a policy written in Python against the same policy in C++ (issue 24):
strict FCFS at 8 GPUs as a Python ringsched.Strategy against the built-in `eight`, on the Pollux artifact's setting
(workloads/examples/pollux-artifact.json, workload-6: 160 jobs on 64 GPUs, decisions every 60 s), one thread, the
best of N repetitions of each. Both must give the same mean JCT (checked).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [--repeat 5] [--config PATH]
"""

import argparse
import os
import sys
import time

import ringsched


class Fcfs8(ringsched.Strategy):
    calls = 0
    jobs_seen = 0

    def decide(self, snapshot):
        Fcfs8.calls += 1
        Fcfs8.jobs_seen += len(snapshot.jobs)
        free, out = snapshot.free_gpus, {}
        for job in snapshot.jobs:
            if job.gpus == 0:
                need = max(job.min_gpus, min(8, job.max_gpus))
                if need > free:
                    break
                out[job.id] = need
                free -= need
        return out


def cpu_of(config, strategy, repeat):
    best, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.process_time()
        result = ringsched.simulate(config, strategies=[strategy], threads=1)
        best = min(best, time.process_time() - t0)
    return best, result


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default=os.path.join(here, "..", "workloads", "examples", "pollux-artifact.json"))
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    ringsched.register_strategy("python_fcfs8", Fcfs8)
    c_cpu, c_res = cpu_of(args.config, "eight", args.repeat)
    p_cpu, p_res = cpu_of(args.config, "python_fcfs8", args.repeat)
    c_jct = [v for v in c_res.mean_jct_s().values()]
    p_jct = [v for v in p_res.mean_jct_s().values()]
    calls = Fcfs8.calls // args.repeat
    jobs = Fcfs8.jobs_seen // args.repeat
    print(f"config: {os.path.relpath(args.config)}")
    print(f"eight (C++):          {c_cpu * 1000:8.1f} ms CPU (best of {args.repeat})")
    print(f"python_fcfs8 (Python): {p_cpu * 1000:7.1f} ms CPU (best of {args.repeat})")
    print(f"  {calls} decide() calls, {jobs} job views built: {(p_cpu - c_cpu) / max(calls, 1) * 1e6:.1f} us more per "
          f"call, {(p_cpu - c_cpu) / max(jobs, 1) * 1e9:.0f} ns per job view")
    print(f"ratio Python / C++: {p_cpu / c_cpu:.1f}x (target <= 20x)")
    if c_jct != p_jct:
        print(f"MISMATCH: mean JCTs differ: {c_jct} vs {p_jct}", file=sys.stderr)
        return 1
    print(f"mean JCTs identical: {[round(v, 3) for v in c_jct]} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
