#!/usr/bin/python3
"""examples/python/plot_results.py — results to a plot: mean JCT per contention level and strategy (95% CI error
bars) and, beside it, each strategy's paired JCT ratio to `eight` (the paper's headline), from a ringsched.Result
or a folder written by `ringsched simulate --out` / Result.write (its summary.json).

    examples/python/plot_results.py /tmp/elastic --png /tmp/elastic.png
    examples/python/plot_results.py --config workloads/examples/tiny-2node.json

Runs with Debian's /usr/bin/python3 (the shebang) and needs its matplotlib (python3-matplotlib); --config also needs
the built module (found in the build tree without PYTHONPATH).
"""

import argparse
import json
import os
import sys

from find_ringsched import import_ringsched


def _num(v):
    """A summary.json figure: null (n = 0 for a mean, n < 2 for a CI) is NaN, which draws no bar or whisker."""
    return float("nan") if v is None else v


def _errs(values, scale=1.0):
    """Whisker half-widths, or None when no value has one (one seed: matplotlib fails on an all-NaN yerr)."""
    errs = [_num(v) / scale for v in values]
    return errs if any(e == e for e in errs) else None




def plot_summary(summary, png, title=None):
    """Draws summary.json's cells (a dict) into png."""
    try:
        import matplotlib
    except ImportError:
        sys.exit(f"plot_results.py: {sys.executable} has no matplotlib: apt-get install python3-matplotlib and run "
                 "this with /usr/bin/python3")

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = summary["cells"]
    levels = list(dict.fromkeys(c["level"] for c in cells))
    strategies = list(dict.fromkeys(c["strategy"] for c in cells))
    by = {(c["level"], c["strategy"]): c for c in cells}
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2), constrained_layout=True)
    width = 0.8 / len(strategies)
    for k, s in enumerate(strategies):
        xs = [i + (k - (len(strategies) - 1) / 2) * width for i in range(len(levels))]
        m = [by[(lv, s)]["metrics"]["mean_jct_s"] for lv in levels]
        ax.bar(xs, [_num(v["mean"]) / 60 for v in m], width, yerr=_errs([v["ci95"] for v in m], 60), capsize=2, label=s,
               color=f"C{k}")
        if s != "eight" and all("jct_ratio_to_eight" in by[(lv, s)] for lv in levels):
            r = [by[(lv, s)]["jct_ratio_to_eight"] for lv in levels]
            bx.errorbar(range(len(levels)), [_num(v["mean"]) for v in r], yerr=_errs([v["ci95"] for v in r]), marker="o",
                        capsize=3, label=s, color=f"C{k}")
    ax.set_xticks(range(len(levels)), levels)
    ax.set_ylabel("mean JCT (min), 95% CI")
    ax.set_title("Mean job completion time")
    ax.legend(fontsize=8)
    bx.axhline(1.0, color="grey", lw=0.8)
    bx.axhline(0.5, color="grey", lw=0.8, ls=":")
    bx.set_xticks(range(len(levels)), levels)
    bx.set_ylabel("JCT / JCT of eight (paired by seed)")
    bx.set_title("Ratio to eight (lower is better; dotted: 2x)")
    if bx.lines:
        bx.legend(fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    tmp = png + ".tmp.png"
    fig.savefig(tmp, dpi=120)
    os.replace(tmp, png)  # never a half-written plot
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", nargs="?", help="a folder with summary.json (from --out or Result.write)")
    ap.add_argument("--config", help="or run this config first (ringsched.simulate)")
    ap.add_argument("--png", default="results.png", help="output image (default results.png)")
    args = ap.parse_args(argv)
    if (args.folder is None) == (args.config is None):
        ap.error("give a folder with summary.json or --config")
    if args.config:
        ringsched = import_ringsched("plot_results.py")
        try:
            summary = ringsched.simulate(args.config).summary
        except ringsched.InputError as e:
            print(f"plot_results.py: {e}", file=sys.stderr)
            return 2
    else:
        path = os.path.join(args.folder, "summary.json")
        try:
            with open(path) as f:
                summary = json.load(f)
        except (OSError, ValueError) as e:
            print(f"plot_results.py: {path}: {e}", file=sys.stderr)
            return 2
        if not isinstance(summary, dict) or "cells" not in summary:
            print(f"plot_results.py: {path}: not a ringsched summary.json (no 'cells')", file=sys.stderr)
            return 2
    title = summary.get("config", {}).get("description", "")
    if len(title) > 110:
        title = title[:110].rsplit(" ", 1)[0] + " ..."
    plot_summary(summary, args.png, title)
    print(f"wrote {args.png}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
