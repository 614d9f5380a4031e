#!/usr/bin/env python3
"""workloads/examples/lingjun/make_jobs.py - writes jobs.csv, the job list of lingjun-contention.json (issue 36).

The Lingjun dataset's job list is not in the public repository (workloads/data/lingjun/ORIGIN.md), so this is a
synthetic stream with a fixed seed: 400 jobs, Poisson arrivals at a mean of one every 120 s, sizes 8/16/32/64/128
GPUs with probabilities 0.30/0.25/0.20/0.15/0.10, classes drawn uniformly among the catalog's four. Run it again to
regenerate the same file byte for byte: /usr/bin/python3 make_jobs.py > jobs.csv
"""
import random

rng = random.Random(36)
sizes = [(8, 0.30), (16, 0.25), (32, 0.20), (64, 0.15), (128, 0.10)]
classes = ["gpt-1.3b", "gpt-350m", "bert-large", "resnet50"]
t = 0.0
print("name,time,application,num_replicas,batch_size")
for i in range(400):
    t += rng.expovariate(1.0 / 120.0)
    u = rng.random()
    acc = 0.0
    gpus = sizes[-1][0]
    for g, p in sizes:
        acc += p
        if u < acc:
            gpus = g
            break
    cls = rng.choice(classes)
    print(f"job-{i},{t:.1f},{cls},{gpus},{gpus}")
