#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Figures of ns3-rocev2 outputs, as PNG (Debian's python3-matplotlib, Agg).

    plot.py slowdown FCT_FILE... [--label NAME...] [--edges BYTES,...] -o slowdown.png
    plot.py cdf FCT_FILE... [--label NAME...] -o cdf.png
    plot.py queue QUEUE_CSV [--node N] [--port P] [--top K] -o queue.png
    plot.py pfc PFC_CSV -o pfc.png
    plot.py busbw JSON... [--label NAME...] -o busbw.png

Inputs:
  FCT_FILE   HPCC's fct format, one flow a line (rocev2-hpcc-compat --fct):
               sip dip sport dport size start_ns fct_ns standalone_fct_ns
             (sip, dip: 8 hex digits). slowdown = fct_ns / standalone_fct_ns.
             slowdown also takes a run's JSON: its "slowdown_by_size" list.
  QUEUE_CSV  time_ns,node,port,priority,bytes            (PREFIX-queue.csv)
  PFC_CSV    time_ns,node,port,priority,type (XOFF/XON) (PREFIX-pfc.csv)
  JSON       collective results (rocev2-ai-zone-allreduce --json):
               {"results": [{"op", "algo", "size", "busbw_gbps", ...}]}

Percentiles are nearest-rank (the value at rank ceil(p/100 * n) of the sorted
values), as RoceFctStats computes them. Flow-size buckets are (previous edge,
edge]; the default edges are RoceFctStats' (3 KB x 4^k up to 12 MB, then one
bucket above).

Bad input (a missing file, a wrong header, a malformed line) prints one line
naming the file (and line) and exits with status 2.
"""

import argparse
import bisect
import csv
import json
import math
import os
import sys


class InputError(Exception):
    """A malformed input file, reported as file:line: what is wrong."""


# ----------------------------------------------------------------------------
# Numbers

def percentile(values, p):
    """The p-th percentile (0..100) of values by nearest rank, as RoceFctStats
    computes it: the value at rank ceil(p/100 * n) (1-based) of the sorted
    values, the smallest for p = 0."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= p <= 100:
        raise ValueError("percentile %r outside 0..100" % p)
    s = sorted(values)
    rank = int(math.ceil(p / 100.0 * len(s) - 1e-9))
    return s[max(rank, 1) - 1]


# RoceFctStats' size buckets: upper edges 3 KB x 4^k up to 12 MB, then one above.
FCT_EDGES = (3000, 12000, 48000, 192000, 768000, 3000000, 12000000)


def default_edges(max_size):
    """RoceFctStats' bucket edges, and one edge >= max_size for the flows above
    the last (the largest flow, as the JSON's last bucket gives it)."""
    edges = list(FCT_EDGES)
    if max_size > edges[-1]:
        edges.append(max_size)
    return edges


def bucket_percentiles(flows, edges=None, ps=(50, 95, 99)):
    """Slowdown percentiles per flow-size bucket.

    flows: [(size_bytes, slowdown)]. A flow belongs to the first bucket whose
    upper edge is >= its size, i.e. buckets are (previous edge, edge].
    Returns [(edge, count, {p: value})] for the non-empty buckets, by edge."""
    if not flows:
        return []
    if edges is None:
        edges = default_edges(max(size for size, _ in flows))
    edges = sorted(edges)
    buckets = {}
    for size, slowdown in flows:
        i = bisect.bisect_left(edges, size)
        if i == len(edges):
            raise ValueError("flow of %d B is above the last bucket edge %d B" % (size, edges[-1]))
        buckets.setdefault(i, []).append(slowdown)
    out = []
    for i in sorted(buckets):
        vals = buckets[i]
        out.append((edges[i], len(vals), {p: percentile(vals, p) for p in ps}))
    return out


def cdf_points(values):
    """(sorted values, cumulative fraction i/n for the i-th value, 1-based)."""
    s = sorted(values)
    n = len(s)
    return s, [(i + 1) / n for i in range(n)]


# ----------------------------------------------------------------------------
# Readers

