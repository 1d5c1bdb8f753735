"""Crash harness for speech: SIGKILL the real window while it is still recognising what was
said, restart it as ``dictate`` does, and count the words said before the kill that come back.

    python benchmarks/crash_speech.py [--kills 10] [--audio SPEECH.wav] [--jobs 1] [--busy N]
        [--json]

The window dictates a recording of speech fed at real-time speed (a microphone's pace; the
default recording is ``tests/data/en_phrases.wav``, espeak-ng speaking four phrases with pauses),
with the bundled PocketSphinx recogniser, the shipped punctuation model, and the audio kept
(Settings' ``keep_audio``, on by default). Each kill comes while a phrase is being recognised:
after the window has shown partial (grey, never journaled) words of a segment, at a random
moment before that segment's words are final (on a loaded machine, where the recogniser
catching up shows no partial words, at the same moment of the segment by the audio's clock, a
second later). The window is then started again on its journal
and kept audio (``replay``, ``open_document_at_start``, ``offer_unshown_audio``, as
:func:`dictate.ui.app.start_window` does), and the words come back from two places:

* the journal: every word the window showed as text (finalized or pending);
* the kept audio: what was captured but not shown as text, recognised again.

A reference run without a kill gives each segment's words with their times. The words *said
before the kill* are the reference's words that end before the kept audio does (the FLAC file is
flushed twice a second: a kill costs at most about 0.8 s of sound, with the microphone's own
buffering beside it). Each kill reports how many of
those came back in the journal alone, and in the journal and the recovered audio together. The
recogniser may hear a stretch cut at a different point a little differently, so words are
compared as a multiset of lower-case words.

``--mic`` has the window listen to a private PulseAudio server's null-sink microphone, the
recording played into it with ``paplay`` once the window listens (tests/pulse.py), instead of
the file at real-time speed: PortAudio's callback, the capture thread and the kept audio as a
user's run has them.

``--busy N`` runs the kills with N processes spinning on the CPU beside them (the reference run
is made before, idle). Each kill also reports the words said by the moment of the kill, by the
clock (the child prints when its audio started), and how many seconds captured before the kill
were not in the kept audio on disk (``unkept_s``, by the capture's own clock: when its first
sample was captured, plus the seconds kept): the kept audio is written by the source's capture
thread as it is said, so this stays about a second however busy the machine is.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_AUDIO = ROOT / "tests" / "data" / "en_phrases.wav"
MARGIN_S = 0.1
"""A word counts as kept when it ends this long before the kept audio does."""


def words_of(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


# -- the child: the real window --------------------------------------------------------------


def child_run(journal: Path, audio: Path, mic: bool = False) -> int:
    """Dictate ``audio`` at real-time speed into the window, printing every pipeline event;
    with ``mic``, dictate from the default microphone (the parent plays ``audio`` into it once
    the child prints that it listens)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from dictate.audio.capture import FileSource
    from dictate.config import Settings
    from dictate.editing.journal import Journal
    from dictate.events import Finished
    from dictate.ui.main_window import MainWindow

    app = QApplication([])
    settings = Settings(engine="sphinx", first_run_done=True, keep_audio=True)
    window = MainWindow(settings, Journal(journal), False)
    window.document.load_text("", None)  # a new document, as the app opens one (the journal begins)
    window.controller.preload_now()  # loaded before the audio starts, as after the app's preload

    sources: list[Any] = []

    def source() -> Any:
        sources.append(FileSource(audio, realtime=True))
        return sources[-1]

    def event(ev: Any) -> None:
        if sources and sources[0].started_at is not None and len(sources) == 1:
            print(json.dumps({"audio_started": sources[0].started_at}), flush=True)
            sources.append(None)  # said once
        record = ev.to_json()
        if record["event"] in ("partial", "segment", "pending", "finalized", "finished"):
            print(json.dumps({"t": time.monotonic(), **record}), flush=True)
        if isinstance(ev, Finished):
            app.exit(0)

    origin: list[float | None] = [None]

    def report_origin() -> None:
        # The capture's clock: when its first sample was said (what was kept at a kill is
        # measured from it). A microphone may deliver its first block well after "listening"
        # (a null sink's idle monitor: 1.8 s), so it is read until that block has come.
        began = window.controller.wall_time(0.0)
        if began is not None and began != origin[0]:
            origin[0] = began
            print(json.dumps({"capture_started": began}), flush=True)

    poll = QTimer()
    poll.timeout.connect(report_origin)
    poll.start(100)

    def state(name: str) -> None:
        if name == "listening":
            print(json.dumps({"listening": time.monotonic()}), flush=True)
            report_origin()

    window.controller.pipelineEvent.connect(event)
    window.controller.stateChanged.connect(state)
    print(json.dumps({"ready": True}), flush=True)
    window.controller.start(None if mic else source)
    app.exec()
    window.document.modified = False
    window.close()
    return 0


