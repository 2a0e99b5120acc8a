"""The scene's title and explanation: the info dock the audience reads, the teacher's editor, the untitled scene."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QFont, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFormLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from percviz.app.classroom.file_actions import FileActions
from percviz.app.context import AppContext
from percviz.app.theme import Theme


class InfoPanel(QWidget):
    """The scene's title and explanation for the audience, in one scrolling page; Edit… changes them."""

    def __init__(self, edit: Callable[[], object]):
        super().__init__()
        self.setObjectName("info_panel")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        self.text = QTextBrowser()
        self.text.setObjectName("info_text")
        self.text.setOpenLinks(False)
        self.text.setFrameShape(QTextBrowser.NoFrame)
        self.edit = QPushButton("Edit title and explanation…")
        self.edit.clicked.connect(lambda _=False: edit())
        lay.addWidget(self.text, 1)
        lay.addWidget(self.edit, 0, Qt.AlignRight)
        self.title_text = ""
        self.explanation = ""
        self._title_pt = 12.0

    def show_scene(self, title: str, explanation: str) -> None:
        self.title_text, self.explanation = title or "Untitled scene", explanation or ""
        self.text.setMarkdown(explanation or "*No explanation yet: use Edit to write one for the audience.*")
        # the title goes first, as a heading of the same scrolling page (never clipped by a short dock)
        cursor = QTextCursor(self.text.document())
        cursor.movePosition(QTextCursor.Start)
        fmt = QTextCharFormat()
        fmt.setFontWeight(QFont.Bold)
        fmt.setFontPointSize(self._title_pt)
        cursor.insertText(self.title_text, fmt)
        cursor.insertBlock()

    def apply_theme(self, theme: Theme) -> None:
        self._title_pt = theme.title_pt
        self.text.setFont(theme.font(theme.font_pt))
        self.show_scene(self.title_text, self.explanation)


class SceneInfo(QObject):
    """The info dock under the controls; Edit… and Clear all points change the scene's title and explanation."""

    def __init__(self, ctx: AppContext, files: FileActions, keys_back: Callable[[], None]):
        super().__init__(ctx.window)
        self.ctx, self.files, self.keys_back = ctx, files, keys_back
        self.panel = InfoPanel(self.edit_info)
        dock = QDockWidget("About this scene", ctx.window)
        dock.setObjectName("info")
        dock.setWidget(self.panel)
        ctx.window.addDockWidget(Qt.LeftDockWidgetArea, dock)
        ctx.window.splitDockWidget(ctx.docks["controls"], dock, Qt.Vertical)
        self.dock = dock
        ctx.window.clear_action.triggered.connect(lambda _=False: ctx.window.start_untitled())
        ctx.window.untitledScene.connect(self._on_untitled)
        ctx.window.presetLoaded.connect(self._on_preset_loaded)
        self.refresh()

    def _on_preset_loaded(self, _preset) -> None:
        """Refresh the info panel and title whenever the window shows a new scene (launch, Open, restore)."""
        self.refresh()
        self.files.update_title()

    def refresh(self) -> None:
        self.panel.show_scene(self.ctx.scene.title, self.ctx.scene.explanation)

    def edit_info(self) -> bool:
        """Let the teacher write the title and explanation the audience sees."""
        scene = self.ctx.scene
        dlg = QDialog(self.ctx.window)
        dlg.setWindowTitle("Scene title and explanation")
        form = QFormLayout(dlg)
        title = QLineEdit(scene.title)
        title.setMaxLength(200)
        text = QPlainTextEdit(scene.explanation)
        text.setPlaceholderText("What the audience should look at (Markdown: *emphasis*, lists, …)")
        form.addRow("Title", title)
        form.addRow("Explanation", text)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(dlg.accept)
        buttons.rejected.connect(dlg.reject)
        form.addRow(buttons)
        accepted = dlg.exec() == QDialog.Accepted
        self.keys_back()
        if not accepted:
            return False
        self.set_info(title.text(), text.toPlainText())
        return True

    def new_untitled(self) -> None:
        """After Clear all points or Generate ▸ Replace: a new untitled scene (no title, explanation or file)."""
        self.ctx.window.start_untitled()

    def _on_untitled(self) -> None:
        self.files.current_path = None
        self.files.update_title()
        self.refresh()

    def set_info(self, title: str, explanation: str) -> None:
        scene = self.ctx.scene
        if (title, explanation) == (scene.title, scene.explanation):
            return
        scene.title, scene.explanation = title.strip() or "Untitled scene", explanation[:4000]
        scene.mark_modified()
        self.files.autosaver.mark_dirty()
        self.files.update_title()
        self.refresh()
