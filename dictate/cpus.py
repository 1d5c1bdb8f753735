"""The CPU cores this process may run on."""

from __future__ import annotations

import os


def usable_cpus() -> int:
    """The cores this process may run on (its affinity: ``taskset``, a container's cpuset),
    not all the machine's: ``--workers auto`` under ``taskset -c 0`` started a recogniser per
    core of the machine, all on one."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


WAIT_POLICY_ENV = "OMP_WAIT_POLICY"


def openmp_threads_sleep() -> bool:
    """Have OpenMP's threads wait for work asleep, not spinning (``OMP_WAIT_POLICY=PASSIVE``),
    unless the user chose a policy; call before CTranslate2 (Whisper) loads its OpenMP runtime,
    which reads the variable once. True where this set it.

    Spinning threads wait on a core for the other threads of the same step; where other
    programs keep the cores busy, the thread waited for is off its core for a whole time slice
    while its partner spins. With 4 busy processes beside the window on the 2-core development
    machine, 79% of the window's CPU samples were in libgomp's waiting (``perf``), and a 7 s
    segment took 29.5 s to decode; 1.7 s with them asleep (docs/performance.md, "A busy
    machine"). Idle, asleep costs a few percent of a decode's time.
    Called where CTranslate2 is first imported (:mod:`dictate.asr.whisper_engine`); the child
    processes inherit it (the variable is in the environment).
    """
    if os.environ.get(WAIT_POLICY_ENV):
        return False
    os.environ[WAIT_POLICY_ENV] = "PASSIVE"
    return True
