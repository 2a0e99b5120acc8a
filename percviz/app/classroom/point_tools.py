"""Edit ▸ Generate points… and the brush (drag to paint points), with its spread and density."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu

from percviz.app.classroom.brush import Brush
from percviz.app.classroom.generators_dialog import GeneratorsDialog
from percviz.app.classroom.keys_and_help import item_after
from percviz.app.context import AppContext


class PointTools(QObject):
    """The generators' dialog and the brush, in the Edit menu after `after` (the Place class menu)."""

    def __init__(self, ctx: AppContext, after: QAction, keys_back: Callable[[], None]):
        super().__init__(ctx.window)
        self.ctx, self.keys_back = ctx, keys_back
        self.dialog: GeneratorsDialog | None = None
        edit, w = ctx.menus.edit, ctx.window
        generate = QAction("&Generate points…", w)
        generate.setObjectName("action_generate")
        generate.setShortcut(QKeySequence("Ctrl+G"))
        generate.setShortcutContext(Qt.WindowShortcut)
        generate.setStatusTip("Blobs, two moons, circles, XOR, spirals or a separable set with a chosen margin")
        generate.triggered.connect(lambda _=False: self.generate_dialog())
        edit.insertAction(item_after(edit, after), generate)
        ctx.actions.add("generate", generate)
        self.brush = Brush(ctx)
        brush = QAction("&Brush: drag to paint points", w, checkable=True)
        brush.setObjectName("action_brush")
        brush.setShortcut(QKeySequence("B"))
        brush.setShortcutContext(Qt.WindowShortcut)
        brush.toggled.connect(self.brush.set_on)
        edit.insertAction(item_after(edit, generate), brush)
        ctx.actions.add("brush", brush)
        sizes = self._choices("Brush &spread", "", self.brush.spread, lambda v: setattr(self.brush, "spread", v),
                              (("Narrow (0.15)", 0.15), ("Medium (0.3)", 0.3), ("Wide (0.6)", 0.6)))
        edit.insertMenu(item_after(edit, brush), sizes)
        dens = self._choices("Brush &density", "menu_brush_density", self.brush.density,
                             lambda v: setattr(self.brush, "density", v),
                             (("Sparse (2 points a width)", 2.0), ("Medium (4 points a width)", 4.0),
                              ("Dense (10 points a width)", 10.0)))
        edit.insertMenu(item_after(edit, sizes.menuAction()), dens)

    def _choices(self, title: str, name: str, current: float, choose: Callable[[float], None], rows) -> QMenu:
        """A menu of exclusive choices of one brush setting."""
        menu = QMenu(title, self.ctx.menus.edit)
        if name:
            menu.setObjectName(name)
        group = QActionGroup(menu)
        for label, value in rows:
            a = menu.addAction(label)
            a.setCheckable(True)
            a.setChecked(value == current)
            a.triggered.connect(lambda _=False, v=value: choose(v))
            group.addAction(a)
        return menu

    def generate_dialog(self) -> bool:
        """Edit ▸ Generate points…: the dialog (non-blocking; `dialog` for tests)."""
        dlg = GeneratorsDialog(self.ctx.window)
        self.dialog = dlg
        dlg.finished.connect(lambda _result: self.keys_back())
        dlg.open()
        return True
