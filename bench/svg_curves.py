#!/usr/bin/env python3
"""SVG drawing of the -P and -l curves of ours and iperf3 3.21.

draw(series, subtitle) returns a standalone SVG 1.1 document, 2 x 2
panels: throughput (Gbit/s) against -P and against -l on top, client +
server CPU % per Gbit/s (lower is better) against -P and -l below.  X
axes are log2 with a tick at each measured x; y axes are linear from 0.
One line with markers per program (same colour in every panel), each
marker with a <title> of its value.  bench/compare.py --path --curves
calls it with

  series = {"P": {"ours": [(x, gbit, cpu_per_gbit), ...], "3.21": ...},
            "l": {...}}    (-l x in KiB; a None figure is left out)

Standard library only, nothing external in the SVG.

Usage: svg_curves.py --demo OUT.svg   (draws built-in synthetic data)
"""
import math
import sys
from xml.sax.saxutils import escape

W, H = 960, 720
TOP = 84                      # panels start below title, subtitle, legend
PW, PH = W // 2, (H - TOP) // 2
ML, MR, MT, MB = 62, 22, 30, 46   # plot margins inside a panel
COLORS = {"ours": "#1f77b4", "3.21": "#d62728"}
MORE = ["#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
TITLE = "iperf3: ours and 3.21 between two network namespaces"
PANELS = [  # (series key, index in the point tuple, title, y label)
    ("P", 1, "Throughput vs parallel streams (-P)", "Gbit/s"),
    ("l", 1, "Throughput vs write length (-l, -P 1)", "Gbit/s"),
    ("P", 2, "CPU per Gbit/s vs -P (lower is better)", "CPU % per Gbit/s"),
    ("l", 2, "CPU per Gbit/s vs -l (lower is better)", "CPU % per Gbit/s"),
]
XLABEL = {"P": "parallel streams (-P)", "l": "write length (-l)"}


def num(v):
    """A short text for a number: 2.5, 10, 0.3."""
    return f"{round(v, 9):g}"


def xtick(key, x):
    if key == "l":
        return f"{num(x / 1024)}M" if x >= 1024 else f"{num(x)}K"
    return num(x)


def ok(v):
    return isinstance(v, (int, float)) and math.isfinite(v)


def nice_ticks(top):
    """Ticks 0, s, 2s, ... covering `top`, about 5 of them, with s one of
    1, 2, 2.5, 5 times a power of ten."""
    if not ok(top) or top <= 0:
        top = 1.0
    raw = top / 5
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    n = math.ceil(top / step - 1e-9)
    return [i * step for i in range(n + 1)]


def colour_of(names):
    out, extra = {}, iter(MORE * 10)
    for n in names:
        out[n] = COLORS.get(n) or next(extra)
    return out


def text(x, y, s, size=12, anchor="middle", extra=""):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" '
            f'text-anchor="{anchor}"{extra}>{escape(str(s))}</text>')