def _open(path):
    try:
        return open(path, newline="", encoding="utf-8")
    except OSError as e:
        raise InputError("%s: cannot read: %s" % (path, e.strerror))


def read_fct(path):
    """Flows of an HPCC fct file: [(size, slowdown)], slowdown = fct / standalone fct."""
    flows = []
    with _open(path) as f:
        for lineno, line in enumerate(f, start=1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) != 8:
                raise InputError("%s:%d: expected 8 fields (sip dip sport dport size start_ns fct_ns "
                                 "standalone_fct_ns), got %d" % (path, lineno, len(fields)))
            for name, text in (("sip", fields[0]), ("dip", fields[1])):
                try:
                    int(text, 16)
                    ok = len(text) == 8
                except ValueError:
                    ok = False
                if not ok:
                    raise InputError("%s:%d: %s '%s' is not 8 hex digits" % (path, lineno, name, text))
            names = ("sport", "dport", "size", "start_ns", "fct_ns", "standalone_fct_ns")
            nums = {}
            for name, text in zip(names, fields[2:]):
                try:
                    nums[name] = int(text)
                except ValueError:
                    raise InputError("%s:%d: %s '%s' is not an integer" % (path, lineno, name, text))
                if nums[name] < 0:
                    raise InputError("%s:%d: %s %s is negative" % (path, lineno, name, text))
            if nums["standalone_fct_ns"] <= 0:
                raise InputError("%s:%d: standalone_fct_ns must be positive" % (path, lineno))
            if nums["size"] <= 0:
                raise InputError("%s:%d: size must be positive" % (path, lineno))
            flows.append((nums["size"], nums["fct_ns"] / nums["standalone_fct_ns"]))
    if not flows:
        raise InputError("%s: no flows" % path)
    return flows


def _load_json(path):
    with _open(path) as f:
        try:
            return json.load(f)
        except ValueError as e:
            raise InputError("%s:%d: not JSON: %s" % (path, getattr(e, "lineno", 0), e.msg
                                                       if hasattr(e, "msg") else e))




def read_slowdown_json(path):
    """A run's JSON "slowdown_by_size": [{"max_bytes": B, "flows": n, "p50": x, "p95": y,
    "p99": z}], as RoceFctStats writes it. Returns bucket_percentiles' shape."""
    doc = _load_json(path)
    rows = doc.get("slowdown_by_size") if isinstance(doc, dict) else None
    if not isinstance(rows, list) or not rows:
        raise InputError("%s: no \"slowdown_by_size\" list" % path)
    out = []
    for i, row in enumerate(rows):
        where = "%s: slowdown_by_size[%d]" % (path, i)
        if not isinstance(row, dict):
            raise InputError("%s is not an object" % where)
        edge = row.get("max_bytes")
        if not isinstance(edge, (int, float)) or edge <= 0:
            raise InputError("%s: no positive \"max_bytes\"" % where)
        ps = {}
        for p in (50, 95, 99):
            v = row.get("p%d" % p)
            if not isinstance(v, (int, float)):
                raise InputError("%s: p%d missing or not a number" % (where, p))
            ps[p] = float(v)
        out.append((edge, int(row.get("flows", 0) or 0), ps))
    return sorted(out, key=lambda r: r[0])


def read_csv(path, columns, converters):
    """Rows of a CSV whose header is exactly columns; converters per column.
    Returns [(values...)]."""
    rows = []
    with _open(path) as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None or tuple(h.strip() for h in header) != tuple(columns):
            raise InputError("%s:1: expected header %s, got %s" %
                             (path, ",".join(columns), ",".join(header or [])))
        for row in reader:
            lineno = reader.line_num
            if not row:
                continue
            if len(row) != len(columns):
                raise InputError("%s:%d: expected %d fields, got %d" %
                                 (path, lineno, len(columns), len(row)))
            vals = []
            for name, conv, text in zip(columns, converters, row):
                try:
                    vals.append(conv(text.strip()))
                except ValueError:
                    raise InputError("%s:%d: %s '%s' is not %s" %
                                     (path, lineno, name, text, getattr(conv, "what", "valid")))
            rows.append(tuple(vals))
    if not rows:
        raise InputError("%s: no data rows" % path)
    return rows


