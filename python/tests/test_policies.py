"""python::Strategy: policies written in Python decide through the C++ engine, with labels, beliefs and params as
for built-ins, and every decision checked with an error naming the strategy, the time and the job."""

import json
import os
import tempfile

import pytest

import ringsched


class Fcfs8(ringsched.Strategy):
    """Strict FCFS, 8 GPUs per job (its max if smaller, its min if larger): the built-in `eight`."""

    def __init__(self, gpus=8):
        self.gpus = gpus

    def decide(self, snapshot):
        free, out = snapshot.free_gpus, {}
        for job in snapshot.jobs:
            if job.gpus == 0:
                need = max(job.min_gpus, min(self.gpus, job.max_gpus))
                if need > free:
                    break
                out[job.id] = need
                free -= need
        return out


def tiny(**changes):
    doc = {
        "cluster": {"nodes": 2, "gpus_per_node": 8},
        "workload": {"catalog": "paper", "jobs": 12, "arrival": {"process": "poisson"}},
        "levels": [{"name": "busy", "load": 1.2}],
        "strategies": ["eight"],
        "restart": {"cost_s": 10},
        "seeds": 2,
    }
    doc.update(changes)
    return doc


@pytest.mark.parametrize("config,overrides", [
    ("tiny-2node.json", {}),
    ("table3.json", {"seeds": 3, "jobs": 120}),
    ("pollux-artifact.json", {}),
    ("heldout.json", {"seeds": 2, "jobs": 60}),
])
def test_python_fcfs8_gives_exactly_the_mean_jcts_of_eight(example, fresh_name, config, overrides):
    name = fresh_name("fcfs8")
    ringsched.register_strategy(name, Fcfs8)
    res = ringsched.simulate(example(config), strategies=["eight", name], **overrides)
    jct = res.mean_jct_s()
    levels = {level for level, _ in jct}
    assert levels
    for level in levels:
        assert jct[(level, name)] == jct[(level, "eight")], level  # exactly, not approximately
    rows = {}
    for line in res.jobs_csv().splitlines()[1:]:
        f = line.split(",")
        rows.setdefault(f[1], []).append([f[0]] + f[2:])
    assert rows[name] == rows["eight"]


def test_a_python_policy_is_deterministic_for_any_thread_count(fresh_name):
    name = fresh_name("fcfs4")
    ringsched.register_strategy(name, Fcfs8, params=["gpus"])
    doc = tiny(strategies=[{"name": name, "params": {"gpus": 4}}], seeds=4)
    a = ringsched.simulate(doc, threads=1)
    b = ringsched.simulate(doc, threads=4)
    assert a.summary_json() == b.summary_json()


class ShortestFirst(ringsched.Strategy):
    """Waiting jobs by believed remaining time on `gpus` GPUs, shortest first; running jobs keep their GPUs."""

    def __init__(self, gpus=4):
        if not isinstance(gpus, int) or gpus < 1:
            raise ValueError(f"gpus must be a positive int, got {gpus!r}")
        self.gpus = gpus

    def decide(self, snapshot):
        free, out = snapshot.free_gpus, {}
        waiting = [j for j in snapshot.jobs if j.gpus == 0]
        for job in sorted(waiting, key=lambda j: (j.believed_time(min(self.gpus, j.max_gpus)), j.id)):
            need = max(job.min_gpus, min(self.gpus, job.max_gpus))
            if need <= free:
                out[job.id] = need
                free -= need
        return out


