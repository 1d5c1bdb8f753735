"""Putting a run together: the one place that decides, from a loaded recogniser and punctuation
model, whether to punctuate, and builds the punctuator, the written-forms writer, the voice
commands, the refiner chain (:func:`refiner_chain`: the second pass, the vocabulary, the command
check), the sink they feed (:func:`build_sink`) and every run: a live or one-worker
:class:`~dictate.run.pipeline.Pipeline` (:func:`build_pipeline`) and a file decoded by several
recogniser processes (:func:`build_file_run`). The window, ``dictate transcribe``, recovery and
the benchmarks all call these, so they make the same choices.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dictate.events import Event
from dictate.run.file_decode import ParallelRun
from dictate.run.pipeline import Pipeline
from dictate.run.sink import Sink
from dictate.text.stage import TextStage


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
    misheard: Mapping[str, Sequence[Sequence[str]]] = field(default_factory=dict)
    """Words Whisper wrote for its entries said by speech voices
    (:func:`dictate.writing.vocabulary_harvest.load_misheard`): what comes near them is put to
    Whisper's judgement."""


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
            ``live``...), but ``stop_command`` and ``command_decode`` (the command check's second
            decode; on by default) to :func:`build_sink`.
    """
    punctuator, choices, off = text_choices(engine, model, text)
    text = text or TextOptions()
    options = dict(pipeline_options)
    stop_command = options.pop("stop_command", True)
    command_decode = options.pop("command_decode", True)
    sink = build_sink(engine, punctuator, on_event, choices, stop_command=stop_command,
                      second_pass=second_pass, vocabulary=text.vocabulary,
                      command_decode=command_decode, misheard=text.misheard)  # fmt: skip
    pipeline = Pipeline(engine, sink, segmenter, vocabulary=text.vocabulary, **options)
    return Assembled(pipeline, off)


def make_pipeline(
    engine: Any,
    punctuator: Any,
    on_event: Callable[[Event], None],
    segmenter: Any = None,
    vad: Callable[[Any], float] | None = None,
    *,
    commands: bool = False,
    command_decode: bool = True,
    stop_command: bool = True,
    writer: Callable[[str], str] | None = None,
    **pipeline_options: Any,
) -> Pipeline:
    """A pipeline with a punctuator of the caller's own (None: raw words) and no second pass:
    for tests and benchmarks of the stages themselves. ``command_decode``: the command check
    decodes a short segment again against the command phrases (where the engine can)."""
    choices = {"commands": commands, "writer": writer, "units": True, "addresses": False}
    sink = build_sink(engine, punctuator, on_event, choices, stop_command=stop_command,
                      command_decode=command_decode)  # fmt: skip
    return Pipeline(engine, sink, segmenter, vad, **pipeline_options)


def build_sink(
    engine: Any,
    punctuator: Any,
    on_event: Callable[[Event], None],
    choices: dict[str, Any],
    *,
    stop_command: bool = True,
    second_pass: Any = None,
    vocabulary: Sequence[Any] = (),
    command_decode: bool = True,
    misheard: Mapping[str, Sequence[Sequence[str]]] | None = None,
) -> Sink:
    """The text stage (``choices``: :func:`text_choices`' options) and the refiner chain
    (:func:`refiner_chain`) that every run feeds its closed segments to."""
    text = TextStage(punctuator, on_event, stop_command=stop_command, **choices)
    commands = choices["commands"] and command_decode
    refiners = refiner_chain(second_pass, vocabulary, engine if commands else None, misheard)
    return Sink(refiners, text, on_event)


def build_file_run(
    path: str | Path,
    engine: Any,
    model: Any,
    on_event: Callable[[Event], None],
    text: TextOptions | None = None,
    segmenter: Any = None,
    second_pass: Any = None,
    workers: int = 1,
    processes: bool | None = None,
    **options: Any,
) -> tuple[Any, str]:
    """The run that transcribes the audio file ``path`` (and why punctuation is off, "" when
    on): with one worker, a :class:`~dictate.run.pipeline.Pipeline` (start it on the file's
    source; ``options``: its own, e.g. ``live``); with more, a
    :class:`~dictate.run.file_decode.ParallelRun` (``options``: :func:`decode_file`'s, e.g.
    ``progress``, ``chunk_s``). Either gives the same words (docs/parallel-decode.md).
    ``processes``: decode in worker processes even with one worker (benchmarks)."""
    if not (workers > 1 if processes is None else processes):
        # No one stops a file: "stop dictating" does nothing.
        built = build_pipeline(engine, model, on_event, text, segmenter, second_pass,
                               stop_command=False, **options)  # fmt: skip
        return built.pipeline, built.punctuation_off
    punctuator, choices, off = text_choices(engine, model, text)
    text = text or TextOptions()
    vocabulary = text.vocabulary
    sink = build_sink(engine, punctuator, on_event, choices, stop_command=False,
                      second_pass=second_pass, vocabulary=vocabulary,
                      misheard=text.misheard)  # fmt: skip
    run = ParallelRun(path, engine, sink, workers, segmenter_options=segmenter,
                      vocabulary=vocabulary, **options)  # fmt: skip
    return run, off


def refiner_chain(
    second_pass: Any,
    vocabulary: Sequence[Any] = (),
    commands: Any = None,
    misheard: Mapping[str, Sequence[Sequence[str]]] | None = None,
) -> list[Any]:
    """What settles a closed segment's words, in order: the second pass, where there is one;
    the near-miss rewrite of the user's vocabulary
    (:class:`~dictate.writing.vocabulary.VocabularyEntry`), where it has entries, with the
    second pass as the judge of runs that only come near an entry where it can score words
    (Whisper); then, where ``commands`` is an engine (commands are on), the command check of a
    short segment said apart: judged by the second pass where it can score words (Whisper),
    else by the engine's command decoder where one can be made."""
    from dictate.asr.registry import abilities_of
    from dictate.commands.heard import command_decoder_for
    from dictate.seam.command_refiner import CommandRefiner
    from dictate.seam.second_pass import SecondPassRefiner
    from dictate.seam.vocabulary import VocabularyRefiner
    from dictate.writing.vocabulary_match import VocabularyMatcher

    scores = second_pass is not None and abilities_of(second_pass).score
    # the misheard forms serve only Whisper's judgement
    matcher = VocabularyMatcher(vocabulary, misheard=misheard if scores else None)
    refiners: list[Any] = []
    if second_pass is not None:
        # The entries are not named in Whisper's prompt (SecondPassRefiner's ``vocabulary``):
        # measured (docs/vocabulary.md) it wrote more entries but nearly doubled the word
        # errors of ordinary sentences and once wrote an entry that was not said.
        refiners.append(SecondPassRefiner(second_pass))
    if matcher:
        # Whisper judges the runs that only come near an entry (docs/vocabulary.md)
        judge = second_pass if abilities_of(second_pass).score else None
        refiners.append(VocabularyRefiner(matcher, judge=judge))
    if commands is not None and second_pass is not None and abilities_of(second_pass).score:
        # Whisper judges a command said apart from the audio (dictate.commands.judge)
        refiners.append(CommandRefiner(None, judge=second_pass))
        return refiners
    decoder = command_decoder_for(commands) if commands is not None else None
    if decoder is not None:
        refiners.append(CommandRefiner(decoder))
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
    ``units``, ``addresses``) and why punctuation is off ("" when it is on)."""
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
