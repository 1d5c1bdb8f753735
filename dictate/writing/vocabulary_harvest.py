"""How the recogniser mishears a vocabulary entry, heard before the user says it.

Whisper tiny.en writes most rare names as ordinary words far from the entry ("new in" for
"Nguyen", "takacardi" for "tachycardia"), where no near miss of the entry's letters finds them.
So when an entry is added, the speech voices the app can run (:mod:`dictate.audio.speech_voices`:
Piper's neural voice at two speeds, espeak-ng, flite) say it, as written and as it sounds, in a
few carrier sentences (:data:`CARRIERS`); the second pass decodes each sentence as it decodes a
segment, and the words it wrote where the entry was said (between the carrier's own words, which
must come back exactly: :func:`heard_in`) are the entry's misheard forms. This is the zero-shot
method of arXiv 2508.17796 (Whisper's misspellings harvested from synthesised speech), used as
candidates only: a run of heard words near a misheard form is put to Whisper's judgement of the
segment's audio (:class:`~dictate.seam.vocabulary.VocabularyRefiner`), never rewritten on its
own ("chicago" was heard for "GitHub" said by flite).

The forms are kept in ``vocabulary-misheard.jsonl`` beside the vocabulary (one record a line,
the journal's checksummed format), never in the user's own file: the harvester runs in a
background process (:func:`start_harvest`, ``dictate vocabulary harvest``) while the user may
change the vocabulary, and it only appends. A record names the entry (its written form and
sounds-like: an entry whose sounds-like changed is harvested again), the model that heard it,
and the forms; a correction ("correct that" to an entry) adds the words heard as a form of the
entry chosen (``by``: "correction").
"""

from __future__ import annotations

import fcntl
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dictate.audio.format import SAMPLE_RATE
from dictate.editing.journal_records import decode_record, encode_record
from dictate.fileio import bounded_lines, open_private, open_regular, private_dir
from dictate.writing.vocabulary import VocabularyEntry, default_vocabulary_path, load_vocabulary

log = logging.getLogger("dictate.vocabulary")

FILE_NAME = "vocabulary-misheard.jsonl"
VERSION = 1
"""The harvest's method: records of another version are harvested again."""
CARRIERS = (
    "We talked about {} yesterday.",
    "I wrote {} on the list.",
    "Please ask {} again.",
)
"""Sentences an entry is said in. Ordinary words around it, as the user will say it among words:
an entry said alone is heard differently (Whisper writes a sentence of it)."""
PAD_S = 0.3
"""Silence put before and after each sentence (the segmenter's pre-roll and end)."""
MAX_FORMS = 8
"""Forms kept for one entry, the most heard first."""
NO_HARVEST_ENV = "DICTATE_NO_HARVEST"
"""Set (to anything but "" or "0"): :func:`start_harvest` starts nothing (the test suite)."""


def misheard_path(vocabulary_path: Path | None = None) -> Path:
    return (vocabulary_path or default_vocabulary_path()).parent / FILE_NAME


def _words(text: str) -> list[str]:
    return [w for w in (part.strip(".,?!;:\"'").lower() for part in text.split()) if w]


def heard_in(carrier: str, heard: Sequence[str]) -> list[tuple[str, ...]]:
    """The words of ``heard`` at each of ``carrier``'s ``{}``, in order, as far as the
    carrier's own words came back exactly around them: its first words must start ``heard``,
    and each hole ends where the next run of the carrier's words is found. A sentence Whisper
    misheard there tells nothing sure of the entry: the holes after it are left out."""
    groups = [_words(part) for part in carrier.split("{}")]
    words = [w.lower() for w in heard]
    if words[: len(groups[0])] != groups[0]:
        return []
    out: list[tuple[str, ...]] = []
    at = len(groups[0])
    for group in groups[1:]:
        if not group:  # the carrier ends with a hole: the rest
            end = next_at = len(words)
        else:
            end = next(
                (j for j in range(at + 1, len(words) - len(group) + 1)
                 if words[j : j + len(group)] == group),
                -1,
            )  # fmt: skip
            if end < 0:
                break
            next_at = end + len(group)
        if end > at:
            out.append(tuple(words[at:end]))
        at = next_at
    return out


def _letters(words: Iterable[str]) -> str:
    return "".join(c for c in "".join(words).lower() if c.isalnum())


def harvest_entry(
    entry: VocabularyEntry,
    decode: Callable[[np.ndarray], Sequence[str]],
    voices: Sequence[Any],
    say: Callable[[str, Any], np.ndarray] | None = None,
) -> list[tuple[str, ...]]:
    """The words ``decode`` (audio -> the words heard) writes for ``entry`` said by each of
    ``voices`` in the carrier sentences (said as one clip, decoded as one segment: Whisper's
    window holds them all, for the cost of one), as written and as it sounds: the forms that are
    not the entry's own words, the most heard first (then in the order heard), at most
    :data:`MAX_FORMS`."""
    return forms_heard(entry, said_clips(entry, voices, say), decode)