def _nonneg_int(text):
    v = int(text)
    if v < 0:
        raise ValueError(text)
    return v


_nonneg_int.what = "a non-negative integer"


def _nonneg_float(text):
    v = float(text)
    if not v >= 0 or math.isinf(v):
        raise ValueError(text)
    return v


_nonneg_float.what = "a non-negative number"


def _pfc_event(text):
    if text not in ("XOFF", "XON"):
        raise ValueError(text)
    return text


_pfc_event.what = "XOFF or XON"

QUEUE_COLUMNS = ("time_ns", "node", "port", "priority", "bytes")
PFC_COLUMNS = ("time_ns", "node", "port", "priority", "type")


def read_queue(path):
    """{(node, port, priority): ([time_ns], [bytes])} of a queue-length CSV."""
    rows = read_csv(path, QUEUE_COLUMNS, [_nonneg_int] * 4 + [_nonneg_float])
    series = {}
    for t, node, port, prio, b in rows:
        ts, bs = series.setdefault((node, port, prio), ([], []))
        ts.append(t)
        bs.append(b)
    return series


def read_pfc(path):
    """PFC pause intervals: ({(node, port, priority): [(start_ns, end_ns)]}, last time_ns).

    An interval runs from an XOFF to the next XON of that (node, port, priority);
    an XOFF while already paused (a refresh) keeps the first start; an XON while
    not paused is ignored; a pause still on at the end of the log ends at its
    last event time."""
    rows = read_csv(path, PFC_COLUMNS, [_nonneg_int] * 4 + [_pfc_event])
    rows.sort(key=lambda r: r[0])
    end = rows[-1][0]
    open_at = {}
    intervals = {}
    for t, node, port, prio, ev in rows:
        key = (node, port, prio)
        intervals.setdefault(key, [])
        if ev == "XOFF":
            open_at.setdefault(key, t)
        elif key in open_at:
            intervals[key].append((open_at.pop(key), t))
    for key, start in open_at.items():
        intervals[key].append((start, end))
    return intervals, end


def read_busbw(path):
    """{(op, algo): [(size_bytes, busbw_gbps)]} of a collective JSON."""
    doc = _load_json(path)
    results = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(results, list) or not results:
        raise InputError("%s: no \"results\" list" % path)
    series = {}
    for i, r in enumerate(results):
        where = "%s: results[%d]" % (path, i)
        if not isinstance(r, dict):
            raise InputError("%s is not an object" % where)
        size, bw = r.get("size"), r.get("busbw_gbps")
        if not isinstance(size, (int, float)) or size <= 0:
            raise InputError("%s: \"size\" missing or not positive" % where)
        if not isinstance(bw, (int, float)):
            raise InputError("%s: \"busbw_gbps\" missing or not a number" % where)
        key = (str(r.get("op", "?")), str(r.get("algo", "?")))
        series.setdefault(key, []).append((size, float(bw)))
    for v in series.values():
        v.sort()
    return series


# ----------------------------------------------------------------------------
# Drawing

