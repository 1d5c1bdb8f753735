"""Devices come back (issue 12, part 3): after the sound server goes away and comes back, the
next start finds the microphone again without restarting the app. The test's private PulseAudio
server is killed and started again on the same socket; PortAudio's device list is rescanned
while the server is down (as the window does after a failed run), so it is stale afterwards."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from pulse import PulseServer

from dictate.config import Settings
from dictate.events import Error, Event, Finished, Segment
from dictate.run.sink import final_text

DATA = Path(__file__).resolve().parents[1] / "data"


def run_until(qtbot: Any, events: list[Event], kind: type, timeout: float = 60) -> None:
    qtbot.waitUntil(lambda: any(isinstance(e, kind) for e in events), timeout=int(timeout * 1000))


@pytest.mark.slow
def test_dictation_finds_the_microphone_after_the_sound_server_restarts(
    tmp_path: Path, qtbot: Any, request: pytest.FixtureRequest
) -> None:
    from dictate.audio.devices import refresh_devices
    from dictate.ui.pipeline_runner import DictationController

    folder = tmp_path / "pulse"
    folder.mkdir()
    controller = DictationController(Settings(engine="sphinx", first_run_done=True))
    request.addfinalizer(controller.release)  # its recogniser's child processes
    events: list[Event] = []
    controller.pipelineEvent.connect(events.append)
    with PulseServer(folder) as server:
        controller.start()
        qtbot.waitUntil(lambda: controller.state == "listening", timeout=120_000)
        time.sleep(2.0)  # the stream is open
        server.play(DATA / "en_phrases.wav")
        run_until(qtbot, events, Segment)
        server.kill()
        run_until(qtbot, events, Finished)
    assert any(isinstance(e, Error) and e.fatal for e in events)
    refresh_devices()  # while the server is down: PortAudio now lists no such microphone

    events.clear()
    (folder / "native").unlink(missing_ok=True)  # the killed server's socket
    with PulseServer(folder, rescan=False) as server:  # back, on the same socket
        controller.start()
        qtbot.waitUntil(lambda: controller.state in ("listening", "idle"), timeout=60_000)
        time.sleep(2.5)
        assert controller.state == "listening", [getattr(e, "message", e) for e in events]
        server.play(DATA / "en_phrases.wav").wait(30)
        time.sleep(1.0)
        controller.stop()
        run_until(qtbot, events, Finished)
    finished = [e for e in events if isinstance(e, Finished)]
    assert finished[-1].reason == "stopped", [getattr(e, "message", e) for e in events]
    assert "thank" in final_text(events).lower()