def said_clips(
    entry: VocabularyEntry,
    voices: Sequence[Any],
    say: Callable[[str, Any], np.ndarray] | None = None,
) -> list[np.ndarray]:
    """The clips :func:`harvest_entry` decodes: the carrier sentences with ``entry`` as written
    and as it sounds, said by each of ``voices`` that can speak here, with :data:`PAD_S` of
    silence around."""
    if say is None:
        from dictate.audio import speech_voices

        say = speech_voices.say
    texts = list(dict.fromkeys(t for t in (entry.written, entry.sounds) if t))
    carrier = " ".join(CARRIERS)
    pad = np.zeros(round(PAD_S * SAMPLE_RATE), np.int16)
    clips = []
    for voice in voices:
        for text in texts:
            try:
                audio = say(carrier.replace("{}", text), voice)
            except (OSError, ImportError, RuntimeError) as exc:
                # (not which entry: the log keeps none of the user's words)
                log.info("%s could not say an entry: %s", getattr(voice, "name", voice), exc)
                break  # this voice cannot speak here
            clips.append(np.concatenate([pad, audio, pad]))
    return clips


def forms_heard(
    entry: VocabularyEntry,
    clips: Iterable[np.ndarray],
    decode: Callable[[np.ndarray], Sequence[str]],
) -> list[tuple[str, ...]]:
    """The forms ``decode`` writes for ``entry`` in ``clips`` (:func:`said_clips`), as
    :func:`harvest_entry` returns them."""
    own = {_letters([entry.written]), _letters(entry.spoken)}
    carrier = " ".join(CARRIERS)
    counts: dict[tuple[str, ...], int] = {}
    for clip in clips:
        for form in heard_in(carrier, decode(clip)):
            if _letters(form) and _letters(form) not in own:
                counts[form] = counts.get(form, 0) + 1
    ranked = sorted(counts, key=lambda f: -counts[f])  # stable: ties in the order heard
    return ranked[:MAX_FORMS]


def harvest_entries(
    entries: Sequence[VocabularyEntry],
    decode: Callable[[np.ndarray], Sequence[str]],
    voices: Sequence[Any],
    say: Callable[[str, Any], np.ndarray] | None = None,
    ahead: int = 2,
) -> Iterator[tuple[VocabularyEntry, list[tuple[str, ...]]]]:
    """Each of ``entries`` and its forms (:func:`harvest_entry`), in order, the next ``ahead``
    entries said by the voices in a thread while the recogniser decodes the clips of the one
    before: the two take about as long each (speech synthesis and Whisper both run outside
    Python's lock), so on two cores a harvest takes about half the time. The same forms as
    one at a time: each clip is said and decoded alone."""
    from concurrent.futures import Future, ThreadPoolExecutor

    with ThreadPoolExecutor(1, thread_name_prefix="dictate-say") as pool:
        queued: list[Future[list[np.ndarray]]] = []
        for at, entry in enumerate(entries):
            while len(queued) < ahead + 1 and at + len(queued) < len(entries):
                queued.append(pool.submit(said_clips, entries[at + len(queued)], voices, say))
            clips = queued.pop(0).result()
            yield entry, forms_heard(entry, clips, decode)


class MisheardFile:
    """The misheard forms on disk (see the module's docstring). Reading skips a damaged line;
    writing appends one line a record."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or misheard_path()

    def records(self) -> list[dict[str, Any]]:
        try:
            fh = open_regular(self.path)
        except (FileNotFoundError, ValueError):
            return []
        out = []
        with fh:
            for raw in bounded_lines(fh):
                try:
                    record = decode_record((raw or b"").rstrip(b"\r\n"))
                except (ValueError, TypeError):
                    continue
                if isinstance(record, dict) and isinstance(record.get("written"), str):
                    out.append(record)
        return out

    def append(self, entry: VocabularyEntry, forms: Sequence[Sequence[str]], **about: Any) -> None:
        private_dir(self.path.parent)
        record = {"written": entry.written, "sounds": entry.sounds,
                  "heard": [list(f) for f in forms], **about}  # fmt: skip
        with open_private(self.path) as fh:
            fh.write(encode_record(record))

    def harvested(self, model: str) -> set[tuple[str, str]]:
        """The entries (written form, sounds-like) harvested by ``model`` at :data:`VERSION`."""
        return {
            (r["written"], r.get("sounds", ""))
            for r in self.records()
            if r.get("by") == "harvest" and r.get("model") == model and r.get("version") == VERSION
        }


def load_misheard(
    entries: Sequence[VocabularyEntry], path: Path | None = None
) -> dict[str, list[tuple[str, ...]]]:
    """For each of ``entries``' keys, its misheard forms (harvested, at most :data:`MAX_FORMS`
    a harvest, or from corrections, by any model), in the order recorded; entries with none are
    left out. A file that cannot be read gives none: the entries' own forms still work."""
    wanted = {(e.written, e.sounds): e.key for e in entries}
    out: dict[str, list[tuple[str, ...]]] = {}
    try:
        records = MisheardFile(path).records()
    except OSError as exc:
        log.warning("the vocabulary's misheard forms could not be read: %s", exc)
        return {}
    for record in records:
        key = wanted.get((record["written"], record.get("sounds", "")))
        if key is None:
            continue
        forms = out.setdefault(key, [])
        heard = record.get("heard") or []
        for form in heard[:MAX_FORMS] if record.get("by") == "harvest" else heard:
            words = tuple(str(w) for w in form) if isinstance(form, list) else ()
            if words and words not in forms:
                forms.append(words)
    return {k: v for k, v in out.items() if v}


