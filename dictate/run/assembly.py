"""Putting a :class:`~dictate.run.pipeline.Pipeline` together: the one place that decides, from a
loaded recogniser and punctuation model, whether to punctuate, and builds the punctuator, the
written-forms writer and the voice commands. The window (:mod:`dictate.ui.pipeline_runner`),
``dictate transcribe`` and ``dictate bench pipeline`` all call :func:`build_pipeline`, so they
make the same choices.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dictate.events import Event
from dictate.run.pipeline import Pipeline


@dataclass(frozen=True)
class TextOptions:
    """What is done to the recognised words (the settings' or the command line's choices).

    ``mode``: "streaming" or "baseline" (see :func:`~dictate.punctuation.baseline.make_punctuator`);
    ``decoder``: its :class:`~dictate.punctuation.options.StreamingOptions` (None: defaults).
    """

    mode: str = "streaming"
    decoder: Any = None
    commands: bool = False
    written_forms: bool = False
    replacements: Sequence[Any] = ()
    vocabulary: Sequence[Any] = ()
    """The user's vocabulary (:class:`~dictate.writing.vocabulary.VocabularyEntry`): near
    misses rewritten to its entries (:func:`refiners_for`), each written exactly as given."""


@dataclass(frozen=True)
class Assembled:
    """A pipeline and why punctuation is off in it ("" when it is on)."""

    pipeline: Pipeline
    punctuation_off: str


def build_pipeline(
    engine: Any,
    model: Any,
    on_event: Callable[[Event], None],
    text: TextOptions | None = None,
    segmenter: Any = None,
    second_pass: Any = None,
    **pipeline_options: Any,
) -> Assembled:
    """A pipeline from ``engine`` (a loaded recogniser) to ``on_event``.

    Words in another language than ``model``'s (a punctuation model, or None for none) are
    never punctuated: periods inside Korean words help no one. Written forms and voice
    commands are English, like the punctuator, so they are off with it.

    Args:
        engine: The recogniser.
        model: The punctuation model (a tagger; its ``config.language``, English if it has
            none, is checked against the recogniser's).
        on_event: Receives every event, on the pipeline's threads.
        text: Punctuation mode, voice commands, written forms, replacements.
        segmenter: :class:`~dictate.asr.segmenter.SegmenterOptions` (None: defaults).
        second_pass: A loaded second pass (:func:`dictate.asr.loader.load_second_pass`, Whisper)
            whose words replace the first pass's for every segment; None: none.
        pipeline_options: Passed on to :class:`~dictate.run.pipeline.Pipeline` (``commit_after``,
            ``live``, ``stop_command``...).
    """
    punctuator, choices, off = text_choices(engine, model, text)
    pipeline = Pipeline(
        engine,
        punctuator,
        on_event,
        segmenter,
        refiners=refiners_for(second_pass, (text or TextOptions()).vocabulary),
        vocabulary=(text or TextOptions()).vocabulary,
        **choices,
        **pipeline_options,
    )
    return Assembled(pipeline, off)


def refiners_for(second_pass: Any, vocabulary: Sequence[Any] = ()) -> list[Any]:
    """The refiners before the command check: the second pass, where there is one, then the
    near-miss rewrite of the user's vocabulary
    (:class:`~dictate.writing.vocabulary.VocabularyEntry`), where it has entries, with the
    second pass as the judge of runs that only come near an entry where it can score words
    (Whisper)."""
    from dictate.seam.second_pass import SecondPassRefiner
    from dictate.seam.vocabulary import VocabularyRefiner
    from dictate.writing.vocabulary_match import VocabularyMatcher

    matcher = VocabularyMatcher(vocabulary)
    refiners: list[Any] = []
    if second_pass is not None:
        # The entries are not named in Whisper's prompt (SecondPassRefiner's ``vocabulary``):
        # measured (docs/vocabulary.md) it wrote more entries but nearly doubled the word
        # errors of ordinary sentences and once wrote an entry that was not said.
        refiners.append(SecondPassRefiner(second_pass))
    if matcher:
        # Whisper judges the runs that only come near an entry (docs/vocabulary.md)
        judge = second_pass if callable(getattr(second_pass, "score", None)) else None
        refiners.append(VocabularyRefiner(matcher, judge=judge))
    return refiners


def exact(text: TextOptions) -> list[Any]:
    """The user's replacements, then each vocabulary entry written exactly as given wherever
    its words stand (the punctuator's capitals and the written forms leave it as it is)."""
    from dictate.writing.replacements import Replacement

    return [*text.replacements, *(Replacement(e.written, e.written) for e in text.vocabulary)]


def text_choices(
    engine: Any, model: Any, text: TextOptions | None = None
) -> tuple[Any, dict[str, Any], str]:
    """What :func:`build_pipeline` decides for the words of ``engine``: the punctuator (None:
    none), the :class:`~dictate.text.stage.TextStage` options (``commands``, ``writer``,
    ``units``, ``addresses``) and why punctuation is off ("" when it is on). The parallel
    decode of a file (:mod:`dictate.run.file_decode`) builds its text stage from them too."""
    from dictate.asr.registry import engine_mismatch
    from dictate.punctuation.baseline import make_punctuator
    from dictate.writing.writer import make_writer

    text = text or TextOptions()
    language = getattr(getattr(model, "config", None), "language", "en")
    off = engine_mismatch(engine, language)
    punctuator = None if off else make_punctuator(model, text.mode, text.decoder)
    choices = {
        "commands": text.commands and not off,
        "writer": None if off else make_writer(text.written_forms, exact(text)),
        "units": not off,
        "addresses": text.written_forms and not off,
    }
    return punctuator, choices, off
