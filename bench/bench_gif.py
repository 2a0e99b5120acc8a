"""GIF export: file size, process CPU time and banding, for comparing two trees side by side.

usage: PYTHONPATH=TREE python bench/bench_gif.py [--rounds N] [--scene NAME:THEME ...]

Banding, on the last frame's colour bar (the gradient across the boundary f = 0): each row's luma is averaged over
the middle of the bar and over 5 rows; `levels` counts the distinct whole levels of those averages (the drawn,
unquantized bar has `ref` of them; 255 shared colours without dithering keep only the palette's few steps), and
`worst` is the largest 9×9-averaged error anywhere smooth in the map and bar (the test's measure).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--scene", action="append", default=None, help="preset:theme (default: a few)")
    ap.add_argument("--size", default="720x480")
    args = ap.parse_args()
    import imageio.v3 as iio
    import numpy as np
    from scipy.ndimage import maximum_filter, uniform_filter

    import percviz
    from percviz.app.classroom.export import (FrameRenderer, as_preset, colour_level, ensure_app, export_run, iter_frames,
                                    scene_rho)
    from percviz.app.theme import theme_for
    from percviz.core.presets import SHIPPED_DIR

    ensure_app()
    size = tuple(int(v) for v in args.size.split("x"))
    scenes = args.scene or ["notes-80-separable:dark", "xor-rbf:dark", "xor-rbf:light", "default:hc-dark"]
    print(f"# percviz from {os.path.dirname(percviz.__file__)}; load {os.getloadavg()[0]:.1f}", flush=True)
    out_dir = tempfile.mkdtemp()
    for spec in scenes:
        name, theme = spec.split(":")
        for r in range(args.rounds):
            out = os.path.join(out_dir, f"{name}-{theme}-{r}.gif")
            c0, t0 = _cpu(), time.perf_counter()
            res = export_run(SHIPPED_DIR / f"{name}.json", out, size=size, theme=theme)
            cpu, wall = _cpu() - c0, time.perf_counter() - t0
            kb = os.path.getsize(out) / 1024
            line = f"{name:22s} {theme:8s} frames {res.frames:3d}  {kb:8.1f} KB  cpu {cpu:5.2f} s  wall {wall:5.2f} s"
            if r == 0:  # banding against the unquantized drawing
                gif = iio.imread(out, index=None)[..., :3].astype(float)
                preset = as_preset(SHIPPED_DIR / f"{name}.json")
                solver = preset.make_solver()
                renderer = FrameRenderer(preset, ("canvas",), size, theme_for(theme, 1.0))
                renderer.set_problem(solver.problem, type(solver))
                run = list(iter_frames(solver, 0, 10**6))
                snaps = [s for s, _ in run]
                renderer.fix_scales(snaps, scene_rho(solver.problem, type(solver)),
                                    colour_level(snaps, solver.problem, type(solver)))
                drawn = np.array([renderer.render_frame(s)[..., :3] for s, shown in run if shown], float)
                boxes = renderer.gradient_rects()
                renderer.close()
                renderer.deleteLater()
                luma = np.array([0.299, 0.587, 0.114])
                l, t, rr, b = boxes[-1]  # the colour bar
                mid = slice(l + (rr - l) // 4, rr - (rr - l) // 4)

                def levels(img):
                    rows = uniform_filter(img[t:b, mid] @ luma, size=(5, 1)).mean(axis=1)[3:-3]
                    return len(np.unique(np.round(rows)))

                worst = 0.0
                for a, g in zip(drawn, gif):
                    for (l2, t2, r2, b2) in boxes:
                        a2, g2 = a[t2:b2, l2:r2], g[t2:b2, l2:r2]
                        edge = np.zeros(a2.shape[:2], bool)
                        edge[:, 1:] |= np.abs(np.diff(a2, axis=1)).max(-1) > 3
                        edge[1:] |= np.abs(np.diff(a2, axis=0)).max(-1) > 3
                        smooth = ~maximum_filter(edge, size=11)
                        off = np.abs(uniform_filter(g2, size=(9, 9, 1)) - uniform_filter(a2, size=(9, 9, 1))).max(-1)
                        if smooth.any():
                            worst = max(worst, float(off[smooth].max()))
                line += f"  bar levels {levels(gif[-1])}/{levels(drawn[-1])} ref  worst {worst:4.1f}"
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
