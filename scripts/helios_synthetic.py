#!/usr/bin/python3
"""scripts/helios_synthetic.py — a synthetic job log in the Helios cluster_log.csv schema, shaped like Philly's.

The Helios artifact (github.com/S-Lab-System-Group/HeliosArtifact) simulates the Philly job log of Oct-Nov 2017, which
is not reachable from here (msr-fiddle/philly-traces keeps it in Git LFS). scripts/helios-check therefore runs the
artifact's own simulator and ringsched on one synthetic log, the same file for both, to check that ringsched's virtual
clusters, placement and policies behave as the artifact's do. This module writes that log: NOT real jobs.

Shape (chosen, not fitted to anything): per virtual cluster of the given table (name -> nodes of 8 GPUs), Poisson
arrivals at a rate that offers `load` of the VC's GPUs; GPUs per job 1 (55%), 2 (10%), 4 (15%), 8 (13%), 16 (5%),
32 (2%), at most the VC's GPUs; run time lognormal (median 900 s, sigma 1.8), whole seconds in [10 s, 5 days];
6 users per VC, each with 4 job names (names recur, as in Helios' logs; --unique-names appends the job's number, so
that a table keyed by name holds each job's own duration); every job COMPLETED. --distinct-seconds moves a job submitted
in the same second as the one before it to the next free second (the artifact orders such ties with pandas'
unstable sort, which no other simulator can follow). Submit times are
date-times from 2017-10-01 00:00:00, whole seconds; start = submit and end = start + duration (the recorded queue is
not used by either simulator). Deterministic for a seed (Python's random.Random).
"""

import argparse
import csv
import datetime
import math
import random
import sys

SIZES = [(1, 0.55), (2, 0.10), (4, 0.15), (8, 0.13), (16, 0.05), (32, 0.02)]
COLUMNS = ["job_id", "user", "vc", "jobname", "gpu_num", "cpu_num", "node_num", "state", "submit_time",
           "start_time", "end_time", "duration", "queue"]
START = datetime.datetime(2017, 10, 1)


def read_vc_table(path):
    """The artifact's philly_vc.csv: `vc,node num` rows."""
    table = []
    with open(path, newline="") as f:
        rows = csv.reader(f)
        header = next(rows, None)
        if header is None or [h.strip() for h in header] != ["vc", "node num"]:
            raise ValueError("%s: expected the header 'vc,node num'" % path)
        for line, row in enumerate(rows, start=2):
            if len(row) != 2 or not row[1].strip().isdigit() or int(row[1]) <= 0:
                raise ValueError("%s:%d: expected 'name,nodes' with nodes a positive integer" % (path, line))
            table.append((row[0].strip(), int(row[1])))
    return table


def draw_gpus(rng, cap):
    u = rng.random()
    acc = 0.0
    for size, share in SIZES:
        acc += share
        if u < acc:
            return min(size, cap)
    return min(SIZES[-1][0], cap)


def mean_gpus(cap):
    return sum(min(size, cap) * share for size, share in SIZES)


def generate(table, days, load, seed, distinct_seconds=False):
    rng = random.Random(seed)
    median_s, sigma = 900.0, 1.8
    mean_run = median_s * math.exp(sigma * sigma / 2.0)  # of the unclipped lognormal
    horizon = days * 86400.0
    jobs = []
    for vc, nodes in table:
        gpus = nodes * 8
        rate = load * gpus / (mean_gpus(gpus) * mean_run)  # jobs per second
        users = ["u%s%d" % (vc[:4], k) for k in range(6)]
        t = 0.0
        while True:
            t += rng.expovariate(rate)
            if t >= horizon:
                break
            user = rng.choice(users)
            name = "%s-job%d" % (user, rng.randrange(4))
            g = draw_gpus(rng, gpus)
            run = int(round(min(max(rng.lognormvariate(math.log(median_s), sigma), 10.0), 5 * 86400.0)))
            jobs.append((int(t), vc, user, name, g, run))
    jobs.sort(key=lambda j: j[0])  # stable: ties keep VC-table order
    if distinct_seconds:  # no two jobs in one second: the artifact sorts submit times with an unstable sort
        last = -1
        for k, j in enumerate(jobs):
            if j[0] <= last:
                jobs[k] = (last + 1,) + j[1:]
            last = jobs[k][0]
    return jobs


def write(jobs, out, unique_names=False):
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    for k, (t, vc, user, name, g, run) in enumerate(jobs):
        submit = START + datetime.timedelta(seconds=t)
        end = submit + datetime.timedelta(seconds=run)
        fmt = "%Y-%m-%d %H:%M:%S"
        if unique_names:
            name = "%s-%d" % (name, k + 1)
        w.writerow([k + 1, user, vc, name, g, 4 * g, max(1, (g + 7) // 8), "COMPLETED", submit.strftime(fmt),
                    submit.strftime(fmt), end.strftime(fmt), run, 0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vc_table", help="the artifact's philly_vc.csv (vc,node num)")
    ap.add_argument("--days", type=float, default=3.0, help="span of submissions (default 3)")
    ap.add_argument("--load", type=float, default=0.9, help="offered load per VC (default 0.9)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--out", default="-", help="output file (default: standard output)")
    ap.add_argument("--unique-names", action="store_true", help="append each job's number to its name")
    ap.add_argument("--distinct-seconds", action="store_true",
                    help="move a job submitted in the same second as the one before it to the next free second")
    a = ap.parse_args()
    if not (0 < a.days <= 400 and 0 < a.load <= 5):
        print("helios_synthetic: --days must be in (0, 400] and --load in (0, 5]", file=sys.stderr)
        sys.exit(2)
    try:
        table = read_vc_table(a.vc_table)
    except (OSError, ValueError) as e:
        print("helios_synthetic: %s" % e, file=sys.stderr)
        sys.exit(2)
    jobs = generate(table, a.days, a.load, a.seed, a.distinct_seconds)
    if a.out == "-":
        write(jobs, sys.stdout, a.unique_names)
    else:
        with open(a.out, "w", newline="") as f:
            write(jobs, f, a.unique_names)


if __name__ == "__main__":
    main()
