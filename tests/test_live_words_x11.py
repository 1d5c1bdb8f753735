"""The live words in the real window: ``python -m dictate`` on a real X server (Xvfb), a real
recording (J. F. Kennedy, tests/data/real) played into a real microphone (the private
PulseAudio server of tests/pulse.py), PocketSphinx as the first pass and Whisper tiny.en as the
second (the defaults). The app runs with ``DICTATE_LOG_WORDS=1`` (its debug switch: the log
keeps each live text the editor was given to show, and per segment the words it settled on
beside its last live words). The segments' last live words must be nearer the words they
settled on than the first pass's alone, one of them word for word; and where the window had
the time to drop no optional work (its log says), within issue 52's 15% (word edits over the
settled words). (The journal holds the greyed words that are settled but not final, never the
live ones.) Here, idle: 10.0% in 2 runs of 2.

The same recording with the previews turned off (``DICTATE_NO_PREVIEWS=1``: the first pass's
words only, until each segment is settled) is the control: PocketSphinx hears this recording
badly ("and so my prowler mac" for "and so my fellow americans"), 85.0% here, so the check
fails there.
How near the live words come, pooled over more recordings, is measured by
benchmarks/live_words.py (docs/performance.md), not here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pulse import PulseServer
from test_commit_on_pause_x11 import App, speak, wait_for, words
from xserver import XServer, desktop_servers, needs_tiny_en

from dictate.edit_distance import edit_distance
from dictate.events import COMMAND_MARK
from dictate.run.pipeline import NO_PREVIEWS_ENV
from dictate.ui.app_log import WORDS_ENV

pytestmark = [pytest.mark.slow, pytest.mark.audio, pytest.mark.gui]

JFK = Path(__file__).resolve().parent / "data" / "real" / "jfk.flac"

desktop = pytest.fixture(scope="module", name="desktop")(desktop_servers)


def settled_and_live(log: str) -> list[tuple[list[str], list[str]]]:
    """Per segment, the words it settled on and the live words shown for it just before
    (the log's ``settled N: ... | live: ...`` lines); not a segment shown as the mark of a
    possible command (a short phrase said apart: "ask not" here), which shows no words."""
    found = re.findall(r" dictate\.words: settled \d+: (.*) \| live: (.*)", log)
    return [(words(settled), words(live)) for settled, live in found if live != COMMAND_MARK]


def dictated(server: XServer, pulse: PulseServer, folder: Path, previews: bool) -> str:
    """The app's log once the recording, said into its microphone, is all final text."""
    extra = {WORDS_ENV: "1", **({} if previews else {NO_PREVIEWS_ENV: "1"})}
    app = App(server, pulse, folder, extra_env=extra, second_pass="auto", commit_after_ms=1500)
    try:
        app.wait_ready()
        app.start()
        speak(pulse, JFK)
        wait_for(
            lambda: "country" in words(app.document().text)[-3:] and not app.document().pending,
            300,
            "the last words to be final",
            app,
            app.document,
        )
        app.stop()  # (the run's end logs what optional work it left out)
        return app.log_text()
    finally:
        app.close()


def distance(segments: list[tuple[list[str], list[str]]]) -> float:
    """Word edits from each segment's last live words to its settled words, over the settled
    words (pooled): a word error rate with the settled words as the reference."""
    edits = sum(edit_distance(live, settled) for settled, live in segments)
    return edits / max(1, sum(len(settled) for settled, _ in segments))


@needs_tiny_en
def test_the_live_words_are_the_words_that_settle(
    desktop: tuple[XServer, PulseServer], tmp_path: Path
) -> None:
    server, pulse = desktop
    log = dictated(server, pulse, tmp_path / "previews", previews=True)
    segments = settled_and_live(log)
    control = settled_and_live(dictated(server, pulse, tmp_path / "first", previews=False))
    assert len(segments) >= 3 and len(control) >= 3, (segments, control)
    said = " ".join(" ".join(settled) for settled, _ in segments)
    assert "what your country can do for you" in said, segments
    near, far = distance(segments), distance(control)
    print(f"last live words vs settled: {near:.1%} (the first pass's only: {far:.1%})")
    assert far > 0.15 and near < far, (near, far, segments, control)
    # Whisper's words were shown live, word for word, for a segment before it settled.
    assert any(live == settled for settled, live in segments), segments
    # With the time for it, every segment: the window dropped no optional work (previews, early
    # decodes). On a loaded machine (CI runs two tests at once) it may drop some, and the live
    # words are then the first pass's for a while: 65% in one CI run.
    left_out = re.findall(r"previews and early decodes left out: (\d+)", log)
    assert left_out, log  # (the previews' run logs it when it ends)
    if left_out[-1] == "0":
        assert near <= 0.15, (near, segments)
