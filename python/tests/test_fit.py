"""python::fit: ringsched.fit gives `ringsched fit`'s JSON for the same points, from a file, rows or a DataFrame."""

import csv
import json
import subprocess

import pytest

import ringsched


def cli_fit(binary, *args):
    p = subprocess.run([binary, "fit", *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout), p.stderr


def test_fit_matches_the_command_line(source, binary):
    path = str(source / "test/fixtures/heldout/points-eq5.csv")
    want, notes = cli_fit(binary, "--csv", path, "--model-size", "1.7", "--name", "m", "--work-samples", "1e7")
    got = ringsched.fit(path, model_size=1.7, name="m", work_samples=1e7)
    assert got["class"] == want["class"] and got["quality"] == want["quality"] and got["eq1"] == want["eq1"]
    assert got["notes"] and all(n in notes for n in got["notes"])
    # The same points as rows (dicts or tuples): the same fit; only the source named in the entry differs.
    with open(path) as f:
        rows = [{k: float(v) if k in ("global_batch", "step_seconds") else int(v) for k, v in r.items()}
                for r in csv.DictReader(f)]
    for points in (rows, [(r["gpus"], r["nodes"], r["global_batch"], r["step_seconds"]) for r in rows]):
        g = ringsched.fit(points, model_size=1.7, name="m", work_samples=1e7)
        assert g["quality"] == want["quality"]
        assert g["class"]["speed"] == want["class"]["speed"]


def test_fit_with_probes_and_a_pollux_application(binary):
    want, _ = cli_fit(binary, "--pollux", "bert", "--probes", "1,2,4,4+4")
    got = ringsched.fit(pollux="bert", probes=[1, 2, 4, "4+4"])
    assert got["class"] == want["class"] and got["quality"] == want["quality"]


def test_fit_from_a_dataframe(source):
    pd = pytest.importorskip("pandas")
    path = str(source / "test/fixtures/heldout/points-eq5.csv")
    a = ringsched.fit(path, model_size=1.7)
    b = ringsched.fit(pd.read_csv(path), model_size=1.7)
    assert a["quality"] == b["quality"]


def test_bad_points_are_input_errors_naming_the_row(source, tmp_path):
    with pytest.raises(ringsched.InputError, match=r"points:3: .*nodes"):
        ringsched.fit([(1, 1, 32, 0.5), (2, 3, 64, 0.55)], model_size=1)
    with pytest.raises(ringsched.InputError, match=r"points\[1\]: missing step_seconds"):
        ringsched.fit([{"gpus": 1, "nodes": 1, "global_batch": 32, "step_seconds": 0.5},
                       {"gpus": 2, "nodes": 1, "global_batch": 32}])
    with pytest.raises(ringsched.InputError, match="step_seconds"):
        ringsched.fit([(1, 1, 32, float("nan")), (2, 1, 32, 0.3)], model_size=1)
    with pytest.raises(ringsched.InputError, match="exactly one of"):
        ringsched.fit()
    with pytest.raises(ringsched.InputError, match=r"missing\.csv: .*no such file"):
        ringsched.fit(str(tmp_path / "missing.csv"))
    bad = str(source / "test/fixtures/heldout/points-bad.csv")
    with pytest.raises(ringsched.InputError, match=r"points-bad\.csv:3"):
        ringsched.fit(bad, model_size=1)


def test_fit_phys_matches_the_command_line_and_refuses_a_zero_rate(source, binary):
    # The physical model (docs/heldout.md "The `phys` model") on a shipped unseen table, with its declared hardware.
    path = str(source / "workloads/data/scaling/elasticflow-bert-a100.csv")
    want, _ = cli_fit(binary, "--csv", path, "--model", "phys", "--model-size", "110", "--nic-gbps", "1600",
                      "--intra-gbps", "2400", "--budget", "1")
    got = ringsched.fit(path, model="phys", model_size=110, nic_gbps=1600, intra_gbps=2400, budget=1)
    assert got["quality"] == want["quality"] and got["class"] == want["class"]
    assert got["quality"]["model"].startswith("phys:")
    assert got["quality"]["intervals"]["method"] == "posterior"
    assert len(got["quality"]["probe_plan"]["steps"]) == 1
    with pytest.raises(ringsched.InputError, match="--nic-gbps"):
        ringsched.fit(path, model="phys", model_size=110, nic_gbps=0)
    with pytest.raises(ringsched.InputError, match="nic_gbps"):
        ringsched.fit(path, model="phys", model_size=110, nic_gbps="fast")
