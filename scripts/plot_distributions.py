#!/usr/bin/env python3
"""Box plots of query time and answer size per dataset from `gsi match --json` output.

Usage:
    python3 scripts/plot_distributions.py [-o docs/distributions.svg] MATCH.jsonl...

Each input file is the JSON Lines output of one `gsi match --json` (or `gsi bench --json`)
run over one data graph: one object per query (`"type": "query"`, with `elapsed_ms` or
`median_ms` and `matches`) and a summary (`"type": "summary"`) whose `data` names the graph;
the dataset is that file name without extension. Two panels side by side, one box per dataset
in the order given: the time per query and the matches per query, each on a logarithmic axis
(a query of no match is drawn at 1). A box spans the quartiles with a line at the median; the
whiskers reach the least and the greatest value. The five numbers are printed too. Standard
library only.
"""

import argparse
import json
import os
import statistics
import sys

from svgplot import LogPanel, decades, esc, fmt_count, fmt_ms, page


def read_match(path):
    """(dataset, times in ms, matches) of one `gsi match --json` file."""
    dataset, times, matches = None, [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("{"):
                continue
            obj = json.loads(line)
            if obj.get("type") == "summary":
                dataset = os.path.splitext(os.path.basename(obj["data"]))[0]
            elif obj.get("type") == "query":
                times.append(obj.get("elapsed_ms", obj.get("median_ms")))
                matches.append(int(obj["matches"]))  # a string above 2^53
    return dataset or os.path.splitext(os.path.basename(path))[0], times, matches


def five(values):
    """Least, first quartile, median, third quartile, greatest."""
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return min(values), q1, q2, q3, max(values)


def boxes(out, panel, names, stats, color):
    step = panel.pw / len(names)
    for i, (name, (lo, q1, q2, q3, hi)) in enumerate(zip(names, stats)):
        x = panel.left + (i + 0.5) * step
        w = min(36, step * 0.5)
        y = panel.y
        out.append(f'<line x1="{x:.1f}" y1="{y(hi):.1f}" x2="{x:.1f}" y2="{y(lo):.1f}" '
                   f'stroke="#333"/>')
        for v in (lo, hi):
            out.append(f'<line x1="{x - w / 4:.1f}" y1="{y(v):.1f}" x2="{x + w / 4:.1f}" '
                       f'y2="{y(v):.1f}" stroke="#333"/>')
        out.append(f'<rect x="{x - w / 2:.1f}" y="{y(q3):.1f}" width="{w:.1f}" '
                   f'height="{max(y(q1) - y(q3), 1):.1f}" fill="{color}" fill-opacity="0.35" '
                   f'stroke="{color}"/>')
        out.append(f'<line x1="{x - w / 2:.1f}" y1="{y(q2):.1f}" x2="{x + w / 2:.1f}" '
                   f'y2="{y(q2):.1f}" stroke="{color}" stroke-width="2.5"/>')
        out.append(f'<text x="{x:.1f}" y="{panel.top + panel.ph + 18}" '
                   f'text-anchor="middle">{esc(name)}</text>')


def plot(data, title, subtitle):
    width, height = 980, 470
    top, bottom, pw, gap = 60, 60, 360, 130
    ph = height - top - bottom
    names = [name for name, _, _ in data]
    out = page(width, height, title, subtitle)
    panels = [
        ("time per query (log scale)", fmt_ms, [five(t) for _, t, _ in data], "#1f77b4"),
        ("matches per query (log scale)", fmt_count,
         [five([max(m, 1) for m in ms]) for _, _, ms in data], "#d62728"),
    ]
    for i, (label, fmt, stats, color) in enumerate(panels):
        lo, hi = decades(v for s in stats for v in s)
        panel = LogPanel(90 + i * (pw + gap), top, pw, ph, lo, hi)
        panel.axis(out, label, fmt)
        boxes(out, panel, names, stats, color)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="gsi match --json output files")
    parser.add_argument("-o", "--output", default="docs/distributions.svg")
    parser.add_argument("--title", default="gsi GPU engine: distribution of query time and answer size")
    parser.add_argument("--subtitle", default="100 dense 12-vertex queries per dataset, gsi match --engine gpu --json")
    args = parser.parse_args()
    data = [d for d in map(read_match, args.files) if d[1]]
    if not data:
        sys.exit("no queries in the given files")
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(plot(data, args.title, args.subtitle))
    for name, times, matches in data:
        t = ", ".join(f"{v:.3g}" for v in five(times))
        m = ", ".join(f"{v:g}" for v in five(matches))
        print(f"{name}: {len(times)} queries; time (ms) min/q1/median/q3/max {t}; matches {m}")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
