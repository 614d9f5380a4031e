"""python::Composition: the Python half of the composition matrix (the C++ half: test/sim/engine/
test_composition_matrix.cpp). A Python strategy registered with gpu_types=True runs in every cell of {one pool,
several pools} x {no placement, a placement policy, a cluster-wide topology, a topology per pool, a topology with link
contention and contention-aware placement} x {step-time
classes, goodput classes} x {event-driven, rounds}, checking at every decision what it can see of the engine's
invariants (time never goes back, no pool or cluster over its GPUs, progress never goes back) and at the end that
every job finished; what stays refused (an explicit graph shared by pools) says why.
Python strategies decide densely (decide(); they have no decide_changes), so the dense/incremental axis is C++ only."""

import itertools

import pytest

import ringsched
from conftest import SOURCE

TWO_LEVEL = {"kind": "two_level", "intra_node": {"bandwidth_gb_s": 150, "latency_us": 1},
             "inter_node": {"bandwidth_gb_s": 12.5, "latency_us": 5}}
EQ5_FAST = {"kind": "eq5", "t0": 0.0005, "t1": 0.004, "t2": 0.0005, "t3": 0.01}
EQ5_SLOW = {"kind": "eq5", "t0": 0.001, "t1": 0.004, "t2": 0.0005, "t3": 0.02}
STEP_TIME = {"name": "matrix-steps", "classes": [{
    "name": "cnn", "batch": {"mode": "fixed_global", "size": 256}, "model_size_mparams": 25,
    "work": {"samples": 2000000, "sigma": 0.3}, "gpus": {"min": 1, "max": 4}, "speed": EQ5_FAST,
    "speed_by_type": {"fast": EQ5_FAST, "slow": EQ5_SLOW}}]}
GOODPUT = {"name": "matrix-goodput", "classes": [{
    "name": "tiny", "gpus": {"max": 4},
    "goodput": {"tables": str(SOURCE / "test" / "fixtures" / "goodput" / "tiny-types"), "by_type": "files",
                "reference_type": "slow", "max_epochs": 3}}]}
PLACES = ["none", "placement", "cluster topology", "pool topology", "contention"]


def matrix_config(pools, place, goodput, rounds):
    if pools:
        cluster = {"pools": [{"gpu_type": "slow", "nodes": 2, "gpus_per_node": 4},
                             {"gpu_type": "fast", "nodes": 1, "gpus_per_node": 4}]}
        if place in ("cluster topology", "contention"):
            cluster["topology"] = TWO_LEVEL
        if place == "pool topology":
            for p in cluster["pools"]:
                p["topology"] = TWO_LEVEL
    else:
        cluster = {"nodes": 2, "gpus_per_node": 4}
        if place in ("cluster topology", "pool topology", "contention"):
            cluster["topology"] = TWO_LEVEL
    if place == "placement":
        cluster["placement"] = {"policy": "packed"}
    if place == "contention":
        cluster["placement"] = {"policy": "contention"}
        cluster["network"] = {"contention": True}
    doc = {"cluster": cluster,
           "workload": {"catalog": GOODPUT if goodput else STEP_TIME, "jobs": 6, "arrival": {"process": "poisson"}},
           "levels": [{"name": "busy", "load": 4.0 if goodput else 0.8}], "strategies": [], "seeds": 1,
           "restart": {"cost_s": 10}}
    if rounds:
        doc["scheduler"] = {"interval_s": 60}
    return doc


class CheckedFcfs(ringsched.Strategy):
    """FCFS on 2 GPUs a job (its min..max), each on the type it is believed fastest on with room; records every
    invariant it sees broken."""

    broken = []

    def __init__(self):
        self.last = -1.0
        self.done = {}

    def check(self, s):
        if s.now_s < self.last:
            self.broken.append(f"time went back to {s.now_s}")
        self.last = s.now_s
        if not 0 <= s.free_gpus <= s.total_gpus:
            self.broken.append(f"{s.free_gpus} GPUs free of {s.total_gpus}")
        for p in s.pools:
            if not 0 <= p.free <= p.gpus:
                self.broken.append(f"pool {p.gpu_type}: {p.free} free of {p.gpus}")
        for j in s.jobs:
            if j.work_done < self.done.get(j.id, 0.0):
                self.broken.append(f"job {j.id}: progress went back")
            self.done[j.id] = j.work_done

    def decide(self, s):
        self.check(s)
        out = {}
        if s.pools:
            free = {p.gpu_type: p.free for p in s.pools}
            for j in s.jobs:
                need = max(j.min_gpus, min(2, j.max_gpus))
                fits = [p for p in s.pools if j.gpus == 0 and free[p.gpu_type] >= need]
                if fits:
                    best = max(fits, key=lambda p: j.believed_throughput(need, gpu_type=p.gpu_type))
                    out[j.id] = (best.gpu_type, need)
                    free[best.gpu_type] -= need
        else:
            free = s.free_gpus
            for j in s.jobs:
                need = max(j.min_gpus, min(2, j.max_gpus))
                if j.gpus == 0 and need <= free:
                    out[j.id] = need
                    free -= need
        return out


CELLS = list(itertools.product([False, True], PLACES, [False, True], [False, True]))


@pytest.mark.parametrize("pools,place,goodput,rounds", CELLS,
                         ids=[f"{'pools' if c[0] else 'one-pool'}-{c[1].replace(' ', '-')}-"
                              f"{'goodput' if c[2] else 'steps'}-{'rounds' if c[3] else 'events'}" for c in CELLS])
def test_a_python_strategy_runs_in_every_cell(fresh_name, pools, place, goodput, rounds):
    doc = matrix_config(pools, place, goodput, rounds)
    name = fresh_name("matrix")
    ringsched.register_strategy(name, CheckedFcfs, default_beliefs="oracle", gpu_types=True)
    doc["strategies"] = [name]
    CheckedFcfs.broken = []
    res = ringsched.simulate(doc)
    assert CheckedFcfs.broken == []
    jobs = res.jobs
    rows = jobs.to_dict("records") if hasattr(jobs, "to_dict") else jobs
    assert len(rows) == 6
    for row in rows:
        assert float(row["finish_s"]) >= float(row["first_start_s"]) >= float(row["arrival_s"])
        if pools:
            assert row["gpu_type"] in ("slow", "fast")
        if place == "contention":
            assert float(row["contention_slowdown"]) >= 1.0
    assert not res.summary["runs"][0].get("error")


def test_an_explicit_graph_shared_by_pools_is_refused_saying_why(fresh_name):
    doc = matrix_config(True, "none", False, False)
    doc["cluster"]["topology"] = {"kind": "graph"}
    name = fresh_name("matrix")
    ringsched.register_strategy(name, CheckedFcfs, default_beliefs="oracle", gpu_types=True)
    doc["strategies"] = [name]
    with pytest.raises(ringsched.InputError, match=r"cluster\.topology\.kind: an explicit graph names its nodes"):
        ringsched.simulate(doc)
