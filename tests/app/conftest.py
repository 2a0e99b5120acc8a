"""Qt test setup: offscreen QApplication (pytest-qt), and no QThread may outlive its test."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QCoreApplication, QThread  # noqa: E402

from helpers import started_qthreads_running  # noqa: E402  (wraps QThread.start before any test runs)


def _running_qthreads() -> list[QThread]:
    from percviz.app.run.worker import live_threads

    found = {id(t): t for t in live_threads()}
    found.update((id(t), t) for t in started_qthreads_running())
    return list(found.values())


APP_DIR = Path(__file__).resolve().parent
#: how much longer than its own figure a liveness wait (qtbot.waitUntil/waitSignal, the thread-leak grace) may take
#: before it fails: a wait's limit is not a timing assertion, and a loaded 2-core machine (load 11 beside two busy
#: processes and other work) made 5 s waits for 100k-point relayouts and a race's 30 steps time out
WAIT_SCALE = float(os.environ.get("PERCVIZ_TEST_WAIT_SCALE", "4"))


def _scaled_waits() -> None:
    """qtbot's waits keep their callers' figures but allow WAIT_SCALE times as long before they raise."""
    from pytestqt.qtbot import QtBot

    if getattr(QtBot, "_percviz_scaled", False):
        return
    for name in ("waitUntil", "waitSignal", "waitSignals", "waitCallback"):
        original = getattr(QtBot, name)

        def scaled(self, *args, _original=original, timeout=5000, **kwargs):
            if timeout is not None and timeout > 0:
                timeout = int(timeout * WAIT_SCALE)
            return _original(self, *args, timeout=timeout, **kwargs)

        setattr(QtBot, name, scaled)
    QtBot._percviz_scaled = True


_scaled_waits()


def pytest_collection_modifyitems(config, items):
    """Every test here drives Qt: marked `gui`, and `slow` (most open the real window: seconds each), so that
    `pytest -m "not slow"` is the quick loop of core, CLI and library tests. New tests here need no mark."""
    for item in items:
        if APP_DIR in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.gui)
            item.add_marker(pytest.mark.slow)


#: threads whose cancel is cooperative: a cancelled ρ_K ends when its LP returns (HiGHS cannot be interrupted), which
#: at 100,000 points on a loaded machine is seconds after the test; they may end within the scaled grace
COOPERATIVE = {"percviz-margin"}


@pytest.fixture(autouse=True)
def no_thread_left_running(qapp):
    """Fail any test that leaves a thread running: a QThread or a percviz background thread (then stop a QThread)."""
    yield
    QCoreApplication.processEvents()
    grace = int(5000 * WAIT_SCALE)
    running = [t for t in _running_qthreads() if not t.wait(200)
               and not (t.objectName() in COOPERATIVE and t.wait(grace))]
    if running:
        names = ", ".join(t.objectName() or type(t).__name__ for t in running)
        for t in running:
            if isinstance(t, QThread):
                t.quit()
        stuck = [t.objectName() or type(t).__name__ for t in running if not t.wait(grace)]
        pytest.fail(f"the test left {len(running)} QThread(s) running: {names}"
                    + (f" ({', '.join(stuck)} still running {grace / 1000:.0f} s later)" if stuck else ""))


@pytest.fixture(autouse=True)
def dialog_answers():
    """Every window of a test asks these scripted answers (percviz.app.dialogs.Answers), never a person: unsaved
    changes discarded, autosaves not offered, file dialogs cancelled; a test sets others with `.set(...)`."""
    from percviz.app import dialogs

    answers = dialogs.Answers()
    previous = dialogs.answer_with(answers)
    yield answers
    dialogs.answer_with(None)
    if previous is not dialogs.Dialogs:
        dialogs._factory = previous


@pytest.fixture
def hall_window(qtbot, tmp_path, monkeypatch):
    """A factory: the real main window at 1280×800 on a preset, with its own settings folders; closed after."""
    from percviz.app.main_window import MainWindow
    from percviz.core.presets import load_preset

    monkeypatch.setenv("PERCVIZ_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("PERCVIZ_DATA_DIR", str(tmp_path / "data"))
    opened = []

    def open_window(preset_path):
        w = MainWindow()
        qtbot.addWidget(w)
        w.load_preset(load_preset(preset_path))
        w.resize(1280, 800)
        w.show()
        qtbot.waitExposed(w)
        w.activateWindow()
        w.session.wait_idle()
        opened.append(w)
        return w

    yield open_window
    for w in opened:
        w.close()


@pytest.fixture
def live_window(hall_window):
    """The real main window (1280×800) on the shipped 80-point separable scene (the Live and hall tests')."""
    from percviz.core.presets import SHIPPED_DIR

    return hall_window(SHIPPED_DIR / "notes-80-separable.json")


@pytest.fixture
def window(live_window):
    """The hall tests' window: the separable 80-point scene (a file with a `window` of its own overrides it)."""
    return live_window
