"""A child process that ends when its parent is gone.

The app's children (the recogniser and command decoder of the window, the workers of a file's
parallel decode) wait for work from their parent. When the parent is killed (kill -9, a crash,
the out-of-memory killer) nothing tells them: a worker blocked on a multiprocessing queue holds
both ends of its pipe itself, so it never sees the end of input, and it and multiprocessing's
resource tracker (whose pipe the workers inherited) ran for ever, 130-146 MB each. So every
child watches its parent: once it has been given to another process (its parent process id
changes), it ends.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time

INTERVAL_S = 0.5
"""How often the parent is looked for."""


def exit_with_parent(interval: float = INTERVAL_S) -> None:
    """In a child process started by :mod:`multiprocessing`: end it (at once, without cleanup:
    there is no one to report to) within about ``interval`` seconds after its parent is gone,
    also when the parent was gone before this was called (killed while the child was still
    importing)."""
    known = multiprocessing.parent_process()
    parent = known.pid if known is not None and known.pid is not None else os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)

    threading.Thread(target=watch, name="dictate-parent-watch", daemon=True).start()
