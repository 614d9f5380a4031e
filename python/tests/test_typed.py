"""python::Strategy on GPU types: snapshot.pools, job.pool / job.gpu_type, believed throughput per type, decisions
{id: gpus}, {id: (gpu_type, gpus)} and {id: {"gpus", "gpu_type", "nodes"}}, the on_arrival hook,
register_strategy(gpu_types=True), every bad decision's message, and examples/python/typed_srtf.py giving exactly the
JCTs of its C++ twin (test/strategies/test_typed_srtf_twin.cpp, through the golden files both check)."""

import csv
import importlib.util
import io
import json
import re
import subprocess
import sys

import pytest

import ringsched
from conftest import SOURCE

CATALOG = json.loads((SOURCE / "workloads" / "examples" / "typed-pools.json").read_text())["workload"]["catalog"]


def typed(pools=(("slow", 1, 4), ("fast", 1, 8)), **changes):
    """4 slow GPUs (one node) and 8 fast ones (one node), typed-pools.json's two classes, 6 jobs, one seed."""
    doc = {
        "cluster": {"pools": [{"gpu_type": t, "nodes": n, "gpus_per_node": g} for t, n, g in pools]},
        "workload": {"catalog": CATALOG, "jobs": 6, "arrival": {"process": "poisson"}},
        "levels": [{"name": "l", "load": 0.5}],
        "strategies": [],
        "restart": {"cost_s": 10},
        "seeds": 1,
    }
    doc.update(changes)
    return doc


def untyped(**cluster):
    doc = typed()
    doc["cluster"] = dict({"nodes": 2, "gpus_per_node": 8}, **cluster)
    return doc


def run_with(fresh_name, cls, config, beliefs="oracle"):
    name = fresh_name("typed")
    ringsched.register_strategy(name, cls, default_beliefs=beliefs, gpu_types=True)
    doc = dict(config, strategies=[name])
    return ringsched.simulate(doc)


class OnFast(ringsched.Strategy):
    """Starts each waiting job on 2 fast GPUs while they have room, else waits."""

    def decide(self, s):
        free, out = s.pools[1].free, {}
        for j in s.jobs:
            if j.gpus == 0 and free >= 2:
                out[j.id] = ("fast", 2)
                free -= 2
        return out


# --- what Python sees ---------------------------------------------------------------------------------------------


def test_snapshot_pools_and_job_types_on_a_typed_cluster(fresh_name):
    seen = []

    class Recorder(OnFast):
        def decide(self, s):
            seen.append(([(p.index, p.gpu_type, p.gpus, p.free, p.gpus_per_node) for p in s.pools],
                         [(j.id, j.gpus, j.pool, j.gpu_type) for j in s.jobs]))
            return super().decide(s)

    res = run_with(fresh_name, Recorder, typed())
    assert seen[0][0] == [(0, "slow", 4, 4, 4), (1, "fast", 8, 8, 8)]  # nothing runs before the first decision
    assert seen[0][1] == [(0, 0, None, None)]
    assert seen[1][1][0] == (0, 2, 1, "fast")  # job 0 got 2 fast GPUs at the first decision
    for pools, jobs in seen:
        assert [p[:3] + (p[4],) for p in pools] == [(0, "slow", 4, 4), (1, "fast", 8, 8)]
        for index, _, gpus, free, _ in pools:
            assert free == gpus - sum(g for _, g, pool, _ in jobs if pool == index)
        for _, gpus, pool, gpu_type in jobs:
            assert (pool is None) == (gpus == 0) and gpu_type == (None if pool is None else pools[pool][1])
    assert {row["gpu_type"] for row in csv.DictReader(io.StringIO(res.jobs_csv()))} == {"fast"}


