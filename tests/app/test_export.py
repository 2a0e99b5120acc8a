"""Export: pictures at a scale, GIF/MP4 of a run (frame count and size read back), worker thread with cancel, CLI."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import imageio.v2 as iio2
import imageio.v3 as iio
import numpy as np
import pytest
from PySide6.QtWidgets import QLabel

from percviz.app.classroom.export import (
    DEFAULT_SIZE,
    AnimationExport,
    FrameWriter,
    export_run,
    image_to_array,
    render_widget,
    save_picture,
)
from percviz.core.errors import ParameterError
from percviz.core.presets import SHIPPED_DIR, load_preset

#: The notes' 80-sample set: the fixed-increment rule needs 28 updates, so any range below that is recorded whole.
PRESET = SHIPPED_DIR / "notes-80-separable.json"


@pytest.fixture(scope="module")
def preset():
    return load_preset(PRESET)


def test_gif_has_one_frame_per_iteration_and_the_canvas_size(qapp, tmp_path, preset):
    out = tmp_path / "run.gif"
    seen = []
    result = export_run(preset, out, steps=12, fps=10, progress=lambda done, total: seen.append((done, total)))
    frames = iio.imread(out, index=None)
    assert result.frames == 13 and (result.first, result.last) == (0, 12)  # iterations 0..12
    assert frames.shape[:3] == (13, DEFAULT_SIZE[1], DEFAULT_SIZE[0])
    assert seen[-1] == (13, 13) and len(seen) == 13
    # consecutive frames differ (the caption's iteration number at least), so none were merged away
    assert all(np.any(frames[i] != frames[i + 1]) for i in range(12))
    assert iio.immeta(out, index=0)["duration"] == 100  # 10 frames per second
    assert iio.immeta(out, index=12)["duration"] == 1500  # the result is held before the loop restarts
    assert not list(tmp_path.glob(".*part*"))


def test_mp4_from_iteration_a_to_b_with_expected_frames_and_size(qapp, tmp_path, preset):
    out = tmp_path / "run.mp4"
    result = export_run(preset, out, start=5, end=14, fps=12, size=(400, 300))
    reader = iio2.get_reader(out)
    try:
        n, meta = reader.count_frames(), reader.get_meta_data()
    finally:
        reader.close()
    assert result.frames == 10 and (result.first, result.last) == (5, 14)
    assert n == 10
    assert tuple(meta["size"]) == (400, 304)  # height padded to a multiple of 16 for H.264
    assert meta["fps"] == pytest.approx(12)


def test_the_run_ending_early_stops_the_animation(qapp, tmp_path, preset):
    result = export_run(preset, tmp_path / "all.gif", steps=500, fps=20, size=(240, 180))
    assert result.last == 28 and result.frames == 29  # the rule halts after its 28th update


def test_without_a_limit_the_whole_run_is_recorded(qapp, tmp_path):
    out = tmp_path / "xor.gif"
    result = export_run(SHIPPED_DIR / "xor-rbf.json", out, size=(200, 150))  # NKP separates XOR in 4 updates
    assert (result.first, result.last, result.frames) == (0, 4, 5)
    assert iio.imread(out, index=None).shape[0] == 5


def test_cancel_leaves_no_file(qapp, tmp_path, preset):
    out = tmp_path / "cancelled.gif"
    calls = []
    result = export_run(preset, out, steps=20, size=(200, 150), progress=lambda d, t: calls.append(d),
                        cancel=lambda: len(calls) >= 3)
    assert result.cancelled and result.path is None and len(calls) == 3
    assert not out.exists() and not list(tmp_path.iterdir())


def test_worker_thread_export_reports_progress_and_finishes(qtbot, tmp_path, preset):
    out = tmp_path / "thread.gif"
    job = AnimationExport(preset, out, start=0, end=8, fps=10, size=(240, 180))
    progress = []
    job.progress.connect(lambda d, t: progress.append((d, t)))
    with qtbot.waitSignal(job.finished, timeout=30000) as blocker:
        job.start()
    result = blocker.args[0]
    assert not job.running
    assert result.frames == 9 and not result.cancelled
    assert progress[-1] == (9, 9)
    assert iio.imread(out, index=None).shape[0] == 9


def test_worker_thread_export_can_be_cancelled(qtbot, tmp_path, preset):
    out = tmp_path / "thread-cancel.mp4"
    job = AnimationExport(preset, out, start=0, end=25, fps=10, size=(240, 180))
    job.progress.connect(lambda d, t: job.cancel() if d == 2 else None)
    with qtbot.waitSignal(job.finished, timeout=30000) as blocker:
        job.start()
    result = blocker.args[0]
    assert result.cancelled and 2 <= result.frames < 26
    assert not out.exists() and not list(tmp_path.iterdir())


def test_picture_png_is_scaled_and_svg_is_a_drawing(qtbot, tmp_path):
    w = QLabel("percviz export")
    qtbot.addWidget(w)
    w.resize(150, 60)
    png = save_picture(w, tmp_path / "w.png", scale=3)
    img = iio.imread(png)
    assert img.shape[:2] == (180, 450)
    svg = save_picture(w, tmp_path / "w.svg", scale=2)
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg") and root.get("width") in ("300", "300px", "79.375mm") or root.get("viewBox")


def test_bad_requests_say_what_is_wrong(qapp, tmp_path, preset):
    with pytest.raises(ParameterError, match="GIF or MP4"):
        FrameWriter(tmp_path / "x.avi", 10)
    with pytest.raises(ParameterError, match="frame rate"):
        FrameWriter(tmp_path / "x.gif", 0)
    with pytest.raises(ParameterError, match="comes before"):
        export_run(preset, tmp_path / "x.gif", start=9, end=3)
    assert not list(tmp_path.iterdir())


def test_cli_export_writes_the_gif(qapp, tmp_path, capsys):
    from percviz.cli import main

    out = tmp_path / "cli.gif"
    assert main(["export", str(PRESET), "--out", str(out), "--steps", "4", "--fps", "5"]) == 0
    assert iio.imread(out, index=None).shape[0] == 5
    assert "5 frames" in capsys.readouterr().out


def test_canvas_picture_has_no_fit_button_and_the_button_comes_back(qtbot, tmp_path):
    from PySide6.QtGui import QImage

    from percviz.app.main_window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    try:
        canvas = w.panels["canvas"]
        button = canvas.fit_button
        assert button.isVisible()
        r = button.geometry().translated(button.parentWidget().mapTo(canvas, button.pos()) - button.pos())
        with_button = render_widget(canvas).copy(r)
        saved = QImage(str(save_picture(canvas, tmp_path / "canvas.png"))).copy(r)
        assert image_to_array(saved).tolist() != image_to_array(with_button).tolist()
        assert button.isVisible()  # shown again after the picture
        # where the button was, the picture is a plain strip: no text drawn there
        a = image_to_array(saved)
        assert np.ptp(a.reshape(-1, a.shape[-1]), axis=0).max() < 40
    finally:
        w.close()
