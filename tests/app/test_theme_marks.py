"""Check boxes in every theme, drawn by the real window: a checked box shows a mark, and both states stand out."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QCheckBox, QStyle, QStyleOptionButton

from percviz.app.theme import THEMES
from percviz.core.presets import SHIPPED_DIR



def _indicator(box: QCheckBox, checked: bool) -> np.ndarray:
    """The box's indicator as an (h, w, 3) RGB array, drawn in the given state (the state is put back)."""
    was = box.isChecked()
    box.blockSignals(True)
    box.setChecked(checked)
    QApplication.processEvents()
    img = box.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    box.setChecked(was)
    box.blockSignals(False)
    opt = QStyleOptionButton()
    box.initStyleOption(opt)
    r = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, opt, box)
    ratio = img.devicePixelRatio()
    rgb = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine())[:, : 3 * img.width()]
    rgb = rgb.reshape(img.height(), img.width(), 3)
    y0, x0 = round(r.top() * ratio), round(r.left() * ratio)
    return rgb[y0 : y0 + round(r.height() * ratio), x0 : x0 + round(r.width() * ratio)].astype(float)


def _far_from(rgb: np.ndarray, colour: str) -> np.ndarray:
    """Per pixel: summed |ΔR| + |ΔG| + |ΔB| from `colour` (0…765)."""
    c = QColor(colour)
    return np.abs(rgb - np.array([c.red(), c.green(), c.blue()], float)).sum(axis=-1)


def _check_marks(w, names):
    for name in names:
        w.classroom.set_theme(name)
        QApplication.processEvents()
        t = w.classroom.theme
        box = next(b for b in w.findChildren(QCheckBox) if b.isVisible())
        on, off = _indicator(box, True), _indicator(box, False)
        assert on.shape == off.shape and min(on.shape[:2]) >= 10, (name, on.shape)
        # both states stand out from the window: a border (or fill) as long as three sides of the box; the light
        # themes keep the Fusion style's own grey border (ΔRGB 156 from the panel), the dark ones draw a bright one
        need = 200 if t.dark else 120
        for state, rgb in (("checked", on), ("unchecked", off)):
            assert (_far_from(rgb, t.panel) > need).sum() >= 3 * rgb.shape[0], (name, state)
        # the two states differ clearly
        assert np.abs(on - off).sum(axis=-1).mean() > 60, name
        # the checked box holds a mark: inside its border, not one flat colour (a filled square alone fails this)
        m = max(2, on.shape[0] // 5)
        inner = on[m:-m, m:-m].reshape(-1, 3)
        luma = inner @ np.array([0.299, 0.587, 0.114])
        dark, light = (luma < luma.min() + 0.25 * np.ptp(luma)).mean(), (luma > luma.max() - 0.25 * np.ptp(luma)).mean()
        assert np.ptp(luma) > 120 and min(dark, light) > 0.08, (name, np.ptp(luma), dark, light)


def test_a_checked_box_shows_a_mark_in_every_theme_and_both_states_stand_out(hall_window):
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    _check_marks(w, list(THEMES))


def test_presentation_check_boxes_grow_with_the_text_and_keep_the_mark(hall_window):
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    w.classroom.set_presentation(True)
    _check_marks(w, list(THEMES))
    box = next(b for b in w.findChildren(QCheckBox) if b.isVisible())
    assert _indicator(box, True).shape[0] >= 2 * 13  # Fusion's own indicator stays 13 px at any font size


def test_canvas_and_curves_axes_take_each_themes_colour_and_font(hall_window):
    """Theme.style_axes, shared by the canvas (its colour bar too) and the curves: every axis follows a theme change."""
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    for name, presenting in (("hc-dark", False), ("light", False), ("dark", True)):
        w.classroom.set_theme(name)
        w.classroom.set_presentation(presenting)
        QApplication.processEvents()
        t = w.classroom.theme
        canvas, curves = w.panels["canvas"], w.panels["curves"]
        item = canvas.plot.getPlotItem()
        axes = {"canvas left": item.getAxis("left"), "canvas bottom": item.getAxis("bottom"),
                "colour bar": canvas.colorbar.axis}
        for g, p in curves.plots.items():
            axes.update({f"{g} left": p.getAxis("left"), f"{g} bottom": p.getAxis("bottom")})
        assert len(axes) >= 5
        for where, ax in axes.items():
            assert ax.pen().color().name() == QColor(t.foreground).name(), (name, where)
            assert ax.textPen().color().name() == QColor(t.foreground).name(), (name, where)
            assert ax.style["tickFont"].pointSizeF() == pytest.approx(t.font_pt), (name, where)
            assert ax.label.font().pointSizeF() == pytest.approx(t.font_pt), (name, where)
            if not where.startswith("canvas"):
                assert not ax.autoSIPrefix, where  # plain numbers on the colour bar and the curves, no "×1e-3"