@pytest.mark.parametrize("placement,nodes", [(None, 0), ("packed", 2)])
def test_an_untyped_cluster_has_no_pools_and_jobs_no_type(fresh_name, placement, nodes):
    seen = []

    class Recorder(ringsched.Strategy):
        def decide(self, s):
            seen.append((s.pools, s.nodes, [(j.pool, j.gpu_type, j.gpus, j.node_gpus) for j in s.jobs]))
            return {j.id: 2 for j in s.jobs if j.gpus == 0}

    name = fresh_name("untyped")
    ringsched.register_strategy(name, Recorder, default_beliefs="oracle")
    ringsched.simulate(untyped(**({"placement": placement} if placement else {})) | {"strategies": [name]})
    assert seen and all(pools == () and n == nodes for pools, n, _ in seen)
    for _, _, jobs in seen:
        for pool, gpu_type, gpus, node_gpus in jobs:
            assert pool is None and gpu_type is None
            assert len(node_gpus) == nodes and sum(node_gpus) == (gpus if nodes else 0)


def eq5_rate(cls, gpu_type, w):
    """Hand-computed Eq. 5 throughput (fixed global batch m, model size n in Mparams; Eq. 5 has no node term):
    m / (t0 m/w + t1 (w-1) + t2 (w-1) n/w + t3) with the class's coefficients on that type."""
    c = next(k for k in CATALOG["classes"] if k["name"] == cls)
    t, m, n = c["speed_by_type"][gpu_type], c["batch"]["size"], c["model_size_mparams"]
    return m / (t["t0"] * m / w + t["t1"] * (w - 1) + t["t2"] * (w - 1) * n / w + t["t3"])


def test_believed_throughput_per_gpu_type_is_the_class_speed_on_that_type(fresh_name):
    rows, errors = [], []

    class Probe(OnFast):
        def decide(self, s):
            for j in s.jobs:
                rows.append((j.class_name, j.gpu_type, j.believed_throughput(2, gpu_type="slow"),
                             j.believed_throughput(2, gpu_type="fast"), j.believed_throughput(4, 2, "slow"),
                             j.believed_time(2, gpu_type="fast"), j.believed_remaining_work(),
                             j.believed_throughput(2) if j.gpu_type else None))
                for bad in ("tpu", 3):
                    try:
                        j.believed_throughput(1, gpu_type=bad)
                    except ValueError as e:
                        errors.append(str(e))
                if j.gpu_type is None:
                    try:
                        j.believed_time(1)
                    except ValueError as e:
                        errors.append(str(e))
            return super().decide(s)

    run_with(fresh_name, Probe, typed())
    assert rows and eq5_rate("cnn", "slow", 2) == pytest.approx(256 / 0.15825, rel=1e-12)
    for cls, gpu_type, slow2, fast2, slow4_2, time_fast2, remaining, own in rows:
        # e.g. cnn on 2 slow GPUs: 256 / (0.001 * 128 + 0.004 + 0.0005 * 12.5 + 0.02) = 256 / 0.15825
        assert slow2 == pytest.approx(eq5_rate(cls, "slow", 2), rel=1e-12)
        assert fast2 == pytest.approx(eq5_rate(cls, "fast", 2), rel=1e-12)
        assert slow4_2 == pytest.approx(eq5_rate(cls, "slow", 4), rel=1e-12)
        assert time_fast2 == pytest.approx(remaining / fast2, rel=1e-12)
        if gpu_type is not None:
            assert own == (fast2 if gpu_type == "fast" else slow2)  # gpu_type=None: the job's own type
    assert "gpu_type 'tpu' is not a GPU type of this cluster (its types: slow, fast)" in errors[0]
    assert "gpu_type must be a str (a GPU type name) or None, got 3" in errors[1]
    assert any("the job holds no GPUs, so give gpu_type= (this cluster's GPU types: slow, fast)" in e for e in errors)


