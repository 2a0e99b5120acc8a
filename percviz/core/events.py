"""A tiny pure-Python event emitter, so models can notify views without knowing Qt."""

from __future__ import annotations

from typing import Any, Callable


class Event:
    """Callbacks connected to one kind of change; emit() calls them in connection order."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[..., Any]] = []
        self._blocked = 0

    def connect(self, callback: Callable[..., Any]) -> Callable[..., Any]:
        if callback not in self._callbacks:
            self._callbacks.append(callback)
        return callback

    def disconnect(self, callback: Callable[..., Any]) -> None:
        if callback in self._callbacks:
            self._callbacks.remove(callback)

    def emit(self, *args: Any) -> None:
        if self._blocked:
            return
        for cb in list(self._callbacks):
            cb(*args)

    def blocked(self) -> "_Block":
        """Context manager that silences this event."""
        return _Block(self)


class _Block:
    def __init__(self, event: Event) -> None:
        self.event = event

    def __enter__(self) -> None:
        self.event._blocked += 1

    def __exit__(self, *exc: Any) -> None:
        self.event._blocked -= 1
