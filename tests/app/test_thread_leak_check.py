"""The suite's own leak check (conftest.no_thread_left_running, through helpers) sees a QThread left running and one that ended."""

from __future__ import annotations

import helpers
from PySide6.QtCore import QThread


def test_a_running_qthread_is_found_and_a_finished_one_is_forgotten(qtbot):
    t = QThread()
    t.setObjectName("left-running")
    t.start()
    try:
        assert t in helpers.started_qthreads_running()
    finally:
        t.quit()
        assert t.wait(5000)
    assert t not in helpers.started_qthreads_running()
    assert t not in helpers.STARTED_QTHREADS
