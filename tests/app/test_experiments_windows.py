"""The Experiments windows driven like a person: race in lock-step, sweep with Cancel/export, Cover's plot."""

import csv
import math

import pytest
from helpers import canvas_pos
from PySide6.QtCore import Qt

from percviz.app.experiments import install, lanes_from_preset
from percviz.app.experiments.cover_window import CoverWindow
from percviz.app.experiments.race_window import RaceWindow
from percviz.app.experiments.sweep_window import SweepWindow
from percviz.app.theme import theme_for
from percviz.core import cover, datasets
from percviz.core.experiments import Lane, SweepSpec
from percviz.core.glossary import OUTCOMES
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver

LANES = (Lane("perceptron"), Lane("nkp"), Lane("snkp"))


@pytest.fixture
def race(qtbot):
    w = RaceWindow(datasets.thin_gap(0.1), LANES, theme_for(), max_iter=5000)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()


def _shown_iterations(w):
    return [c.snapshot.iteration if c.snapshot is not None else None for c in w.canvases]


def _in_step(w):
    """Every lane shows the race's shown iteration, or its own halting iteration if it halted before."""
    its, k = _shown_iterations(w), w.shown
    return all(i == k or (s.status.done and i < k) for i, s in zip(its, w.snapshots()))


def test_race_step_play_scrub_keep_lanes_together(qtbot, race):
    for _ in range(5):
        qtbot.mouseClick(race.step_button, Qt.MouseButton.LeftButton)
    assert race.race.iteration == 5 and _shown_iterations(race) == [5, 5, 5]
    qtbot.mouseClick(race.play_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: race.race.iteration >= 30, timeout=10000)
    qtbot.mouseClick(race.play_button, Qt.MouseButton.LeftButton)
    assert not race.playing and _in_step(race)
    k = race.race.iteration
    qtbot.keyClick(race, Qt.Key.Key_Left)
    qtbot.keyClick(race, Qt.Key.Key_Left)
    assert race.shown == k - 2 and _in_step(race)
    race.scrub.setValue(3)
    assert race.shown == 3 and _shown_iterations(race) == [3, 3, 3]
    assert [c.snapshot for c in race.canvases] == race.race.at(3)


def test_race_run_to_end_table_agrees_with_solo_runs(qtbot, race):
    qtbot.mouseClick(race.end_button, Qt.MouseButton.LeftButton)
    race.wait_idle(qtbot)
    assert race.race.done and race.shown == race.race.iteration
    points = race.scene.points
    for r, lane in enumerate(LANES):
        solo = get_solver(lane.algorithm)(Problem(points, lane.kernel, lane.features), max_iter=5000).run()
        assert race.table.item(r, 1).text() == OUTCOMES[solo.status.value].words  # the glossary's words
        assert race.table.item(r, 2).text() == str(solo.iteration)
    # the curves show one line per lane on its own kind of margin's axis, ending at its halting iteration
    for r, view in enumerate(race.lane_views):
        race.quantity.setCurrentIndex(race.quantity.findData("margin:" + view.margin_term.key))
        assert int(race.curve_items[r].getData()[0][-1]) == int(race.table.item(r, 2).text())


def test_race_edit_of_the_scene_restarts_all(qtbot, race):
    race.race.advance(10)
    race.show_iteration(10)
    canvas = race.canvases[1]
    n = race.scene.n
    qtbot.mouseClick(canvas.plot.viewport(), Qt.MouseButton.LeftButton, pos=canvas_pos(canvas, 6.0, -1.0))
    assert race.scene.n == n + 1
    assert race.race.iteration == 0 and race.shown == 0
    assert all(s.problem.n == n + 1 for s in race.race.solvers)


def test_race_live_runs_all_lanes_after_an_edit(qtbot, race):
    qtbot.mouseClick(race.live, Qt.MouseButton.LeftButton)
    assert race.live.isChecked()
    race.scene.add_point(6.0, -2.0, 1)  # an edit restarts, and Live runs every lane on
    race.wait_idle(qtbot)
    assert race.race.done and race.shown == race.race.iteration > 0


def test_race_presentation_scales_fonts(qtbot, race):
    before = race.table.font().pointSizeF()
    qtbot.keyClick(race, Qt.Key.Key_F5)
    assert race.theme.presentation and race.table.font().pointSizeF() == pytest.approx(2 * before)


