#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Plot per-QP sending rates (and windows) against time.

    plot-rates.py RATES.csv [-o rates.png] [--title TEXT]

RATES.csv is what `rocev2-incast --trace-rate=RATES.csv` writes:

    time_us,src,qpn,rate_gbps,window_bytes
    0,1,2,100,0
    ...

One line per sender QP (labelled host/QPN). When any QP has a window
(HPCC, DCTCP), a second panel shows the windows in KB. Needs
python3-matplotlib (Debian).
"""

import argparse
import csv
import sys

COLUMNS = ("time_us", "src", "qpn", "rate_gbps", "window_bytes")


class InputError(Exception):
    """A malformed input file, reported as file:line."""


def read_rates(path):
    """Return {(src, qpn): ([t_us], [gbps], [window_bytes])}."""
    series = {}
    try:
        f = open(path, newline="", encoding="utf-8")
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}")
    with f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None or tuple(h.strip() for h in header) != COLUMNS:
            raise InputError(f"{path}:1: expected header {','.join(COLUMNS)}, got {header}")
        for lineno, row in enumerate(reader, start=2):
            if not row:
                continue
            if len(row) != len(COLUMNS):
                raise InputError(f"{path}:{lineno}: expected {len(COLUMNS)} fields, got {len(row)}")
            try:
                t = float(row[0])
                key = (int(row[1]), int(row[2]))
                rate = float(row[3])
                window = float(row[4])
            except ValueError:
                raise InputError(f"{path}:{lineno}: not a number in {','.join(row)}")
            if rate < 0 or window < 0:
                raise InputError(f"{path}:{lineno}: negative rate or window")
            ts, rs, ws = series.setdefault(key, ([], [], []))
            ts.append(t)
            rs.append(rate)
            ws.append(window)
    if not series:
        raise InputError(f"{path}: no samples")
    return series


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="file written by --trace-rate")
    parser.add_argument("-o", "--output", default="rates.png", help="image to write")
    parser.add_argument("--title", default=None, help="plot title")
    args = parser.parse_args()
    try:
        series = read_rates(args.csv)
    except InputError as e:
        print(f"plot-rates: {e}", file=sys.stderr)
        return 2

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    windows = any(max(ws) > 0 for _, _, ws in series.values())
    fig, axes = plt.subplots(2 if windows else 1, 1, sharex=True, figsize=(9, 6 if windows else 4))
    if not windows:
        axes = [axes]
    for (src, qpn), (ts, rs, ws) in sorted(series.items()):
        label = f"host {src} QP {qpn}"
        axes[0].step(ts, rs, where="post", label=label, linewidth=1)
        if windows:
            axes[1].step(ts, [w / 1e3 for w in ws], where="post", label=label, linewidth=1)
    axes[0].set_ylabel("rate (Gb/s)")
    axes[0].set_ylim(bottom=0)
    axes[0].grid(True, alpha=0.3)
    if len(series) <= 16:
        axes[0].legend(fontsize="small", ncol=2)
    if windows:
        axes[1].set_ylabel("window (KB)")
        axes[1].set_ylim(bottom=0)
        axes[1].grid(True, alpha=0.3)
    axes[-1].set_xlabel("time (us)")
    fig.suptitle(args.title or args.csv)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"plot-rates: wrote {args.output} ({len(series)} QPs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
