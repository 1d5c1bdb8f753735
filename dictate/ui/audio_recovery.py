"""After a crash: the words said but never shown, recognised again from the kept audio.

The journal recovers every word that was shown (finalized, or pending); the words of the phrase
being spoken at the crash were only partial words, never journaled. Their audio is on disk
(:mod:`dictate.editing.session_audio`, flushed twice a second), and the links' ``covered`` mark
(:mod:`dictate.editing.audio_links`) says up to where the session's audio was shown as text: at
the next start, the audio of the newest session that never ended, past that mark, is recognised
again and offered in a message ("Add them" puts the words at the cursor). The session is then
marked ended, so it is offered once.

The recognition runs on a thread of its own (:func:`recover_in_background`): the window opens
at once and is usable, the status bar shows how far it has got, and a 10-minute tail costs
minutes of a background thread, not minutes without a window. It uses the engines and the
settings of a live run (:func:`~dictate.ui.pipeline_runner.run_options`: silence, segment
length, decoder options), voice commands aside: the words are offered as text.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QObject, Signal

from dictate.asr.registry import abilities_of
from dictate.asr.segmenter import CHUNK_SAMPLES
from dictate.audio.capture import AudioBlock
from dictate.audio.format import SAMPLE_RATE
from dictate.editing.audio_links import AudioLinks
from dictate.editing.session_audio import AudioStore, read_span
from dictate.editing.text import fit_to_context

if TYPE_CHECKING:
    from dictate.config import Settings
    from dictate.ui.main_window import MainWindow

log = logging.getLogger("dictate.ui")

MIN_TAIL_S = 0.3
"""Less unshown audio than this holds no word worth recognising."""
CONTEXT_S = 10.0
"""Seconds of the audio before the unshown part that the recogniser hears first, without
decoding it (where it can: PocketSphinx's ``warm``): its cepstral mean normalisation then starts
where the live recogniser's was, not from scratch. Measured on the crash harness's recording
(benchmarks/crash_speech.py): "thank you very much" after a shown phrase came back as "all are
you staring at you really low" from a cold recogniser, "i'll argue thank you lily my" warmed on
10 s, as the live recogniser heard it ("hon you thank you lily my")."""


def unshown_audio(
    links: AudioLinks, store: AudioStore
) -> tuple[str, float, np.ndarray, np.ndarray] | None:
    """The newest session that never ended, where its audio was shown up to, the audio after
    that, and the :data:`CONTEXT_S` before it; None if there is none (or too little of it)."""
    unfinished = sorted((name for name, s in links.sessions.items() if not s.ended), reverse=True)
    for name in unfinished[:1]:
        covered = links.sessions[name].covered
        try:
            samples = read_span(store.path(name), covered)
            before = read_span(store.path(name), max(0.0, covered - CONTEXT_S), covered)
        except OSError as exc:
            log.info("the audio of session %s cannot be read: %s", name, exc)
            return None
        if len(samples) >= MIN_TAIL_S * SAMPLE_RATE:
            return name, covered, samples, before
    return None


class _Samples:
    """Samples as an audio source for the pipeline; ``progress`` hears the fraction read."""

    name = "kept audio"
    dropped_blocks = 0
    realtime = False

    def __init__(
        self, samples: np.ndarray, progress: Callable[[float], None] | None = None
    ) -> None:
        self.samples = samples
        self.progress = progress

    def blocks(self) -> Iterator[AudioBlock]:
        step = SAMPLE_RATE // 10
        for at in range(0, len(self.samples), step):
            if self.progress is not None:
                self.progress(at / max(1, len(self.samples)))
            yield AudioBlock(self.samples[at : at + step], at / SAMPLE_RATE)

    def stop(self) -> None:
        pass


class _Warmed:
    """``engine`` whose recognisers first hear ``before`` without decoding it, in the 32 ms
    pieces the pipeline feeds (engines the registry does not declare able to warm, Vosk,
    start cold)."""

    def __init__(self, engine: Any, before: np.ndarray) -> None:
        self._engine = engine
        self._before = before

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def recognizer(self) -> Any:
        recognizer = self._engine.recognizer()
        if abilities_of(self._engine).warm and len(self._before):
            step = CHUNK_SAMPLES  # the segmenter's chunk, as the pipeline feeds it
            before = self._before
            recognizer.warm([before[at : at + step] for at in range(0, len(before), step)])
        return recognizer


def recognise_speech(
    samples: np.ndarray,
    settings: Settings,
    before: np.ndarray | None = None,
    progress: Callable[[float], None] | None = None,
) -> str:
    """``samples`` through the recognisers and punctuator the settings choose (the first pass
    and the second, with the segmenter's and the decoder's options, as the live run had them),
    as text; the first pass hears ``before`` (the audio just before them) first, where it can.
    ``progress`` hears the fraction of ``samples`` read so far."""
    from dataclasses import replace

    from dictate.asr.loader import load_engine, load_second_pass
    from dictate.punctuation.model import load_punctuation_model
    from dictate.run.assembly import build_pipeline
    from dictate.run.sink import final_text
    from dictate.ui.pipeline_runner import run_options

    engine: Any = load_engine(settings.engine, settings.first_pass_model)
    try:
        second = load_second_pass(settings.second_pass, engine)
    except Exception as exc:  # the first pass's words are still worth having
        log.info("no second pass for the recovered audio: %s", exc)
        second = None
    if before is not None:
        engine = _Warmed(engine, before)
    try:
        model: Any = load_punctuation_model()
    except Exception as exc:  # the words, unpunctuated, are still worth having
        log.info("no punctuation for the recovered audio: %s", exc)
        model = None
    events: list[Any] = []
    segmenter, text, _ = run_options(settings)
    text = replace(text, commands=False)  # offered as words: a command would act on nothing
    built = build_pipeline(
        engine, model, events.append, text, segmenter, second_pass=second, live=False
    )
    try:
        built.pipeline.run(_Samples(samples, progress))
    finally:
        built.pipeline.close()
    return final_text(events)


def offer_unshown_audio(
    window: MainWindow,
    recognise: Callable[..., str] = recognise_speech,
) -> str:
    """Recognise the audio a crash left unshown and offer its words in a message, on this
    thread; the words ("" when there were none). The window's start uses
    :func:`recover_in_background`."""
    stale = _unended(window)
    found = _find(window)
    text = _recognise(window, found, recognise) if found is not None else ""
    _offer(window, text, stale)
    return text


class _Signals(QObject):
    progress = Signal(float)
    done = Signal(str)


def recover_in_background(
    window: MainWindow,
    recognise: Callable[..., str] = recognise_speech,
) -> threading.Thread | None:
    """:func:`offer_unshown_audio` with the recognition on a thread of its own: the window is
    shown and usable meanwhile, its status bar says how far it has got, and the words are
    offered when they are ready. The thread (None: nothing to recognise)."""
    stale = _unended(window)  # not a session dictation may start meanwhile
    found = _find(window)
    if found is None:
        _offer(window, "", stale)
        return None
    seconds = len(found[2]) / SAMPLE_RATE
    signals = _Signals(window)
    status = window.statusBar()

    def show(done: float) -> None:
        status.showMessage(
            f"Recognising the last {seconds:.0f} s said before dictate stopped: "
            f"{100 * done:.0f}% (the window can be used meanwhile)…"
        )

    def finished(text: str) -> None:
        status.clearMessage()
        _offer(window, text, stale)
        signals.deleteLater()

    signals.progress.connect(show)
    signals.done.connect(finished)
    show(0.0)
    last = [0.0]

    def progress(done: float) -> None:  # the recognising thread: a signal, 5% at a time
        if done - last[0] >= 0.05:
            last[0] = done
            with contextlib.suppress(RuntimeError):  # the window was closed meanwhile
                signals.progress.emit(done)

    def work() -> None:
        text = _recognise(window, found, recognise, progress)
        with contextlib.suppress(RuntimeError):
            signals.done.emit(text)

    thread = threading.Thread(target=work, name="dictate-recover", daemon=True)
    thread.start()
    return thread


def _unended(window: MainWindow) -> list[str]:
    return [name for name, s in window.kept_audio.links.sessions.items() if not s.ended]


def _find(window: MainWindow) -> tuple[str, float, np.ndarray, np.ndarray] | None:
    keeper = window.kept_audio
    try:
        return unshown_audio(keeper.links, keeper.store())
    except Exception:  # nothing here may stop the window from opening
        log.exception("looking for unshown audio failed")
        return None


def _recognise(
    window: MainWindow,
    found: tuple[str, float, np.ndarray, np.ndarray],
    recognise: Callable[..., str],
    progress: Callable[[float], None] | None = None,
) -> str:
    name, covered, samples, before = found
    try:
        return recognise(samples, window.settings, before=before, progress=progress).strip()
    except Exception as exc:
        log.warning(
            "the audio after %.1f s of session %s was not recognised: %s", covered, name, exc
        )
        return ""


def _offer(window: MainWindow, text: str, stale: list[str]) -> None:
    """The sessions that had not ended at the start are marked ended (offered once), and
    ``text`` offered."""
    keeper = window.kept_audio
    for name in stale:
        keeper.append({"op": "end", "session": name})
    if text:
        window.messages.add_message(
            "dictate stopped before it showed the last words you said. They were recognised "
            f"again from the kept audio: \u201c{text}\u201d",
            [("&Add them at the cursor", lambda: add_at_cursor(window, text))],
        )


def add_at_cursor(window: MainWindow, text: str) -> None:
    def insert(buffer: Any) -> Any:
        at = buffer.point
        fitted = fit_to_context(text, buffer.text[:at], buffer.text[at:])
        return buffer.voice_edit(at, at, fitted)

    window.editor.edits.voice(insert)
