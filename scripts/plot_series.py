# scripts/plot_series.py — the `series` figure of scripts/plot: series.csv (`ringsched simulate --series SECONDS`)
# as GPU utilisation and queued jobs over time, one line per strategy (step lines: each row holds until the next
# boundary), one figure per level, for one seed (the first in the file unless --seed). Imported by scripts/plot,
# which passes its helpers (read_csv, save, fail, ordered_unique, safe_name).
import matplotlib.pyplot as plt
from matplotlib import ticker as mticker

from plot_style import legend_outside, register_strategies, strategy_colour, strategy_style, time_unit, wrap_title

SERIES_COLUMNS = ("level", "strategy", "seed", "time_s", "utilisation", "queued_jobs", "running_jobs")


def plot_series(path, out_dir, formats, helpers, level=None, seed=None):
    read_csv, save, fail, ordered_unique, safe_name = helpers
    rows = read_csv(path)
    if not rows or any(c not in rows[0] for c in SERIES_COLUMNS):
        fail(path + ": no series.csv rows (need columns %s)" % ", ".join(SERIES_COLUMNS))
    levels = ordered_unique(r["level"] for r in rows)
    if level is not None and level not in levels:
        fail("%s: no level %r (levels: %s)" % (path, level, ", ".join(levels)))
    register_strategies(ordered_unique(r["strategy"] for r in rows))
    unit, seconds = time_unit("h")
    written = []
    for lv in [level] if level is not None else levels:
        lrows = [r for r in rows if r["level"] == lv]
        sd = seed if seed is not None else lrows[0]["seed"]
        lrows = [r for r in lrows if r["seed"] == str(sd)]
        if not lrows:
            fail("%s: no rows for level %s, seed %s" % (path, lv, sd))
        fig, (ax_u, ax_q) = plt.subplots(2, 1, figsize=(8, 5.2), sharex=True)
        for s in ordered_unique(r["strategy"] for r in lrows):
            srows = sorted((r for r in lrows if r["strategy"] == s), key=lambda r: float(r["time_s"]))
            t = [float(r["time_s"]) / seconds for r in srows]
            style = dict(color=strategy_colour(s), linestyle=strategy_style(s)["ls"], linewidth=1.2)
            ax_u.step(t, [float(r["utilisation"]) for r in srows], where="post", label=s, **style)
            ax_q.step(t, [int(r["queued_jobs"]) for r in srows], where="post", label=s, **style)
        ax_u.set_ylabel("GPU utilisation")
        ax_u.set_ylim(-0.02, 1.02)
        ax_q.set_ylabel("queued jobs")
        ax_q.set_ylim(bottom=0)
        ax_q.yaxis.set_major_locator(mticker.MaxNLocator(integer=True))
        ax_q.set_xlabel("time (%s)" % unit)
        ax_u.set_title(wrap_title("Utilisation and queue over time: level %s, seed %s" % (lv, sd), 8), fontsize=9)
        for ax in (ax_u, ax_q):
            ax.grid(alpha=0.3)
            ax.tick_params(labelsize=7)
        legend_outside(ax_u)
        written += save(fig, out_dir, "series_" + safe_name(lv), formats)
    return written
