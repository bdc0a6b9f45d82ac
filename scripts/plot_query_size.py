#!/usr/bin/env python3
"""Plot the median query time against query size from `gsi bench --json` output.

Usage:
    python3 scripts/plot_query_size.py [-o docs/query-size.svg] [--density dense] BENCH.jsonl...

Each input file is the JSON Lines output of one `gsi bench --json` run: one object per query
(`"type": "query"`) and a final summary (`"type": "summary"`). A file gives one point: the
dataset is the data graph's file name without extension (from the summary's `data`), the query
size is K from the query file names `query_{dense,sparse}_{K}_{i}.graph` (or the vertex count
of the query file when the name does not say), and the time is the summary's `median_ms`.
Files whose queries are not all of one size and of the requested density are skipped with a
note. One line per dataset; the time axis is logarithmic. Points where some queries timed out
are labelled with the number of timeouts. Standard library only.
"""

import argparse
import json
import os
import re
import sys
from collections import defaultdict

from svgplot import LogPanel, decades, esc, fmt_ms, page

NAME = re.compile(r"query_(dense|sparse)_(\d+)_\d+")
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
MARKERS = ["circle", "square", "diamond", "triangle"]


def query_size(path):
    """K of a query file: from its name, else from its `t N M` header line."""
    m = NAME.search(os.path.basename(path))
    if m:
        return m.group(1), int(m.group(2))
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if parts and parts[0] == "t" and len(parts) >= 2 and parts[1].isdigit():
                    return None, int(parts[1])
    except OSError:
        pass
    return None, None


def read_bench(path, density):
    """Returns (dataset, K, median_ms, timeouts, queries) of one bench file, or None."""
    summary = None
    sizes = set()
    densities = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            obj = json.loads(line)
            if obj.get("type") == "summary":
                summary = obj
            elif obj.get("type") == "query":
                d, k = query_size(obj["query"])
                sizes.add(k)
                densities.add(d)
    if summary is None:
        print(f"{path}: no summary object, skipped", file=sys.stderr)
        return None
    if len(sizes) != 1 or None in sizes:
        print(f"{path}: queries of sizes {sorted(sizes, key=str)}, skipped", file=sys.stderr)
        return None
    if density and densities != {density}:
        print(f"{path}: not all {density} queries, skipped", file=sys.stderr)
        return None
    dataset = os.path.splitext(os.path.basename(summary["data"]))[0]
    return (dataset, sizes.pop(), summary["median_ms"], summary.get("timeouts", 0),
            summary.get("queries", 0))


def marker(kind, x, y, color):
    r = 4.5
    if kind == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{color}"/>'
    if kind == "square":
        return (f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r}" height="{2 * r}" '
                f'fill="{color}"/>')
    if kind == "diamond":
        r += 1
        return (f'<polygon points="{x:.1f},{y - r:.1f} {x + r:.1f},{y:.1f} {x:.1f},{y + r:.1f} '
                f'{x - r:.1f},{y:.1f}" fill="{color}"/>')
    return (f'<polygon points="{x:.1f},{y - r - 1:.1f} {x + r + 1:.1f},{y + r:.1f} '
            f'{x - r - 1:.1f},{y + r:.1f}" fill="{color}"/>')


def plot(series, title, subtitle):
    width, height = 720, 460
    left, right, top, bottom = 80, 150, 60, 60
    pw, ph = width - left - right, height - top - bottom

    xs = sorted({k for pts in series.values() for k, *_ in pts})
    lo, hi = decades(v for pts in series.values() for _, v, *_ in pts)
    xmin, xmax = min(xs), max(xs)
    if xmin == xmax:
        xmin, xmax = xmin - 1, xmax + 1
    panel = LogPanel(left, top, pw, ph, lo, hi)

    def px(k):
        return left + (k - xmin) / (xmax - xmin) * pw

    py = panel.y
    out = page(width, height, title, subtitle)
    for k in xs:
        x = px(k)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + ph}" '
                   f'stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{top + ph + 18}" text-anchor="middle">{k}</text>')
    panel.axis(out, "median time per query (log scale)", fmt_ms)
    out.append(f'<text x="{left + pw / 2}" y="{height - 16}" text-anchor="middle">'
               f'query size (vertices)</text>')
    # Lines.
    for i, (name, pts) in enumerate(sorted(series.items())):
        color = COLORS[i % len(COLORS)]
        shape = MARKERS[i % len(MARKERS)]
        pts = sorted(pts)
        path = " ".join(f"{px(k):.1f},{py(v):.1f}" for k, v, *_ in pts if v > 0)
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" '
                   f'stroke-width="2.5"/>')
        for k, v, timeouts, queries in pts:
            if v <= 0:
                continue
            out.append(marker(shape, px(k), py(v), color))
            if timeouts:
                # Above and to the left of the point: clear of a rising line and of the
                # legend in the right margin.
                out.append(f'<text x="{px(k) - 8:.1f}" y="{py(v) - 9:.1f}" fill="{color}" '
                           f'font-size="11" text-anchor="end">{timeouts}/{queries} timed out'
                           f'</text>')
        ly = top + 20 + i * 24
        out.append(f'<line x1="{left + pw + 15}" y1="{ly}" x2="{left + pw + 45}" y2="{ly}" '
                   f'stroke="{color}" stroke-width="2.5"/>')
        out.append(marker(shape, left + pw + 30, ly, color))
        out.append(f'<text x="{left + pw + 52}" y="{ly + 4}">{esc(name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="gsi bench --json output files")
    parser.add_argument("-o", "--output", default="docs/query-size.svg")
    parser.add_argument("--density", default="dense", choices=["dense", "sparse", "any"],
                        help="keep files of this query density (default dense)")
    parser.add_argument("--title", default="gsi CPU engine: median time against query size")
    parser.add_argument("--subtitle", default="dense queries, gsi bench --engine cpu --repeat 5; a timed-out query counts its time")
    args = parser.parse_args()

    series = defaultdict(list)
    for path in args.files:
        point = read_bench(path, None if args.density == "any" else args.density)
        if point:
            dataset, k, median, timeouts, queries = point
            series[dataset].append((k, median, timeouts, queries))
    if not series:
        sys.exit("no usable bench files")
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(plot(series, args.title, args.subtitle))
    for name, pts in sorted(series.items()):
        cells = ", ".join(f"K={k}: {v:.3g} ms" for k, v, *_ in sorted(pts))
        print(f"{name}: {cells}")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
