"""The interactive HTML handout: one self-contained file (inline viewer, no network) that replays a recorded run.

- `record(X, y, algorithm=…, kernel=…)` / `record_preset(preset)`: a `RecordedRun` (the payload of
  percviz.core.handout.record_run) with `save_html(path)` and `_repr_html_` (inline in Jupyter, VS Code, Colab:
  an iframe whose srcdoc is the whole handout, sandboxed to scripts only, so several handouts coexist).
- `handout_html(payload)`: the page — viewer.html with the payload embedded as JSON that cannot end its
  <script> element (every <, > and & is written as a \\u escape) — coloured by the app's light and dark themes.
No Qt is imported: this runs on a server or in a notebook without a display.
"""

from __future__ import annotations

import html
import json
import os
from pathlib import Path
from typing import Any

from percviz.core.errors import ParameterError
from percviz.core.handout import FRAME_BUDGET, record_run

VIEWER = Path(__file__).resolve().parent / "viewer.html"
PLACEHOLDER = "__PERCVIZ_PAYLOAD__"
#: The notebook iframe's height (px); the page inside scrolls if it needs more.
INLINE_HEIGHT = 720


def _mix(colour: str, background: str, alpha: float) -> str:
    """colour over background at opacity alpha, as #rrggbb (the canvas's blended colour map)."""
    c = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    b = [int(background[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x * alpha + y * (1 - alpha)):02x}" for x, y in zip(c, b))


def palette() -> dict[str, dict[str, Any]]:
    """The light and dark colours of the app's themes (percviz.app.theme holds plain data; no Qt)."""
    from percviz.app.theme import THEMES

    out = {}
    for name in ("light", "dark"):
        t = THEMES[name]
        a = t.map_alpha / 255.0
        out[name] = {"background": t.background, "foreground": t.foreground, "panel": t.panel, "grid": t.grid,
                     "highlight": t.highlight, "boundary": t.boundary, "margin": t.margin,
                     "classes": list(t.class_colors), "curve": t.class_colors[1],
                     "diverging": [_mix(c, t.background, a) for c in t.diverging]}
    return out


def embed_json(payload: dict) -> str:
    """JSON safe inside a <script> element: '</script>', '<!--' and ']]>' cannot occur (<, >, & as \\u escapes)."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def handout_html(payload: dict) -> str:
    """The self-contained handout page for a recorded run's payload."""
    page = VIEWER.read_text(encoding="utf-8")
    data = dict(payload, palette=palette())
    return page.replace(PLACEHOLDER, embed_json(data), 1)


def _html_path(path: "str | os.PathLike") -> Path:
    path = Path(path)
    if path.suffix.lower() != ".html":
        raise ParameterError(f"A handout is an HTML file; give a name ending in .html, not '{path.name}'.")
    if not path.resolve().parent.is_dir():
        raise ParameterError(f"The folder {path.resolve().parent} does not exist; create it or choose another.")
    return path


class RecordedRun:
    """A run recorded for the handout: its snapshots' numbers, `save_html(path)`, and inline display in notebooks."""

    def __init__(self, payload: dict):
        self.payload = payload

    @property
    def frames(self) -> list[dict]:
        """The recorded snapshots (iteration, status, outcome, caption, …), first to last."""
        return self.payload["frames"]

    @property
    def iterations(self) -> list[int]:
        return [f["iteration"] for f in self.frames]

    @property
    def outcome(self) -> str:
        """How the recorded run ended, in the window's words ('separator found', 'running', …)."""
        return self.frames[-1]["outcome"]

    @property
    def caption(self) -> str:
        """The last snapshot's caption, as the canvas writes it."""
        lines = self.frames[-1]["caption"]
        return lines[0] if lines else ""

    def to_html(self) -> str:
        """The whole handout page."""
        return handout_html(self.payload)

    def save_html(self, path: "str | os.PathLike") -> Path:
        """Write the handout (one self-contained .html file; written whole, then renamed into place)."""
        path = _html_path(path)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(self.to_html(), encoding="utf-8")
        os.replace(tmp, path)
        return path

    def _repr_html_(self) -> str:
        """The handout inline: a sandboxed iframe (scripts only, no access to the notebook) with the page as srcdoc."""
        title = html.escape(str(self.payload.get("title", "")), quote=True)
        return (f'<iframe class="percviz-handout" title="percviz handout: {title}" sandbox="allow-scripts" '
                f'style="width:100%;height:{INLINE_HEIGHT}px;border:0" srcdoc="{html.escape(self.to_html(), quote=True)}">'
                "</iframe>")

    def __repr__(self) -> str:
        f = self.frames[-1]
        return (f"<percviz recorded run: {self.payload['algorithm']}, {len(self.frames)} snapshots, "
                f"iteration {f['iteration']}: {f['outcome']}>")


def record_preset(preset, steps: int | None = None, budget: int = FRAME_BUDGET) -> RecordedRun:
    """Record a Preset's run (to its end, or `steps` updates) for the handout."""
    return RecordedRun(record_run(preset, steps=steps, budget=budget))


def record(X=None, y=None, *, algorithm: str | None = "snkp", kernel: str | None = None, features: str | None = None,
           preset=None, params: dict | None = None, max_iter: int | None = None, title: str | None = None,
           explanation: str | None = None, steps: int | None = None, budget: int = FRAME_BUDGET) -> RecordedRun:
    """Run an algorithm on points X (n×2) with labels y (or a preset) without a window, recorded for the handout.

    The arguments are those of percviz.show; steps limits the updates, budget the snapshots kept."""
    from percviz.core.script_scene import scene_for

    if preset is not None and algorithm == "snkp" and X is None:
        algorithm = None
    scene = scene_for(X, y, algorithm=algorithm, kernel=kernel, features=features, params=params,
                      max_iter=max_iter, preset=preset, title=title)
    if explanation is not None:
        scene = scene.replace(explanation=str(explanation))
    return record_preset(scene, steps=steps, budget=budget)


def write_handout(preset, out: "str | os.PathLike", steps: int | None = None, budget: int = FRAME_BUDGET,
                  cancelled=None) -> Path | None:
    """`percviz export PRESET.json --out run.html`: record the run and write the handout (None if cancelled)."""
    path = _html_path(out)
    payload = record_run(preset, steps=steps, budget=budget, cancelled=cancelled)
    return None if payload is None else RecordedRun(payload).save_html(path)


__all__ = ["RecordedRun", "embed_json", "handout_html", "record", "record_preset", "write_handout"]