def panel(ox, oy, key, idx, title, ylabel, progs, colour):
    out = [text(ox + PW / 2, oy + 18, title, 14, extra=' font-weight="bold"')]
    x0, x1, y0, y1 = ox + ML, ox + PW - MR, oy + PH - MB, oy + MT
    pts = {n: [(p[0], p[idx]) for p in progs[n]
               if ok(p[0]) and p[0] > 0 and ok(p[idx])] for n in progs}
    xs = sorted({x for n in pts for x, _ in pts[n]})
    ticks = nice_ticks(max((y for n in pts for _, y in pts[n]), default=0))
    lo, hi = math.log2(xs[0]) if xs else 0, math.log2(xs[-1]) if xs else 1
    if hi - lo < 1e-9:
        lo, hi = lo - 1, hi + 1
    pad = (hi - lo) * 0.05
    lo, hi = lo - pad, hi + pad

    def sx(x):
        return x0 + (math.log2(x) - lo) / (hi - lo) * (x1 - x0)

    def sy(y):
        return y0 - max(y, 0) / ticks[-1] * (y0 - y1)

    out.append(f'<rect x="{x0}" y="{y1}" width="{x1 - x0}" '
               f'height="{y0 - y1}" fill="white" stroke="#444"/>')
    for t in ticks:
        out.append(f'<line x1="{x0}" y1="{sy(t):.1f}" x2="{x1}" '
                   f'y2="{sy(t):.1f}" stroke="#ddd"/>')
        out.append(text(x0 - 6, sy(t) + 4, num(t), 11, "end"))
    for x in xs:
        out.append(f'<line x1="{sx(x):.1f}" y1="{y0}" x2="{sx(x):.1f}" '
                   f'y2="{y0 + 5}" stroke="#444"/>')
        out.append(text(sx(x), y0 + 18, xtick(key, x), 11))
    out.append(text((x0 + x1) / 2, y0 + 36, XLABEL[key], 12))
    out.append(text(ox + 16, (y0 + y1) / 2, ylabel, 12,
                    extra=f' transform="rotate(-90 {ox + 16} '
                          f'{(y0 + y1) / 2:.1f})"'))
    unit = "Gbit/s" if idx == 1 else "% CPU per Gbit/s"
    for n, p in pts.items():
        if not p:
            continue
        line = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in p)
        out.append(f'<polyline points="{line}" fill="none" '
                   f'stroke="{colour[n]}" stroke-width="2"/>')
        for x, y in p:
            out.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3.5" '
                       f'fill="{colour[n]}"><title>{escape(n)} -{key} '
                       f'{escape(xtick(key, x))}: {y:.2f} {unit}'
                       f'</title></circle>')
    return out


def draw(series, subtitle):
    """The whole SVG document (a str) for `series`, see the docstring."""
    series = series or {}
    names = []
    for key in ("P", "l"):
        for n in series.get(key) or {}:
            if n not in names:
                names.append(n)
    names.sort(key=lambda n: (n != "ours", n != "3.21"))  # stable otherwise
    colour = colour_of(names)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" '
           f'width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           f'font-family="sans-serif">',
           f'<rect width="{W}" height="{H}" fill="#fafafa"/>',
           text(W / 2, 26, TITLE, 18, extra=' font-weight="bold"'),
           text(W / 2, 46, subtitle or "", 12, extra=' fill="#555"')]
    lx = W / 2 - 60 * len(names)
    for i, n in enumerate(names):
        x = lx + 120 * i
        out.append(f'<line x1="{x:.1f}" y1="66" x2="{x + 24:.1f}" y2="66" '
                   f'stroke="{colour[n]}" stroke-width="2"/>')
        out.append(f'<circle cx="{x + 12:.1f}" cy="66" r="3.5" '
                   f'fill="{colour[n]}"/>')
        out.append(text(x + 30, 70, n, 12, "start"))
    for i, (key, idx, title, ylabel) in enumerate(PANELS):
        ox, oy = (i % 2) * PW, TOP + (i // 2) * PH
        out.extend(panel(ox, oy, key, idx, title, ylabel,
                         (series.get(key) or {}), colour))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def demo():
    """Synthetic curves, one failed run (None) among them."""
    ps, ls = [1, 2, 4, 8, 16], [1, 4, 16, 64, 128, 256, 1024]
    return {
        "P": {"ours": [(p, 30 + 4 * math.log2(p), 9.5 - 0.3 * math.log2(p))
                       for p in ps],
              "3.21": [(p, 27 + 3 * math.log2(p), 11.0 - 0.2 * math.log2(p))
                       for p in ps]},
        "l": {"ours": [(k, 40 * k / (k + 12), 6 + 40 / k) for k in ls],
              "3.21": [(k, None if k == 64 else 36 * k / (k + 14),
                        None if k == 64 else 7 + 45 / k) for k in ls]},
    }


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--demo":
        print("Usage: svg_curves.py --demo OUT.svg", file=sys.stderr)
        sys.exit(2)
    with open(sys.argv[2], "w") as f:
        f.write(draw(demo(), "synthetic demo data <not measured> & made up"))
    print(f"wrote {sys.argv[2]}")
