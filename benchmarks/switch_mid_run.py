"""What changing the recogniser or Whisper model during a run costs the person dictating: the
window's controller (``DictationController``, offscreen) dictates a recording at real-time
speed; ``--at`` seconds in, Whisper is turned on (``second_pass`` off -> auto, as Settings > OK
does) and loaded beside the run (``Pipeline.switch_to``). Reported per run: how long the load
took (the change to the run's switch), the first segment Whisper settled, and each segment's
settled words after its speech ended as the window's thread got them (the recording's speech
ends, from the source's clock), for the segments settled while Whisper loaded, against the
same segments of a run without the change.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/switch_mid_run.py \\
        ~/.cache/dictate-bench/real/wav/read_sentences.wav --runs 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def one_run(app: Any, audio: Path, at: float | None) -> dict[str, Any]:
    from dictate.audio.capture import FileSource
    from dictate.config import Settings
    from dictate.events import Finished, Segment
    from dictate.ui.pipeline_runner import DictationController

    runner = DictationController(Settings(engine="sphinx", second_pass="off"))
    runner.preload_now()
    got: list[tuple[float, Any]] = []
    switched: list[float] = []
    runner.pipelineEvent.connect(lambda e: got.append((time.monotonic(), e)))
    runner.switched.connect(lambda _loaded: switched.append(time.monotonic()))
    runner.start(source_factory=lambda: FileSource(audio, realtime=True))
    began = time.monotonic()
    asked = None
    while not (got and isinstance(got[-1][1], Finished)):
        app.processEvents()
        time.sleep(0.005)
        if at is not None and asked is None and time.monotonic() - began >= at:
            runner.settings.second_pass = "auto"
            runner.forget_engine()
            asked = time.monotonic()
    rows = []
    for received, event in got:
        if isinstance(event, Segment):
            spoken = runner.wall_time(event.end)
            rows.append((event.segment, event.settled_by, received - (spoken or received),
                         received))  # fmt: skip
    runner.release()
    load = switched[0] - asked if switched and asked is not None else None
    done = switched[0] if switched else None
    return {"rows": rows, "load": load, "asked": asked, "switched": done}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("audio", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--at", type=float, default=3.0, help="seconds into the run")
    args = parser.parse_args(argv)
    from PySide6.QtCore import QCoreApplication

    app = QCoreApplication.instance() or QCoreApplication([])
    loads, during, plain_during = [], [], []
    for n in range(args.runs):
        plain = one_run(app, args.audio, None)
        run = one_run(app, args.audio, args.at)
        # the segments settled between the change and the switch (and the one after it)
        window = [r for r in run["rows"] if run["asked"] <= r[3] <= (run["switched"] or 1e18)]
        numbers = {r[0] for r in window}
        first_whisper = next((r[0] for r in run["rows"] if r[1] == "whisper"), None)
        same = [r[2] for r in plain["rows"] if r[0] in numbers]
        print(f"run {n + 1}: Whisper loaded and switched to {run['load']:.2f} s after the "
              f"change; the first segment it settled: {first_whisper} of {len(run['rows'])}; "
              f"segments settled while it loaded: {sorted(numbers)}, their words "
              f"{', '.join(f'{r[2]:.2f}' for r in window)} s after their speech "
              f"(without the change: {', '.join(f'{x:.2f}' for x in same)} s)")  # fmt: skip
        loads.append(run["load"])
        during += [r[2] for r in window]
        plain_during += same
    print(f"median load-to-switch {statistics.median(loads):.2f} s; segments settled during "
          f"the load: median {statistics.median(during):.2f} s, max {max(during):.2f} s "
          f"after their speech (without the change: median "
          f"{statistics.median(plain_during):.2f} s, max {max(plain_during):.2f} s)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
