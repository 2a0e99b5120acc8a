"""Render every shipped preset in the real main window at 1280×800, light and dark, to PNG (before/after compares).

    QT_QPA_PLATFORM=offscreen python bench/screens.py OUT_DIR [--scale 3] [--input-distances] [--compare OTHER_DIR]

Each scene is run to its end and drawn at full resolution before the window is grabbed; `--scale` presents it
(F5) at that scale, `--input-distances` turns View ▸ Input distances on. `--compare` prints, per
picture, how many pixels differ from the same file in OTHER_DIR and the largest channel difference.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def render(out: Path, scale: float = 1.0, distances: bool = False) -> None:
    """One PNG per (preset, theme) in out."""
    import tempfile

    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    tmp = tempfile.mkdtemp(prefix="percviz-screens-")
    os.environ["PERCVIZ_CONFIG_DIR"], os.environ["PERCVIZ_DATA_DIR"] = f"{tmp}/config", f"{tmp}/data"
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from percviz.app.main_window import MainWindow
    from percviz.core.presets import SHIPPED_DIR, load_preset

    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(SHIPPED_DIR.glob("*.json")):
        for theme in ("light", "dark"):
            w = MainWindow()
            w.load_preset(load_preset(path))
            w.resize(1280, 800)
            w.show()
            w.classroom.set_theme(theme)
            if scale > 1:
                w.classroom.set_presentation_scale(scale)
                w.classroom.set_presentation(True)
            w.session.wait_idle()
            w.session.run_to_end()
            w.session.wait_idle()
            for _ in range(30):
                QCoreApplication.processEvents()
            canvas = w.panels["canvas"]
            if distances and w.input_layer is not None:
                w.input_layer.set_enabled(True)
                w.input_layer.wait(120)
            canvas.redraw_now()
            while canvas.computing_picture:
                QCoreApplication.processEvents()
            for _ in range(30):
                QCoreApplication.processEvents()
            w.grab().save(str(out / f"{path.stem}-{theme}.png"))
            w.close()
            w.deleteLater()
            QCoreApplication.processEvents()
    app.processEvents()


def compare(a: Path, b: Path) -> None:
    """Pixels that differ between same-named PNGs of a and b."""
    import numpy as np
    from PySide6.QtGui import QImage

    def pixels(p: Path):
        img = QImage(str(p)).convertToFormat(QImage.Format.Format_RGBA8888)
        return np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine() // 4, 4).copy()

    for p in sorted(a.glob("*.png")):
        q = b / p.name
        if not q.exists():
            print(f"{p.name:45s} missing in {b}")
            continue
        x, y = pixels(p), pixels(q)
        if x.shape != y.shape:
            print(f"{p.name:45s} sizes differ {x.shape} {y.shape}")
            continue
        diff = np.abs(x.astype(int) - y.astype(int)).max(axis=2)
        print(f"{p.name:45s} {int((diff > 0).sum()):8d} pixels differ, max {int(diff.max())}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--compare", type=Path)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--input-distances", action="store_true")
    ns = ap.parse_args()
    if ns.compare:
        compare(ns.out, ns.compare)
    else:
        render(ns.out, ns.scale, ns.input_distances)
