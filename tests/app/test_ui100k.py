"""Large scenes keep their slow work off the UI thread: the autosave's write, reading a big CSV, ρ_K; bounded history."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtCore import QPointF, QRect
from PySide6.QtWidgets import QApplication

from percviz.app.classroom import autosave as autosave_module
from percviz.app.run import rho as rho_module
from percviz.app.run import session as session_module
from percviz.app.classroom.autosave import Autosaver, preset_text
from percviz.app.run.background import live_threads
from percviz.app.main_window import MainWindow
from percviz.app.panels.point_decimation import PointDecimator
from percviz.app.panels.presentation_bar import FIT_SETTLE_MS
from percviz.app.run.history import SnapshotHistory, snapshot_bytes
from percviz.app.theme import theme_for
from percviz.core import gram, min_norm
from percviz.core.data import PointSet
from percviz.core.presets import Preset, load_preset, preset_to_json, write_csv
from percviz.core.scene import SceneModel, Settings

N = 20_000


def _points(n: int, seed: int = 13, gap: float = 0.0) -> PointSet:
    rng = np.random.default_rng(seed)
    X = rng.normal(0, 1, (n, 2))
    s = X[:, 0] + 0.3 * X[:, 1]
    X = X[np.abs(s) > gap]
    return PointSet(X, (X[:, 0] + 0.3 * X[:, 1] > 0).astype(np.int64))


def _window(qtbot, points: PointSet, **settings) -> MainWindow:
    w = MainWindow(SceneModel(points, Settings(**{"algorithm": "perceptron", "kernel": "affine", **settings})))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.session.wait_idle(60)  # 100,000 points: first draws take seconds on a loaded machine
    return w


def _close(w: MainWindow) -> None:
    w.session.pause()
    w.session.wait_idle(60)  # 100,000 points: first draws take seconds on a loaded machine
    w.scene.mark_saved()
    w.close()


# -- the autosave ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 1999, 2000, 4001])
def test_chunked_preset_text_is_exactly_the_saved_file_text(n):
    rng = np.random.default_rng(n)
    X = rng.normal(0, 1, (n, 2)) * 10.0 ** rng.integers(-6, 6, (n, 1))  # long and short reprs
    preset = Preset(PointSet(X, rng.integers(0, 3, n)), title='a "points": [] title\nwith a newline',
                    explanation='"classes": []', algorithm="nkp", params={"bound": False})
    assert preset_text(preset) == preset_to_json(preset)


def test_a_class_index_no_preset_can_hold_is_refused_before_writing(tmp_path):
    preset = Preset(PointSet(np.zeros((2, 2)), [0, 64]))
    error = autosave_module.write_autosave(tmp_path / "a.json", preset, {})
    assert "0 … 63" in error and not (tmp_path / "a.json").exists()


def test_the_timers_autosave_is_written_on_a_background_thread_and_loads_as_the_scene(qtbot, tmp_path, monkeypatch):
    w = _window(qtbot, _points(N))
    threads = []
    real = autosave_module.write_autosave

    def spy(path, preset, meta):
        threads.append(threading.current_thread())
        return real(path, preset, meta)

    monkeypatch.setattr(autosave_module, "write_autosave", spy)
    saver = w.classroom.files.autosaver
    w.scene.add_point(0.25, -0.5, 1)
    saver.timer.timeout.emit()  # the timer's tick
    qtbot.waitUntil(lambda: not saver.writing and bool(threads), timeout=20000)
    QApplication.processEvents()
    assert threads[0] is not threading.main_thread() and saver.last_error == ""
    kept = load_preset(saver.path)
    assert kept.points.n == N + 1 and tuple(kept.points.X[-1]) == (0.25, -0.5) and kept.points.classes[-1] == 1
    np.testing.assert_array_equal(kept.points.X, w.scene.points.X)
    _close(w)
    assert not saver.path.exists()


def test_an_autosave_discarded_while_it_is_written_is_deleted_when_it_lands(qtbot, tmp_path):
    scene = {"preset": Preset(_points(N))}
    saver = Autosaver(lambda: scene["preset"], folder=tmp_path, interval=10**8)
    try:
        saver.mark_dirty()
        saver.save_in_background()
        assert saver.writing
        saver.discard()  # the scene was saved meanwhile
        qtbot.waitUntil(lambda: not saver.writing, timeout=20000)
        QApplication.processEvents()
        assert not saver.path.exists() and not saver.path.with_suffix(".meta.json").exists()
        saver.mark_dirty()
        saver.save_in_background()
        saver.close()  # a clean exit waits for the write, then removes it
        assert not saver.path.exists() and not saver.writing
    finally:
        saver.close()


# -- opening a large CSV ------------------------------------------------------------------------------------------

def test_a_large_csv_is_read_off_the_ui_thread_and_then_replaces_the_scene(qtbot, tmp_path, monkeypatch):
    from percviz.app.classroom import file_actions

    pts = _points(40_000, seed=5)
    path = write_csv(pts, tmp_path / "big.csv")
    assert path.stat().st_size > file_actions.BACKGROUND_OPEN_BYTES
    w = _window(qtbot, _points(50))
    threads = []
    real = file_actions._load_or_message
    monkeypatch.setattr(file_actions, "_load_or_message", lambda p: threads.append(threading.current_thread()) or real(p))
    files = w.classroom.files
    assert files.open_path(path, confirm=False)
    qtbot.waitUntil(lambda: files.opening is None, timeout=30000)
    assert threads and threads[0] is not threading.main_thread()
    assert w.scene.n == 40_000 and not w.scene.modified and w.title == "big"
    np.testing.assert_array_equal(w.scene.points.X, pts.X)
    # a broken large file: one message, the scene untouched
    bad = tmp_path / "bad.csv"
    bad.write_text(path.read_text() + "1.0,oops,1\n")
    errors = []
    monkeypatch.setattr(w, "show_error", lambda title, text: errors.append(text))
    files.open_path(bad, confirm=False)
    qtbot.waitUntil(lambda: files.opening is None, timeout=30000)
    assert len(errors) == 1 and "not a number" in errors[0] and w.scene.n == 40_000
    _close(w)


# -- the drawing -------------------------------------------------------------------------------------------------

def test_adding_or_deleting_a_point_changes_at_most_two_points_of_the_decimated_drawing():
    rng = np.random.default_rng(4)
    X = rng.normal(0, 1, (100_000, 2))
    whole = ((-4.0, 4.0), (-4.0, 4.0))
    drawn = lambda A: {tuple(p) for p in A[PointDecimator().shown(A, whole)]}  # noqa: E731  (by coordinates)
    before = drawn(X)
    assert len(before) == 10_000
    added = drawn(np.vstack([X, [[0.1, 0.2]]]))
    assert len(before - added) <= 1 and added - before <= {(0.1, 0.2)}
    i = int(np.flatnonzero([tuple(p) in before for p in X[:50]])[0])  # a drawn point, deleted
    deleted = drawn(np.delete(X, i, axis=0))
    assert before - deleted == {tuple(X[i])} and len(deleted - before) == 1  # the next in rank takes its place


def test_the_drawn_spots_after_each_edit_are_the_points_the_decimator_shows_in_their_class_style(qtbot):
    w = _window(qtbot, _points(N))
    canvas, scene = w.panels["canvas"], w.session.scene
    item = canvas.points_item
    calls = []
    real, real_all = item.setData, canvas.points_layer.set_spots
    item.setData = lambda *a, **k: (calls.append(1), real(*a, **k))  # counts the full redraws
    canvas.points_layer.set_spots = lambda *a, **k: (calls.append(1), real_all(*a, **k))

    def spots():
        d = item.data
        return sorted(zip(d["x"].tolist(), d["y"].tolist(), [id(b) for b in d["brush"]], d["symbol"].tolist()))

    def expected():
        pts, t = scene.points, canvas.theme
        shown = canvas.points_layer.decimator.shown(pts.X, canvas.viewbox.viewRange())
        X, cls = (pts.X, pts.classes) if shown is None else (pts.X[shown], pts.classes[shown])
        brushes = canvas.points_layer.brushes
        symbols = [canvas.points_layer.symbols.get(s, s) for s in (t.class_symbol(k) for k in range(6))]
        return sorted((float(x), float(y), id(brushes[k % 6]), symbols[k % 6]) for (x, y), k in zip(X, cls))

    drawn = set(map(tuple, scene.points.X[canvas.points_layer.shown].tolist()))
    i = next(k for k in range(N) if tuple(scene.points.X[k]) in drawn)  # a drawn point
    scene.begin_drag()
    for k in range(5):
        scene.move_point(i, 0.3 + 0.01 * k, -0.2)
    scene.end_drag()
    qtbot.waitUntil(lambda: canvas.points_layer.drawn_for is scene.points.X)  # a dragged point waits for its rerun's boundary
    assert spots() == expected()
    scene.add_point(0.05, 0.05, 1)
    scene.remove_point(i)
    scene.add_point(-0.4, 0.6, 0)
    assert spots() == expected()
    assert len(item.data) == canvas.points_layer.decimator.cap
    assert calls == []  # every edit was patched, not redrawn
    w.apply_theme(w.theme)
    assert spots() == expected() and calls == []  # the same look keeps the drawn spots
    w.apply_theme(theme_for("dark"))
    assert spots() == expected() and calls == [1]  # a new look redraws them with its pens and brushes
    _close(w)


def test_the_full_draw_fills_the_same_spot_records_and_picture_as_pyqtgraphs_set_data(qtbot):
    w = _window(qtbot, _points(N))
    canvas, item = w.panels["canvas"], w.panels["canvas"].points_item
    w.apply_theme(theme_for("dark"))  # a new look: drawn by the canvas's own full draw
    QApplication.processEvents()

    def record():
        d = item.data
        return ([d[f].tolist() for f in ("x", "y", "size", "visible", "sourceRect")]
                + [[id(o) for o in d[f]] for f in ("symbol", "brush", "pen", "item", "data")]
                + [item.opts["size"], id(item.opts["pen"]), item.opts["symbol"], id(item.opts["brush"])])

    ours, picture = record(), canvas.plot.grab().toImage()
    assert len(item.data) == canvas.points_layer.decimator.cap
    t, pts, shown = canvas.theme, w.scene.points, canvas.points_layer.shown
    symbols = [canvas.points_layer.symbols.get(s, s) for s in (t.class_symbol(k) for k in range(6))]
    brushes = canvas.points_layer.brushes
    X, cls = pts.X[shown], pts.classes[shown]
    assert sorted(set(cls.tolist())) == [0, 1]
    item.setData(pos=X, size=t.marker_size * 1.35, symbol=[symbols[k % 6] for k in cls],
                 brush=[brushes[k % 6] for k in cls], pen=canvas.points_layer.pen)
    QApplication.processEvents()
    assert record() == ours
    assert canvas.plot.grab().toImage() == picture
    _close(w)


def test_the_captions_crowding_counts_what_testing_every_point_counts(qtbot):
    w = _window(qtbot, _points(N))
    crowding, canvas = w.classroom.caption._crowding, w.panels["canvas"]
    plot, vb = canvas.plot, canvas.viewbox
    rng = np.random.default_rng(5)

    def every_point(rect):
        o = plot.mapFromScene(vb.mapViewToScene(QPointF(0.0, 0.0)))
        e = plot.mapFromScene(vb.mapViewToScene(QPointF(1.0, 1.0)))
        X, r = w.scene.points.X, 0.7 * canvas.theme.marker_size
        px, py = o.x() + (e.x() - o.x()) * X[:, 0], o.y() + (e.y() - o.y()) * X[:, 1]
        return int(((px > rect.left() - r) & (px < rect.right() + r) & (py > rect.top() - r)
                    & (py < rect.bottom() + r)).sum())

    counts = []
    for view in (None, (-0.5, 0.4, -0.3, 0.6)):
        if view is not None:
            vb.setRange(xRange=view[:2], yRange=view[2:], padding=0)
            QApplication.processEvents()
        for _ in range(40):
            x, y = rng.integers(0, plot.width(), 2)
            rect = QRect(int(x), int(y), int(rng.integers(1, 300)), int(rng.integers(1, 200)))
            counts.append(every_point(rect))
            assert crowding(rect) == counts[-1]
        w.scene.add_point(0.01, 0.02, 1)  # a new points array: sorted again
    assert max(counts) > 100 and min(counts) == 0
    _close(w)


# -- the history ------------------------------------------------------------------------------------------------

def test_the_history_of_a_100k_point_run_stays_within_its_memory_budget():
    n = 100_000
    snap = SimpleNamespace(alpha=np.zeros(n), p=np.zeros(n), weights=None,
                           decision=SimpleNamespace(coef=np.zeros(n), centers=np.zeros((n, 2))))
    h = SnapshotHistory()
    h.extend([snap] * 500)
    assert len(h) * snapshot_bytes(snap) <= h.budget_bytes  # (the former floor of 256 kept ~1 GB here)
    assert len(h) >= 32


# -- ρ_K ----------------------------------------------------------------------------------------------------------

def test_vertex_bound_past_its_deadline_is_the_max_over_the_columns_it_read(monkeypatch):
    rng = np.random.default_rng(2)
    X = rng.normal(0, 1, (40, 3))
    R = X * np.sign(X[:, 0] + 0.1)[:, None]
    G = R @ R.T
    per_col = (G.min(axis=0) / np.sqrt(np.diag(G)))  # the margin of α = e_j, by the formula
    op = min_norm.DenseColumns(G)
    assert gram._vertex_bound(op) == pytest.approx(per_col.max(), rel=1e-12)
    monkeypatch.setattr(gram, "VERTEX_BLOCK", 40 * 3)  # three columns a block
    assert gram._vertex_bound(op, deadline=0.0) == pytest.approx(per_col[:3].max(), rel=1e-12)


def test_a_large_scene_starts_rho_once_still_and_it_bounds_the_true_separators_margin(qtbot, monkeypatch):
    monkeypatch.setattr(rho_module, "RHO_DEFER_N", 500)
    monkeypatch.setattr(rho_module, "RHO_DEFER_MS", 3000)  # longer than Live's run of each edit on a loaded machine
    pts = _points(1300, seed=7, gap=0.3)  # separable by x + 0.3 y = 0 with a gap
    w = _window(qtbot, pts, algorithm="nkp")
    s = w.session
    started, values = [], []
    real = s.margins.start
    monkeypatch.setattr(s.margins, "start", lambda problem: started.append(problem) or real(problem))
    s.rhoChanged.connect(lambda v: v is not None and values.append(v))
    for k in range(1, 4):  # edits in quick succession: each restarts the run, none starts ρ_K
        w.scene.add_point(5.0 + k, 5.0, 1)
        QApplication.processEvents()
        assert s.margins.task is None
    qtbot.waitUntil(lambda: bool(values), timeout=60000)
    assert started == [s.problem]  # one ρ_K, for the scene as it ended up
    # ρ_K is the best margin of any separator in the affine kernel's (normalized) feature space, so at least
    # the margin of the separator the labels came from: φ(x) = (1, x)/‖(1, x)‖, w = −(0, 1, 0.3)
    P = w.scene.points
    y = np.where(P.classes == 0, 1.0, -1.0)
    phi = np.column_stack([np.ones(P.n), P.X]) / np.sqrt(1 + (P.X ** 2).sum(axis=1))[:, None]
    wt = np.array([0.0, -1.0, -0.3])  # class 0 (+) lies where x + 0.3 y ≤ 0
    margins = y * (phi @ wt) / np.linalg.norm(wt)
    assert margins.min() > 0 and values[-1] >= margins.min() - 1e-9
    _close(w)
    qtbot.waitUntil(lambda: not live_threads(), timeout=60000)  # the feature picture of 1,300 points


# -- the curves panel's kept plots --------------------------------------------------------------------------------

def _curves_look(view) -> list:
    """Everything the curves panel draws, by plot: axes, names, lines, log boxes, every curve's style and data."""

    def pen(p):
        return (p.color().name(), p.widthF(), int(p.style().value))

    out = [list(view.plots), view.legend.text()]
    for g, p in view.plots.items():
        axes = [(pen(p.getAxis(a).pen()), pen(p.getAxis(a).textPen()), p.getAxis(a).style["tickFont"].toString(),
                 p.getAxis(a).label.font().toString(), p.getAxis(a).labelText, p.getAxis(a).labelStyle,
                 p.getAxis(a).label.isVisible()) for a in ("left", "bottom")]
        lines = [(pen(view.cursors[g].pen), view.cursors[g].isVisible())]
        if g in view.references:
            lines.append((pen(view.references[g].pen), view.references[g].isVisible(), view.references[g].value()))
        box = view.log_boxes[g]
        out.append((g, axes, lines, box.text(), box.font().toString(), box.isChecked(), box.isVisible(),
                    p.vb.viewRange()))
    for k, c in view.curves.items():
        x, y = c.getOriginalDataset()
        o = c.opts
        out.append((k, pen(o["pen"]), o["symbol"], o["symbolSize"],
                    None if o["symbol"] is None else (o["symbolPen"].color().name(), o["symbolBrush"].color().name()),
                    np.asarray(x).tolist(), np.nan_to_num(np.asarray(y), nan=-7.0).tolist()))
    return out