def child_recover(journal: Path) -> int:
    """Start the window on ``journal`` as the app does after a crash; print what came back."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from dictate.config import Settings
    from dictate.editing.journal import Journal
    from dictate.editing.journal_replay import replay
    from dictate.editing.session_audio import AudioStore, audio_folder, duration
    from dictate.ui.audio_recovery import offer_unshown_audio
    from dictate.ui.main_window import MainWindow
    from dictate.ui.recovery import open_document_at_start

    app = QApplication([])
    recovered = replay(journal)
    settings = Settings(engine="sphinx", first_run_done=True, keep_audio=True)
    window = MainWindow(settings, Journal(journal), False)
    open_document_at_start(window, recovered, lambda parent, rec: True)
    kept = AudioStore(audio_folder(journal), 2**30).sessions()
    kept_s = duration(kept[-1].path) if kept else 0.0
    started = time.monotonic()
    from_audio = offer_unshown_audio(window)
    recognise_s = time.monotonic() - started
    journal_text = window.editor.text
    message = window.messages.label.text() if not window.messages.isHidden() else ""
    added = False
    for button in window.messages.buttons:  # as the user would: "Add them at the cursor"
        if "Add them" in button.text():
            button.click()
            app.processEvents()
            added = True
    print(
        json.dumps(
            {
                "journal": journal_text,
                "audio": from_audio,
                "after_adding": window.editor.text,
                "added": added,
                "kept_audio_s": kept_s,
                "covered_s": max(
                    (s.covered for s in window.kept_audio.links.sessions.values()), default=0.0
                ),
                "recognise_s": recognise_s,
                "message": "recognised again" in message,
            }
        ),
        flush=True,
    )
    window.document.modified = False
    window.close()
    del app
    return 0


# -- the parent -------------------------------------------------------------------------------


def _child(*args: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "child", *args]


def _records(lines: list[str]) -> list[dict[str, Any]]:
    out = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut short by the kill, or a library's noise
    return out


def reference(audio: Path) -> list[dict[str, Any]]:
    """The words of each segment of a run that is not killed: [{"segment", "words": [{text,
    start, end}]}], and checks the run finished."""
    with tempfile.TemporaryDirectory(prefix="dictate-speech-ref-") as tmp:
        done = subprocess.run(
            _child("run", str(Path(tmp) / "journal.jsonl"), str(audio)),
            capture_output=True,
            text=True,
            timeout=600,
            check=True,
        )
    records = _records(done.stdout.splitlines())
    if not any(r.get("event") == "finished" for r in records):
        raise RuntimeError("the reference run did not finish: " + done.stderr[-2000:])
    return [r for r in records if r.get("event") == "segment"]


@dataclass
class Outcome:
    kill: int
    said_by_kill: int
    """Reference words said (ended) before the kill, by the clock."""
    unkept_s: float
    """Seconds captured before the kill that were not in the kept audio on disk."""
    segment: int
    """The segment being recognised at the kill."""
    partial_words: int
    """Partial (grey) words of it shown when it was killed."""
    said: int
    """Reference words said before the kill, whose audio was kept."""
    in_journal: int
    """Of those, found in the journal's text."""
    recovered: int
    """Of those, found in the text once the message's "Add them at the cursor" was pressed
    (the journal's text and the words recognised again from the audio)."""
    from_audio: str
    said_words: str
    text_after: str
    kept_audio_s: float
    covered_s: float
    recognise_s: float
    message: bool


