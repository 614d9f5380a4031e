"""ringsched from Python: run experiments on the C++ engine and write scheduling policies in Python.

    import ringsched
    res = ringsched.simulate("workloads/examples/tiny-2node.json", seeds=3)
    print(res.table())            # the table `ringsched simulate` prints
    res.summary                   # summary.json as a dict
    res.jobs, res.events          # pandas DataFrames when pandas is importable, else lists of dicts

    class Fcfs8(ringsched.Strategy):
        def decide(self, snapshot):
            free, out = snapshot.free_gpus, {}
            for job in snapshot.jobs:
                if job.gpus == 0:
                    need = max(job.min_gpus, min(8, job.max_gpus))
                    if need > free:
                        break
                    out[job.id] = need
                    free -= need
            return out

    ringsched.register_strategy("fcfs8", Fcfs8)
    ringsched.simulate("my.json", strategies=["eight", "fcfs8"])

Documentation: docs/python.md. Everything here is a thin layer over ringsched._core (python/module.cpp).
"""

from __future__ import annotations

import csv
import io
import json
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from . import _core
from ._core import InputError, Job, Pool, Snapshot

__version__ = _core.__version__

__all__ = [
    "InputError",
    "SimulationError",
    "Job",
    "Pool",
    "Snapshot",
    "Strategy",
    "Result",
    "simulate",
    "validate",
    "strategies",
    "register_strategy",
    "fit",
]


class SimulationError(RuntimeError):
    """Some runs of an experiment failed (a strategy raised or made an invalid decision). The message lists each
    failed run (level, strategy, seed, error); `.result` holds the experiment with the runs that finished."""

    def __init__(self, message: str, result: "Result"):
        super().__init__(message)
        self.result = result


class Strategy:
    """Base class of strategies written in Python. Subclass it, implement decide(), register the class with
    ringsched.register_strategy(name, cls); configs then name it like a built-in.

    The engine builds one instance per run (replicate) as cls(**params), with the config's "params" (only the keys
    given to register_strategy's params=), and calls decide() at every arrival, completion and requested wake-up.
    """

    def decide(self, snapshot: Snapshot) -> Union[None, Mapping[int, Any], tuple]:
        """Return {job_id: value} for the jobs whose GPUs change (jobs not in it keep theirs; 0 stops a job), or
        ({job_id: value}, wakeup_s) to be called again at time wakeup_s if nothing happens first, or None.
        A value is gpus (an int), (gpu_type, gpus) on a cluster with GPU types, or {"gpus": n, "gpu_type": t,
        "nodes": [GPUs per node]} ("gpu_type" and "nodes" optional; "nodes" only with a placement policy).
        Each count must be 0 or within the job's min_gpus..max_gpus, and the totals at most each pool's GPUs."""
        raise NotImplementedError("a ringsched.Strategy subclass must implement decide(self, snapshot)")

    def on_arrival(self, snapshot: Snapshot, job: Job) -> None:
        """Optional: called once for each job, in arrival order, with the snapshot of the first decision that shows
        it, just before that decide(snapshot) (so at its arrival time on event-driven configs, at the next round
        on round-based ones). Its return value is ignored; decide() still decides."""

    def on_finish(self, job_id: int) -> None:
        """Called when a job finishes (drop per-job state here)."""


