"""`computed_once`: a cached property whose lock is the instance's own, not the class's.

functools.cached_property on Python 3.8–3.11 computes under one lock per class attribute, shared by every
instance: while a background thread built one Problem's φ(X) (rff:dim=5000) or G, the UI thread asking another
Problem's φ(X) or G waited for it (up to seconds in the GUI soak). Here each (instance, attribute) has its own
lock: a caller waits only for the value it asks for, and a value is still computed once.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable

_LOCKS: "weakref.WeakKeyDictionary[object, dict[str, threading.RLock]]" = weakref.WeakKeyDictionary()
_LOCKS_LOCK = threading.Lock()  # guards _LOCKS only, never held during a computation


def _lock_of(instance: object, name: str) -> threading.RLock:
    with _LOCKS_LOCK:
        return _LOCKS.setdefault(instance, {}).setdefault(name, threading.RLock())


class computed_once:  # noqa: N801  (used as a decorator, like functools.cached_property)
    """Like functools.cached_property (stored in the instance's __dict__), locked per instance and attribute."""

    def __init__(self, func: Callable[[Any], Any]):
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is None:
            return self
        cache = instance.__dict__
        try:
            return cache[self.name]
        except KeyError:
            pass
        with _lock_of(instance, self.name):
            if self.name in cache:  # computed by another thread while this one waited for the same value
                return cache[self.name]
            value = self.func(instance)
            cache[self.name] = value
            return value