@pytest.mark.parametrize("upto", [1, None])  # a lone first value (dots), and a whole run
def test_a_new_theme_restyles_the_kept_plots_to_what_a_panel_built_in_it_shows(qtbot, upto):
    from percviz.app.panels.curves import CurvesView
    from percviz.core import datasets
    from percviz.core.problem import Problem
    from percviz.core.solvers import get_solver

    prob = Problem(datasets.separable(), kernel="affine")
    snkp, other = get_solver("snkp"), get_solver("perceptron")
    snaps = list(snkp(prob).snapshots())[:upto]
    dark = theme_for("dark", 2.0)
    views = []
    for theme in (None, dark):
        view = CurvesView(None, theme=theme)
        qtbot.addWidget(view)
        view.resize(700, 500)
        view.show()
        qtbot.waitExposed(view)
        views.append(view)
    kept, built = views
    kept.set_problem(Problem(datasets.separable(), kernel="linear"), other)  # its plots go back to the pool
    for view in (kept, built):
        view.set_problem(prob, snkp)
        view.set_reference(0.05)
        view.set_history(snaps)
    pool = {g: id(p) for g, p in kept.plots.items()}
    kept.apply_theme(dark)
    QApplication.processEvents()
    assert {g: id(p) for g, p in kept.plots.items()} == pool  # restyled, not built again
    assert _curves_look(kept) == _curves_look(built)
    assert kept.layout_widget.grab().toImage() == built.layout_widget.grab().toImage()