def register_strategy(
    name: str,
    cls: type,
    params: Iterable[str] = (),
    description: str = "",
    default_beliefs: str = "none",
    gpu_types: bool = False,
) -> None:
    """Register `cls` (a ringsched.Strategy subclass) as strategy `name` for configs run from this process.

    params: the parameter names a config may give it (each becomes a keyword argument of cls); default_beliefs: the
    belief source when a config names none ("none", "history", "oracle", ...; beliefs are what the believed_* methods
    of a Job answer from); gpu_types=True: the class chooses a GPU type for the jobs it starts (decisions
    (gpu_type, gpus)), so configs with cluster.pools may run it (without it they refuse it, as they refuse
    untyped built-ins). Registering a name again replaces the earlier Python class; built-in names and the
    reserved name 'all' are refused (InputError), as are a name that is not a str and a cls that is not a subclass.
    """
    if not isinstance(name, str):
        raise InputError(f"register_strategy: name must be a str, got {name!r}")
    if not (isinstance(cls, type) and issubclass(cls, Strategy)):
        raise InputError(f"register_strategy: cls must be a subclass of ringsched.Strategy, got {cls!r}")
    if isinstance(params, str):
        raise TypeError("register_strategy: params must be a list of names, not a string")
    if not isinstance(gpu_types, bool):
        raise InputError(f"register_strategy: gpu_types must be True or False, got {gpu_types!r}")
    on_arrival = getattr(cls, "on_arrival", Strategy.on_arrival) is not Strategy.on_arrival
    _core.register_strategy(
        name, cls, [str(p) for p in params], str(description), str(default_beliefs), gpu_types, on_arrival
    )


def strategies() -> List[Dict[str, Any]]:
    """Every registered strategy (built-ins and Python ones): name, description, default_beliefs, params,
    gpu_types (chooses GPU types on typed clusters), needs_gpu_types."""
    return _core.strategies()


def _config_args(config: Union[str, os.PathLike, Mapping[str, Any]], base_dir: Optional[str]):
    """(path, config_text, origin, base_dir) for _core from a path or a dict."""
    if isinstance(config, (str, os.PathLike)):
        if base_dir is not None:
            raise TypeError("base_dir applies to a config given as a dict (a file's paths are relative to the file)")
        return os.fspath(config), "", "", ""
    if isinstance(config, Mapping):
        try:
            text = json.dumps(config, allow_nan=False)
        except ValueError as e:  # NaN or inf somewhere in the dict
            raise InputError(f"config (dict): {e} (JSON has no NaN or infinity)") from None
        except TypeError as e:
            raise InputError(f"config (dict): {e}") from None
        return "", text, "config", os.fspath(base_dir) if base_dir is not None else os.getcwd()
    raise TypeError(f"config must be a path or a dict, got {type(config).__name__}")


def _strategies_arg(strategies: Union[None, str, Sequence[str]]) -> str:
    if strategies is None:
        return ""
    if isinstance(strategies, str):
        if not strategies.strip():
            raise InputError("strategies: empty (give names, a list of names, or 'all')")
        return strategies
    names = [str(s) for s in strategies]
    if not names or any(not n.strip() or "," in n for n in names):
        raise InputError(f"strategies: {names!r}: give a non-empty list of names (name or name[beliefs])")
    return ",".join(names)


def _number(value: str) -> Any:
    """A CSV field as the int or float it holds, else the text ('' stays '')."""
    if value == "":
        return value
    try:
        return int(value)
    except ValueError:
        pass
    try:
        return float(value)
    except ValueError:
        return value


def _table(text: str):
    """CSV text as a pandas DataFrame when pandas is importable, else a list of dicts (numbers converted)."""
    try:
        import pandas  # noqa: F401  (optional)
    except ImportError:
        return [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(io.StringIO(text))]
    import pandas as pd

    return pd.read_csv(io.StringIO(text))


