"""What the UI thread waits for in a long wall-clock gap: stacks of every thread, and where the wall time went.

`GapWatchdog(meter)` watches a tests/app/gap_meter.GapMeter from a thread of its own. Once the UI thread's
current turn (the time since the meter's last beat) has lasted more than `after_ms` of wall time, it samples
every thread's stack (faulthandler) every `every_ms` for the main thread and every other thread, and keeps the collapsed
stacks (outermost;...;innermost, one line per distinct stack, with a count) under the meter's label. When the
gap ends it also records, from /proc (Linux):
- the UI thread's time on a core, its time runnable but waiting for a core (schedstat), and the rest: asleep
  (a lock, the GIL, a join, disk);
- the CPU time of each other thread of the process in the gap, and of the whole process;
- how busy the machine was (share of all cores' time in /proc/stat) and the load average.
So a gap reads as "UI thread asleep while a worker computes" (the GIL or a wait), "UI runnable, machine busy"
(another process has the cores) or "UI thread working" (its own CPU). Used by bench/bench_soak.py --watch.
"""

from __future__ import annotations

import faulthandler
import gc
import os
import re
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class WatchedGap:
    label: str
    wall_ms: float = 0.0  # from the meter's last beat to the end of the gap
    ui_cpu_ms: float = 0.0  # the UI thread on a core
    ui_runq_ms: float = 0.0  # the UI thread runnable, waiting for a core (another thread or process had it)
    ui_asleep_ms: float = 0.0  # the rest: the UI thread blocked (GIL, lock, join, I/O)
    process_cpu_ms: float = 0.0
    thread_cpu_ms: dict = field(default_factory=dict)  # other threads: name -> CPU ms in the gap
    machine_busy: float = 0.0  # share of all cores' time in use (every process) during the gap
    load: str = ""
    samples: int = 0
    ui_states: Counter = field(default_factory=Counter)  # the UI thread's /proc state letters when sampled
    stacks: dict = field(default_factory=dict)  # thread name -> Counter of collapsed stacks
    noticed_late_ms: float = 0.0  # this watchdog (a Python thread) woke that late: no Python thread could run
    collections: list = field(default_factory=list)  # garbage collections ≥ 20 ms in the gap: (ms, generation, thread)
    frozen: str = ""  # faulthandler's dumps made during the gap (by its C thread, which needs no GIL)

    def _frozen_summary(self) -> str:
        dumps = [d for d in self.frozen.split("Timeout (") if d.strip()]
        lines = []
        for d in dumps[:3]:
            lines += ["      " + t for t in _collapse_dump(d)]
        return "\n".join(lines + ([f"      ... {len(dumps)} dumps"] if len(dumps) > 3 else []))

    def summary(self, top: int = 2, depth: int = 9) -> str:
        busy = ", ".join(f"{n} {ms:.0f}" for n, ms in sorted(self.thread_cpu_ms.items(), key=lambda kv: -kv[1])
                         if ms >= 20) or "none"
        lines = [f"gap {self.wall_ms:.0f} ms wall during {self.label}",
                 f"    UI thread: on a core {self.ui_cpu_ms:.0f} ms, waiting for a core {self.ui_runq_ms:.0f} ms, "
                 f"asleep {self.ui_asleep_ms:.0f} ms (states {dict(self.ui_states)}); process CPU "
                 f"{self.process_cpu_ms:.0f} ms; other threads' CPU (ms): {busy}; machine {100 * self.machine_busy:.0f}% "
                 f"busy, load {self.load}"]
        for ms, g, who in self.collections:
            lines.append(f"    garbage collection of generation {g}: {ms:.0f} ms wall on {who}")
        if self.noticed_late_ms > 100:
            lines.append(f"    the watchdog itself woke {self.noticed_late_ms:.0f} ms late (the GIL was held)")
        if self.frozen:
            lines.append(f"    faulthandler's dump(s) in the gap:\n" + self._frozen_summary())
        for name, counts in self.stacks.items():
            for stack, k in counts.most_common(top):
                lines.append(f"    [{name}] x{k}/{self.samples}: " + ";".join(stack.split(";")[-depth:]))
        return "\n".join(lines)