def test_sweep_window_plots_rates_under_bounds_and_exports(qtbot, tmp_path):
    w = SweepWindow(theme_for(), workers=1)
    qtbot.addWidget(w)
    w.show()
    assert w.start(SweepSpec(("snkp", "nkp"), "line", levels=(0.5, 0.2, 0.08, 0.03)))
    assert w.busy and w.cancel_button.isEnabled()
    w.wait_idle(qtbot)
    assert len(w.runs) == 8 and w.progress.value() == 4
    assert "SNKP 1" in w.status.text() and "NKP 2" in w.status.text()  # display names, with their slopes
    pts = {(r.algorithm, 1 / r.rho): r.iterations for r in w.runs}
    for alg, line in w.drawn_bounds().items():
        assert line and all(b >= pts[(alg, x)] for x, b in line)
    w.export_csv(tmp_path / "s.csv")
    rows = list(csv.DictReader(open(tmp_path / "s.csv")))
    assert len(rows) == 8 and {r["status"] for r in rows} == {"separator"}
    assert w.export_png(tmp_path / "s.png") and (tmp_path / "s.png").stat().st_size > 1000
    w.close()


def test_sweep_cancel_stops_early_and_bad_input_is_one_line(qtbot):
    w = SweepWindow(workers=1)
    qtbot.addWidget(w)
    w.algorithms.setText("snkp,bogus")
    qtbot.mouseClick(w.run_button, Qt.MouseButton.LeftButton)
    assert not w.busy and "Unknown algorithm 'bogus'" in w.status.text()
    assert w.start(SweepSpec(("nkp",), "line", levels=tuple(0.5 * 0.8**i for i in range(14))))
    qtbot.mouseClick(w.cancel_button, Qt.MouseButton.LeftButton)
    w.wait_idle(qtbot)
    assert w.status.text() == "Cancelled." and len(w.runs) < 14
    w.close()


def test_closing_the_sweep_window_mid_sweep_leaves_no_background_thread(qtbot, monkeypatch):
    import threading

    from percviz.app.run.background import live_threads
    from percviz.core.experiments import sweep

    calls, release, run_task = [], threading.Event(), sweep.run_task

    def counted(*args):  # scene 2 waits for the window to close, so the close lands mid-sweep
        calls.append(args)
        if len(calls) == 2:
            assert release.wait(30), "the test's gate was never opened"
        return run_task(*args)

    monkeypatch.setattr(sweep, "run_task", counted)
    w = SweepWindow(workers=1)
    qtbot.addWidget(w)
    w.show()
    finished = []
    w.finished.connect(lambda: finished.append(True))
    assert w.start(SweepSpec(("nkp",), "line", levels=tuple(0.5 * 0.8**i for i in range(14))))
    qtbot.waitUntil(lambda: w.progress.value() == 1 and len(calls) == 2, timeout=30000)
    sweep_threads = [t for t in live_threads() if t.name == "sweep"]
    assert len(sweep_threads) == 1 and w.busy
    w.close()  # cancels, then waits (bounded) for the thread, which is held in scene 2
    release.set()
    assert not w.busy
    qtbot.waitUntil(lambda: not any(t.is_alive() for t in live_threads() if t.name == "sweep"), timeout=30000)
    qtbot.wait(50)  # anything still queued for the closed window would arrive now
    assert len(calls) == 2 and w.progress.value() == 1 and len(w.runs) == 1 and not finished


def test_sweep_window_certificates_against_eps(qtbot):
    w = SweepWindow(workers=1)
    qtbot.addWidget(w)
    w.family.setCurrentText("flip")
    assert w.algorithms.text() == "nvn,isnkpvn"
    w.kernel.setText("rbf:gamma=nope")
    qtbot.mouseClick(w.run_button, Qt.MouseButton.LeftButton)
    assert not w.busy and "gamma" in w.status.text()
    w.kernel.setText("")
    assert w.start(SweepSpec(("nvn", "isnkpvn"), "flip", eps=(0.1, 0.02, 0.005)))
    w.wait_idle(qtbot)
    assert w.plot.getPlotItem().getAxis("bottom").labelText.startswith("1/ε")
    nvn = {r.eps: r.iterations for r in w.runs if r.algorithm == "nvn"}
    assert all(it <= 1 / e**2 for e, it in nvn.items())  # the drawn NVN line, 1/ε²
    w.close()


