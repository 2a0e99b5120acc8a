"""A GIF keeps its axes and colour scale over all frames and draws the ρ_K line (read back from the written file)."""

from __future__ import annotations

import imageio.v3 as iio
import numpy as np
import pytest
from PySide6.QtCore import QPointF, QRect

from percviz.app.classroom.export import FrameRenderer, as_preset, colour_level, export_run, iter_frames, scene_rho
from percviz.app.theme import theme_for
from percviz.core.gram import optimal_margin
from percviz.core.presets import SHIPPED_DIR

SIZE = (600, 450)
PANELS = ("canvas", "curves")


def _rect_in(renderer, widget, scene_rect) -> QRect:
    """A graphics item's scene rectangle in the renderer's pixels."""
    r = widget.mapFromScene(scene_rect).boundingRect()
    return r.translated(widget.mapTo(renderer, r.topLeft()) - r.topLeft())


def _outside(axis: QRect, plot: QRect, side: str) -> QRect:
    """The axis's rectangle without the part over its plot (ticks are drawn inward, over the data)."""
    if side == "bottom":
        return QRect(axis.left(), plot.bottom() + 2, axis.width(), axis.bottom() - plot.bottom() - 1)
    return QRect(axis.left(), axis.top(), plot.left() - axis.left() - 1, axis.height())


def _geometry(name: str):
    """Where the fixed parts lie in the frames: drawn by a renderer like the export's, fitted to the same run."""
    preset = as_preset(SHIPPED_DIR / name)
    solver = preset.make_solver()
    renderer = FrameRenderer(preset, PANELS, SIZE, theme_for("light", 1.0))
    renderer.set_problem(solver.problem, type(solver))
    snaps = [s for s, _ in iter_frames(solver, 0, 10**6)]
    rho = scene_rho(solver.problem, type(solver))
    renderer.fix_scales(snaps, rho, colour_level(snaps, solver.problem, type(solver)))
    canvas, curves = renderer.panels["canvas"], renderer.panels["curves"]
    item = canvas.plot.getPlotItem()
    area = _rect_in(renderer, canvas.plot, canvas.viewbox.sceneBoundingRect())
    parts = {"colour bar": _rect_in(renderer, canvas.plot, canvas.colorbar.sceneBoundingRect())}
    for side in ("left", "bottom"):
        parts[f"canvas {side} axis"] = _outside(_rect_in(renderer, canvas.plot, item.getAxis(side).sceneBoundingRect()),
                                                area, side)
    for g, p in curves.plots.items():
        area = _rect_in(renderer, curves.layout_widget, p.vb.sceneBoundingRect())
        for side in ("left", "bottom"):
            axis = _rect_in(renderer, curves.layout_widget, p.getAxis(side).sceneBoundingRect())
            parts[f"{g} {side} axis"] = _outside(axis, area, side)
    vb = curves.plots["margins"].vb
    rho_row = None
    if rho is not None:
        rho_row = _rect_in(renderer, curves.layout_widget, vb.sceneBoundingRect())
        y = curves.layout_widget.mapFromScene(vb.mapViewToScene(QPointF(0.0, rho))).y()
        rho_row = (rho_row, curves.layout_widget.mapTo(renderer, curves.layout_widget.rect().topLeft()).y() + y)
    renderer.close()
    renderer.deleteLater()
    return parts, rho, rho_row, len(snaps)


@pytest.mark.parametrize("name, theme", [("xor-rbf.json", "light"), ("notes-80-separable.json", "light"),
                                         ("xor-rbf.json", "hc-dark")])
def test_gif_frames_share_axes_and_colour_bar(qapp, tmp_path, name, theme):
    out = tmp_path / "run.gif"
    export_run(SHIPPED_DIR / name, out, panels=PANELS, size=SIZE, theme=theme)
    frames = iio.imread(out, index=None)
    parts, _rho, _row, count = _geometry(name)
    assert frames.shape[0] == count >= 5
    assert not np.array_equal(frames[0], frames[-1])  # the run itself is animated
    for part, r in parts.items():
        assert r.width() > 5 and r.height() > 5, part
        crop = frames[:, r.top():r.bottom() + 1, r.left():r.right() + 1]
        assert np.ptp(crop[0]) > 50, f"{part}: nothing drawn there"  # ticks or a gradient, not an empty strip
        changed = [i for i in range(len(crop)) if not np.array_equal(crop[i], crop[-1])]
        assert not changed, f"the {part} differs from the last frame's in frames {changed}"


def test_gif_curves_draw_the_rho_line_at_rho(qapp, tmp_path):
    name = "xor-rbf.json"
    out = tmp_path / "xor.gif"
    export_run(SHIPPED_DIR / name, out, panels=PANELS, size=SIZE)
    frames = iio.imread(out, index=None).astype(int)
    parts, rho, (plot, y), _ = _geometry(name)
    problem = as_preset(SHIPPED_DIR / name).make_solver().problem
    assert rho == pytest.approx(float(optimal_margin(problem).rho))  # the scene's ρ_K (0.374 for this XOR)
    background = frames[-1, plot.top() + 2, plot.right() - 2]
    for f in frames:
        inside = f[:, plot.left():plot.right() + 1]
        ink = np.abs(inside - background).max(axis=2) > 60  # dark pixels per row of the margin plot
        rows = ink.mean(axis=1)
        top, bottom = plot.top() + 3, plot.bottom() - 3  # inside the plot: not its axis line
        line = int(np.argmax(rows[top:bottom + 1])) + top
        assert rows[line] > 0.3, "no dotted line across the margin plot"
        assert abs(line - y) <= 2  # at ρ_K on the plot's axis