def test_gpu_type_on_an_untyped_cluster_is_a_value_error(fresh_name):
    errors = []

    class Probe(ringsched.Strategy):
        def decide(self, s):
            try:
                s.jobs[0].believed_throughput(1, gpu_type="fast")
            except ValueError as e:
                errors.append(str(e))
            return {}

    name = fresh_name("untyped_probe")
    ringsched.register_strategy(name, Probe, default_beliefs="oracle")
    with pytest.raises(ringsched.SimulationError):  # nobody runs: the run cannot end
        ringsched.simulate(untyped() | {"strategies": [name], "workload": dict(typed()["workload"], jobs=1)})
    assert errors and "gpu_type 'fast': this cluster has no GPU types (no cluster.pools)" in errors[0]


# --- decisions ----------------------------------------------------------------------------------------------------


def test_the_three_decision_shapes_start_jobs_on_the_named_types(fresh_name):
    shapes = [lambda j: ("slow", 1), lambda j: {"gpus": 2, "gpu_type": "fast"}, lambda j: ("fast", 1)]
    seen = {}

    class Shapes(ringsched.Strategy):
        def decide(self, s):
            out = {}
            for j in s.jobs:
                seen[j.id] = (j.gpus, j.gpu_type)
                if j.gpus == 0 and not j.started:
                    out[j.id] = shapes[j.id % 3](j)
                elif j.id % 3 == 2 and j.gpus == 1:
                    out[j.id] = 2  # an int resizes a running job in its own pool
            return out

    res = run_with(fresh_name, Shapes, typed())
    rows = list(csv.DictReader(io.StringIO(res.jobs_csv())))
    assert [r["gpu_type"] for r in rows] == ["slow", "fast", "fast", "slow", "fast", "fast"]
    events = list(csv.DictReader(io.StringIO(res.events_csv())))
    resized = [e for e in events if e["job_id"] == "2" and e["from_gpus"] == "1" and e["to_gpus"] == "2"]
    assert resized and resized[0]["gpu_type"] == "fast"


def test_int_decisions_run_on_a_typed_cluster_with_one_pool(fresh_name):
    class Fcfs4(ringsched.Strategy):
        def decide(self, s):
            free, out = s.free_gpus, {}
            for j in s.jobs:
                if j.gpus == 0 and min(4, j.max_gpus) <= free:
                    out[j.id] = min(4, j.max_gpus)
                    free -= out[j.id]
            return out

    res = run_with(fresh_name, Fcfs4, typed(pools=(("fast", 1, 8),)))
    assert {r["gpu_type"] for r in csv.DictReader(io.StringIO(res.jobs_csv()))} == {"fast"}


def waiting(s, k=0):
    return [j for j in s.jobs if j.gpus == 0][k]


def once_three_wait(value_of):
    """decide(): nothing until three jobs wait, then value_of(snapshot) (a decision)."""
    return lambda self, s: value_of(s) if sum(j.gpus == 0 for j in s.jobs) >= 3 else {}


def run_failing(fresh_name, decide, config, gpu_types=True):
    name = fresh_name("bad_typed")
    cls = type("BadTyped", (ringsched.Strategy,), {"decide": decide})
    ringsched.register_strategy(name, cls, default_beliefs="oracle", gpu_types=gpu_types)
    with pytest.raises(ringsched.SimulationError) as e:
        ringsched.simulate(dict(config, strategies=[name]))
    msg = str(e.value)
    assert f"strategy '{name}' at t = " in msg
    return msg


JOB = r"job \d+ \(job-\d+\): "


