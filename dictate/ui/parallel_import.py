"""An audio file transcribed in the window by several recognisers at once
(:mod:`dictate.run.file_decode`), where the words are the same as one recogniser's.

That is so for an engine that can hear audio without decoding it (its ability ``warm`` in
:mod:`dictate.asr.registry`: PocketSphinx; every worker hears the whole file;
docs/parallel-decode.md), not for Vosk: its words' times, now and then a word, differ from a
sequential run's, and every worker loads the model again (650 MB each for the Korean model
measured there). So with Vosk the window transcribes with the pipeline, one recogniser, as
before. Either way the window's second pass (Whisper) settles each segment's words, as it does
for ``dictate transcribe``; where it is "auto" and a more accurate Whisper model is installed
than the one dictation uses (:mod:`dictate.asr.tiers`), a parallel run loads that one for the
file (on one thread: the workers, which load their own copies, hold the cores) and frees it
at the end.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from dictate.cpus import usable_cpus

MAX_WORKERS = 4
"""At most this many recogniser processes (about 150 MB each for PocketSphinx)."""


def window_workers() -> int:
    """How many recognisers the window decodes a file with: one per core, up to
    :data:`MAX_WORKERS`."""
    return max(1, min(MAX_WORKERS, usable_cpus()))


def parallel_run_factory(
    source: Any, workers: int, second_pass: Callable[[], Any] | None = None, auto: bool = False
) -> Callable[..., Any]:
    """The ``run_factory`` for :meth:`~dictate.ui.pipeline_runner.DictationController.start`:
    a :class:`~dictate.run.file_decode.ParallelRun` of ``source``'s file with ``workers``
    recognisers, reporting its progress in ``source`` (a
    :class:`~dictate.ui.audio_progress.ProgressSource`, whose blocks are then never read); None
    (the pipeline) for one worker or an engine whose parallel words would not be exact.

    ``second_pass()`` returns the second pass the controller loaded for this run (None: none);
    it refines each segment before the command check, as in the pipeline. ``auto``: the
    setting is "auto", so a file takes the files tier."""

    def make(
        engine: Any,
        model: Any,
        segmenter_options: Any,
        text: Any,
        commit_after: float | None,
        on_event: Callable[[Any], None],
    ) -> Any:
        from dictate.asr.registry import abilities_of

        if workers < 2 or not abilities_of(engine).warm:
            return None
        from dictate.run.assembly import build_file_run

        def progress(done: float, total: float) -> None:
            source.done_s = done

        def speech(done: float, read: float, read_s: float) -> None:
            source.speech = (done, read, read_s)

        source.started = time.monotonic()
        second = second_pass() if second_pass is not None else None
        owned = files_tier(engine) if auto and second is not None else None
        run, _ = build_file_run(
            source.info.path, engine, model, on_event, text, segmenter_options, owned or second,
            workers, commit_after=commit_after, progress=progress, speech=speech,
        )  # fmt: skip
        if owned is not None:
            run.owned.append(owned)
        return run

    return make


def files_tier(engine: Any) -> Any:
    """The Whisper model "auto" uses for files, loaded on one thread, where it is another than
    the one it dictates with; else None."""
    from dictate.asr.loader import AUTO, load_second_pass
    from dictate.asr.tiers import auto_model

    if auto_model("files") == auto_model("live"):
        return None
    return load_second_pass(AUTO, engine, threads=1, use="files")
