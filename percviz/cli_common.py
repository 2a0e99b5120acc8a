"""What every percviz command shares: exit statuses, UsageError, the one-line parser, JSON output, argument types."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any

import numpy as np

from percviz.core.errors import PercvizError

#: Exit statuses (README, "Command line"): 0 done, 1 the data cannot be used or a budget refuses the computation,
#: 2 the command line cannot be used as given, 3 the window or exporter is not installed here, 70 a bug
#: (sysexits' EX_SOFTWARE), 130 interrupted (Ctrl-C: 128 + SIGINT).
EXIT_OK, EXIT_DATA, EXIT_USAGE, EXIT_UNAVAILABLE, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 70, 130
#: The largest whole number numpy keeps exactly in int64 (counts and seeds above it cannot be used).
INT64_MAX = 2**63 - 1


class UsageError(PercvizError):
    """A command-line argument cannot be used as given."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump), so every failure is a single readable line."""

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(f"{message} (see '{self.prog} --help')")


def clean(value: Any) -> Any:
    """JSON-safe: arrays to lists, non-finite floats to null."""
    if isinstance(value, np.ndarray):
        return clean(value.tolist())
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (np.floating, float)):
        v = float(value)
        return v if math.isfinite(v) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def json_line(obj: dict) -> str:
    """One line of JSON (no NaN, no newline inside)."""
    return json.dumps(clean(obj), allow_nan=False)


def print_json(obj: dict) -> None:
    sys.stdout.write(json_line(obj) + "\n")


def fail(prog: str, message: str, code: int) -> int:
    """Write `prog: error: message` as exactly one line on stderr and return the exit status."""
    text = " ".join(str(message).split())
    sys.stderr.write(f"{prog}: error: {text}\n")
    return code


def whole(text: str, what: str, low: int = 0, high: int = INT64_MAX) -> int:
    """A whole number from low to high written as 12, 1e9 or 1000.0; a UsageError saying what is wrong otherwise."""
    t = text.strip()
    try:
        v = int(t)
    except ValueError:
        try:
            f = float(t)
        except ValueError:
            raise UsageError(f"{what} takes whole numbers, e.g. 10,100,1000; got '{text}'") from None
        if not math.isfinite(f) or f != int(f):
            raise UsageError(f"{what} takes whole numbers from {low:,} to {high:,}; got '{text}'") from None
        v = int(f)
    if not low <= v <= high:
        raise UsageError(f"{what} takes whole numbers from {low:,} to {high:,}; got '{text}'")
    return v


def seed_type(text: str) -> int:
    """argparse type of --seed: a whole number ≥ 0 (numpy's generators take no negative seeds)."""
    try:
        return whole(text, "--seed")
    except UsageError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number from 0 to 2⁶³ − 1, e.g. --seed 0; got '{text}'") from None


def positive_seconds(text: str) -> float:
    """argparse type of a time budget: seconds > 0, finite."""
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not (math.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"a time budget is a number of seconds > 0, e.g. 600; got '{text}'")
    return v


class _Quiet:
    """A progress bar that shows nothing (--json, or stderr not a terminal)."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


def progress(total: int, unit: str, desc: str, quiet: bool = False, initial: int = 0):
    """A tqdm bar on stderr (done, rate, time left) for a long command; silent when quiet or stderr is no terminal."""
    if quiet or not sys.stderr.isatty():
        return _Quiet()
    from tqdm import tqdm

    try:
        size = os.get_terminal_size(sys.stderr.fileno())
    except OSError:
        size = os.terminal_size((80, 24))
    # a terminal that reports no size (a bare pseudo-terminal) would hide the bar: draw it 80 wide, 24 high
    return tqdm(total=total, initial=initial, unit=unit, desc=desc, file=sys.stderr, ncols=size.columns or 80,
                nrows=size.lines or 24, smoothing=0.1)