@pytest.mark.parametrize("value,expected", [
    (lambda s: {waiting(s).id: ("tpu", 1)}, JOB + r"GPU type 'tpu' is not a GPU type of this cluster \(its types: "
                                             r"slow, fast\)"),
    (lambda s: {waiting(s).id: 1}, JOB + r"which GPU type\? The job holds no GPUs and the cluster has 2 \(slow, "
                                        r"fast\): give \(gpu_type, gpus\)"),
    (lambda s: {waiting(s).id: ("fast",)}, JOB + r"the tuple \('fast',\) is not \(gpu_type, gpus\)"),
    (lambda s: {waiting(s).id: (2, "fast")}, JOB + r"the tuple \(2, 'fast'\) is not \(gpu_type, gpus\)"),
    (lambda s: {waiting(s).id: ("fast", 2.5)}, JOB + r"GPU count 2\.5 is not an int"),
    (lambda s: {waiting(s).id: ("fast", True)}, JOB + r"GPU count True is a bool"),
    (lambda s: {waiting(s).id: ("fast", 9)}, JOB + r"9 GPUs is outside its limits"),
    (lambda s: {waiting(s).id: {"gpus": 1, "type": "fast"}}, JOB + r"unknown key 'type' in .* \(valid: \"gpus\", "
                                                                   r"\"gpu_type\", \"nodes\"\)"),
    (lambda s: {waiting(s).id: {"gpu_type": "fast"}}, JOB + r"\{'gpu_type': 'fast'\} has no \"gpus\""),
    (lambda s: {waiting(s).id: {"gpus": 1, "gpu_type": 3}}, JOB + r"gpu_type 3 is not a str"),
    (lambda s: {waiting(s).id: [1]}, JOB + r"GPU count \[1\] is not an int"),
    (lambda s: {waiting(s).id: {"gpus": 1, "gpu_type": "fast", "nodes": [1]}},
     JOB + r"\"nodes\": placing jobs on nodes is not supported on a cluster with GPU types"),
    (lambda s: {waiting(s, k).id: ("fast", 4) for k in range(3)}, r": allocated 12 fast GPUs of 8$"),
    (lambda s: {waiting(s, k).id: ("slow", 2) for k in range(3)}, r": allocated 6 slow GPUs of 4$"),
])
def test_invalid_typed_decisions_name_the_strategy_time_and_job(fresh_name, value, expected):
    msg = run_failing(fresh_name, once_three_wait(value), typed(workload=dict(typed()["workload"], jobs=8)))
    assert any(re.search(expected, line) for line in msg.splitlines()), msg


@pytest.mark.parametrize("cluster,value,expected", [
    ({}, lambda s: {waiting(s).id: ("fast", 1)}, JOB + r"GPU type 'fast': this cluster has no GPU types \(no "
                                                       r"cluster\.pools\); give \{job_id: gpus\}"),
    ({}, lambda s: {waiting(s).id: {"gpus": 1, "nodes": [1, 0]}},
     JOB + r"\"nodes\": this cluster places no jobs on nodes \(give cluster\.placement or a topology\)"),
    ({"placement": "packed"}, lambda s: {waiting(s).id: {"gpus": 1, "nodes": [1]}},
     JOB + r"\"nodes\" has 1 entries; the cluster has 2 nodes \(snapshot\.nodes\)"),
    ({"placement": "packed"}, lambda s: {waiting(s).id: {"gpus": 2, "nodes": [2, 1]}},
     JOB + r"\"nodes\" places 3 GPUs, but the job gets 2"),
    ({"placement": "packed"}, lambda s: {waiting(s).id: {"gpus": 2, "nodes": [-1, 3]}},
     JOB + r"\"nodes\"\[0\] -1 is not a GPU count 0\.\.8"),
    ({"placement": "packed"}, lambda s: {waiting(s).id: {"gpus": 1, "nodes": "ab"}},
     JOB + r"\"nodes\" 'ab' is not a list of GPUs per node \(2 ints\)"),
    ({"placement": "packed"}, lambda s: {waiting(s, 0).id: {"gpus": 1, "nodes": [1, 0]}, waiting(s, 1).id: 1},
     JOB + r"its GPUs change without \"nodes\" while the decision places other jobs on nodes"),
    ({"placement": "packed"}, lambda s: {waiting(s, k).id: {"gpus": 4, "nodes": [4, 0]} for k in range(3)},
     r": placed 12 GPUs on node 0, which has 8$"),
])
def test_invalid_untyped_decisions_name_the_strategy_time_and_job(fresh_name, cluster, value, expected):
    config = untyped(**cluster)
    config["workload"] = dict(config["workload"], jobs=8)
    msg = run_failing(fresh_name, once_three_wait(value), config, gpu_types=False)
    assert any(re.search(expected, line) for line in msg.splitlines()), msg


