"""After a crash: the words said but never shown, recognised again from the kept audio.

The journal recovers every word that was shown (finalized, or pending); the words of the phrase
being spoken at the crash were only partial words, never journaled. Their audio is on disk
(:mod:`dictate.editing.session_audio`, flushed every second), and the links' ``covered`` mark
(:mod:`dictate.editing.audio_links`) says up to where the session's audio was shown as text: at
the next start, the audio of the newest session that never ended, past that mark, is recognised
again and offered in a message ("Add them" puts the words at the cursor). The session is then
marked ended, so it is offered once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

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
    """Samples as an audio source for the pipeline."""

    name = "kept audio"
    dropped_blocks = 0
    realtime = False

    def __init__(self, samples: np.ndarray) -> None:
        self.samples = samples

    def blocks(self) -> Iterator[AudioBlock]:
        step = SAMPLE_RATE // 10
        for at in range(0, len(self.samples), step):
            yield AudioBlock(self.samples[at : at + step], at / SAMPLE_RATE)

    def stop(self) -> None:
        pass


class _Warmed:
    """``engine`` whose recognisers first hear ``before`` without decoding it, in the 32 ms
    pieces the pipeline feeds (engines that cannot, Vosk, start cold)."""

    def __init__(self, engine: Any, before: np.ndarray) -> None:
        self._engine = engine
        self._before = before

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def recognizer(self) -> Any:
        recognizer = self._engine.recognizer()
        warm = getattr(recognizer, "warm", None)
        if warm is not None and len(self._before):
            step = CHUNK_SAMPLES  # the segmenter's chunk, as the pipeline feeds it
            warm([self._before[at : at + step] for at in range(0, len(self._before), step)])
        return recognizer


def recognise_speech(
    samples: np.ndarray, settings: Settings, before: np.ndarray | None = None
) -> str:
    """``samples`` through the recognisers and punctuator the settings choose (the first pass
    and the second, as the live run had them), as text; the first pass hears ``before`` (the
    audio just before them) first, where it can."""
    from dictate.asr.loader import load_engine, load_second_pass
    from dictate.assembly import TextOptions, build_pipeline
    from dictate.pipeline import final_text
    from dictate.punctuation.model import load_punctuation_model

    engine: Any = load_engine(settings.engine, settings.vosk_model)
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
    text = TextOptions(
        mode=settings.mode, written_forms=settings.written_forms, replacements=settings.replacements
    )
    built = build_pipeline(engine, model, events.append, text, second_pass=second, live=False)
    built.pipeline.run(_Samples(samples))
    return final_text(events)


def offer_unshown_audio(
    window: MainWindow,
    recognise: Callable[..., str] = recognise_speech,
) -> str:
    """Recognise the audio a crash left unshown and offer its words in a message; the words
    ("" when there were none)."""
    keeper = window.kept_audio
    try:
        found = unshown_audio(keeper.links, keeper.store())
    except Exception:  # nothing here may stop the window from opening
        log.exception("looking for unshown audio failed")
        found = None
    text = ""
    if found is not None:
        name, covered, samples, before = found
        window.statusBar().showMessage("Recognising the last words said before the crash…")
        try:
            text = recognise(samples, window.settings, before=before).strip()
        except Exception as exc:
            log.warning(
                "the audio after %.1f s of session %s was not recognised: %s", covered, name, exc
            )
        window.statusBar().clearMessage()
    for name, state in list(keeper.links.sessions.items()):
        if not state.ended:  # offered once
            keeper.append({"op": "end", "session": name})
    if text:
        window.messages.add_message(
            "dictate stopped before it showed the last words you said. They were recognised "
            f"again from the kept audio: \u201c{text}\u201d",
            [("&Add them at the cursor", lambda: add_at_cursor(window, text))],
        )
    return text


def add_at_cursor(window: MainWindow, text: str) -> None:
    def insert(buffer: Any) -> Any:
        at = buffer.point
        fitted = fit_to_context(text, buffer.text[:at], buffer.text[at:])
        return buffer.voice_edit(at, at, fitted)

    window.editor.voice(insert)
