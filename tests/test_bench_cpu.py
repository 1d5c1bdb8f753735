"""``dictate bench gui --cpu``'s meter: CPU by thread name and in child processes (/proc)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from dictate.bench.cpu import CpuMeter

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _spin(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_cpu_is_counted_by_thread_and_in_child_processes() -> None:
    meter = CpuMeter()
    meter.start()
    done = threading.Event()

    def spinner() -> None:
        _spin(0.3)
        done.wait(30)  # alive when the meter reads it

    thread = threading.Thread(target=spinner, name="test-spinner")
    thread.start()
    child = subprocess.Popen([sys.executable, "-c", "import time\nend = time.process_time() "
                              "+ 0.3\nwhile time.process_time() < end: pass\ninput()"],
                             stdin=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # both have spun (the child waits on its input)
            used = meter.stop()
            if used.threads_cpu_s.get("test-spinner", 0) >= 0.25 and used.children_cpu_s >= 0.25:
                break
            time.sleep(0.05)
        assert used.threads_cpu_s["test-spinner"] >= 0.25, used
        assert 0.25 <= used.children_cpu_s < 5, used
        assert used.cpu_s >= used.process_cpu_s + 0.25 - 0.02, used
    finally:
        done.set()
        thread.join()
        child.communicate(b"\n", timeout=30)
    # an ended thread still counts by name (as last sampled), and an ended child, waited for
    used = meter.stop()
    assert used.threads_cpu_s["test-spinner"] >= 0.25 and used.children_cpu_s >= 0.25, used
