"""The weight and feature views say which margin each number is, in the glossary's words (issue 12, honest labels)."""

from __future__ import annotations

import re

import pytest
from PySide6.QtWidgets import QApplication

from percviz.core.glossary import MARGINS
from percviz.core.presets import SHIPPED_DIR


#: "margin 0.21", "margin (0.2)", "margin: 1.0": a number called plain "margin".
BARE = re.compile(r"(?<![a-zA-Z] )\bmargin[:\s(]+[-−+]?\d")


def _plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html).replace("&nbsp;", " ").replace("&amp;", "&")


def _open_views(w):
    for name in ("weight", "feature"):
        w.view_actions[name].setChecked(True)
        w.docks[name].show()
    w.session.run_to_end()
    w.session.wait_idle()
    for name in ("weight", "feature"):
        w.panels[name].wait_ready()
        w.panels[name].redraw_now()
    QApplication.processEvents()


def _number_after(text: str, name: str) -> float:
    m = re.search(re.escape(name) + r" = ([-−]?[\d.]+(?:e[-+]?\d+)?)", text)
    assert m, f"{name!r} not in {text!r}"
    return float(m.group(1).replace("−", "-"))


def test_weight_and_feature_views_name_the_geometric_margin_like_the_status(hall_window):
    w = hall_window(SHIPPED_DIR / "notes-80-separable.json")  # fixed increment: an explicit a on (1, x1, x2)
    _open_views(w)
    weight = _plain(w.panels["weight"].readout.text())
    status = w.controls.status.text()
    name = MARGINS["geometric"].short  # "geometric margin γ(a)"
    assert name in weight and name in status
    assert _number_after(weight, name) == pytest.approx(_number_after(status, name), rel=2e-3)  # the same number
    assert "γ(a*)" in weight  # the best direction's margin is named too
    for view in ("weight", "feature"):
        texts = [_plain(w.panels[view].readout.text()), _plain(w.panels[view].caption.text()),
                 _plain(w.panels[view].title.text())]
        for text in texts:
            assert not BARE.search(text), (view, text)
    assert MARGINS["geometric"].formula in w.panels["weight"].readout.toolTip()


def test_feature_view_names_rho_and_the_normalized_margin(hall_window):
    w = hall_window(SHIPPED_DIR / "default.json")  # SNKP, affine kernel: the normalized margin m(α) of α
    _open_views(w)
    feature = _plain(w.panels["feature"].readout.text())
    status = w.controls.status.text()
    name = MARGINS["normalized"].short  # "normalized margin m(α)"
    assert name in feature and name in status and "ρ_K = " in feature  # an exact embedding: the arrow's margin too
    # the arrow's margin is read off the picture (min_i z_i·d/‖d‖), the status's from the solver: the same m(α)
    assert _number_after(feature, name) == pytest.approx(_number_after(status, name), rel=2e-3)
    assert not BARE.search(feature) and not BARE.search(_plain(w.panels["feature"].caption.text()))
    tip = w.panels["feature"].readout.toolTip()
    assert MARGINS["rho"].formula in tip and MARGINS["normalized"].formula in tip
