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
