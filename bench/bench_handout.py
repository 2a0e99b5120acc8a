"""Time from opening a handout to its first picture, in headless chromium (the page's own performance.now()).

Targets (issue 27): a 200-snapshot run interactive within 1 s, a thinned 2,000-snapshot run within 2 s.
Run: python bench/bench_handout.py [--repeat 5]"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
from pathlib import Path

import numpy as np

from percviz.core.data import PointSet
from percviz.core.handout import record_run
from percviz.core.presets import Preset
from percviz.handout import handout_html


def _payload(steps: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(100, 2))
    y = np.where((X ** 2).sum(axis=1) > 1.2, 1, -1)
    y[rng.random(100) < 0.5] *= -1
    preset = Preset(PointSet.from_signed(X, y), title="bench").with_overrides(algorithm="snkp", kernel="rbf:gamma=2")
    return record_run(preset, steps=steps, budget=250)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    folder = Path(tempfile.mkdtemp(prefix="percviz-bench-handout-"))
    rows = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for steps, target in ((199, 1.0), (1999, 2.0)):
            path = folder / f"run{steps}.html"
            path.write_text(handout_html(_payload(steps, 7)), encoding="utf-8")
            times = []
            for _ in range(args.repeat):
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(path.as_uri())
                page.wait_for_selector("body[data-ready]", timeout=20000)
                times.append(int(page.get_attribute("body", "data-ready")) / 1000)
                page.close()
            rows.append((steps + 1, statistics.median(times), max(times), target))
        browser.close()
    print("snapshots  median s  worst s  target s")
    for n, med, worst, target in rows:
        print(f"{n:9d}  {med:8.2f}  {worst:7.2f}  {target:8.1f}")


if __name__ == "__main__":
    main()
