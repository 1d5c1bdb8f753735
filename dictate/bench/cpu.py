"""CPU time of this process by thread and of its child processes, from ``/proc`` (Linux), for
``dictate bench gui --cpu``: where the window spends CPU while it dictates.

A thread is named by Python's name for it where it is a Python thread (``dictate-refine``,
``dictate-audio``, ...; the Qt event loop's is ``MainThread``), else by the kernel's (a native
pool: ONNX Runtime's, CTranslate2's, PortAudio's). A thread that ends is counted by name as of
the last reading that saw it (:meth:`CpuMeter.sample`); :func:`process_cpu_s` counts all of it.
"""

from __future__ import annotations

import os
import resource
import threading
from dataclasses import dataclass
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat_fields(path: Path) -> list[str] | None:
    """The fields of a ``/proc/.../stat`` file after the command name; None if it is gone."""
    try:
        text = path.read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return text[text.rfind(")") + 2 :].split()


def process_cpu_s() -> float:
    """User and system CPU seconds of this process (all its threads, ended ones included)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def thread_cpu_s() -> dict[int, tuple[str, float]]:
    """Each of this process's live threads, by thread id: its name and CPU seconds."""
    names = {t.native_id: t.name for t in threading.enumerate() if t.native_id is not None}
    found: dict[int, tuple[str, float]] = {}
    for task in Path("/proc/self/task").iterdir():
        fields = _stat_fields(task / "stat")
        if fields is None:
            continue
        tid = int(task.name)
        name = names.get(tid)
        if name is None:
            try:
                name = "native: " + (task / "comm").read_text(encoding="ascii").strip()
            except OSError:
                name = "native: ?"
        found[tid] = (name, (int(fields[11]) + int(fields[12])) / TICKS)  # utime, stime
    return found


def children_cpu_s() -> dict[int, float]:
    """CPU seconds of each live child process of this one (and of the children it waited for),
    by process id."""
    me = str(os.getpid())
    found: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(entry / "stat")
        if fields is None or fields[1] != me:  # the parent's id
            continue
        found[int(entry.name)] = sum(int(f) for f in fields[11:15]) / TICKS
    return found


def waited_children_cpu_s() -> float:
    """CPU seconds of the child processes this one has waited for (ended ones)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass(frozen=True)
class CpuUsed:
    """CPU seconds: in all (``cpu_s``), this process's, its children's, and by thread."""

    cpu_s: float
    process_cpu_s: float
    children_cpu_s: float
    threads_cpu_s: dict[str, float]


def _most(item: tuple[str, float]) -> float:
    return -item[1]


class CpuMeter:
    """CPU used between :meth:`start` and :meth:`stop`: this process's (by thread) and its
    children's (live and ended). A thread that ends in between is counted by name as of the
    last :meth:`sample` that saw it (call it every half second or so); its CPU always counts in
    the process's."""

    def start(self, from_process_start: bool = False) -> None:
        """Count from now (or, ``from_process_start``, all of this process's and its children's
        CPU so far too)."""
        zero = from_process_start
        self._process = 0.0 if zero else process_cpu_s()
        self._start: dict[int, float] = {}
        if not zero:
            self._start = {tid: cpu for tid, (_name, cpu) in thread_cpu_s().items()}
        self._seen: dict[int, tuple[str, float]] = {}
        self._children = {} if zero else children_cpu_s()
        self._waited = 0.0 if zero else waited_children_cpu_s()

    def sample(self) -> None:
        """Note each live thread's name and CPU so far."""
        self._seen.update(thread_cpu_s())

    def stop(self) -> CpuUsed:
        self.sample()
        process = process_cpu_s() - self._process
        threads: dict[str, float] = {}
        for tid, (name, cpu) in self._seen.items():
            threads[name] = threads.get(name, 0.0) + cpu - self._start.get(tid, 0.0)
        live = children_cpu_s()
        children = sum(cpu - self._children.get(pid, 0.0) for pid, cpu in live.items())
        children += waited_children_cpu_s() - self._waited
        return CpuUsed(
            cpu_s=round(process + children, 2),
            process_cpu_s=round(process, 2),
            children_cpu_s=round(children, 2),
            threads_cpu_s={
                k: round(v, 2) for k, v in sorted(threads.items(), key=_most) if v > 0.005
            },
        )