def test_a_large_scenes_new_theme_reaches_every_panel_and_the_caption_in_later_turns_the_last_one_winning(qtbot):
    w = _window(qtbot, _points(N + 5000))
    assert w.scene.n > session_module.SPLIT_RESTART_N
    w.classroom.set_theme("dark")
    dark = w.classroom.theme
    assert w.panels["canvas"].theme is dark and w.panels["curves"].theme is not dark  # the others come later
    w.classroom.set_theme("light")  # before the dark one has reached them: the last one is what they get
    light = w.classroom.theme
    w.session.wait_idle(60)  # 100,000 points: first draws take seconds on a loaded machine
    assert all(p.theme is light for p in w.panels.values()) and w.classroom.caption.theme is light
    assert w.panels["curves"].layout_widget.backgroundBrush().color().name() == light.background
    _close(w)


def test_a_large_presets_view_reaches_the_curves_in_a_later_turn_with_the_run_drawn_again(qtbot):
    from percviz.core.presets import ViewSettings

    w = _window(qtbot, _points(50), algorithm="snkp")
    view = ViewSettings(panels=("canvas", "curves"), curves=("margin", "alpha_g_norm"), log_y=True)
    w.load_preset(Preset(points=_points(N + 5000), algorithm="snkp", kernel="affine", view=view))
    curves = w.panels["curves"]
    w.session.wait_idle(60)  # 100,000 points: first draws take seconds on a loaded machine
    w.session.step()
    w.session.step()
    w.session.wait_idle(60)  # 100,000 points: first draws take seconds on a loaded machine
    QApplication.processEvents()
    assert curves.view_curves == ("margin", "alpha_g_norm")
    assert set(curves.curves) == {"margin", "alpha_g_norm"}
    assert all(box.isChecked() for box in curves.log_boxes.values())  # log_y: every plot logarithmic
    its = [s.iteration for s in w.session.history]
    assert its[-1] == 2 and curves.series("margin")[0].tolist() == its  # the whole run, drawn with the view
    np.testing.assert_allclose(curves.series("margin")[1], [s.metrics["margin"] for s in w.session.history])
    _close(w)


