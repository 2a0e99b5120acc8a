"""The questions the window puts to a person (unsaved changes, a crash's autosave, file choices), as one service.

Every feature asks through its context's `dialogs` (percviz.app.context.AppContext), never through Qt directly.
`Dialogs` shows Qt dialogs; `Answers` answers without a person (tests, scripts): each question is answered by an
attribute holding a value or a callable taking the question's arguments, and every question is recorded in `asked`.
`answer_with(answers)` makes the windows created from then on ask `answers` (tests/app/conftest.py does this).
"""

from __future__ import annotations

import copy
import os
import time
from typing import Any, Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

#: PERCVIZ_UNSAVED_ANSWER=save|discard|cancel answers the unsaved-changes question without a dialog.
UNSAVED_ENV = "PERCVIZ_UNSAVED_ANSWER"


class Dialogs:
    """Qt dialogs, parented to the window."""

    def __init__(self, parent: QWidget | None = None):
        self.parent = parent

    def unsaved(self, doing: str) -> str:
        """Save the unsaved scene before `doing` ("closing", "opening another file")? "save", "discard" or "cancel"."""
        answer = os.environ.get(UNSAVED_ENV, "").strip().lower()
        if answer in ("save", "discard", "cancel"):
            return answer
        box = QMessageBox(QMessageBox.Icon.Warning, "Unsaved changes",
                          f"The scene has changes that are not saved. Save them before {doing}?",
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self.parent)
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        return {QMessageBox.StandardButton.Save: "save",
                QMessageBox.StandardButton.Discard: "discard"}.get(QMessageBox.StandardButton(box.exec()), "cancel")

    def restore(self, orphan) -> bool | None:
        """Restore the autosave a session that ended without saving left? None: nobody asked (kept for later)."""
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(orphan.saved_at))
        src = f" (from {orphan.source})" if orphan.source else ""
        box = QMessageBox(QMessageBox.Icon.Question, "Restore unsaved scene?",
                          f"percviz did not close normally last time. An unsaved scene “{orphan.title}”{src} "
                          f"was autosaved at {when}. Restore it?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self.parent)
        box.setDefaultButton(QMessageBox.StandardButton.Yes)
        return box.exec() == QMessageBox.StandardButton.Yes

    def open_path(self, title: str, folder: str, filters: str) -> str:
        """A file to open ("" if cancelled)."""
        return QFileDialog.getOpenFileName(self.parent, title, folder, filters)[0]

    def save_path(self, title: str, path: str, filters: str) -> str:
        """A file to write, proposed `path` ("" if cancelled)."""
        return QFileDialog.getSaveFileName(self.parent, title, path, filters)[0]

    def warning(self, title: str, text: str) -> QMessageBox:
        """A window-modal warning that does not block the caller."""
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, self.parent)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box


class Answers(Dialogs):
    """Answers without a person: unsaved changes discarded, restores not asked, file dialogs cancelled, by default."""

    def __init__(self, parent: QWidget | None = None, *, unsaved: Any = "discard", restore: Any = None,
                 open_path: Any = "", save_path: Any = ""):
        super().__init__(parent)
        self.answers: dict[str, Any] = {"unsaved": unsaved, "restore": restore, "open_path": open_path,
                                        "save_path": save_path}
        self.asked: list[tuple[str, tuple]] = []

    def for_parent(self, parent: QWidget | None) -> "Answers":
        """The same answers (and record of questions) for one more window: its warnings are its own."""
        clone = copy.copy(self)  # shallow: `answers` and `asked` are shared
        clone.parent = parent
        return clone

    def set(self, **answers: Any) -> "Answers":
        """Change answers: a value, or a callable receiving the question's arguments."""
        unknown = set(answers) - set(self.answers)
        if unknown:
            raise KeyError(f"no such question: {sorted(unknown)}")
        self.answers.update(answers)
        return self

    def _answer(self, question: str, *args):
        self.asked.append((question, args))
        answer = self.answers[question]
        return answer(*args) if callable(answer) else answer

    def unsaved(self, doing: str) -> str:
        return self._answer("unsaved", doing)

    def restore(self, orphan) -> bool | None:
        return self._answer("restore", orphan)

    def open_path(self, title: str, folder: str, filters: str) -> str:
        return self._answer("open_path", title, folder, filters)

    def save_path(self, title: str, path: str, filters: str) -> str:
        return self._answer("save_path", title, path, filters)


_factory: Callable[[QWidget | None], Dialogs] = Dialogs


def for_window(parent: QWidget | None) -> Dialogs:
    """The dialog service a new window asks (Qt dialogs unless `answer_with` installed answers)."""
    return _factory(parent)


def answer_with(answers: Dialogs | None) -> Callable[[QWidget | None], Dialogs]:
    """Windows created from now on ask `answers` (None: Qt dialogs again); returns the previous factory."""
    global _factory
    previous = _factory
    if answers is None:
        _factory = Dialogs
    elif isinstance(answers, Answers):
        _factory = answers.for_parent
    else:
        _factory = lambda _parent: answers  # noqa: E731
    return previous


__all__ = ["Answers", "Dialogs", "UNSAVED_ENV", "answer_with", "for_window"]
