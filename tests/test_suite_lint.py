"""The suite's own rules (tests/suite_lint.py): every wait's time-out is noticed, no assertion reads the wall clock."""

from pathlib import Path

import suite_lint


def test_no_test_ignores_what_a_wait_returns():
    found = [f for path in suite_lint.test_files() for f in suite_lint.ignored_waits(path)]
    assert found == []


def test_no_test_asserts_on_wall_clock_time():
    found = [(path.name, *f) for path in suite_lint.test_files() for f in suite_lint.wall_clock_assertions(path)]
    assert found == []


def test_the_lint_finds_what_it_is_for(tmp_path):
    # it can fail: a wall-clock assertion, a bare QThread wait and an unchecked boolean wait_idle are found
    bad = tmp_path / "test_bad.py"
    bad.write_text(
        "import time\n"
        "def test_x(w, thread):\n"
        "    t0 = time.perf_counter()\n"
        "    w.session.wait_idle(5, check=False)\n"
        "    thread.wait(100)\n"
        "    dt = time.perf_counter() - t0\n"
        "    assert dt < 1\n"
        "    t1 = time.thread_time()\n"
        "    assert time.thread_time() - t1 < 1\n"
        "    w.session.wait_idle(5)\n")
    assert [line for line, _ in suite_lint.wall_clock_assertions(bad)] == [7]
    assert [line for line, _ in suite_lint.ignored_waits(bad)] == [4, 5]
    assert Path(suite_lint.__file__).parent.name == "tests"
