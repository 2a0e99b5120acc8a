"""What every panel of the window is: the `Panel` contract, and the rule that nothing non-finite reaches a view.

A panel is a QWidget that also derives from `Panel` (`class MyView(QWidget, Panel)`). It declares

- `view`: the solver view it serves (one of the names a solver lists in `Solver.views`); the window shows it
  exactly for the algorithms that declare that view (`supports`, one source: tests/app/test_declared_views.py);
- `redraw_interval`: None to be drawn in the snapshot frame (the canvas), or the least time (s) between two of
  its updates while a run animates — it is then drawn in side frames of its own (percviz.app.run.frames);
- `dock_title`: None for the central area (canvas above, curves below), else the title of its dock;

and subscribes itself to the run with `bind(feed)` (percviz.app.run.panel_feed: the run's FrameFeed, paced by its
`redraw_interval`, not fed while hidden, caught up when shown), through which it receives `set_problem` (a new
run, or None), `set_snapshot` (the snapshot to show), `set_history` (every snapshot so far), `set_run` (both at
once, drawn once: a side frame) and `set_reference` (ρ_K once computed). From the window it gets
`highlight_point` (hover linked across panels through its `pointHovered(int)` signal), `apply_theme`,
`apply_view` (a preset's view settings) and `shutdown` (the window closes). The defaults here do nothing, so a
panel implements what it draws. Add a panel: subclass, declare the three attributes, and list the class in
`percviz.app.main_window.PANELS` (docs/app.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import numpy as np

from percviz.core.decision import FeatureLinear, KernelExpansion

if TYPE_CHECKING:
    from percviz.app.run.panel_feed import FrameFeed, PanelFeed

#: Coordinates beyond this magnitude are not drawn: Qt's and pyqtgraph's range arithmetic overflows long before 1e308.
DRAW_LIMIT = 1e100
#: A decision function whose coefficients exceed this is not drawn: the float32 image would overflow.
DECISION_LIMIT = 1e30


class Panel:
    """The panel contract (module docstring); mixed into a QWidget subclass after QWidget."""

    view: ClassVar[str] = ""
    redraw_interval: ClassVar[float | None] = None
    dock_title: ClassVar[str | None] = None
    #: True: while a point is dragged the panel's (costly) set_problem waits until the drag pauses or ends
    defer_during_drag: ClassVar[bool] = False
    #: Seconds: while a point is dragged the panel catches up at most this often (None: after every move, or at
    #: the pause for a `defer_during_drag` panel)
    drag_refresh: ClassVar[float | None] = None
    #: the panel's subscription to the run, once bound (`bind`)
    feed: "PanelFeed | None" = None

    @classmethod
    def supports(cls, solver_cls) -> tuple[bool, str]:
        """Whether the panel shows this algorithm (its declared views), and if not the sentence shown instead."""
        if solver_cls is None or cls.view in solver_cls.views:
            return True, ""
        return False, f"{solver_cls.display_name} has no {cls.view} view."

    def bind(self, feed: "FrameFeed", on_error=None) -> "PanelFeed":
        """Subscribe to the run through its FrameFeed (percviz.app.run.panel_feed); on_error(name) once per failed run."""
        from percviz.app.run.panel_feed import PanelFeed

        self.feed = PanelFeed(self, self.view, feed, on_error)
        return self.feed

    def catch_up(self, defer: bool = False) -> None:
        """The window may have shown this panel: if it missed part of the run, draw it (bound panels only).

        defer: after an edit a `defer_during_drag` panel waits for the drag's pause (or one event-loop turn).
        """
        if self.feed is not None:
            self.feed.catch_up(defer)

    def in_turn_of_its_own(self, key: str, draw) -> None:
        """Run draw() (a heavy picture, e.g. a background job's result) in an event-loop turn of its own, after
        the first draws queued before it (FrameScheduler.first_draw); at once when the panel is not bound."""
        if self.feed is None:
            draw()
        else:
            self.feed.session.frames.first_draw(f"{self.view}:{key}", draw)

    def set_problem(self, problem, solver_cls) -> None:
        """A new run (problem None: the scene cannot be solved): forget what belonged to the old one."""

    def set_snapshot(self, snapshot) -> None:
        """Show this snapshot."""

    def set_history(self, snapshots) -> None:
        """Every snapshot of the run so far (oldest first)."""

    def set_run(self, snapshots, snapshot) -> None:
        """History and shown snapshot at once, drawn once (a side frame while a run animates)."""
        self.set_history(snapshots)
        self.set_snapshot(snapshot)

    def set_reference(self, rho) -> None:
        """ρ_K of the problem, once computed in the background (None: not defined)."""

    def highlight_point(self, index) -> None:
        """Emphasize point `index` (None: none), hovered in another panel."""

    def apply_theme(self, theme) -> None:
        """Restyle with a percviz.app.theme.Theme."""

    def apply_view(self, view) -> None:
        """Apply a preset's percviz.core.presets.ViewSettings."""

    def redraw_now(self) -> None:
        """Draw what is pending now (a panel that coalesces redraws on a timer; screenshots, exports)."""

    def wait_ready(self, timeout_ms: int = 30000, *, check: bool = True) -> bool:
        """Process events until background work of the picture is done (screenshots, tests); True then.

        On time-out a panel with background work raises TimeoutError naming it, or returns False when check=False.
        """
        return True

    def shutdown(self) -> None:
        """The window closes: stop any background work."""


def drawable(values) -> bool:
    """True when every value is finite and within ±DRAW_LIMIT (a diverged iterate is reported, never drawn)."""
    a = np.asarray(values, dtype=float)
    # one pass: NaN and ±inf fail the comparison (this runs for every snapshot a weight panel remembers)
    return bool(a.size == 0 or np.abs(a).max() <= DRAW_LIMIT)


def decision_drawable(decision) -> bool:
    """True when a snapshot's decision function has finite coefficients small enough for a float32 image."""
    if isinstance(decision, FeatureLinear):
        parts = [decision.weights]
    elif isinstance(decision, KernelExpansion):
        parts = [decision.coef, decision.bias]
    else:
        return True
    return all(np.isfinite(a).all() and np.abs(a).max(initial=0.0) <= DECISION_LIMIT
               for a in (np.asarray(p, dtype=float) for p in parts))
