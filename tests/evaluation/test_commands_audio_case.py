"""The command audio benchmark's own path (benchmarks/commands_audio.py): one case synthesised,
run through the real pipeline (PocketSphinx, the shipped punctuator) and scored. It wraps the
text stage's ``segment``, so a change of that signature must not break it unnoticed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dictate.evaluation.commands_audio import (
    VOICES,
    build_case,
    command_cases,
    pipeline_factory,
    run_case,
    score,
)


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("flite") is None or shutil.which("sox") is None,
    reason="flite and sox synthesise the case (apt install flite sox)",
)
def test_one_command_case_runs_through_the_pipeline_and_is_scored(tmp_path: Path) -> None:
    voice = next(v for v in VOICES if v.synth == "flite" and not v.slow)
    [case] = command_cases(["new paragraph"], [voice], per_phrase=1)
    built = build_case(case, tmp_path)
    run = run_case(pipeline_factory()(), built.path)
    assert run.fed and run.heard  # every segment reached the text stage through the wrapper
    heard = [w.text for words, _ in run.fed for w in words]
    assert len(heard) >= 4 and run.text  # the two sentences around the phrase were dictated
    result = score(case, built, run)  # scored without error, whatever was heard
    assert result.carried in (True, False)


def test_a_select_of_words_not_in_the_text_is_no_false_trigger() -> None:
    """A dictated sentence that starts with "select" names words that are not in the text: it
    did nothing and was written as dictation, so it is no false trigger; one whose words were
    in the text selected them, and is one."""
    from dictate.asr.engine import Word
    from dictate.evaluation.commands_audio import Built, Case, Run

    words = [Word(w, 1.0 + i / 4, 1.2 + i / 4) for i, w in enumerate("select the menu".split())]
    case = Case("d", "dictation", VOICES[0], ("Select the menu.",), ())
    built = Built(Path("unused.wav"), ((0.5, 2.0),))
    run = Run(fed=[(words, [])], dictated=["select the menu"])
    assert score(case, built, run).triggers == 0
    assert score(case, built, Run(fed=[(words, [])])).triggers == 1