def _collapse_dump(text: str) -> list[str]:
    """faulthandler's text as one line per thread: 'Thread 0x..: outermost;...;innermost' (innermost 9 frames)."""
    out, head, frames = [], None, []
    for line in text.splitlines() + ["Thread end"]:
        m = _THREAD.match(line) if line.startswith(("Thread", "Current")) else None
        if m or line == "Thread end":
            if head is not None:
                out.append(f"{head}: " + ";".join(list(reversed(frames))[-9:]))
            head, frames = (line.split(" (")[0] if m else None), []
            continue
        f = _FRAME.match(line)
        if f:
            frames.append(f"{_short(f.group(1))}:{f.group(3)}:{f.group(2)}")
    return out


def _short(path: str) -> str:
    for cut in ("/percviz/", "site-packages/", "/lib/python"):
        if cut in path:
            return path.rsplit(cut, 1)[-1]
    return os.path.basename(path)


def dump_stacks(scratch) -> dict[int, str]:
    """Every thread's stack, collapsed (outermost;...;innermost), by thread ident.

    Read by faulthandler, which walks the frames in C: no frame object is made or kept. A frame object kept
    alive keeps its function's locals alive (a QPainter past its paint event, a wrapper past its C++ object),
    and freeing them later on this thread crashed the window (a first version used sys._current_frames)."""
    scratch.seek(0)
    scratch.truncate()
    faulthandler.dump_traceback(scratch, all_threads=True)
    scratch.flush()
    scratch.seek(0)
    out, ident, frames = {}, None, []
    for line in scratch.read().splitlines():
        m = _THREAD.match(line)
        if m:
            if ident is not None:
                out[ident] = ";".join(reversed(frames))
            ident, frames = int(m.group(1), 16), []
            continue
        m = _FRAME.match(line)
        if m and ident is not None:
            frames.append(f"{_short(m.group(1))}:{m.group(3)}:{m.group(2)}")
    if ident is not None:
        out[ident] = ";".join(reversed(frames))
    return out


_THREAD = re.compile(r"^(?:Current thread|Thread) (0x[0-9a-f]+)")
_FRAME = re.compile(r'^\s+File "(.*)", line (\d+) in (.*)$')


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def _threads_cpu() -> dict[int, tuple[str, float]]:
    """Every thread of the process: tid -> (name, CPU seconds so far)."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for tid in os.listdir("/proc/self/task"):
        stat = _read(f"/proc/self/task/{tid}/stat")
        if not stat:
            continue
        name, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
        out[int(tid)] = (name, (int(rest[11]) + int(rest[12])) / tick)
    return out


def _schedstat(tid: int) -> tuple[float, float]:
    """A thread's time on a core and runnable-waiting for one, in seconds (/proc schedstat)."""
    parts = _read(f"/proc/self/task/{tid}/schedstat").split()
    return (int(parts[0]) / 1e9, int(parts[1]) / 1e9) if len(parts) >= 2 else (0.0, 0.0)


def _machine() -> tuple[int, int]:
    """(busy, total) jiffies over all cores."""
    f = [int(v) for v in _read("/proc/stat").split("\n", 1)[0].split()[1:]]
    idle = f[3] + (f[4] if len(f) > 4 else 0)
    return sum(f) - idle, sum(f)


