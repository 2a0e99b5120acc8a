"""The canvas as layers (issue 24), and issue 25 point 1 on the real window at 1280×800: thin-margin, Gaussian RBF,
F5, 3×, Theme ▸ Dark → the caption line above the canvas is light on dark; back to 2× it takes the 2× size."""

from __future__ import annotations

import pytest
from helpers import spin
from PySide6.QtGui import QAction, QColor

from percviz.app.panels.canvas import CanvasLayer
from percviz.core.presets import SHIPPED_DIR

pytestmark = [pytest.mark.filterwarnings("ignore::RuntimeWarning")]


def _action(w, text: str) -> QAction:
    return next(a for a in w.findChildren(QAction) if a.text() == text)


def _luminance(c: QColor) -> float:
    ch = [v / 255 for v in c.getRgb()[:3]]
    ch = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in ch]
    return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]


@pytest.fixture
def thin_rbf(hall_window):
    """thin-margin with the Gaussian RBF kernel, run to its end, presenting at 3× (its caption leaves the plot)."""
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    box = w.controls.kernel
    box.setCurrentIndex(next(i for i in range(box.count()) if "RBF" in box.itemText(i)))
    w.session.wait_idle()
    w.session.run_to_end()
    w.session.wait_idle()
    w.classroom.actions["presentation"].trigger()  # F5
    spin(0.3)
    _action(w, "3×").trigger()
    spin(0.3)
    return w


def test_the_caption_line_is_light_on_dark_after_theme_dark_at_3x(thin_rbf):
    w = thin_rbf
    note = w.classroom.caption.line_label
    assert note.isVisible(), "at 3× thin-margin's caption sits in the title row above the canvas"
    before = note.palette().color(note.foregroundRole())
    w.findChild(QAction, "theme_dark").trigger()
    spin(0.2)
    fg, bg = note.palette().color(note.foregroundRole()), QColor(w.classroom.theme.background)
    assert _luminance(before) < 0.1 < 0.5 < _luminance(fg), (before.name(), fg.name())  # near-black → light
    assert (_luminance(fg) + 0.05) / (_luminance(bg) + 0.05) > 7  # WCAG AAA against the dark background


def test_the_caption_line_takes_the_2x_size_back_from_3x(thin_rbf):
    w = thin_rbf
    note = w.classroom.caption.line_label
    at3 = note.font().pointSizeF()
    _action(w, "2×").trigger()
    spin(0.3)
    at2 = note.font().pointSizeF()
    assert at2 == pytest.approx(at3 * 2 / 3)  # the type scales with the presentation: 0.8 × 10 pt × scale
    assert at2 == pytest.approx(0.8 * 10.0 * 2.0)


def test_a_canvas_theme_change_alone_restyles_the_caption(thin_rbf):
    """The caption is a layer: the canvas's one apply_theme reaches it even when nothing else restyles it."""
    from percviz.app.theme import theme_for

    w = thin_rbf
    canvas, note = w.panels["canvas"], w.classroom.caption.line_label
    dark = theme_for("dark", 2.0)
    canvas.apply_theme(dark)
    assert note.palette().color(note.foregroundRole()) == QColor(dark.foreground)
    assert note.font().pointSizeF() == pytest.approx(0.8 * dark.font_pt)
    assert w.classroom.caption.theme is dark


class _Recorder(CanvasLayer):
    name = "recorder"

    def __init__(self):
        self.themes, self.snaps, self.pictures = [], [], []

    def apply_theme(self, theme, scale=None):
        self.themes.append((theme.name, scale))

    def draw(self, snapshot):
        self.snaps.append(snapshot)

    def draw_picture(self, picture):
        self.pictures.append(picture)


def test_every_layer_is_restyled_by_one_theme_change_and_there_are_at_least_six(window, monkeypatch):
    from percviz.app.theme import theme_for

    canvas = window.panels["canvas"]
    names = [layer.name for layer in canvas.layers]
    assert len(canvas.layers) >= 6 and len(set(names)) == len(names)
    assert {"image", "boundary", "slacks", "halos", "points", "trigger", "hover", "caption"} <= set(names)
    calls = []
    for layer in canvas.layers:
        real = layer.apply_theme
        monkeypatch.setattr(layer, "apply_theme", lambda t, s=None, real=real, n=layer.name: (calls.append((n, s)), real(t, s)))
    dark = theme_for("dark", 3.0)
    canvas.apply_theme(dark)
    assert sorted(n for n, _ in calls) == sorted(names) and {s for _, s in calls} == {3.0}
    # and what each drew is in the new look
    assert canvas.plot.backgroundBrush().color() == QColor(dark.background)
    assert canvas.boundary_curve.opts["pen"].color() == QColor(dark.boundary)
    assert canvas.points_layer.pen.widthF() == pytest.approx(max(1.0, 0.8 * 3.0))
    assert canvas.overlay.brush().color() == QColor(dark.foreground)


def test_an_added_layer_gets_the_theme_the_snapshot_and_the_one_shared_picture(window):
    from percviz.app.theme import theme_for

    canvas = window.panels["canvas"]
    rec = _Recorder()
    canvas.add_layer(rec)
    assert rec.themes == [(canvas.theme.name, canvas.theme.scale)] and rec.snaps == [canvas.snapshot]
    canvas.apply_theme(theme_for("dark", 2.0))
    assert rec.themes[-1] == ("dark", 2.0)
    canvas.redraw_now()
    assert rec.snaps[-1] is canvas.snapshot
    pic = rec.pictures[-1]
    assert (pic.snap, pic.grid) == canvas.picture_of  # the picture the image layer drew, not a second evaluation
    assert canvas.image.image.shape == pic.F.shape


def test_input_distances_are_a_layer_computed_on_a_background_task(qtbot, hall_window, monkeypatch):
    """View ▸ Input distances: restyled with the canvas's layers, its distances computed through background.Task."""
    import percviz.app.panels.input_distance_layer as idl
    from percviz.app.theme import theme_for

    started = []

    class CountedTask(idl.Task):
        def start(self, fn, *args):
            started.append(self.name)
            return super().start(fn, *args)

    monkeypatch.setattr(idl, "Task", CountedTask)
    window = hall_window(SHIPPED_DIR / "input-space-margin.json")
    window.session.run_to_end()
    window.session.wait_idle()
    canvas, layer = window.panels["canvas"], window.input_layer
    assert layer in canvas.layers
    dark = theme_for("dark", 2.0)
    canvas.apply_theme(dark)
    assert layer.segments.opts["pen"].color() == QColor(dark.foreground)
    layer.set_enabled(True)
    qtbot.waitUntil(lambda: layer.result is not None, timeout=60000)
    assert started and set(started) == {"percviz-input-distances"}
    starts, ends = layer.segment_data()
    assert len(starts) == window.scene.n
    # each foot is on f = 0 of the snapshot shown (an independent check: f evaluated at the feet)
    f_feet = canvas.snapshot.decision(ends)
    assert abs(f_feet).max() < 1e-3 * abs(canvas.snapshot.decision(starts)).max()
