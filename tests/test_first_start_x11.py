"""The first-start guide in the real app (issue 53): ``python -m dictate`` on a real X server
(Xvfb) with fresh settings (no ``guide_done``), its microphone the null sink's monitor of a
private PulseAudio server (tests/pulse.py). The guide is shown, naming that microphone as the
microphone list does; a phrase said with ``dictate start`` / ``dictate stop`` makes it go, and
the settings keep it gone. What the window shows is read from the app's log, which says when the
guide is shown and hidden (names of devices and engines, never a word said).

``DICTATE_SCREENSHOTS=docs`` writes the picture of the first start to docs/first-start.png
(the one docs/window.md shows); otherwise it goes to the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pulse import PulseServer, need
from test_commit_on_pause_x11 import ROOT, SAMPLE, App, speak, wait_for, words
from xserver import XServer

pytestmark = [pytest.mark.slow, pytest.mark.audio, pytest.mark.gui]

MICROPHONE = "Monitor of Null Output (sound server)"
"""The null sink's monitor as the microphone list names it (dictate/ui/dialogs/choices.py)."""


@pytest.fixture(scope="module")
def xserver() -> Iterator[XServer]:
    need(shutil.which("xdotool") is not None, "xdotool is not installed")
    need(shutil.which("import") is not None, "ImageMagick's import is not installed")
    with XServer() as server:
        yield server


@pytest.fixture(scope="module")
def pulse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PulseServer]:
    with PulseServer(tmp_path_factory.mktemp("pulse"), rescan=False) as server:
        yield server


def screenshot(app: App, tmp_path: Path) -> Path:
    """The screen (the window alone on it, at its top left), as ImageMagick's ``import``
    takes it; cropped to the window."""
    folder = Path(os.environ.get("DICTATE_SCREENSHOTS", str(tmp_path)))
    out = (ROOT / folder if not folder.is_absolute() else folder) / "first-start.png"

    def xdotool(*args: str) -> str:
        done = subprocess.run(["xdotool", *args], env=app.env, capture_output=True, text=True,
                              timeout=30, check=True)  # fmt: skip
        return done.stdout

    window = xdotool("search", "--sync", "--name", "[-] dictate$").split()[0]
    shape = dict(re.findall(r"^(\w+)=(\d+)$", xdotool("getwindowgeometry", "--shell", window),
                            flags=re.MULTILINE))  # fmt: skip
    crop = f"{shape['WIDTH']}x{shape['HEIGHT']}+{shape['X']}+{shape['Y']}"
    subprocess.run(["import", "-window", "root", "-crop", crop, "+repage", "-strip", str(out)],
                   env=app.env, check=True, timeout=30)  # fmt: skip
    return out


def test_a_first_start_guides_and_the_first_dictation_ends_the_guide(
    xserver: XServer, pulse: PulseServer, tmp_path: Path
) -> None:
    app = App(xserver, pulse, tmp_path)  # the default settings, no guide_done: a first start
    try:
        app.wait_ready()
        wait_for(lambda: app.log_has("first-start guide shown"), 60, "the guide", app)
        shown = next(line for line in app.log_text().splitlines() if "guide shown" in line)
        assert f"(microphone: the system default: {MICROPHONE})" in shown, shown
        wait_for(lambda: app.log_has("first-start guide: recogniser"), 120, "the engine", app)
        time.sleep(1.0)  # the window painted what it says
        shot = screenshot(app, tmp_path)
        assert shot.stat().st_size > 10_000  # a picture of a window, not of an empty screen
        app.start()
        speak(pulse, SAMPLE)  # the bundled sample: "Please call me tomorrow morning. ..."
        wait_for(lambda: app.log_has("first-start guide hidden: words were dictated"), 180,
                 "the guide to go", app, app.document)  # fmt: skip
        app.stop()
        assert {"please", "call", "morning"} <= set(words(app.document().text))
        settings = json.loads((tmp_path / "config" / "settings.json").read_text("utf-8"))
        assert settings["guide_done"] is True  # gone at the next starts too
        said = {w for w in words(app.document().text) if len(w) >= 5}
        assert said and not {w for w in said if w in app.log_text().lower()}  # no word logged
    finally:
        app.close()
