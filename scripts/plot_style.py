# scripts/plot_style.py — what every figure of scripts/plot shares: one colour, marker, hatch and line style per
# strategy, the unit of times (--time-unit), legends beside the axes, titles and level axes (numeric for loads and
# rates). Imported by scripts/plot (its own folder is on sys.path); Python 3 + matplotlib.
import math
import textwrap
import zlib

# One style per strategy in every figure. The first eight colours are Okabe & Ito's colour-blind-safe set; the rest
# are Paul Tol's muted, bright-extra and light colours. No 16 colours stay apart under every colour-vision deficiency,
# so a strategy coloured beyond the first eight also gets a bar hatch and a dashed line; every strategy has its own
# marker. Registered strategies have fixed colours (FIXED, in the registry's order: a test checks that each
# registered name is here and that they are distinct); other names (Python strategies, labels with [beliefs]) take
# the colours left, each at a place chosen by its name (CRC-32), the next free one when two names want the same.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442",
           "#999933", "#332288", "#882255", "#117733", "#44AA99", "#AA4499", "#661100", "#CC6677", "#6699CC",
           "#DDCC77", "#88CCEE", "#AA4466", "#888888", "#EE8866", "#BBCC33", "#77AADD", "#FFAABB", "#EEDD88"]
FIXED = {"eight": "#0072B2", "precompute": "#E69F00", "exploratory": "#009E73", "optimus": "#D55E00",
         "pollux": "#CC79A7", "tiresias": "#56B4E9", "srtf": "#000000", "fifo": "#999933", "optimal": "#332288",
         "afs": "#882255", "gavel_fifo": "#117733", "gavel_fifo_perf": "#44AA99", "max_min_fairness": "#AA4499",
         "max_min_fairness_perf": "#661100", "finish_time_fairness_perf": "#CC6677",
         "min_total_duration_perf": "#6699CC", "finish_time_fairness": "#DDCC77", "min_total_duration": "#88CCEE",
         "max_sum_throughput_perf": "#AA4466", "isolated": "#888888", "allox": "#EE8866",
         "gandiva_fair": "#BBCC33", "sia_gavel": "#77AADD", "sjf": "#FFAABB", "qssf": "#F0E442"}
MARKERS = ["o", "s", "D", "^", "v", "<", ">", "P", "X", "*", "h", "p", "d", "8", "H", "1", "2", "3", "4", "+", "x",
           "|", "_", "$\\clubsuit$", "$\\spadesuit$", "$\\heartsuit$"]
HATCHES = ["//", "\\\\", "xx", "..", "++", "--", "oo", "||", "**"]
_STRATEGY_COLOURS = dict(FIXED)


def strategy_colour(name):
    name = str(name)
    if name not in _STRATEGY_COLOURS:
        used = set(_STRATEGY_COLOURS.values())
        rest = [c for c in PALETTE if c not in FIXED.values()]
        start = zlib.crc32(name.encode("utf-8")) % len(rest)
        free = [rest[(start + k) % len(rest)] for k in range(len(rest)) if rest[(start + k) % len(rest)] not in used]
        _STRATEGY_COLOURS[name] = free[0] if free else rest[start]
    return _STRATEGY_COLOURS[name]


def register_strategies(names):
    """Colours for every name of a run before any figure, in sorted order: the same names get the same colours
    whatever order they come in."""
    for n in sorted(str(x) for x in names):
        strategy_colour(n)


def strategy_style(name):
    """{colour, marker, hatch, ls} of a strategy."""
    colour = strategy_colour(name)
    i = PALETTE.index(colour)
    return {"colour": colour, "marker": MARKERS[i % len(MARKERS)],
            "hatch": "" if i < 8 else HATCHES[(i - 8) % len(HATCHES)], "ls": "-" if i < 8 else "--"}


# --time-unit: times in the figures in seconds, minutes (the default of the JCT figures) or hours (the default of the
# timelines). None = each figure's default.
TIME_UNITS = {"s": 1.0, "min": 60.0, "h": 3600.0}
_TIME_UNIT = {"name": None}


def set_time_unit(name):
    """--time-unit: "s", "min", "h", or None (each figure's default)."""
    _TIME_UNIT["name"] = name


def time_unit(default="min"):
    """(name, seconds per unit) of the times in a figure."""
    name = _TIME_UNIT["name"] or default
    return name, TIME_UNITS[name]


def legend_outside(ax, **kw):
    """The legend beside the axes (right of them), never over the bars or lines."""
    return ax.legend(fontsize=kw.pop("fontsize", 8), loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0,
                     **kw)


def wrap_title(text, width_in, fontsize=9):
    """Wrap a title at word boundaries to fit a panel `width_in` inches wide (never cut mid-word)."""
    chars = max(20, int(width_in * 72 / (0.55 * fontsize)))
    return "\n".join(textwrap.wrap(str(text), chars, break_long_words=False, break_on_hyphens=False)) or str(text)


def level_ticks(ax, names, panel_width_in):
    """Category tick labels that do not overlap: wrapped, then rotated and shrunk when they still do not fit."""
    slot = max(0.3, panel_width_in - 1.3) / max(1, len(names))  # inches of axis per label (less the margins)
    chars = max(4, int(slot * 72 / (0.62 * 8)) - 2)
    labels = ["\n".join(textwrap.wrap(str(n), chars, break_long_words=False)) or str(n) for n in names]
    longest = max((len(line) for lb in labels for line in lb.split("\n")), default=1)
    lines = max((lb.count("\n") + 1 for lb in labels), default=1)
    ax.set_xticks(range(len(names)))
    if longest <= chars and lines <= 3:
        ax.set_xticklabels(labels, fontsize=8)
    else:
        ax.set_xticklabels([str(n) for n in names], fontsize=7, rotation=30, ha="right", rotation_mode="anchor")


def positive_number(v):
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0
    return float(v) if ok else None


def level_axis(doc):
    """x of each level of a summary.json: its offered load, or its arrival rate (jobs/h), on a numeric axis when every
    level has one (at least two levels, all different); else evenly spaced categories. (xs, x label, numeric)."""
    levels = doc["levels"]
    loads = [positive_number(lv.get("load")) for lv in levels]
    rates = [positive_number(lv.get("rate_per_hour")) for lv in levels]
    if len(levels) >= 2 and all(loads) and len(set(loads)) == len(loads):
        return loads, "offered load", True
    if len(levels) >= 2 and not any(loads) and all(rates) and len(set(rates)) == len(rates):
        return rates, "arrival rate (jobs/h)", True
    return list(range(len(levels))), "contention level", False


def level_axis_ticks(ax, doc, xs, numeric, width_in):
    """Numeric axes: a tick at each level's value, labelled with the value and the level's name (a name that is
    not the number itself); categories: the names (level_ticks)."""
    names = [str(lv["name"]) for lv in doc["levels"]]
    if not numeric:
        level_ticks(ax, names, width_in)
        ax.set_xlim(-0.5, len(names) - 0.5)
        return
    span = min(b - a for a, b in zip(sorted(xs), sorted(xs)[1:]))
    ax.set_xlim(min(xs) - 0.6 * span, max(xs) + 0.6 * span)
    ax.set_xticks(xs)
    crowded = len(xs) > 8 or span / (max(xs) - min(xs)) * (width_in - 1.5) < 0.6
    labels = ["%g" % x if crowded or n == "%g" % x else "%g\n%s" % (x, "\n".join(textwrap.wrap(n, 10)) or n)
              for x, n in zip(xs, names)]
    ax.set_xticklabels(labels, fontsize=8)


