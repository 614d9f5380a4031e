"""python::simulate: ringsched.simulate gives what `ringsched simulate` gives; bad input raises InputError with the
command line's message."""

import json
import os
import subprocess

import pytest

import ringsched


def cli(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True)


def test_summary_and_outputs_are_the_command_lines_byte_for_byte(tmp_path, binary, example):
    path = example("tiny-2node.json")
    out = tmp_path / "cli"
    p = cli(binary, "simulate", "--config", path, "--out", str(out), "--quiet", "--threads", "1")
    assert p.returncode == 0, p.stderr
    res = ringsched.simulate(path, threads=2)
    assert res.summary_json() == (out / "summary.json").read_text()
    assert res.summary == json.loads((out / "summary.json").read_text())
    assert res.jobs_csv() == (out / "jobs.csv").read_text()
    assert res.events_csv() == (out / "events.csv").read_text()
    # The table printed on stdout, and every file of --out from Result.write.
    assert res.table() == p.stdout
    res.write(tmp_path / "py")
    for name in sorted(os.listdir(out)):
        assert (tmp_path / "py" / name).read_bytes() == (out / name).read_bytes(), name
    with pytest.raises(ringsched.InputError, match="holds the results of an earlier run"):
        res.write(tmp_path / "py")
    (tmp_path / "py" / "prediction_errors.csv").write_text("stale\n")
    res.write(tmp_path / "py", force=True)
    assert not (tmp_path / "py" / "prediction_errors.csv").exists()


def test_overrides_act_as_the_flags(tmp_path, binary, example):
    path = example("tiny-2node.json")
    p = cli(binary, "simulate", "--config", path, "--seeds", "3", "--jobs", "5", "--restart-cost", "20",
            "--strategies", "eight,precompute[oracle]", "--format", "json", "--quiet")
    assert p.returncode == 0, p.stderr
    res = ringsched.simulate(path, seeds=3, jobs=5, restart_cost=20, strategies=["eight", "precompute[oracle]"])
    assert res.summary == json.loads(p.stdout)
    labels = {c["strategy"] for c in res.summary["cells"]}
    assert labels == {"eight", "precompute[oracle]"}
    assert ringsched.simulate(path, seeds=3, jobs=5, restart_cost=20, strategies="eight,precompute[oracle]").summary \
        == res.summary


def test_a_dict_config_runs_as_its_file(example):
    path = example("tiny-2node.json")
    with open(path) as f:
        doc = json.load(f)
    a = ringsched.simulate(path)
    b = ringsched.simulate(doc, base_dir=os.path.dirname(path))
    assert a.summary["cells"] == b.summary["cells"]
    assert a.jobs_csv() == b.jobs_csv()


def test_jobs_and_events_are_rows(example):
    res = ringsched.simulate(example("tiny-2node.json"), seeds=1, strategies="eight")
    jobs = res.jobs
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None:
        assert isinstance(jobs, pd.DataFrame)
        assert len(jobs) == 16 and jobs["jct_s"].min() > 0
    else:
        assert isinstance(jobs, list) and len(jobs) == 16  # 8 jobs x 2 levels
        assert isinstance(jobs[0]["jct_s"], float) and isinstance(jobs[0]["job_id"], int)
        assert min(r["jct_s"] for r in jobs) > 0
        assert {r["level"] for r in jobs} == {"moderate", "extreme"}
        assert len(res.events) > 0 and {"kind", "from_gpus", "to_gpus"} <= set(res.events[0])


def test_table3_view_and_formats(example):
    res = ringsched.simulate(example("tiny-2node.json"), seeds=2)
    t = res.table("table3", "csv")
    assert t.splitlines()[0] == "level,load,rate_per_hour,strategy,mean_jct_min,ci95_min,n,ratio_to_eight,ratio_ci95"
    assert json.loads(res.table(format="json")) == res.summary
    with pytest.raises(ringsched.InputError, match="view must be 'summary' or 'table3'"):
        res.table("nope")


@pytest.mark.parametrize(
    "args,kwargs",
    [
        (["--seeds", "0"], {"seeds": 0}),
        (["--strategies", "nosuch"], {"strategies": "nosuch"}),
    ],
)
def test_bad_overrides_raise_input_error(binary, example, args, kwargs):
    path = example("tiny-2node.json")
    with pytest.raises(ringsched.InputError) as e:
        ringsched.simulate(path, **kwargs)
    assert isinstance(e.value, ValueError)
    p = cli(binary, "simulate", "--config", path, "--quiet", *args)
    assert p.returncode == 2
    if "nosuch" in kwargs.get("strategies", ""):  # the same message as the command line's exit 2 (the list of
        # valid names that follows also holds the strategies other tests registered in this process)
        assert p.stderr.split(" (valid:")[0] == "ringsched: error: " + str(e.value).split(" (valid:")[0]


def test_bad_configs_raise_the_command_lines_message(tmp_path, binary):
    bad = tmp_path / "bad.json"
    bad.write_text('{"cluster": {"nodes": 2, "gpus_per_node": 8}, "workload": {"catalog": "paper", "jobs": -3}}')
    with pytest.raises(ringsched.InputError) as e:
        ringsched.simulate(str(bad))
    p = cli(binary, "simulate", "--config", str(bad), "--quiet")
    assert p.returncode == 2
    assert p.stderr.strip() == "ringsched: error: " + str(e.value)
    assert "workload.jobs" in str(e.value)
    with pytest.raises(ringsched.InputError, match="cannot|No such|not found|missing"):
        ringsched.simulate(str(tmp_path / "missing.json"))


def test_bad_dicts_name_the_json_path():
    with pytest.raises(ringsched.InputError, match=r"config: .*clustr"):
        ringsched.simulate({"clustr": {}})
    with pytest.raises(ringsched.InputError, match="NaN|infinity"):
        ringsched.simulate({"cluster": {"nodes": float("nan"), "gpus_per_node": 8}})
    with pytest.raises(TypeError):
        ringsched.simulate(42)
    for kwargs in ({"seeds": "3"}, {"jobs": 2.5}, {"restart_cost": float("nan")}, {"threads": -1},
                   {"strategies": ""}, {"strategies": []}, {"seeds": True}):
        with pytest.raises(ringsched.InputError):
            ringsched.simulate({"cluster": {"nodes": 1, "gpus_per_node": 8}}, **kwargs)


def test_validate_and_strategies(example):
    v = ringsched.validate(example("tiny-2node.json"))
    assert v["total_gpus"] == 16 and v["catalog"] == "paper" and v["seeds"] == 2
    assert [s["label"] for s in v["strategies"]] == ["eight", "precompute", "exploratory", "optimus"]
    assert v["runs"] == 2 * 4 * 2
    names = {s["name"] for s in ringsched.strategies()}
    assert {"eight", "precompute", "pollux", "max_min_fairness"} <= names
    with pytest.raises(ringsched.InputError):
        ringsched.validate({"cluster": {"nodes": 0, "gpus_per_node": 8}})
