"""The handout in a real browser: Debian's chromium, headless, driven through playwright (no browser download).

Skipped, with the reason, only where no chromium or no playwright is installed (.ci/run installs both)."""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from percviz.core.handout import record_run
from percviz.core.data import PointSet
from percviz.core.presets import Preset
from percviz.handout import RecordedRun, handout_html

pytestmark = pytest.mark.slow

CHROMIUM = os.environ.get("PERCVIZ_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no chromium here (Debian: apt-get install chromium; or set PERCVIZ_CHROMIUM)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def _ring(n=100, seed=0, flip=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where((X ** 2).sum(axis=1) > 1.2, 1, -1)
    y[rng.random(n) < flip] *= -1
    return X, y


def _payload(steps=199, flip=0.5, title="A ring", explanation="", budget=250, seed=7):
    X, y = _ring(flip=flip, seed=seed)
    preset = Preset(PointSet.from_signed(X, y), title=title, explanation=explanation).with_overrides(
        algorithm="snkp", kernel="rbf:gamma=2")
    return record_run(preset, steps=steps, budget=budget)


@pytest.fixture(scope="module")
def run200():
    return _payload()


def _open(browser, payload, width=1280, height=800, scheme="light", folder=None):
    """The handout opened from a file, with every other request it makes recorded (and refused) and every
    dialog recorded; page.ready_s: from opening to the viewer's first picture, as the page measured it."""
    path = Path(folder or tempfile.mkdtemp(prefix="percviz-handout-")) / "run.html"
    path.write_text(handout_html(payload), encoding="utf-8")
    page = browser.new_page(viewport={"width": width, "height": height}, color_scheme=scheme)
    page.requests, page.dialogs, page.errors = [], [], []
    page.on("request", lambda r: r.url == path.as_uri() or page.requests.append(r.url))
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.route("**/*", lambda route: route.continue_() if route.request.url == path.as_uri() else route.abort())
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready]", timeout=5000)
    page.ready_s = int(page.get_attribute("body", "data-ready")) / 1000
    return page


def _shown(page) -> tuple[int, str, str]:
    return (int(page.get_attribute("body", "data-frame")), page.text_content("#iteration"),
            page.text_content("#caption"))


def _picture(page):
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(page.locator("#plot").screenshot())).convert("RGB"), dtype=int)


def test_slider_play_and_caption_read_back(browser, run200):
    frames = run200["frames"]
    page = _open(browser, run200)
    assert page.ready_s > 0  # the time to interactive is measured in bench/bench_handout.py, not asserted here
    k, it, cap = _shown(page)
    assert (k, it, cap) == (0, "iteration 0", frames[0]["caption"][0])
    first = _picture(page)
    page.locator("#slider").fill("120")
    k, it, cap = _shown(page)
    assert k == 120 and it == f"iteration {frames[120]['iteration']}" and cap == frames[120]["caption"][0]
    assert page.text_content("#outcome") == frames[120]["outcome"]
    later = _picture(page)
    assert first.shape == later.shape
    changed = np.mean(np.abs(first - later).sum(axis=2) > 30)
    assert changed > 0.02, f"only {changed:.1%} of the picture changed between iterations 0 and 120"
    page.click("#play")
    assert page.get_attribute("#play", "aria-label") == "pause"
    deadline = time.monotonic() + 5.0  # polled from here: the page's policy refuses a string evaluated as code
    while _shown(page)[0] < 125 and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    page.click("#play")
    assert page.get_attribute("#play", "aria-label") == "play"
    k, it, cap = _shown(page)
    assert k >= 125 and it == f"iteration {frames[k]['iteration']}" and cap == frames[k]["caption"][0]
    readout = page.text_content("#readout")
    assert readout.startswith("normalized margin m(α) = ")
    assert not page.requests and not page.errors and not page.dialogs


def test_keys_buttons_and_swipe_step_through_the_run(browser, run200):
    page = _open(browser, run200)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert _shown(page)[0] == 2
    page.keyboard.press("ArrowLeft")
    assert _shown(page)[0] == 1
    page.click("#forward")
    page.click("#forward")
    page.click("#back")
    assert _shown(page)[0] == 2
    page.keyboard.press("End")
    assert _shown(page)[0] == len(run200["frames"]) - 1
    page.keyboard.press("Home")
    page.keyboard.press(" ")
    assert page.get_attribute("#play", "aria-label") == "pause"
    page.keyboard.press(" ")
    assert page.get_attribute("#play", "aria-label") == "play"
    page.click("#play")  # the button has the focus now: space toggles once, not twice (key and click)
    page.keyboard.press(" ")
    page.wait_for_timeout(100)
    assert page.get_attribute("#play", "aria-label") == "play"
    page.keyboard.press("Home")
    box = page.locator("#plot").bounding_box()
    k0 = _shown(page)[0]
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 20, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] - 20, y, steps=10)
    page.mouse.up()
    assert _shown(page)[0] > k0 + 5  # a swipe to the right scrubs forward