def test_labels_beliefs_and_params_work_as_for_built_ins(fresh_name):
    name = fresh_name("sjf")
    ringsched.register_strategy(name, ShortestFirst, params=["gpus"], default_beliefs="history",
                                description="Shortest believed job first.")
    info = next(s for s in ringsched.strategies() if s["name"] == name)
    assert info["params"] == ["gpus"] and info["default_beliefs"] == "history"
    assert "Shortest believed job first." in info["description"] and "ShortestFirst" in info["description"]
    doc = tiny(strategies=[name, {"name": name, "label": "sjf-2-oracle", "beliefs": "oracle", "params": {"gpus": 2}}])
    v = ringsched.validate(doc)
    assert [(s["label"], s["beliefs"], s["params"]) for s in v["strategies"]] == [
        (name, "history", {}), ("sjf-2-oracle", "oracle", {"gpus": 2})]
    res = ringsched.simulate(doc)
    jct = res.mean_jct_s()
    assert set(jct) == {("busy", name), ("busy", "sjf-2-oracle")}
    assert jct[("busy", name)] != jct[("busy", "sjf-2-oracle")]  # the params and beliefs reached the policy


def test_bad_params_are_input_errors_naming_the_path(fresh_name):
    name = fresh_name("sjf")
    ringsched.register_strategy(name, ShortestFirst, params=["gpus"], default_beliefs="oracle")
    with pytest.raises(ringsched.InputError, match=r"strategies\[0\]\.params.*nope"):
        ringsched.simulate(tiny(strategies=[{"name": name, "params": {"nope": 1}}]))
    with pytest.raises(ringsched.InputError, match=r"strategies\[0\]\.params.*gpus must be a positive int"):
        ringsched.simulate(tiny(strategies=[{"name": name, "params": {"gpus": 0}}]))


def run_failing(fresh_name, decide, config=None):
    name = fresh_name("bad")
    ringsched.register_strategy(name, type("Bad", (ringsched.Strategy,), {"decide": decide}), default_beliefs="oracle")
    with pytest.raises(ringsched.SimulationError) as e:
        ringsched.simulate(config or tiny(strategies=[name], seeds=1))
    msg = str(e.value)
    assert f"strategy '{name}' at t = " in msg
    assert e.value.result.failures.rstrip("\n") == msg
    with pytest.raises(RuntimeError, match="run\\(s\\) failed: nothing written"):
        e.value.result.write(os.path.join(tempfile.mkdtemp(), "out"))
    return msg


def first_waiting(s):
    return next(j for j in s.jobs if j.gpus == 0)


def test_a_python_exception_names_the_strategy_time_and_error(fresh_name):
    def decide(self, s):
        raise ZeroDivisionError("boom in my policy")

    msg = run_failing(fresh_name, decide)
    assert "decide() raised" in msg and "ZeroDivisionError" in msg and "boom in my policy" in msg


@pytest.mark.parametrize("decide,expected", [
    (lambda self, s: {999999: 1}, "job 999999 is not an active job"),
    (lambda self, s: {first_waiting(s).id: first_waiting(s).max_gpus + 1}, "GPUs is outside its limits"),
    (lambda self, s: {first_waiting(s).id: -1}, "-1 GPUs is outside its limits"),
    (lambda self, s: {first_waiting(s).id: 2.0}, "GPU count 2.0 is not an int"),
    (lambda self, s: {first_waiting(s).id: True}, "GPU count True is a bool, not an int"),
    (lambda self, s: {"a": 1}, "key 'a' is not a job id"),
    (lambda self, s: [1, 2], "expected a dict"),
    (lambda self, s: ({}, s.now_s), "is not in the future"),
    (lambda self, s: ({}, 1, 2), "tuple of 3 items"),
    (lambda self, s: {j.id: j.max_gpus for j in s.jobs}, None),  # too many GPUs once several jobs are present
])
def test_invalid_decisions_name_the_job(fresh_name, decide, expected):
    msg = run_failing(fresh_name, decide)
    if expected is None:
        assert ": allocated" in msg and "GPUs of 16" in msg
    else:
        assert expected in msg
    if "outside its limits" in msg or "not an int" in msg:
        assert "job " in msg and "(job-" in msg  # the job's id and name


