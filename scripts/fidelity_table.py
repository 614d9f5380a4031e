#!/usr/bin/env python3
"""scripts/fidelity_table.py PUBLISHED LOAD=CELLS.csv... — the docs/fidelity.md tables: per load and policy,
ringsched's mean JCT per workload file (from a sweep's cells.csv, the file named in its `workload` column) against the
Pollux artifact's published figure, their ratio, and whether the targets hold (mean within 5%, every workload within
10%). Standard library only. Exit 1 when a target is missed."""
import csv
import json
import re
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    published = json.load(open(argv[1]))['loads']
    ok = True
    for arg in argv[2:]:
        load, path = arg.split('=', 1)
        rows = list(csv.DictReader(line for line in open(path) if not line.startswith('#')))
        print('\n### Load %s\n' % load)
        print('| policy | ' + ' | '.join('w%d' % i for i in range(1, 9)) + ' | mean (s) | published (s) | ratio | targets |')
        print('|---|' + '---|' * 8 + '---|---|---|---|')
        for policy in ('optimus', 'tiresias', 'pollux'):
            ours = {}
            for r in rows:
                if r['strategy'] != policy:
                    continue
                m = re.search(r'workload-(\d+)\.csv', r['workload'])
                ours[int(m.group(1))] = float(r['mean_jct_s_mean'])
            pub = published[load][policy]
            ratios = [ours[i] / pub['workload-%d' % i] for i in range(1, 9)]
            mean_ours = sum(ours.values()) / 8
            mean_pub = sum(pub.values()) / 8
            ratio = mean_ours / mean_pub
            met = abs(ratio - 1) <= 0.05 and all(abs(x - 1) <= 0.10 for x in ratios)
            ok = ok and met
            print('| %s | %s | %.1f | %.1f | %.3f | %s |' % (policy, ' | '.join('%.2f' % x for x in ratios), mean_ours,
                                                         mean_pub, ratio, 'met' if met else 'MISSED'))
    print('\nPer workload: ringsched / published mean JCT. Targets: the mean within 5%, every workload within 10%.')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