class Result:
    """The outcome of simulate(): what `ringsched simulate --out DIR` writes, as Python objects.

    summary  summary.json as a dict (cells: every metric per level and strategy; runs: each replicate)
    jobs     jobs.csv (one row per job of every run), events  events.csv (allocation changes)
    table()  the printed table; write(dir) writes the output files
    """

    def __init__(self, core: "_core._Result"):
        self._core = core
        self._summary = None
        self._jobs = None
        self._events = None

    @property
    def summary(self) -> Dict[str, Any]:
        if self._summary is None:
            self._summary = json.loads(self._core.summary_json())
        return self._summary

    def summary_json(self) -> str:
        """summary.json's text, byte for byte."""
        return self._core.summary_json()

    @property
    def jobs(self):
        if self._jobs is None:
            self._jobs = _table(self._core.jobs_csv())
        return self._jobs

    @property
    def events(self):
        if self._events is None:
            self._events = _table(self._core.events_csv())
        return self._events

    def jobs_csv(self) -> str:
        return self._core.jobs_csv()

    def events_csv(self) -> str:
        return self._core.events_csv()

    def table(self, view: str = "summary", format: str = "md", reports: bool = True) -> str:
        """view 'summary' (every metric, as `ringsched simulate` prints) or 'table3' (mean JCT and the ratio to
        eight, as `ringsched table3` prints); format 'md', 'csv' or 'json'. reports=False leaves out what follows
        the table (the belief sources' prediction errors, measured-table clamping, the placement report)."""
        return self._core.table(view, format, bool(reports))

    def mean_jct_s(self) -> Dict[tuple, float]:
        """{(level, strategy label): mean JCT in seconds, averaged over seeds} from summary['cells']."""
        out = {}
        for cell in self.summary["cells"]:
            out[(cell["level"], cell["strategy"])] = cell["metrics"]["mean_jct_s"]["mean"]
        return out

    @property
    def warnings(self) -> List[str]:
        return self._core.warnings()

    @property
    def failures(self) -> str:
        return self._core.failures()

    def write(self, out_dir: Union[str, os.PathLike], force: bool = False) -> None:
        """Write summary.json, jobs.csv, events.csv, table.md, table.csv (and the belief and placement outputs)
        into out_dir, all at once. A folder holding an earlier run's files is refused (InputError) unless
        force=True, which replaces that whole set (as `--out DIR --force`)."""
        self._core.write(os.fspath(out_dir), bool(force))

    def __repr__(self) -> str:
        s = self.summary
        return f"<ringsched.Result: {len(s.get('runs', []))} runs of {s.get('config', {}).get('description', '')!r}>"


def simulate(
    config: Union[str, os.PathLike, Mapping[str, Any]],
    *,
    seeds: Optional[int] = None,
    jobs: Optional[int] = None,
    restart_cost: Optional[float] = None,
    strategies: Union[None, str, Sequence[str]] = None,
    threads: int = 0,
    optimality_gap: bool = False,
    base_dir: Optional[Union[str, os.PathLike]] = None,
    check: bool = True,
) -> Result:
    """Run an experiment config (a path, or a dict of the same schema: docs/config.md) and return its Result.

    The keywords override the config as `ringsched simulate`'s flags do: seeds, jobs (per replicate), restart_cost
    (seconds), strategies (names or name[beliefs], a list or a comma-separated string, or 'all'), threads (0: all
    cores; results are identical for any count), optimality_gap. base_dir resolves a dict's relative paths (default:
    the current folder). Bad input raises InputError with the command line's message; failed runs raise
    SimulationError unless check=False.
    """
    path, text, origin, bdir = _config_args(config, base_dir)
    # seeds, jobs, restart_cost and threads are checked by _core (type and range: InputError naming the keyword).
    core = _core.simulate(
        path, text, origin, bdir, seeds, jobs, restart_cost, _strategies_arg(strategies), threads, bool(optimality_gap)
    )
    result = Result(core)
    if check and core.failed() > 0:
        raise SimulationError(core.failures().rstrip("\n"), result)
    return result


def validate(
    config: Union[str, os.PathLike, Mapping[str, Any]], *, base_dir: Optional[Union[str, os.PathLike]] = None
) -> Dict[str, Any]:
    """Parse and check a config as `ringsched validate` does (training runs and history fits included); returns what
    it would run (GPUs, catalog, levels, strategies with their beliefs, runs). Bad input raises InputError."""
    path, text, origin, bdir = _config_args(config, base_dir)
    return _core.validate(path, text, origin, bdir)