def pyplot():
    try:
        import matplotlib
    except ImportError:
        raise InputError("python3-matplotlib is not installed (./rocev2 setup installs it)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def size_label(b):
    """A message size as nccl-tests writes it: K, M, G = 2^10, 2^20, 2^30 bytes."""
    for unit, div in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if b >= div:
            return ("%g" % float("%.3g" % (b / div))) + unit
    return "%d" % b


def time_axis(max_ns):
    """(divisor, unit) so that times up to max_ns read well."""
    if max_ns >= 10e9:
        return 1e9, "s"
    if max_ns >= 10e6:
        return 1e6, "ms"
    if max_ns >= 10e3:
        return 1e3, "µs"
    return 1.0, "ns"


def _labels(paths, labels):
    if labels and len(labels) != len(paths):
        raise InputError("--label given %d times for %d inputs" % (len(labels), len(paths)))
    return labels or [os.path.splitext(os.path.basename(p))[0] for p in paths]


def _save(fig, out):
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def draw_slowdown(paths, labels, out, edges=None):
    labels = _labels(paths, labels)
    sets = []
    for path in paths:
        if path.endswith(".json"):
            sets.append(read_slowdown_json(path))
        else:
            try:
                sets.append(bucket_percentiles(read_fct(path), edges))
            except ValueError as e:
                raise InputError("%s: %s" % (path, e))
    draw_slowdown_sets(sets, labels, out)


def pooled_slowdown(paths, edges=None):
    """bucket_percentiles of the flows of several FCT files together (e.g. the
    seeds of one sweep point)."""
    flows = []
    for path in paths:
        flows.extend(read_fct(path))
    try:
        return bucket_percentiles(flows, edges)
    except ValueError as e:
        raise InputError("%s: %s" % (", ".join(paths), e))


def draw_slowdown_sets(sets, labels, out, title=None):
    """sets: per label, bucket_percentiles' rows."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    styles = {50: ("-", "o"), 95: ("--", "s"), 99: (":", "^")}
    for k, (label, rows) in enumerate(zip(labels, sets)):
        color = "C%d" % (k % 10)
        xs = [r[0] for r in rows]
        for p, (ls, marker) in styles.items():
            ax.plot(xs, [r[2][p] for r in rows], ls, marker=marker, color=color, markersize=4,
                    label="%s p%d" % (label, p))
    ax.set_xscale("log")
    ax.set_yscale("log")
    # Plain numbers (1, 2, 5, 10) on the log axis, not powers of ten.
    from matplotlib.ticker import FormatStrFormatter
    ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(FormatStrFormatter("%g"))
    ax.set_xlabel("flow size, bucket upper edge (bytes)")
    ax.set_ylabel("FCT slowdown (FCT / standalone FCT)")
    ax.set_title((title + ": " if title else "") +
                 "FCT slowdown by flow size (p50 solid, p95 dashed, p99 dotted)",
                 fontsize=10 if title else 12)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, ncol=max(1, min(3, len(sets))))
    _save(fig, out)


def draw_cdf(paths, labels, out):
    labels = _labels(paths, labels)
    data = [cdf_points([s for _, s in read_fct(path)]) for path in paths]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    for label, (xs, ys) in zip(labels, data):
        ax.step(xs, ys, where="post", label="%s (%d flows)" % (label, len(xs)))
    ax.set_xscale("log")
    ax.set_xlabel("FCT slowdown (FCT / standalone FCT)")
    ax.set_ylabel("fraction of flows")
    ax.set_ylim(0, 1.01)
    ax.set_title("CDF of FCT slowdown")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, out)


def draw_queue(path, out, node=None, port=None, top=5):
    series = read_queue(path)
    keys = [k for k in series if (node is None or k[0] == node) and (port is None or k[1] == port)]
    if not keys:
        raise InputError("%s: no samples for node %s port %s" %
                         (path, "any" if node is None else node, "any" if port is None else port))
    # Busiest first: largest peak, then largest sum, then the key (stable).
    keys.sort(key=lambda k: (-max(series[k][1]), -sum(series[k][1]), k))
    keys = keys[:top]
    max_t = max(max(series[k][0]) for k in keys)
    div, unit = time_axis(max_t)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 5))
    for k in keys:
        ts, bs = series[k]
        ax.step([t / div for t in ts], [b / 1e3 for b in bs], where="post",
                label="node %d port %d prio %d (peak %.1f KB)" % (k + (max(bs) / 1e3,)))
    ax.set_xlabel("time (%s)" % unit)
    ax.set_ylabel("queue length (KB)")
    ax.set_title("Queue length over time (%d busiest of %d queues)" % (len(keys), len(series)))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, out)


def draw_pfc(path, out):
    intervals, end = read_pfc(path)
    keys = sorted(intervals)
    div, unit = time_axis(end)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, max(2.5, 0.35 * len(keys) + 1.5)))
    for row, k in enumerate(keys):
        bars = [(a / div, max((b - a) / div, 0)) for a, b in intervals[k]]
        ax.broken_barh(bars, (row - 0.4, 0.8), color="C%d" % (k[2] % 10))
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels(["node %d port %d prio %d" % k for k in keys], fontsize=8)
    ax.set_ylim(-0.6, len(keys) - 0.4)
    # From the first pause (runs of that lineage start their flows at 2 s).
    start = min((a for v in intervals.values() for a, _ in v), default=0)
    margin = max((end - start) * 0.02, 1)
    ax.set_xlim(max(start - margin, 0) / div, (end + margin) / div if end > 0 else 1)
    ax.ticklabel_format(axis="x", useOffset=False, style="plain")
    ax.invert_yaxis()
    ax.set_xlabel("time (%s)" % unit)
    total = sum(len(v) for v in intervals.values())
    ax.set_title("PFC pauses: XOFF to XON (%d intervals on %d queues)" % (total, len(keys)))
    ax.grid(True, axis="x", alpha=0.3)
    _save(fig, out)


def draw_busbw(paths, labels, out):
    labels = _labels(paths, labels)
    data = [read_busbw(path) for path in paths]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    sizes = set()
    for label, series in zip(labels, data):
        for (op, algo), pts in sorted(series.items()):
            sizes.update(s for s, _ in pts)
            ax.plot([s for s, _ in pts], [b for _, b in pts], "-o", markersize=4,
                    label="%s: %s %s" % (label, op, algo))
    ax.set_xscale("log", base=2)
    ticks = sorted(sizes)
    ax.set_xticks(ticks)
    ax.set_xticklabels([size_label(s) for s in ticks], fontsize=8)
    ax.set_xlabel("message size (bytes; K, M, G = 2^10, 2^20, 2^30)")
    ax.set_ylabel("bus bandwidth (Gb/s)")
    ax.set_ylim(bottom=0)
    ax.set_title("Collective bus bandwidth against message size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, out)


# ----------------------------------------------------------------------------
# Command line

def parse_edges(text):
    try:
        edges = sorted(int(float(e)) for e in text.split(",") if e.strip())
    except ValueError:
        raise InputError("--edges=%s: not a comma-separated list of byte counts" % text)
    if not edges or edges[0] <= 0:
        raise InputError("--edges=%s: edges must be positive" % text)
    return edges


def main(argv=None):
    ap = argparse.ArgumentParser(prog="plot.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    sub = ap.add_subparsers(dest="cmd", required=True)

    def add(name, help_text):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("-o", "--output", required=True, help="PNG file to write")
        return p

    p = add("slowdown", "FCT slowdown p50/p95/p99 per flow-size bucket")
    p.add_argument("inputs", nargs="+", metavar="FCT_FILE|JSON")
    p.add_argument("--label", action="append", help="legend name per input, in order")
    p.add_argument("--edges", help="bucket upper edges in bytes, comma-separated")
    p = add("cdf", "CDF of FCT slowdown")
    p.add_argument("inputs", nargs="+", metavar="FCT_FILE")
    p.add_argument("--label", action="append")
    p = add("queue", "queue length over time")
    p.add_argument("input", metavar="QUEUE_CSV")
    p.add_argument("--node", type=int)
    p.add_argument("--port", type=int)
    p.add_argument("--top", type=int, default=5, help="busiest queues drawn (default 5)")
    p = add("pfc", "PFC pause timeline")
    p.add_argument("input", metavar="PFC_CSV")
    p = add("busbw", "collective busbw against message size")
    p.add_argument("inputs", nargs="+", metavar="JSON")
    p.add_argument("--label", action="append")
    args = ap.parse_args(argv)

    try:
        if args.cmd == "slowdown":
            edges = parse_edges(args.edges) if args.edges else None
            draw_slowdown(args.inputs, args.label, args.output, edges)
        elif args.cmd == "cdf":
            draw_cdf(args.inputs, args.label, args.output)
        elif args.cmd == "queue":
            draw_queue(args.input, args.output, args.node, args.port, args.top)
        elif args.cmd == "pfc":
            draw_pfc(args.input, args.output)
        elif args.cmd == "busbw":
            draw_busbw(args.inputs, args.label, args.output)
    except (InputError, ValueError) as e:
        print("plot.py %s: %s" % (args.cmd, e), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