def test_nodes_place_a_job_where_the_strategy_says(fresh_name):
    seen = []

    class Spread(ringsched.Strategy):
        def decide(self, s):
            seen.extend((j.id, j.node_gpus) for j in s.jobs if j.gpus > 0)
            return {j.id: {"gpus": 2, "nodes": [1, 1]} for j in s.jobs if j.gpus == 0 and s.free_gpus >= 16}

    name = fresh_name("spread")
    ringsched.register_strategy(name, Spread, default_beliefs="oracle")
    ringsched.simulate(untyped(placement="packed") | {"strategies": [name]})
    assert seen and all(nodes == (1, 1) for _, nodes in seen)  # packed would have put both GPUs on one node


def test_a_type_where_the_class_cannot_run_is_refused_naming_the_job(fresh_name):
    # Gavel's measured throughputs: ResNet-50 at batch 128 does not run on 2 K80s (throughput 0, out of memory).
    doc = {
        "cluster": {"pools": [{"gpu_type": "v100", "nodes": 2, "gpus_per_node": 4},
                              {"gpu_type": "k80", "nodes": 2, "gpus_per_node": 4}]},
        "workload": {"catalog": "gavel", "jobs": 60, "arrival": {"process": "poisson"}},
        "levels": [{"name": "r", "rate_per_hour": 2}],
        "restart": {"cost_s": 0},
        "seeds": 1,
    }
    resnet = "ResNet-50 (batch size 128)"

    def decide(self, s):
        return {j.id: ("k80", 2) for j in s.jobs if j.class_name == resnet and j.gpus == 0}

    msg = run_failing(fresh_name, decide, doc)
    assert (f": its class '{resnet}' has no speed on 2 'k80' GPUs (believed throughput 0): choose another GPU "
            "type") in msg, msg


# --- registration and on_arrival ----------------------------------------------------------------------------------


def test_gpu_types_true_is_what_lets_a_python_strategy_run_on_pools(fresh_name):
    name = fresh_name("untyped_on_pools")
    ringsched.register_strategy(name, OnFast, default_beliefs="oracle")
    with pytest.raises(ringsched.InputError, match=f"strategy '{name}' does not choose GPU types, so it cannot run "
                                                   r"on a cluster with cluster\.pools"):
        ringsched.simulate(typed(strategies=[name]))
    assert next(s for s in ringsched.strategies() if s["name"] == name)["gpu_types"] is False
    ringsched.register_strategy(name, OnFast, default_beliefs="oracle", gpu_types=True)
    assert next(s for s in ringsched.strategies() if s["name"] == name)["gpu_types"] is True
    assert ringsched.simulate(typed(strategies=[name])).mean_jct_s()[("l", name)] > 0
    for bad in ("yes", 1, None):
        with pytest.raises(ringsched.InputError, match="gpu_types must be True or False"):
            ringsched.register_strategy(name, OnFast, gpu_types=bad)