def _points_csv(points) -> str:
    """Measured points (a DataFrame, or rows as dicts or (gpus, nodes, global_batch, step_seconds)) as CSV text."""
    if hasattr(points, "to_dict") and hasattr(points, "columns"):  # a pandas DataFrame
        points = points.to_dict("records")
    rows = list(points)
    out = io.StringIO()
    out.write("gpus,nodes,global_batch,step_seconds\n")
    for i, row in enumerate(rows):
        if isinstance(row, Mapping):
            missing = [k for k in ("gpus", "nodes", "global_batch", "step_seconds") if k not in row]
            if missing:
                raise InputError(f"points[{i}]: missing {', '.join(missing)} (keys: gpus, nodes, global_batch, "
                                 "step_seconds)")
            values = [row["gpus"], row["nodes"], row["global_batch"], row["step_seconds"]]
        else:
            values = list(row)
            if len(values) != 4:
                raise InputError(f"points[{i}]: expected (gpus, nodes, global_batch, step_seconds), got {row!r}")
        out.write(",".join(repr(v) if isinstance(v, float) else str(v) for v in values) + "\n")
    return out.getvalue()


def fit(
    points=None,
    *,
    pollux: Optional[str] = None,
    measurements: Sequence[str] = (),
    probes: Sequence[Union[str, int]] = (),
    protocol: str = "auto",
    name: str = "",
    model_size: float = 0.0,
    gpus_per_node: int = 0,
    work_samples: float = 0.0,
    max_gpus: int = 64,
    suggest_probe: bool = False,
    model: str = "net",
    nic_gbps: Optional[float] = None,
    intra_gbps: Optional[float] = None,
    bytes_per_param: float = 4.0,
    overlap: float = 0.0,
    budget: int = 0,
    add_probes: Sequence[Union[str, int]] = (),
) -> Dict[str, Any]:
    """Fit a speed model as `ringsched fit` does and return its JSON as a dict: "class" (a catalog entry), "quality"
    (R^2, leave-one-GPU-count-out error, predictions at unprofiled points, warnings) and "eq1", plus "notes" (what
    the command prints on stderr: the protocol chosen, inferred GPUs per node, warnings).

    Input, exactly one: points (a CSV path, a DataFrame, or rows of gpus, nodes, global_batch, step_seconds), pollux
    (a Pollux application name), or measurements (profiler measurement files). probes: fit only on these positions
    (8, "4+4", "8@2"); every other point is predicted and scored. Formats: docs/heldout.md.
    model: "net" (default), "phys" (compute + the all-reduce on the job's links, bounded by nic_gbps / intra_gbps and
    bytes_per_param; posterior intervals) or "auto"; budget: plan that many probes (phys; quality.probe_plan);
    add_probes: positions joined to the protocol's points (docs/heldout.md "The `phys` model").
    """
    csv_path = ""
    csv_text = ""
    origin = "points"
    if points is not None:
        if isinstance(points, (str, bytes, os.PathLike)):
            # Read by _core as `ringsched fit --csv` reads it: a regular file of at most 1 GiB (a FIFO, a device such
            # as /dev/zero or a folder is refused before anything is read); messages name the file and its lines.
            csv_path = os.fsdecode(points)
            if not csv_path:
                raise InputError("points: empty path")
        else:
            csv_text = _points_csv(points)
    if isinstance(measurements, (str, bytes, os.PathLike)):  # one file (not its characters)
        measurements = [measurements]
    # model_size, gpus_per_node, work_samples and max_gpus are checked by _core (InputError naming the keyword).
    out, notes = _core.fit(
        csv_path,
        csv_text,
        origin,
        pollux or "",
        [os.fsdecode(m) for m in measurements],
        [str(p) for p in probes],
        protocol,
        name,
        model_size,
        gpus_per_node,
        work_samples,
        max_gpus,
        bool(suggest_probe),
        model,
        nic_gbps,
        intra_gbps,
        bytes_per_param,
        overlap,
        budget,
        [str(p) for p in add_probes],
    )
    doc = json.loads(out)
    doc["notes"] = [line[len("ringsched fit: "):] if line.startswith("ringsched fit: ") else line
                    for line in notes.splitlines() if line.strip()]
    return doc