def test_the_window_export_on_its_thread_keeps_them_too(qtbot, tmp_path):
    from percviz.app.classroom.export import AnimationExport

    name = "notes-80-separable.json"
    out = tmp_path / "thread.gif"
    job = AnimationExport(as_preset(SHIPPED_DIR / name), out, panels=PANELS, size=SIZE, theme=theme_for("light", 1.0))
    with qtbot.waitSignal(job.finished, timeout=60000):
        job.start()
    frames = iio.imread(out, index=None)
    parts, _rho, _row, count = _geometry(name)
    assert frames.shape[0] == count
    for part in ("colour bar", "norms left axis", "counts bottom axis"):
        r = parts[part]
        crop = frames[:, r.top():r.bottom() + 1, r.left():r.right() + 1]
        assert all(np.array_equal(c, crop[-1]) for c in crop), part


@pytest.mark.parametrize("theme", ["dark", "hc-dark"])
def test_dark_gif_colour_map_has_no_bands(qapp, tmp_path, theme):
    """Where the drawn frame is a smooth gradient, the GIF's frame averaged over 9×9 px stays within BAND levels of
    the drawn one (255 shared colours without dithering: bands up to 11 levels off, in the map and its colour bar)."""
    from scipy.ndimage import maximum_filter, uniform_filter

    band = 6.0
    name = "xor-rbf.json"
    out = tmp_path / f"{theme}.gif"
    export_run(SHIPPED_DIR / name, out, panels=PANELS, size=SIZE, theme=theme)
    gif = iio.imread(out, index=None)[..., :3].astype(float)
    preset = as_preset(SHIPPED_DIR / name)
    solver = preset.make_solver()
    renderer = FrameRenderer(preset, PANELS, SIZE, theme_for(theme, 1.0))
    renderer.set_problem(solver.problem, type(solver))
    run = list(iter_frames(solver, 0, 10**6))
    snaps = [s for s, _ in run]
    renderer.fix_scales(snaps, scene_rho(solver.problem, type(solver)), colour_level(snaps, solver.problem, type(solver)))
    drawn = np.array([renderer.render_frame(s)[..., :3] for s, shown in run if shown], float)  # before quantising
    canvas = renderer.panels["canvas"]
    fields = {"map": _rect_in(renderer, canvas.plot, canvas.viewbox.sceneBoundingRect()),
              "colour bar": _rect_in(renderer, canvas.plot, canvas.colorbar.bar.sceneBoundingRect())}
    renderer.close()
    renderer.deleteLater()
    assert gif.shape == drawn.shape
    for field, r in fields.items():
        worst, smooth_px = 0.0, 0
        for a, b in zip(drawn[:, r.top():r.bottom(), r.left():r.right()], gif[:, r.top():r.bottom(), r.left():r.right()]):
            edge = np.zeros(a.shape[:2], bool)  # points, lines, text: steps of more than 3 levels in the drawing
            edge[:, 1:] |= np.abs(np.diff(a, axis=1)).max(-1) > 3
            edge[1:] |= np.abs(np.diff(a, axis=0)).max(-1) > 3
            smooth = ~maximum_filter(edge, size=11)
            off = np.abs(uniform_filter(b, size=(9, 9, 1)) - uniform_filter(a, size=(9, 9, 1))).max(-1)[smooth]
            smooth_px += off.size
            worst = max(worst, float(off.max()))
        assert smooth_px > 1000, field  # there is a gradient to judge
        assert worst < band, f"{theme} {field}: a band {worst:.1f} levels off the drawn gradient"


def test_a_dark_gif_stays_small_without_bands(qapp, tmp_path):
    """The colour map's ramp has its own palette entries (no Floyd–Steinberg noise) and unchanged pixels are left
    transparent: notes-80, dark, 29 frames measured 605 KB (1384 KB dithered on main, 674 KB undithered and banded);
    every frame is still the drawn one within the palette's steps where the drawing is smooth."""
    from scipy.ndimage import maximum_filter, uniform_filter

    name = "notes-80-separable.json"
    out = tmp_path / "notes.gif"
    result = export_run(SHIPPED_DIR / name, out, panels=PANELS, size=SIZE, theme="dark")
    assert result.frames >= 20
    assert out.stat().st_size < 800 * 1024, out.stat().st_size
    gif = iio.imread(out, index=None)[..., :3].astype(float)
    preset = as_preset(SHIPPED_DIR / name)
    solver = preset.make_solver()
    renderer = FrameRenderer(preset, PANELS, SIZE, theme_for("dark", 1.0))
    renderer.set_problem(solver.problem, type(solver))
    run = list(iter_frames(solver, 0, 10**6))
    snaps = [s for s, _ in run]
    renderer.fix_scales(snaps, scene_rho(solver.problem, type(solver)), colour_level(snaps, solver.problem, type(solver)))
    drawn = np.array([renderer.render_frame(s)[..., :3] for s, shown in run if shown], float)
    boxes = renderer.gradient_rects()
    renderer.close()
    renderer.deleteLater()
    assert gif.shape == drawn.shape
    for k in (0, len(drawn) // 2, len(drawn) - 1):
        for left, top, right, bottom in boxes:
            a, b = drawn[k, top:bottom, left:right], gif[k, top:bottom, left:right]
            edge = np.zeros(a.shape[:2], bool)
            edge[:, 1:] |= np.abs(np.diff(a, axis=1)).max(-1) > 3
            edge[1:] |= np.abs(np.diff(a, axis=0)).max(-1) > 3
            smooth = ~maximum_filter(edge, size=11)
            off = np.abs(uniform_filter(b, size=(9, 9, 1)) - uniform_filter(a, size=(9, 9, 1))).max(-1)[smooth]
            assert off.size > 1000 and off.max() < 4.0, (k, off.max())  # main: 7.9 in this scene
