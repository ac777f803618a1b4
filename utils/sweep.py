#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run an example over a grid of parameters and seeds; collect and plot its JSON.

    sweep.py EXAMPLE --grid cc=dcqcn,hpcc,timely,dctcp,none --grid load=0.3,0.5 \\
             --seeds 3 [--jobs N] [--out DIR] [--metrics a,b] [--x KEY] [-- fixed args...]
    sweep.py FILE.json [same options, which override the file's]

A sweep file is JSON:
    {"example": "rocev2-incast",
     "grid": {"cc": ["none", "dcqcn"], "senders": [2, 3]},
                                      (a value may be {"value": V, "args": [...]}:
                                       --KEY=V and arguments of that value only)
     "seeds": 2,                      (a count, seeds 1..N, or a list of seeds)
     "args": ["--size=10000"],        (fixed arguments of every run)
     "metrics": ["drops", "pfc_pause_tx"],
     "x": "senders",                  (optional: the x axis of the figures)
     "outputs": {"fct": "fct.txt"}}   (optional: per-run files, see below)

Every grid point runs once per seed, as
    EXAMPLE [fixed args] --KEY=VALUE... --RngRun=SEED --json=DIR/runs/NAME.json
with NAME = key-value_..._seed-S. A fixed argument may hold {KEY}, replaced by
the grid value (that key is then not passed as --KEY=VALUE), and "outputs"
adds --FLAG=DIR/runs/NAME.SUFFIX per run. Each run's stdout/stderr go to
DIR/runs/NAME.stdout/.stderr, its command line to DIR/runs/NAME.cmd. Runs go in
parallel, --jobs at a time (default: one per core).

Outputs in DIR (default sweep-EXAMPLE):
  results.csv  one row per run, ordered by grid value (in the order the grid
               gives them) then seed: the grid keys, seed, status ("ok",
               "exit N", "signal N", "no JSON"), then the JSON's members, flattened
               (nested objects as a.b; lists left out; true/false as 1/0).
               A member named like a grid key or seed/status is json.NAME.
               Wall-clock members (names starting "wall" or with "wall" after
               a "." or "_") are left out: they go to wall.csv with each run's
               own wall time, so the same sweep gives a byte-identical
               results.csv.
  summary.csv  one row per grid point: its keys, the number of runs that
               succeeded, and METRIC_mean/_min/_max over the seeds for every
               numeric member.
  METRIC.png   per metric (--metrics; default: every numeric member): its
               mean against the x key (--x; default the last grid key whose
               values are all numbers, else the first), one line (numeric x)
               or bar group (otherwise) per value of the other keys; error bars
               span min..max over the seeds.
  slowdown-X-V.png  with "outputs": {"fct": SUFFIX} (runs writing HPCC's fct
               format): FCT slowdown p50/p95/p99 per flow-size bucket, one
               figure per value V of the x key, a line set per value of the
               other keys (e.g. per congestion control), the seeds' flows pooled.

A failed run is reported with its command and log; the sweep finishes the
others, writes the outputs and exits 1. Bad arguments or a bad sweep file exit 2.
"""

import argparse
import concurrent.futures
import csv
import io
import json
import math
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)


class SweepError(Exception):
    """A mistake in the sweep's arguments or file (exit 2)."""


# ----------------------------------------------------------------------------
# Specification


def parse_grid_arg(text):
    """'cc=dcqcn,hpcc' -> ('cc', ['dcqcn', 'hpcc'])."""
    key, sep, values = text.partition("=")
    key = key.strip()
    vals = [v.strip() for v in values.split(",")]
    if not sep or not re.match(r"^[A-Za-z][A-Za-z0-9_.:-]*$", key) or not all(vals):
        raise SweepError("--grid %s: expected KEY=VALUE[,VALUE...]" % text)
    return key, vals


def value_text(v):
    """A grid value as the example's command line and the CSV see it."""
    if isinstance(v, bool):
        return "1" if v else "0"
    return str(v)


def load_spec(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise SweepError("%s: cannot read: %s" % (path, e.strerror))
    except ValueError as e:
        raise SweepError("%s:%s: not JSON: %s" % (path, getattr(e, "lineno", "?"), e))
    if not isinstance(doc, dict):
        raise SweepError("%s: expected a JSON object" % path)
    known = {"example", "grid", "seeds", "args", "metrics", "x", "outputs", "description"}
    unknown = sorted(set(doc) - known)
    if unknown:
        raise SweepError("%s: unknown member(s) %s (known: %s)" %
                         (path, ", ".join(unknown), ", ".join(sorted(known))))
    spec = {}
    if not isinstance(doc.get("example"), str) or not doc["example"]:
        raise SweepError("%s: \"example\" must name an example" % path)
    spec["example"] = doc["example"]
    grid = doc.get("grid", {})
    if not isinstance(grid, dict):
        raise SweepError("%s: \"grid\" must be an object of lists" % path)
    spec["grid"] = []
    spec["point_args"] = {}
    for k, vals in grid.items():
        if not isinstance(vals, list) or not vals:
            raise SweepError("%s: grid \"%s\" must be a non-empty list of values" % (path, k))
        texts = []
        for v in vals:
            if isinstance(v, dict):
                # {"value": V, "args": [...]}: --KEY=V plus arguments of this value only.
                if set(v) != {"value", "args"} or not isinstance(v["value"], (str, int, float)) \
                        or not isinstance(v["args"], list) \
                        or not all(isinstance(a, str) for a in v["args"]):
                    raise SweepError("%s: grid \"%s\": an object value is {\"value\": V, "
                                     "\"args\": [\"--FLAG=VALUE\", ...]}" % (path, k))
                texts.append(value_text(v["value"]))
                spec["point_args"][(k, texts[-1])] = list(v["args"])
            elif isinstance(v, (str, int, float)):
                texts.append(value_text(v))
            else:
                raise SweepError("%s: grid \"%s\" must be a non-empty list of values" % (path, k))
        spec["grid"].append((k, texts))
    if "seeds" in doc:
        spec["seeds"] = parse_seeds(doc["seeds"], path)
    if "args" in doc:
        if not isinstance(doc["args"], list) or not all(isinstance(a, str) for a in doc["args"]):
            raise SweepError("%s: \"args\" must be a list of strings" % path)
        spec["args"] = doc["args"]
    if "metrics" in doc:
        if not isinstance(doc["metrics"], list) or \
                not all(isinstance(m, str) for m in doc["metrics"]):
            raise SweepError("%s: \"metrics\" must be a list of names" % path)
        spec["metrics"] = doc["metrics"]
    if "x" in doc:
        spec["x"] = str(doc["x"])
    if "outputs" in doc:
        outs = doc["outputs"]
        if not isinstance(outs, dict) or not all(isinstance(v, str) for v in outs.values()):
            raise SweepError("%s: \"outputs\" must map flag names to file suffixes" % path)
        spec["outputs"] = outs
    return spec


def parse_seeds(v, where="--seeds"):
    if isinstance(v, int) and not isinstance(v, bool):
        if v < 1:
            raise SweepError("%s: seeds must be at least 1" % where)
        return list(range(1, v + 1))
    if isinstance(v, list) and v and all(isinstance(s, int) and s >= 1 for s in v) and \
            len(set(v)) == len(v):
        return list(v)
    raise SweepError("%s: seeds must be a count or a list of distinct positive integers" % where)


def run_name(point, seed):
    parts = ["%s-%s" % (k, v) for k, v in point] + ["seed-%d" % seed]
    return "_".join(re.sub(r"[^A-Za-z0-9.+-]", "-", p) for p in parts)


def expand(grid, seeds):
    """Every (point, seed), point = ((key, value), ...), in grid order then seed."""
    points = [()]
    for key, vals in grid:
        points = [p + ((key, v),) for p in points for v in vals]
    return [(p, s) for p in points for s in seeds]


def command(exe, point, seed, args, outdir, outputs, point_args=None):
    name = run_name(point, seed)
    base = os.path.join(outdir, "runs", name)
    subst = {k: v for k, v in point}
    used = set()

    def fill(a):
        def rep(m):
            if m.group(1) not in subst:
                raise SweepError("argument %s: {%s} is not a grid key" % (a, m.group(1)))
            used.add(m.group(1))
            return subst[m.group(1)]
        return re.sub(r"\{([A-Za-z][A-Za-z0-9_.:-]*)\}", rep, a)

    cmd = [exe] + [fill(a) for a in args]
    cmd += ["--%s=%s" % (k, v) for k, v in point if k not in used]
    for k, v in point:
        cmd += (point_args or {}).get((k, v), [])
    cmd += ["--RngRun=%d" % seed, "--json=%s.json" % base]
    cmd += ["--%s=%s.%s" % (flag, base, suffix) for flag, suffix in sorted(outputs.items())]
    return name, base, cmd


# ----------------------------------------------------------------------------
# Collection


WALL_RE = re.compile(r"(^|[._])wall")


def flatten(obj, prefix=""):
    """Scalar members of a JSON object as [(name, value)] in document order:
    nested objects as a.b, lists left out, booleans as 1/0, null as ''."""
    out = []
    for k, v in obj.items():
        name = prefix + str(k)
        if isinstance(v, dict):
            out.extend(flatten(v, name + "."))
        elif isinstance(v, list):
            continue
        elif isinstance(v, bool):
            out.append((name, int(v)))
        elif v is None:
            out.append((name, ""))
        else:
            out.append((name, v))
    return out


def cell(v):
    """A value as CSV text: floats in their shortest exact form."""
    if isinstance(v, float):
        return repr(v)
    return str(v)


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def collect(runs, grid_keys):
    """runs: [(point, seed, status, members)] in order. Returns (columns, rows,
    wall_columns): rows as lists of values (missing members as '')."""
    reserved = set(grid_keys) | {"seed", "status"}
    cols, wall_cols = [], []
    seen = set()
    renamed = []
    for point, seed, status, members in runs:
        named = []
        for name, v in members:
            if name in reserved:
                name = "json." + name
            named.append((name, v))
            if name in seen:
                continue
            seen.add(name)
            (wall_cols if WALL_RE.search(name) else cols).append(name)
        renamed.append((point, seed, status, dict(named)))
    rows, wall_rows = [], []
    for point, seed, status, m in renamed:
        lead = [v for _, v in point] + [seed, status]
        rows.append(lead + [m.get(c, "") for c in cols])
        wall_rows.append(lead + [m.get(c, "") for c in wall_cols])
    return cols, rows, wall_cols, wall_rows


def numeric_columns(cols, rows, first):
    """The members that are numbers in every run that has them (and in one at least)."""
    out = []
    for i, c in enumerate(cols):
        vals = [r[first + i] for r in rows if r[first + i] != ""]
        if vals and all(is_number(v) for v in vals):
            out.append(c)
    return out


def mean(vals):
    """The mean, exactly rounded (math.fsum) and kept within min..max."""
    return min(max(math.fsum(vals) / len(vals), min(vals)), max(vals))


def summarise(grid_keys, cols, rows, metrics):
    """Rows of summary.csv: per grid point, runs ok and mean/min/max per metric."""
    k = len(grid_keys)
    first = k + 2
    groups = {}
    order = []
    for r in rows:
        key = tuple(r[:k])
        if key not in groups:
            groups[key] = []
            order.append(key)
        if r[k + 1] == "ok":
            groups[key].append(r)
    header = list(grid_keys) + ["runs_ok"]
    for m in metrics:
        header += [m + "_mean", m + "_min", m + "_max"]
    out = []
    for key in order:
        row = list(key) + [len(groups[key])]
        for m in metrics:
            i = first + cols.index(m)
            vals = [g[i] for g in groups[key] if g[i] != ""]
            row += [mean(vals), min(vals), max(vals)] if vals else ["", "", ""]
        out.append(row)
    return header, out


def write_csv(path, header, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow([cell(v) for v in r])
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(buf.getvalue())


# ----------------------------------------------------------------------------
# Figures


def all_numbers(vals):
    try:
        [float(v) for v in vals]
        return True
    except ValueError:
        return False


def choose_x(grid, x):
    keys = [k for k, _ in grid]
    if x is not None:
        if x not in keys:
            raise SweepError("--x %s is not a grid key (grid: %s)" % (x, ", ".join(keys) or "none"))
        return x
    numeric = [k for k, vals in grid if all_numbers(vals)]
    if numeric:
        return numeric[-1]
    return keys[0] if keys else None


def draw_metric(path, metric, grid, x, header, summary):
    """One figure: metric's mean against x, a series per value of the other keys."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = [k for k, _ in grid]
    values = dict(grid)
    im, ilo, ihi = (header.index(metric + s) for s in ("_mean", "_min", "_max"))
    others = [k for k in keys if k != x]
    series = {}
    order = []
    for row in summary:
        point = dict(zip(keys, row[:len(keys)]))
        label = ", ".join("%s=%s" % (k, point[k]) for k in others) or metric
        if label not in series:
            series[label] = {}
            order.append(label)
        if row[im] != "":
            series[label][point[x] if x else "all"] = (row[im], row[ilo], row[ihi])
    xs = values[x] if x else ["all"]
    numeric_x = x is not None and all_numbers(xs)
    fig, ax = plt.subplots(figsize=(8, 5))
    width = 0.8 / max(1, len(order))
    for j, label in enumerate(order):
        pts = [(i, xv) + series[label][xv] for i, xv in enumerate(xs) if xv in series[label]]
        if not pts:
            continue
        m = [p[2] for p in pts]
        err = [[max(0, p[2] - p[3]) for p in pts], [max(0, p[4] - p[2]) for p in pts]]
        if numeric_x:
            # Markers and dashes differ per series (largest first), so that
            # series with equal values stay visible on top of each other.
            ax.errorbar([float(p[1]) for p in pts], m, yerr=err, capsize=4, label=label,
                        marker="osD^vP*X"[j % 8], markersize=max(3, 10 - 1.5 * j),
                        linestyle=("-", "--", "-.", ":")[j % 4], linewidth=max(1, 3 - 0.5 * j))
        else:
            ax.bar([p[0] - 0.4 + width * (j + 0.5) for p in pts], m, width, yerr=err,
                   capsize=4, label=label)
    if numeric_x:
        ax.set_xticks([float(v) for v in xs])
        ax.set_xticklabels(xs)
    else:
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels(xs)
    ax.set_xlabel(x or "")
    ax.set_ylabel("%s (mean over seeds)" % metric)
    ax.set_title("%s against %s; error bars: min..max over seeds" % (metric, x or "runs"))
    ax.grid(True, alpha=0.3)
    if others:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def slowdown_groups(grid, x, runs):
    """The FCT slowdown figures of a sweep whose runs write FCT files: one per
    value of x, a line set per value of the other keys, the seeds pooled.
    runs: [(point, fct_path)] of the successful runs, in sweep order.
    Returns [(x value or None, [(label, [fct paths])])]."""
    keys = [k for k, _ in grid]
    others = [k for k in keys if k != x]
    figures = {}
    order = []
    for point, path in runs:
        p = dict(point)
        xv = p[x] if x else None
        label = ", ".join("%s=%s" % (k, p[k]) for k in others) or "all"
        if xv not in figures:
            figures[xv] = {}
            order.append(xv)
        figures[xv].setdefault(label, []).append(path)
    return [(xv, list(figures[xv].items())) for xv in order]


def draw_slowdowns(out, grid, x, planned, results, suffix):
    """DIR/slowdown[-X-VALUE].png from the runs' FCT files (HPCC's fct format)."""
    import plot
    runs = [(point, "%s.%s" % (base, suffix))
            for i, (point, _, _, base, _) in enumerate(planned) if results[i][0] == "ok"]
    n = 0
    for xv, series in slowdown_groups(grid, x, runs):
        try:
            sets = [plot.pooled_slowdown(paths) for _, paths in series]
        except plot.InputError as e:
            print("sweep: no slowdown figure for %s=%s: %s" % (x, xv, e), file=sys.stderr)
            continue
        name = "slowdown" if xv is None else "slowdown-%s-%s" % (x, xv)
        plot.draw_slowdown_sets(sets, [label for label, _ in series],
                                os.path.join(out, re.sub(r"[^A-Za-z0-9.+-]", "_", name) + ".png"),
                                title=None if xv is None else "%s=%s, seeds pooled" % (x, xv))
        n += 1
    return n


# ----------------------------------------------------------------------------
# Running


def run_one(name, base, cmd):
    """Run cmd with logs next to base; (status, members, seconds)."""
    with open(base + ".cmd", "w", encoding="utf-8") as f:
        f.write(" ".join(cmd) + "\n")
    json_path = base + ".json"
    if os.path.exists(json_path):
        os.remove(json_path)
    start = time.monotonic()
    with open(base + ".stdout", "wb") as out, open(base + ".stderr", "wb") as err:
        try:
            rc = subprocess.call(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        except OSError as e:
            err.write(("sweep: cannot run %s: %s\n" % (cmd[0], e.strerror)).encode())
            rc = 127
    seconds = time.monotonic() - start
    if rc < 0:
        return "signal %d" % -rc, [], seconds
    if rc != 0:
        return "exit %d" % rc, [], seconds
    try:
        with open(json_path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return "no JSON", [], seconds
    if not isinstance(doc, dict):
        return "no JSON", [], seconds
    return "ok", flatten(doc), seconds


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="sweep.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("target", metavar="EXAMPLE|FILE.json")
    ap.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2",
                    help="a grid key and its values (repeat for more keys)")
    ap.add_argument("--seeds", type=int, help="seeds 1..N per grid point (default 1)")
    ap.add_argument("--jobs", "-j", type=int, help="runs at a time (default: one per core)")
    ap.add_argument("--out", help="output folder (default sweep-EXAMPLE)")
    ap.add_argument("--metrics", help="comma-separated members to plot (default: all numeric)")
    ap.add_argument("--x", help="the grid key on the figures' x axis")
    ap.add_argument("--exe", help="the example program (default BUILD_DIR/examples/EXAMPLE)")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                    help="build folder holding examples/ (default: the repository's build/)")
    ap.add_argument("--no-plots", action="store_true", help="write the CSVs only")
    return ap.parse_args(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    # Everything after the first "--" is fixed arguments for the example.
    fixed = []
    if "--" in argv:
        i = argv.index("--")
        argv, fixed = argv[:i], argv[i + 1:]
    a = parse_args(argv)
    try:
        if a.target.endswith(".json"):
            spec = load_spec(a.target)
        else:
            spec = {"example": a.target, "grid": []}
        if a.grid:
            spec["grid"] = [parse_grid_arg(g) for g in a.grid]
        keys = [k for k, _ in spec["grid"]]
        if len(set(keys)) != len(keys):
            raise SweepError("a grid key is given twice: %s" % ", ".join(keys))
        if a.seeds is not None:
            spec["seeds"] = parse_seeds(a.seeds)
        seeds = spec.get("seeds", [1])
        args = spec.get("args", []) + fixed
        for arg in args:
            if re.match(r"^--(RngRun|json)=", arg):
                raise SweepError("%s: the sweep sets --RngRun and --json of each run" % arg)
        metrics = [m for m in a.metrics.split(",") if m] if a.metrics else spec.get("metrics")
        x = choose_x(spec["grid"], a.x if a.x is not None else spec.get("x"))
        jobs = a.jobs or os.cpu_count() or 1
        if jobs < 1:
            raise SweepError("--jobs must be at least 1")
        exe = a.exe or os.path.join(a.build_dir, "examples", spec["example"])
        if not os.access(exe, os.X_OK):
            raise SweepError("%s is not an executable example (build it: ./rocev2 build %s)" %
                             (exe, spec["example"]))
        out = a.out or "sweep-" + spec["example"]
        os.makedirs(os.path.join(out, "runs"), exist_ok=True)
        planned = [(p, s) + command(exe, p, s, args, out, spec.get("outputs", {}),
                                    spec.get("point_args", {}))
                for p, s in expand(spec["grid"], seeds)]
    except SweepError as e:
        print("sweep: %s" % e, file=sys.stderr)
        return 2

    print("sweep: %d runs (%d grid points x %d seeds), %d at a time, into %s/" %
          (len(planned), len(planned) // len(seeds), len(seeds), jobs, out), file=sys.stderr)
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_one, name, base, cmd): i
                   for i, (_, _, name, base, cmd) in enumerate(planned)}
        done = 0
        for fut in concurrent.futures.as_completed(futures):
            i = futures[fut]
            results[i] = fut.result()
            done += 1
            status, _, seconds = results[i]
            print("sweep: [%d/%d] %s: %s (%.1f s)" % (done, len(planned), planned[i][2], status,
                                                      seconds), file=sys.stderr)

    failed = []
    runs = []
    for i, (point, seed, name, base, cmd) in enumerate(planned):
        status, members, _ = results[i]
        runs.append((point, seed, status, members))
        if status != "ok":
            failed.append((name, status, base, cmd))
    cols, rows, wall_cols, wall_rows = collect(runs, keys)
    lead = keys + ["seed", "status"]
    write_csv(os.path.join(out, "results.csv"), lead + cols, rows)
    write_csv(os.path.join(out, "wall.csv"), lead + wall_cols + ["sweep_run_wall_s"],
              [r + ["%.3f" % results[i][2]] for i, r in enumerate(wall_rows)])
    numeric = numeric_columns(cols, rows, len(lead))
    header, summary = summarise(keys, cols, rows, numeric)
    write_csv(os.path.join(out, "summary.csv"), header, summary)

    status = 0
    for name, st, base, cmd in failed:
        print("sweep: FAILED %s (%s): %s\n  logs: %s.stdout %s.stderr" %
              (name, st, " ".join(cmd), base, base), file=sys.stderr)
        status = 1
    if metrics is None:
        metrics = numeric
    missing = [m for m in metrics if m not in numeric]
    if missing and len(failed) < len(planned):
        print("sweep: metric(s) %s are not numeric members of the runs' JSON (numeric: %s)" %
              (", ".join(missing), ", ".join(numeric)), file=sys.stderr)
        status = 1
    if not a.no_plots and len(failed) < len(planned):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("sweep: python3-matplotlib is not installed (./rocev2 setup): no figures",
                  file=sys.stderr)
            return 1
        for m in metrics:
            if m in numeric:
                draw_metric(os.path.join(out, re.sub(r"[^A-Za-z0-9.+-]", "_", m) + ".png"),
                            m, spec["grid"], x, header, summary)
    slowdown_figures = 0
    if not a.no_plots and "fct" in spec.get("outputs", {}):
        slowdown_figures = draw_slowdowns(out, spec["grid"], x, planned, results,
                                          spec["outputs"]["fct"])
    print("sweep: %d of %d runs ok; wrote %s/results.csv, summary.csv%s" %
          (len(planned) - len(failed), len(planned), out,
           "" if a.no_plots else " and %d figure(s)" %
           (len([m for m in metrics if m in numeric]) + slowdown_figures)),
          file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
