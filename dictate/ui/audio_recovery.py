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


def unshown_audio(links: AudioLinks, store: AudioStore) -> tuple[str, float, np.ndarray] | None:
    """The newest session that never ended, where its audio was shown up to, and the audio
    after that; None if there is none (or too little of it)."""
    unfinished = sorted((name for name, s in links.sessions.items() if not s.ended), reverse=True)
    for name in unfinished[:1]:
        covered = links.sessions[name].covered
        try:
            samples = read_span(store.path(name), covered)
        except OSError as exc:
            log.info("the audio of session %s cannot be read: %s", name, exc)
            return None
        if len(samples) >= MIN_TAIL_S * SAMPLE_RATE:
            return name, covered, samples
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


def recognise_speech(samples: np.ndarray, settings: Settings) -> str:
    """``samples`` through the recogniser and punctuator the settings choose, as text."""
    from dictate.asr.loader import load_engine
    from dictate.assembly import TextOptions, build_pipeline
    from dictate.pipeline import final_text
    from dictate.punctuation.model import load_punctuation_model

    engine = load_engine(settings.engine, settings.vosk_model)
    try:
        model: Any = load_punctuation_model()
    except Exception as exc:  # the words, unpunctuated, are still worth having
        log.info("no punctuation for the recovered audio: %s", exc)
        model = None
    events: list[Any] = []
    text = TextOptions(
        mode=settings.mode, written_forms=settings.written_forms, replacements=settings.replacements
    )
    built = build_pipeline(engine, model, events.append, text, live=False)
    built.pipeline.run(_Samples(samples))
    return final_text(events)


def offer_unshown_audio(
    window: MainWindow,
    recognise: Callable[[np.ndarray, Settings], str] = recognise_speech,
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
        name, covered, samples = found
        window.statusBar().showMessage("Recognising the last words said before the crash…")
        try:
            text = recognise(samples, window.settings).strip()
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
