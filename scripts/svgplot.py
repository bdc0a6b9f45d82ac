"""SVG drawing shared by the plotting scripts: a page with a title, a logarithmic value axis,
escaping and number formats. Standard library only."""

import math


def esc(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def fmt_ms(v):
    if v >= 1000:
        return f"{v / 1000:g} s"
    return f"{v:g} ms"


def fmt_count(v):
    for div, unit in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= div:
            return f"{v / div:g}{unit}"
    return f"{v:g}"


def decades(values):
    """The powers of ten (lo, hi) that enclose the positive `values`."""
    positive = [v for v in values if v > 0]
    lo = math.floor(math.log10(min(positive)))
    hi = math.ceil(math.log10(max(positive)))
    return lo, (hi + 1 if hi == lo else hi)


class LogPanel:
    """A plot area of `pw` x `ph` at (left, top) whose y axis is logarithmic over the decades
    lo..hi."""

    def __init__(self, left, top, pw, ph, lo, hi):
        self.left, self.top, self.pw, self.ph, self.lo, self.hi = left, top, pw, ph, lo, hi

    def y(self, v):
        return self.top + (self.hi - math.log10(v)) / (self.hi - self.lo) * self.ph

    def axis(self, out, label, fmt):
        """Grid lines and labels at each decade, ticks between, the frame and the y label."""
        for e in range(self.lo, self.hi + 1):
            y = self.y(10 ** e)
            out.append(f'<line x1="{self.left}" y1="{y:.1f}" x2="{self.left + self.pw}" '
                       f'y2="{y:.1f}" stroke="#ccc"/>')
            out.append(f'<text x="{self.left - 8}" y="{y + 4:.1f}" text-anchor="end">'
                       f'{esc(fmt(10 ** e))}</text>')
            if e < self.hi:
                for m in range(2, 10):
                    ym = self.y(m * 10 ** e)
                    out.append(f'<line x1="{self.left}" y1="{ym:.1f}" x2="{self.left + 5}" '
                               f'y2="{ym:.1f}" stroke="#999"/>')
        out.append(f'<rect x="{self.left}" y="{self.top}" width="{self.pw}" height="{self.ph}" '
                   f'fill="none" stroke="#333"/>')
        out.append(f'<text transform="translate({self.left - 60},{self.top + self.ph / 2}) '
                   f'rotate(-90)" text-anchor="middle">{esc(label)}</text>')


def page(width, height, title, subtitle):
    """The opening of an SVG page: white ground, a title and a subtitle."""
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" '
        f'font-size="13">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="24" text-anchor="middle" font-size="16" '
        f'font-weight="bold">{esc(title)}</text>',
        f'<text x="{width / 2}" y="43" text-anchor="middle" fill="#555">{esc(subtitle)}</text>',
    ]