def test_f5_twice_at_a_large_n_draws_the_same_canvas_and_curves_and_leaves_nothing_held(qtbot):
    w = _window(qtbot, _points(N + 5000), algorithm="snkp")
    canvas, curves, present = w.panels["canvas"], w.panels["curves"], w.classroom.actions["presentation"]
    for _ in range(3):
        w.session.step()
    w.session.wait_idle(60)  # 100,000 points: first draws take seconds on a loaded machine
    qtbot.waitUntil(lambda: not w.session.frames.first_draws_pending and not canvas._redraw_pending
                    and not canvas._refine.isActive())

    def picture():
        d = canvas.points_item.data
        spots = sorted(zip(d["x"].tolist(), d["y"].tolist(), d["symbol"].tolist()))
        bx, by = canvas.boundary_curve.getData()
        pos, size = canvas.halo_data()
        series = {k: [np.nan_to_num(a, nan=-1e300).tolist() for a in curves.series(k)] for k in curves.curves}
        return spots, bx.tolist(), by.tolist(), sorted(map(tuple, np.column_stack([pos, size]).tolist())), series

    def settled():
        return (w.updatesEnabled() and not w.session.frames.first_draws_pending and not canvas._redraw_pending
                and not canvas._refine.isActive() and all(p.updatesEnabled() for p in w.panels.values()))

    before = picture()
    assert len(before[0]) > 0 and len(before[1]) > 0 and before[4]  # a boundary, spots and curves to compare
    present.trigger()
    assert w.classroom.presenting and not w.updatesEnabled()  # the relayout's turn paints nothing
    qtbot.waitUntil(settled)
    assert curves.theme is w.classroom.theme and canvas.theme is w.classroom.theme  # the presentation look
    present.trigger()
    qtbot.wait(3 * FIT_SETTLE_MS)  # the desk layout is restored again once the deferred relayouts have run
    qtbot.waitUntil(settled)
    assert not w.classroom.presenting and curves.theme is w.classroom.theme
    after = picture()
    assert after[0] == before[0] and after[3] == before[3] and after[4] == before[4]  # spots, halos, every curve
    # the boundary: the same line (its drawn extent follows the picture's grid, on main as here)
    (p, q), r = [(np.array([x[0], y[0]]), np.array([x[-1], y[-1]])) for x, y in [before[1:3]]][0], np.column_stack(after[1:3])
    r = r[np.isfinite(r).all(axis=1)]
    d = q - p
    assert len(r) > 1 and np.allclose((r[:, 0] - p[0]) * d[1] - (r[:, 1] - p[1]) * d[0], 0, atol=1e-9 * np.dot(d, d))
    _close(w)


def test_a_view_closed_and_opened_at_a_large_n_is_hidden_and_shown_and_the_window_paints_again(qtbot):
    w = _window(qtbot, _points(N + 5000), algorithm="snkp")
    canvas = w.panels["canvas"]
    w.session.step()
    w.session.wait_idle(60)  # 100,000 points: first draws take seconds on a loaded machine
    for name in ("curves", "feature"):
        widget = w.panels["curves"] if name == "curves" else w.docks["feature"]
        for on in (False, True):
            w.view_actions[name].setChecked(on)
            assert not w.updatesEnabled()  # the relayout's turn paints nothing
            qtbot.waitUntil(lambda: w.updatesEnabled() and not canvas._redraw_pending)
            assert widget.isVisible() == on, (name, on)
            drawn = [(id(canvas.snapshot), canvas.grid(r).key, id(canvas.theme))
                     for r in (canvas.coarse_resolution, canvas.fine_resolution)]
            assert canvas._drawn_key in drawn, (name, on)  # the canvas drew the run for its new view
    _close(w)