def test_belief_queries(fresh_name):
    seen = []

    class Probe(ringsched.Strategy):
        def decide(self, s):
            for j in s.jobs:
                t1, t8 = j.believed_time(1), j.believed_time(min(8, j.max_gpus))
                seen.append((t1, t8, j.believed_remaining_work(), j.believed_total_work(), j.work_done,
                             j.believed_throughput(1), j.believed_throughput(2, nodes=2)))
            return Fcfs8().decide(s)

    name = fresh_name("probe")
    ringsched.register_strategy(name, Probe, default_beliefs="oracle")
    ringsched.simulate(tiny(strategies=[name], seeds=1))
    assert seen
    for t1, t8, rem, total, done, r1, r2 in seen:
        assert 0 < t8 <= t1
        assert rem == pytest.approx(max(1.0, total - done))
        assert t1 == pytest.approx(rem / r1)
        assert r2 > 0


def test_no_beliefs_and_stale_views_are_refused(fresh_name):
    kept = []

    class Keeper(ringsched.Strategy):
        def decide(self, s):
            if kept:
                kept[0].believed_total_work()  # a view from an earlier decide()
            kept.extend(s.jobs)
            return Fcfs8().decide(s)

    name = fresh_name("keeper")
    ringsched.register_strategy(name, Keeper, default_beliefs="oracle")
    with pytest.raises(ringsched.SimulationError, match="belongs to a decide\\(\\) call that has returned"):
        ringsched.simulate(tiny(strategies=[name], seeds=1))

    class Blind(ringsched.Strategy):
        def decide(self, s):
            for j in s.jobs:
                j.believed_time(1)
            return {}

    name = fresh_name("blind")
    ringsched.register_strategy(name, Blind)  # default_beliefs "none"
    with pytest.raises(ringsched.SimulationError, match="runs without beliefs"):
        ringsched.simulate(tiny(strategies=[name], seeds=1))


def test_on_finish_and_wakeups(fresh_name):
    calls = {"finish": 0, "decide": 0, "times": []}

    class Periodic(ringsched.Strategy):
        def decide(self, s):
            calls["decide"] += 1
            calls["times"].append(s.now_s)
            return Fcfs8().decide(s), s.now_s + 100.0

        def on_finish(self, job_id):
            calls["finish"] += 1

    name = fresh_name("periodic")
    ringsched.register_strategy(name, Periodic)
    ringsched.simulate(tiny(strategies=[name], seeds=1))
    assert calls["finish"] == 12
    times = calls["times"]
    assert times == sorted(times)
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert max(gaps) <= 100.0 + 1e-9  # called again at least every 100 s while jobs are active


def test_registration_is_checked(fresh_name):
    with pytest.raises(ringsched.InputError, match="built-in"):
        ringsched.register_strategy("eight", Fcfs8)
    with pytest.raises(ringsched.InputError, match="cls must be a subclass"):
        ringsched.register_strategy(fresh_name("x"), object)
    with pytest.raises(ringsched.InputError, match="may hold only"):
        ringsched.register_strategy("my policy[1]", Fcfs8)
    with pytest.raises(ringsched.InputError, match="not a belief source"):
        ringsched.register_strategy(fresh_name("x"), Fcfs8, default_beliefs="psychic")
    with pytest.raises(TypeError):
        ringsched.register_strategy(fresh_name("x"), Fcfs8, params="gpus")
    # Registering a name again replaces the Python class.
    name = fresh_name("again")
    ringsched.register_strategy(name, Fcfs8)

    class Nothing(ringsched.Strategy):
        def decide(self, s):
            return None

    ringsched.register_strategy(name, Nothing)
    with pytest.raises(ringsched.SimulationError, match="left .* jobs|never finish|no progress|waiting"):
        ringsched.simulate(tiny(strategies=[name], seeds=1))


def test_numpy_integers_are_counts(fresh_name):
    np = pytest.importorskip("numpy")

    class NumpyFcfs(Fcfs8):
        def decide(self, s):
            return {np.int64(k): np.int32(v) for k, v in super().decide(s).items()}

    name = fresh_name("np")
    ringsched.register_strategy(name, NumpyFcfs)
    res = ringsched.simulate(tiny(strategies=["eight", name]))
    jct = res.mean_jct_s()
    assert jct[("busy", name)] == jct[("busy", "eight")]
