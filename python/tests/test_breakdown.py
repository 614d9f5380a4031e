"""python::breakdown: a config with output.breakdown and output.series_s gives Result.write the same breakdown.csv,
series.csv, jobs.csv and summary.json as `ringsched simulate --breakdown --series` (issue 40 item 4)."""

import json
import os
import subprocess

import ringsched


def test_breakdown_and_series_files_are_the_command_lines_byte_for_byte(tmp_path, binary, source):
    fixture = source / "test" / "fixtures" / "metrics"
    doc = json.loads((fixture / "queue-cluster.json").read_text())
    doc["workload"]["trace"]["file"] = str(fixture / "philly-queue.json")
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(doc))
    out = tmp_path / "cli"
    p = subprocess.run([binary, "simulate", "--config", str(plain), "--out", str(out), "--quiet", "--breakdown",
                        "--series", "100"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    doc["output"] = {"breakdown": True, "series_s": 100}
    asked = tmp_path / "asked.json"
    asked.write_text(json.dumps(doc))
    res = ringsched.simulate(str(asked), threads=2)
    res.write(tmp_path / "py")
    for name in ("breakdown.csv", "series.csv", "jobs.csv", "events.csv"):
        assert (tmp_path / "py" / name).read_bytes() == (out / name).read_bytes(), name
    assert "trace,fifo,1,all,all,4,1102.5,662.5,850,942.5," in (out / "breakdown.csv").read_text()
    # summary.json records the config as given (flags vs keys), and both carry the queueing and fairness metrics.
    cells = json.loads((tmp_path / "py" / "summary.json").read_text())["cells"]
    assert cells[0]["queue_fairness"]["queue_delay_mean"]["mean"] == 662.5
    assert abs(cells[1]["queue_fairness"]["rho_max"]["mean"] - 1.56) < 1e-12
    assert sorted(os.listdir(tmp_path / "py")) == sorted(os.listdir(out))