def test_sweep_window_over_n_at_a_fixed_margin(qtbot, tmp_path):
    w = SweepWindow(theme_for(), workers=1)
    qtbot.addWidget(w)
    w.show()
    w.over.setCurrentIndex(w.over.findData("n"))  # the 'fixed' family, its ρ_K and the list of n
    assert w.family.currentText() == "fixed" and not w.family.isEnabled() and w.ns.isEnabled()
    w.ns.setText("10,abc")
    qtbot.mouseClick(w.run_button, Qt.MouseButton.LeftButton)
    assert not w.busy and "whole numbers" in w.status.text()
    w.ns.setText("10,30,100,300")
    w.margin.setValue(0.1)
    w.algorithms.setText("snkp,nkp")
    qtbot.mouseClick(w.run_button, Qt.MouseButton.LeftButton)
    w.wait_idle(qtbot)
    assert len(w.runs) == 8 and {r.status for r in w.runs} == {"separator"} and w.progress.value() == 4
    assert all(abs(r.rho - 0.1) < 1e-6 for r in w.runs)
    assert w.plot.getPlotItem().getAxis("bottom").labelText.startswith("n (points; ρ_K fixed at 0.1)")
    assert "√(log n)" in w.status.text() and "SNKP" in w.status.text()
    for alg, line in w.drawn_bounds().items():  # drawn against n; SNKP's 2√(2 log n)/ρ_K, NKP's 1/ρ_K² = 100
        assert [x for x, _ in line] == [10, 30, 100, 300]
        limit = (lambda n: 2 * math.sqrt(2 * math.log(n)) / 0.1) if alg == "snkp" else (lambda n: 100.0)
        assert all(b == pytest.approx(limit(x), rel=1e-6) for x, b in line)
        its = [r.iterations for r in w.runs if r.algorithm == alg]
        assert all(i <= b for i, (_, b) in zip(its, line))
    w.export_csv(tmp_path / "n.csv")
    rows = list(csv.DictReader(open(tmp_path / "n.csv")))
    assert [int(r["n"]) for r in rows] == [10, 10, 30, 30, 100, 100, 300, 300] and all(r["seconds"] for r in rows)
    w.over.setCurrentIndex(w.over.findData("margin"))
    assert w.family.isEnabled() and not w.ns.isEnabled()
    w.close()


def test_cover_window_simulates_off_the_ui_thread(qtbot):
    w = CoverWindow(theme_for())
    qtbot.addWidget(w)
    w.trials.setValue(60)
    assert w.start({"linear": (3, 6), "quadratic": (6, 12)}, seed=3)
    w.wait_idle(qtbot)
    assert [r.n for r in w.rows["linear"]] == [3, 6] and [r.n for r in w.rows["quadratic"]] == [6, 12]
    assert w.rows["quadratic"][0].fraction == 1.0  # n = d̂ points: every labeling separable
    assert [r.formula for r in w.rows["linear"]] == [1.0, cover.separable_fraction(6, 3)]
    w.close()


def test_main_window_experiments_menu_opens_the_race_preset(qtbot):
    from percviz.app.main_window import MainWindow

    win = MainWindow(install_classroom=False)
    qtbot.addWidget(win)
    menu = win.experiments
    titles = [a.text() for a in menu.menu.actions()]
    assert any("Race" in t for t in titles) and any("sweep" in t for t in titles) and any("Cover" in t for t in titles)
    menu.race_preset_action.trigger()
    rw = menu.windows[-1]
    win.apply_theme(theme_for("dark", 2.0))  # what F5 / a theme change does: the open windows follow
    assert rw.theme.presentation and rw.theme.dark
    assert isinstance(rw, RaceWindow) and [l.algorithm for l in rw.lanes] == ["perceptron", "nkp", "snkp"]
    assert rw.race.max_iter == 20000
    from percviz.core.presets import SHIPPED_DIR, load_preset

    win.load_preset(load_preset(SHIPPED_DIR / "race-thin-margin.json"))
    menu.race_action.trigger()  # "race the current scene" offers the loaded preset's lanes
    menu.setup_dialog.accept()
    rw2 = menu.windows[-1]
    assert rw2 is not rw and [l.algorithm for l in rw2.lanes] == ["perceptron", "nkp", "snkp"]
    win.close()
    assert not rw.isVisible() and not rw2.isVisible()


def test_lanes_from_a_preset_without_race_is_empty():
    from percviz.core.presets import default_preset

    assert lanes_from_preset(default_preset()) == ()
    assert callable(install)