def pending(
    entries: Sequence[VocabularyEntry], model: str, path: Path | None = None
) -> list[VocabularyEntry]:
    """Those of ``entries`` not harvested by ``model`` yet."""
    done = MisheardFile(path).harvested(model)
    return [e for e in entries if (e.written, e.sounds) not in done]


def whisper_decoder(second_pass: str = "tiny.en", threads: int = 1) -> tuple[Callable, str]:
    """A decode (int16 audio -> words) by the second pass named ``second_pass``, as it decodes
    a segment, and the model's name for the records."""
    from dictate.asr.whisper_engine import WhisperOptions, WhisperSecondPass

    whisper = WhisperSecondPass(WhisperOptions(model=second_pass, device="cpu", threads=threads))

    def decode(audio: np.ndarray) -> list[str]:
        result = whisper.decode_audio(audio, 0.0)
        return [w.text for w in result.words] if result.verdict == "speech" else []

    return decode, _model_name(second_pass)


def _model_name(model: str) -> str:
    return Path(model).name if os.sep in model else model


def harvest_pending(
    vocabulary_path: Path | None = None,
    second_pass: str = "tiny.en",
    progress: Callable[[int, int, VocabularyEntry], None] | None = None,
) -> int:
    """Harvest every entry of the vocabulary at ``vocabulary_path`` that has no record yet
    (looking again after each round: entries added meanwhile are harvested too); the entries
    harvested. One harvester at a time (a lock file): where another holds it, returns 0."""
    from dictate.audio.speech_voices import installed

    voices = installed()
    if not voices:
        log.info("no speech voice is installed: the vocabulary's misheard forms are not heard")
        return 0
    path = misheard_path(vocabulary_path)
    private_dir(path.parent)
    with open(path.with_suffix(".lock"), "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return 0
        decoder: tuple[Callable, str] | None = None
        done = 0
        while True:
            entries = load_vocabulary(vocabulary_path)
            if decoder is None:
                model = _model_name(second_pass)
                if not pending(entries, model, path):
                    return done
                decoder = whisper_decoder(second_pass)
            decode, model = decoder
            todo = pending(entries, model, path)
            if not todo:
                return done
            for n, (entry, forms) in enumerate(harvest_entries(todo, decode, voices), 1):
                names = [v.name for v in voices]
                MisheardFile(path).append(entry, forms, by="harvest", model=model,
                                          version=VERSION, voices=names)  # fmt: skip
                done += 1
                if progress is not None:
                    progress(n, len(todo), entry)


def start_harvest(second_pass: str = "auto") -> bool:
    """Start ``dictate vocabulary harvest`` in the background for the second pass
    ``second_pass`` (a setting's value), at a low priority: the user waits for nothing and
    dictation keeps its CPU. False where nothing was started (no second pass to harvest for,
    every entry heard already, turned off by :data:`NO_HARVEST_ENV`, or it could not start):
    the dialog's OK with nothing changed starts no process."""
    model = harvest_model(second_pass)
    if os.environ.get(NO_HARVEST_ENV, "") not in ("", "0") or model is None:
        return False
    try:
        if not pending(load_vocabulary(), _model_name(model)):
            return False
    except OSError as exc:
        log.warning("the vocabulary's misheard forms could not be read: %s", exc)
        return False
    command = [sys.executable, "-m", "dictate", "vocabulary", "harvest", "--quiet",
               "--second-pass", second_pass]  # fmt: skip
    try:
        subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, preexec_fn=lambda: os.nice(10),
        )  # fmt: skip
    except OSError as exc:
        log.warning("the vocabulary's harvest could not start: %s", exc)
        return False
    return True


def harvest_model(second_pass: str | None) -> str | None:
    """The Whisper model the forms are heard by for the second-pass setting ``second_pass``
    ("auto": the default model; "off": None, the forms serve only Whisper's judgement)."""
    from dictate.asr.loader import AUTO
    from dictate.asr.registry import OFF, WHISPER

    if second_pass in (None, "", OFF):
        return None
    return WHISPER.default_model if second_pass == AUTO else second_pass