class GapWatchdog:
    """Samples every thread's stack while the UI thread's turn is longer than after_ms (module docstring)."""

    def __init__(self, meter, after_ms: float = 300.0, every_ms: float = 20.0):
        self.meter, self.after, self.every = meter, after_ms / 1000, every_ms / 1000
        self.gaps: list[WatchedGap] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._main = threading.main_thread().ident
        self._pid = os.getpid()
        self.live = False  # print each gap as it ends
        # A gap in which no Python thread can run (a C call holding the GIL, a long garbage collection) stops
        # this watchdog too: faulthandler's own C thread, re-armed by a UI timer, dumps every stack then.
        self._frozen = None
        self._rearm = None
        self.collections: list[tuple[float, float, int, str]] = []  # (start, seconds, generation, thread) ≥ 20 ms
        self._gc_start = 0.0

    def start(self) -> None:
        from PySide6.QtCore import QTimer

        self._stop.clear()
        fd, self._frozen_path = tempfile.mkstemp(prefix="gap-watchdog-", suffix=".txt")
        os.close(fd)
        self._frozen = open(self._frozen_path, "a")  # O_APPEND: the C thread's writes always land at the end
        self._frozen_read = 0
        self._rearm = QTimer()
        self._rearm.setInterval(50)
        self._rearm.timeout.connect(self._arm)
        self._rearm.start()
        self._arm()
        gc.callbacks.append(self._on_gc)
        self._thread = threading.Thread(target=self._watch, name="gap-watchdog", daemon=True)
        self._thread.start()

    def _on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            dt = time.perf_counter() - self._gc_start
            if dt > 0.02:
                self.collections.append((self._gc_start, dt, info.get("generation", -1), threading.current_thread().name))

    def _arm(self) -> None:
        faulthandler.dump_traceback_later(self.after + 0.2, repeat=True, file=self._frozen)

    def _frozen_dumps(self) -> str:
        """What faulthandler's thread wrote since the last call (stacks of a gap in which Python stood still)."""
        with open(self._frozen_path) as f:
            f.seek(self._frozen_read)
            text = f.read()
            self._frozen_read = f.tell()
        return text

    def stop(self) -> None:
        if self._rearm is not None:
            self._rearm.stop()
        faulthandler.cancel_dump_traceback_later()
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._frozen.close()
        os.unlink(self._frozen_path)

    def _watch(self) -> None:
        with tempfile.TemporaryFile("w+") as scratch:
            self._watch_with(scratch)

    def _watch_with(self, scratch) -> None:
        me = threading.get_ident()
        while not self._stop.wait(self.every):
            last = self.meter._last
            if last is None or time.perf_counter() - last[0] < self.after:
                continue
            gap = WatchedGap(self.meter.label)
            t0, p0 = last[0], time.process_time()
            th0, s0, m0 = _threads_cpu(), _schedstat(self._pid), _machine()
            t_seen = time.perf_counter()
            gap.noticed_late_ms = 1e3 * (t_seen - t0 - self.after)
            while self.meter._last is last and not self._stop.is_set():
                names = {t.ident: t.name for t in threading.enumerate()}
                for ident, stack in dump_stacks(scratch).items():
                    if ident == me:
                        continue
                    name = "UI" if ident == self._main else names.get(ident, f"thread-{ident}")
                    gap.stacks.setdefault(name, Counter())[stack] += 1
                st = _read(f"/proc/self/task/{self._pid}/stat")
                if st:
                    gap.ui_states[st[st.rindex(")") + 2]] += 1
                gap.samples += 1
                self._stop.wait(self.every)
            # the part of the gap after it was noticed is measured; its start is read from the meter's beat
            t1, s1, m1, th1 = time.perf_counter(), _schedstat(self._pid), _machine(), _threads_cpu()
            seen_wall = t1 - t_seen
            gap.wall_ms = 1e3 * (t1 - t0)
            cpu_seen, runq_seen = s1[0] - s0[0], s1[1] - s0[1]
            gap.ui_cpu_ms = 1e3 * cpu_seen
            gap.ui_runq_ms = 1e3 * runq_seen
            gap.ui_asleep_ms = 1e3 * max(0.0, seen_wall - cpu_seen - runq_seen)
            gap.process_cpu_ms = 1e3 * (time.process_time() - p0)
            for tid, (name, cpu) in th1.items():
                if tid != self._pid and tid != threading.get_native_id():
                    d = cpu - th0.get(tid, (name, 0.0))[1]
                    if d > 0:
                        gap.thread_cpu_ms[f"{name}#{tid}"] = 1e3 * d
            db, dt = m1[0] - m0[0], m1[1] - m0[1]
            gap.machine_busy = db / dt if dt else 0.0
            gap.load = " ".join(_read("/proc/loadavg").split()[:3])
            gap.frozen = self._frozen_dumps()
            gap.collections = [(1e3 * dt, g, who) for start, dt, g, who in list(self.collections)
                               if start + dt > t0 and start < t1]
            self.gaps.append(gap)
            if self.live:
                print(gap.summary(top=1), flush=True)

    def report(self, top: int = 12) -> str:
        """The longest gaps with where their time went and the stacks sampled in them."""
        note = (f"(the split on-core / waiting / asleep, process and thread CPU cover the part of each gap after its "
                f"first {1e3 * self.after:.0f} ms)")
        return "\n".join([note] + [g.summary() for g in sorted(self.gaps, key=lambda g: -g.wall_ms)[:top]])