def test_a_finger_swipe_scrubs_and_the_colours_follow_the_system(browser, run200):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_content(handout_html(run200))
    page.wait_for_selector("body[data-ready]")
    box = page.locator("#plot").bounding_box()
    cdp = context.new_cdp_session(page)
    y = box["y"] + box["height"] / 2
    xs = np.linspace(box["x"] + 10, box["x"] + box["width"] - 10, 12)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": xs[0], "y": y}]})
    for x in xs[1:]:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    assert _shown(page)[0] >= 20  # one frame per 3 % of the picture's width
    page.emulate_media(color_scheme="light")
    light = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.emulate_media(color_scheme="dark")  # the system switches while the page is open
    assert light == "rgb(255, 255, 255)"
    background = lambda: page.evaluate("getComputedStyle(document.body).backgroundColor")  # noqa: E731
    deadline = time.monotonic() + 3.0  # the change event comes on a later task
    while background() != "rgb(30, 30, 30)" and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert background() == "rgb(30, 30, 30)"
    context.close()


def test_a_hostile_title_is_shown_as_text(browser):
    title = "<img src=x onerror=alert(1)>"
    explanation = "</script><script>alert(2)</script><!-- & <b>bold</b>"
    payload = _payload(steps=5, flip=0.0, title=title, explanation=explanation)
    payload["curves"]["series"][0]["label"] = "<svg onload=alert(3)>"
    page = _open(browser, payload)
    assert page.text_content("#title") == title
    assert page.text_content("#explanation") == explanation
    assert page.locator("img, svg, b, #explanation script").count() == 0
    assert page.title().startswith(title)
    options = page.locator("#metric option").all_text_contents()
    assert options[0] == "<svg onload=alert(3)>"
    page.select_option("#metric", index=0)
    assert page.text_content("#readout").startswith("<svg onload=alert(3)>")
    page.wait_for_timeout(200)
    assert not page.dialogs and not page.errors and not page.requests


def test_phone_upright_and_projector_light_and_dark(browser, run200, tmp_path):
    for width, height in ((390, 844), (1280, 800), (1920, 1080)):
        for scheme in ("light", "dark"):
            page = _open(browser, run200, width, height, scheme)
            overflow = page.evaluate("document.documentElement.scrollWidth")
            assert overflow <= width, f"{width}×{height}: the page is {overflow} px wide"
            box = page.locator("#plot").bounding_box()
            assert 0.55 * min(width, height) < max(box["width"], box["height"]) <= width
            bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
            assert bg == ("rgb(30, 30, 30)" if scheme == "dark" else "rgb(255, 255, 255)")
            controls = page.locator("#slider").bounding_box()
            assert controls["y"] + controls["height"] <= page.evaluate("document.documentElement.scrollHeight")
            page.screenshot(path=str(tmp_path / f"handout-{width}-{scheme}.png"))
            page.close()


def test_a_2000_snapshot_run_opens_thinned(browser):
    payload = _payload(steps=1999, budget=250, seed=8)
    assert payload["thinned"] and len(payload["frames"]) <= 250
    page = _open(browser, payload)
    assert page.ready_s > 0
    assert page.get_attribute("#slider", "max") == str(len(payload["frames"]) - 1)
    page.keyboard.press("End")
    assert page.text_content("#iteration") == f"iteration {payload['frames'][-1]['iteration']}"
    assert "thinned" in page.text_content("#about")


def test_two_handouts_inline_on_one_page(browser):
    a = RecordedRun(_payload(steps=10, flip=0.0, title="first", seed=1))
    b = RecordedRun(_payload(steps=10, flip=0.0, title="second", seed=2))
    page = browser.new_page()
    page.set_content(f"<html><body>{a._repr_html_()}{b._repr_html_()}</body></html>")
    page.wait_for_function("document.querySelectorAll('iframe').length === 2")
    titles = []
    for frame in page.frames[1:]:
        frame.wait_for_selector("body[data-ready]", timeout=5000)
        titles.append(frame.text_content("#title"))
    assert sorted(titles) == ["first", "second"]
