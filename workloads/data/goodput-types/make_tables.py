#!/usr/bin/python3
"""Writes the per-GPU-type goodput tables of workloads/examples/goodput-pools.json from the shipped Pollux data.

Two GPU types for each application:
  t4    the Pollux artifact's measured tables, unchanged (its testbed's GPUs);
  fast  a synthetic type that computes twice as fast on the same network: every row's step time becomes
        sync + (step - sync) / 2, its sync time unchanged (the compute part of a step halves, gradient
        synchronisation does not).
Validation runs (validation-<B>.csv) are copied unchanged: they belong to the application, not to the GPU, so both
types count progress the same way.

cifar10 and bert are written in Sia's (SOSP'23) per-type layout (placements-<type>.csv, scalability-<type>.csv);
yolov3 as one placements.csv and scalability.csv with a gpu_type column. Numbers are written with repr() (the
shortest text that reads back to the same double). Deterministic; run from anywhere:
    /usr/bin/python3 workloads/data/goodput-types/make_tables.py
"""
import csv
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, '..', 'pollux', 'traces')
FILES_LAYOUT = ['cifar10', 'bert']
COLUMN_LAYOUT = ['yolov3']
SPEEDUP = 2.0  # the fast type's compute speed relative to t4


def rows(path):
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


def fast(row):
    out = dict(row)
    step, sync = float(row['step_time']), float(row['sync_time'])
    out['step_time'] = repr(sync + (step - sync) / SPEEDUP)
    return out


def write(path, header, table):
    with open(path, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=header, lineterminator='\n')
        w.writeheader()
        w.writerows(table)


def copy_validation(src, dst):
    for name in sorted(os.listdir(src)):
        if name.startswith('validation-') and name.endswith('.csv'):
            shutil.copyfile(os.path.join(src, name), os.path.join(dst, name))


def main():
    for app in FILES_LAYOUT + COLUMN_LAYOUT:
        src = os.path.join(SRC, app)
        dst = os.path.join(HERE, app)
        if os.path.isdir(dst):
            shutil.rmtree(dst)
        os.makedirs(dst)
        copy_validation(src, dst)
        for table in ['placements', 'scalability']:
            measured = rows(os.path.join(src, table + '.csv'))
            header = list(measured[0].keys())
            if app in FILES_LAYOUT:
                write(os.path.join(dst, table + '-t4.csv'), header, measured)
                write(os.path.join(dst, table + '-fast.csv'), header, [fast(r) for r in measured])
            else:
                both = [dict(r, gpu_type='t4') for r in measured] + [dict(fast(r), gpu_type='fast') for r in measured]
                write(os.path.join(dst, table + '.csv'), header + ['gpu_type'], both)


if __name__ == '__main__':
    main()
