"""What Settings > OK with nothing changed costs the next start of dictation: the time the start
spends building the pipeline (``DictationController._ready_pipeline``, under the lock the start
takes) after ``forget_engine`` (what OK calls), against a rebuild forced by dropping the
pipeline's key, as ``forget_engine`` did before 2026-12-06.

    .venv/bin/python benchmarks/settings_ok.py --runs 5

The controller has the default engines (PocketSphinx, then Whisper tiny.en), loaded once;
medians of ``--runs``. The rebuild is only the pipeline's (the recognisers stay loaded); the
command decoder's child process it used to start again comes on top, at the run's start.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    from PySide6.QtCore import QCoreApplication

    from dictate.config import Settings
    from dictate.ui.pipeline_runner import DictationController

    app = QCoreApplication([])
    runner = DictationController(Settings(engine="sphinx", second_pass="auto"))
    runner.preload_now()

    def start_build() -> float:
        began = time.perf_counter()
        with runner._lock:
            runner._ready_pipeline(runner.settings)
        return time.perf_counter() - began

    now, before = [], []
    for _ in range(args.runs):
        runner.forget_engine()  # Settings > OK, nothing changed
        began = time.perf_counter()
        while time.perf_counter() - began < 1.5:  # the background build, were there one
            app.processEvents()
            time.sleep(0.01)
        now.append(start_build())
        runner._cache.pop("key", None)  # what forget_engine did before
        before.append(start_build())
    print(f"the start's pipeline build after Settings > OK with nothing changed, median of "
          f"{args.runs}: {statistics.median(now):.3f} s; a forced rebuild (as before): "
          f"{statistics.median(before):.3f} s")  # fmt: skip
    if runner.pipeline is not None:
        runner.pipeline.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
