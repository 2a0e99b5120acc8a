"""Qt test setup: offscreen QApplication (pytest-qt), and no QThread may outlive its test."""

from __future__ import annotations

import gc
import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QCoreApplication, QThread  # noqa: E402


def _running_qthreads() -> list[QThread]:
    from percviz.app.run.worker import live_threads

    found = {id(t): t for t in live_threads()}
    gc.unfreeze()  # objects frozen by percviz.app.run.heap.settle are not listed by gc.get_objects()
    for obj in gc.get_objects():  # QThreads (the export's) as well as the background threads
        try:
            if isinstance(obj, QThread) and obj is not QThread.currentThread() and obj.isRunning():
                found[id(obj)] = obj
        except RuntimeError:  # the C++ object is already gone
            continue
    return list(found.values())


APP_DIR = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    """Every test here drives Qt: marked `gui`, and `slow` (most open the real window: seconds each), so that
    `pytest -m "not slow"` is the quick loop of core, CLI and library tests. New tests here need no mark."""
    for item in items:
        if APP_DIR in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.gui)
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def no_thread_left_running(qapp):
    """Fail any test that leaves a thread running: a QThread or a percviz background thread (then stop a QThread)."""
    yield
    QCoreApplication.processEvents()
    running = [t for t in _running_qthreads() if not t.wait(200)]
    if running:
        names = ", ".join(t.objectName() or type(t).__name__ for t in running)
        for t in running:
            if isinstance(t, QThread):
                t.quit()
        stuck = [t.objectName() or type(t).__name__ for t in running if not t.wait(5000)]
        pytest.fail(f"the test left {len(running)} QThread(s) running: {names}"
                    + (f" ({', '.join(stuck)} still running 5 s later)" if stuck else ""))


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