def one_kill(
    number: int,
    audio: Path,
    segments: list[dict[str, Any]],
    rng: random.Random,
    pulse: Any = None,
) -> Outcome | None:
    """Kill a run while segment ``target`` is being recognised; None when the run finished
    every segment before a kill could land (it then counts as no kill). With ``pulse`` (a
    :class:`tests.pulse.PulseServer`), the window listens to its microphone and the recording
    is played into it once the window listens."""
    chosen = rng.choice([s for s in segments if s["words"]])
    target = chosen["segment"]
    # After its first partial words, within the segment's length (its end is recognised later).
    wait = rng.uniform(0.1, max(0.2, 0.9 * (chosen["end"] - chosen["start"])))
    with tempfile.TemporaryDirectory(prefix="dictate-speech-") as tmp:
        journal = Path(tmp) / "data" / "journal.jsonl"
        proc = subprocess.Popen(
            _child("run", str(journal), str(audio), *(["mic"] if pulse else [])),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert proc.stdout is not None
        first_partial: float | None = None
        partial: list[str] = []
        killed = False
        audio_started: float | None = None
        killed_at = 0.0
        capture_started: float | None = None
        player: subprocess.Popen[bytes] | None = None
        import selectors

        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        buffer = ""
        while True:
            # After the segment's first partial words; or, where a recogniser catching up on a
            # loaded machine shows none (it skips partial words), by the audio's clock: the
            # same moment of the segment as said, a second later.
            deadlines = [
                *([first_partial + wait] if first_partial is not None else []),
                *([audio_started + chosen["start"] + wait + 1.0] if audio_started else []),
            ]
            timeout = min(deadlines) - time.monotonic() if deadlines else None
            if timeout is not None and timeout <= 0:
                proc.send_signal(signal.SIGKILL)
                killed_at = time.monotonic()
                killed = True
                break
            if not sel.select(timeout):
                continue
            chunk = os.read(proc.stdout.fileno(), 65536).decode("utf-8", "replace")
            if not chunk:
                break  # the run ended before the moment came
            buffer += chunk
            *lines, buffer = buffer.split("\n")
            done = False
            for record in _records(lines):
                if "audio_started" in record:
                    audio_started = record["audio_started"]
                if record.get("capture_started") is not None:
                    capture_started = record["capture_started"]
                if "listening" in record and pulse is not None and player is None:
                    player = pulse.play(audio)  # into the null sink the window listens to
                    audio_started = time.monotonic()
                if record.get("segment") != target:
                    continue
                if record["event"] == "partial":
                    partial = record["words"]
                    if first_partial is None:
                        first_partial = time.monotonic()
                elif record["event"] in ("segment", "pending", "finalized"):
                    done = True  # its words are text now: too late for this kill
            if done:
                proc.send_signal(signal.SIGKILL)
                break
        sel.close()
        proc.wait()
        if player is not None:
            player.kill()
            player.wait()
        if not killed:
            return None
        got = json.loads(
            subprocess.run(
                _child("recover", str(journal)),
                capture_output=True,
                text=True,
                timeout=300,
                check=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
    kept = got["kept_audio_s"] - MARGIN_S
    said = [w["text"] for s in segments for w in s["words"] if w["end"] <= kept]
    spoken_s = killed_at - audio_started if audio_started is not None else got["kept_audio_s"]
    # Seconds captured by the kill but not in the kept audio on disk, by the capture's clock
    # (a file source: the same as the audio's clock).
    captured_s = killed_at - capture_started if capture_started is not None else spoken_s
    by_kill = sum(1 for s in segments for w in s["words"] if w["end"] <= spoken_s)
    said_bag = Counter(w for word in said for w in words_of(word))
    journal_bag = Counter(words_of(got["journal"]))
    both_bag = Counter(words_of(got["after_adding"]))  # the text once "Add them" is pressed
    return Outcome(
        number,
        by_kill,
        round(max(0.0, captured_s - got["kept_audio_s"]), 2),
        target,
        len(partial),
        sum(said_bag.values()),
        sum((said_bag & journal_bag).values()),
        sum((said_bag & both_bag).values()),
        got["audio"],
        " ".join(said),
        got["after_adding"],
        round(got["kept_audio_s"], 2),
        round(got["covered_s"], 2),
        round(got["recognise_s"], 2),
        got["message"],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--audio", type=Path, default=DEFAULT_AUDIO)
    parser.add_argument("--jobs", type=int, default=1, help="runs at once (real-time audio)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--busy", type=int, default=0, help="processes spinning on the CPU beside the runs"
    )
    parser.add_argument(
        "--mic",
        action="store_true",
        help="the window listens to a private PulseAudio server's null-sink microphone, the "
        "recording played into it (one job)",
    )
    args = parser.parse_args(argv)
    if args.mic and args.jobs != 1:
        parser.error("--mic plays into one microphone: use --jobs 1")
    if not args.audio.is_file():
        parser.error(f"no audio file at {args.audio}: give a WAV, FLAC, OGG or MP3 with --audio")
    segments = reference(args.audio)  # on an idle machine: the words as they were said
    rngs = [random.Random(args.seed * 1000 + i) for i in range(args.kills)]
    spinners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)
    ]
    try:
        with contextlib.ExitStack() as stack:
            pulse = None
            if args.mic:
                sys.path.insert(0, str(ROOT / "tests"))
                from pulse import PulseServer  # the GUI tests' harness; sets PULSE_SERVER

                folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="dcs")))
                pulse = stack.enter_context(PulseServer(folder, rescan=False))
            with ThreadPoolExecutor(args.jobs) as pool:
                found = list(
                    pool.map(
                        lambda i: one_kill(i, args.audio, segments, rngs[i], pulse),
                        range(args.kills),
                    )
                )
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    outcomes = [o for o in found if o is not None]
    said = sum(o.said for o in outcomes)
    summary = {
        "busy": args.busy,
        "source": "PulseAudio null-sink microphone" if args.mic else "file at real-time speed",
        "kills": len(outcomes),
        "words_said_by_the_kills": sum(o.said_by_kill for o in outcomes),
        "median_unkept_s": statistics.median([o.unkept_s for o in outcomes] or [0.0]),
        "max_unkept_s": max([o.unkept_s for o in outcomes] or [0.0]),
        "too_late": len(found) - len(outcomes),
        "reference_words": sum(len(s["words"]) for s in segments),
        "words_said_before_kills": said,
        "recovered_by_journal": sum(o.in_journal for o in outcomes),
        "recovered_with_audio": sum(o.recovered for o in outcomes),
        "kills_with_words_from_audio": sum(bool(o.from_audio) for o in outcomes),
        "kills_with_a_message": sum(o.message for o in outcomes),
        "median_recognise_s": statistics.median([o.recognise_s for o in outcomes] or [0.0]),
    }
    if args.json:
        print(json.dumps({"summary": summary, "kills": [asdict(o) for o in outcomes]}))
    else:
        for o in outcomes:
            print(
                f"kill {o.kill}: segment {o.segment}, {o.partial_words} grey words shown; said "
                f"{o.said}, journal {o.in_journal}, with audio {o.recovered} "
                f"(audio kept {o.kept_audio_s} s, shown to {o.covered_s} s): {o.from_audio!r}"
            )
        print(json.dumps(summary, indent=2))
    return 0 if outcomes else 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "child":
        if sys.argv[2] == "run":
            sys.exit(child_run(Path(sys.argv[3]), Path(sys.argv[4]), sys.argv[5:] == ["mic"]))
        sys.exit(child_recover(Path(sys.argv[3])))
    sys.exit(main())