@pytest.mark.parametrize("interval_s", [0, 600])
def test_on_arrival_is_called_once_per_job_before_the_decision_that_first_shows_it(fresh_name, interval_s):
    calls = []

    class Hooked(OnFast):
        def on_arrival(self, s, job):
            assert job in s.jobs or job.id in [j.id for j in s.jobs]
            calls.append(("arrival", s.now_s, job.id, job.arrival_s, job.gpus))

        def decide(self, s):
            calls.append(("decide", s.now_s, tuple(j.id for j in s.jobs)))
            return super().decide(s)

    config = typed(scheduler={"interval_s": interval_s}) if interval_s else typed()
    run_with(fresh_name, Hooked, config)
    arrivals = [c for c in calls if c[0] == "arrival"]
    assert [c[2] for c in arrivals] == list(range(6))  # each job once, in arrival order
    for c in arrivals:
        i = calls.index(c)
        nxt = next(d for d in calls[i:] if d[0] == "decide")
        assert nxt[1] == c[1] and c[2] in nxt[2]  # the next decide is at the same time and shows the job
        assert all(not (d[0] == "decide" and c[2] in d[2]) for d in calls[:i])  # no earlier decide showed it
        assert c[4] == 0
        if interval_s == 0:
            assert c[1] == c[3]  # event-driven: at its arrival
        else:
            assert c[1] >= c[3]  # rounds: at the first round after it


def test_an_exception_in_on_arrival_names_the_strategy_time_and_job(fresh_name):
    class Raises(OnFast):
        def on_arrival(self, s, job):
            raise KeyError("nope")

    name = fresh_name("raises")
    ringsched.register_strategy(name, Raises, default_beliefs="oracle", gpu_types=True)
    with pytest.raises(ringsched.SimulationError, match=f"strategy '{name}' at t = [0-9.e+]+ s: on_arrival\\(job 0\\) "
                                                        "raised KeyError"):
        ringsched.simulate(typed(strategies=[name]))


# --- the example: exactly its C++ twin's JCTs ---------------------------------------------------------------------


def load_example():
    sys.path.insert(0, str(SOURCE / "examples" / "python"))
    spec = importlib.util.spec_from_file_location("typed_srtf_example", SOURCE / "examples" / "python" / "typed_srtf.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_python_typed_srtf_gives_exactly_the_jcts_of_its_cpp_twin(fresh_name):
    """The golden files are what the C++ twin gives (the Catch2 test strategies::TypedSrtfTwin checks them): per job
    its type, start, finish, JCT and restarts as jobs.csv prints them, per run the JCT statistics to the last bit."""
    name = fresh_name("typed_srtf")
    load_example().register(name)
    fixture = SOURCE / "test" / "fixtures" / "typed-srtf"
    res = ringsched.simulate(str(fixture / "config.json"), strategies=[name])
    golden = SOURCE / "test" / "fixtures" / "golden"
    jobs = ["level,seed,job_id,gpu_type,first_start_s,finish_s,jct_s,restarts"]
    for r in csv.DictReader(io.StringIO(res.jobs_csv())):
        jobs.append(",".join(r[k] for k in ("level", "seed", "job_id", "gpu_type", "first_start_s", "finish_s",
                                              "jct_s", "restarts")))
    assert "\n".join(jobs) + "\n" == (golden / "typed-srtf.jobs.csv").read_text()
    want = list(csv.DictReader(io.StringIO((golden / "typed-srtf.runs.csv").read_text())))
    runs = res.summary["runs"]
    assert len(runs) == len(want) == 4
    for run, row in zip(runs, want):
        assert (run["level"], str(run["seed"])) == (row["level"], row["seed"])
        for k in ("mean_jct_s", "median_jct_s", "p95_jct_s", "makespan_s"):
            assert run["metrics"][k] == float(row[k]), (row, k)  # exactly, not approximately


def test_the_typed_srtf_example_prints_its_table(tmp_path):
    p = subprocess.run([str(SOURCE / "examples" / "python" / "typed_srtf.py"), "--seeds", "1", "--config",
                        str(SOURCE / "test" / "fixtures" / "typed-srtf" / "config.json")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[1] == "| strategy | light | heavy |"
    assert [ln.split(" | ")[0] for ln in lines[3:]] == ["| fifo[oracle]", "| precompute[oracle]", "| optimus[oracle]",
                                                       "| typed_srtf"]
    p = subprocess.run([str(SOURCE / "examples" / "python" / "typed_srtf.py"), "--config", str(tmp_path / "no")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and "typed_srtf.py: " in p.stderr
