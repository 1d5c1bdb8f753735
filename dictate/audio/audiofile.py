"""Audio files for ``dictate transcribe``: WAV, FLAC, OGG (Vorbis, Opus), MP3 and the rest of
what libsndfile reads, through :mod:`soundfile` (whose wheels carry libsndfile).

Samples are streamed in blocks, so an hour-long recording is never loaded whole. Integer PCM is
read as integers (8 and 16 bits as int16, 24 and 32 bits as int32) and everything else as
float32, which gives exactly the samples the project's earlier hand-written WAV reader gave for
every layout it read (checked sample by sample on every WAV fixture and test layout when it was
replaced). A file that cannot be read gets one :class:`InputError` that names it and says how to
convert it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile

from dictate.errors import InputError

log = logging.getLogger("dictate.audio")

CONVERT_HINT = "convert it with e.g. `ffmpeg -i IN -ar 16000 -ac 1 OUT.wav`"
READABLE = "WAV, FLAC, OGG or MP3"
MIN_RATE = 4000
MAX_RATE = 768_000
"""The sample rates a recording is read at. A header outside them is damaged or not audio: at
1 Hz, an hour of "audio" resampled to 16 kHz took over 300 s and gave no progress."""

# libsndfile subtype -> the dtype its samples are read as (lossless for integer PCM).
_INTEGER_DTYPES = {
    "PCM_S8": "int16",
    "PCM_U8": "int16",
    "PCM_16": "int16",
    "PCM_24": "int32",
    "PCM_32": "int32",
}


@dataclass(frozen=True)
class AudioInfo:
    """What an audio file's header says."""

    path: Path
    sample_rate: int
    channels: int
    frames: int
    format: str
    """libsndfile's container name: ``"WAV"``, ``"FLAC"``, ``"OGG"``, ``"MP3"``, ..."""
    subtype: str
    """libsndfile's sample encoding: ``"PCM_16"``, ``"FLOAT"``, ``"VORBIS"``, ..."""
    missing_frames: int = 0
    """Frames the header promises that the file does not hold (a WAV cut off while it was
    written or copied); :attr:`frames` counts only those it holds."""

    @property
    def missing_s(self) -> float:
        """How many seconds the file lacks, by its header."""
        return self.missing_frames / self.sample_rate

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return self.frames / self.sample_rate

    @property
    def dtype(self) -> str:
        """The numpy type its samples are read as."""
        return _INTEGER_DTYPES.get(self.subtype, "float32")


def _refuse_special(path: Path) -> None:
    """Refuse anything but a regular file before opening it: opening a FIFO with no writer
    blocks for ever, and a device or directory is never an audio file."""
    mode = path.stat().st_mode
    if stat.S_ISREG(mode):
        return
    kind = (
        "a directory" if stat.S_ISDIR(mode)
        else "a FIFO" if stat.S_ISFIFO(mode)
        else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "not a regular file"
    )  # fmt: skip
    raise InputError(f"{path} is {kind}, not an audio file; give a {READABLE} file")


def _detail(exc: Exception, path: Path) -> str:
    """libsndfile's reason without its ``Error opening '...':`` prefix (the path is said once).
    Its "File does not exist or is not a regular file (possibly a pipe?)" is what it says of a
    regular file in no format it knows (the file was checked before): said as that."""
    text = str(exc)
    prefix = f"Error opening {str(path)!r}: "
    text = (text[len(prefix) :] if text.startswith(prefix) else text).rstrip(".") or "unknown"
    if "not a regular file" in text:
        return "its format is not one libsndfile knows, or its data is damaged"
    return text


@contextlib.contextmanager
def _library_notes(path: Path) -> Iterator[None]:
    """libsndfile's decoders (libmpg123) write notes straight to the process's standard error
    ("Note: Illegal Audio-MPEG-Header..."), which printed library lines before dictate's own
    one-line error. While a header is read, they go to the log instead."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    with tempfile.TemporaryFile() as notes:
        if sys.stderr is not None:
            with contextlib.suppress(Exception):
                sys.stderr.flush()
        os.dup2(notes.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            notes.seek(0)
            said = notes.read(16384).decode("utf-8", "replace").strip()
            if said:
                log.info("the audio decoder's notes on %s: %s", path, said)


def _is_empty(path: Path) -> bool:
    try:
        return path.stat().st_size == 0
    except OSError:
        return False


def read_audio_info(path: str | Path) -> AudioInfo:
    """Read the header of an audio file.

    Raises:
        InputError: The file does not exist, is not a regular file, cannot be read, is in a
            format libsndfile does not read, or holds no audio.
    """
    if str(path) == "-":
        raise InputError(
            "audio from standard input ('-') is not supported: give the audio file's path "
            "(or `--mic` to listen to the microphone)"
        )
    path = Path(path)
    try:
        _refuse_special(path)
        with _library_notes(path):
            info = soundfile.info(str(path))
    except FileNotFoundError:
        raise InputError(f"audio file {path} does not exist") from None
    except soundfile.LibsndfileError as exc:
        if _is_empty(path):
            raise InputError(f"audio file {path} is empty (0 bytes)") from None
        raise InputError(
            f"{path} is not an audio file this app can read ({_detail(exc, path)}); give a "
            f"{READABLE} file, or {CONVERT_HINT}"
        ) from None
    except OSError as exc:
        raise InputError(f"cannot read audio file {path}: {exc.strerror or exc}") from None
    if info.channels < 1 or info.samplerate < 1:
        raise InputError(
            f"{path}: the header says {info.channels} channels at {info.samplerate} Hz"
        )
    if not MIN_RATE <= info.samplerate <= MAX_RATE:
        raise InputError(
            f"{path}: its header says {info.samplerate} Hz, not the rate of a recording (speech "
            f"is recorded at {MIN_RATE} to {MAX_RATE} Hz); if the audio is right and the header "
            f"wrong, {CONVERT_HINT} with the true rate before -i (-ar RATE -i IN ...)"
        )
    if info.frames <= 0:
        wav = str(info.format).upper() in ("WAV", "WAVEX", "RF64", "W64")
        raise InputError(
            f"{path} holds no audio (its header says 0 samples; "
            + ("a WAV recording that was cut off can be repaired with `sox --ignore-length "
               "IN.wav OUT.wav`)" if wav else f"it may be empty or damaged: {CONVERT_HINT})")
        )  # fmt: skip
    return AudioInfo(
        path=path,
        sample_rate=int(info.samplerate),
        channels=int(info.channels),
        frames=int(info.frames),
        format=str(info.format),
        subtype=str(info.subtype),
        missing_frames=_missing_frames(str(info.extra_info)),
    )


# libsndfile's notes on a WAV whose data chunk is longer than the file: "data : 282974 (should
# be 141465)" (bytes), and the frame size as "Block Align : 2".
_DATA_SIZE = re.compile(r"^data\s*:\s*(\d+)\s*\(should be (\d+)\)", re.MULTILINE)
_BLOCK_ALIGN = re.compile(r"^\s*Block Align\s*:\s*(\d+)", re.MULTILINE)


def _missing_frames(notes: str) -> int:
    """Frames a WAV header promises beyond the end of the file, from libsndfile's notes."""
    size, align = _DATA_SIZE.search(notes), _BLOCK_ALIGN.search(notes)
    if size is None or align is None or int(align.group(1)) <= 0:
        return 0
    declared, present = int(size.group(1)), int(size.group(2))
    return max(0, declared - present) // int(align.group(1))


# The C sample type libsndfile reads each dtype as.
_C_TYPES = {"int16": "short", "int32": "int", "float32": "float"}


def iter_audio_blocks(info: AudioInfo, frames_per_block: int) -> Iterator[np.ndarray]:
    """Yield the samples as arrays of shape (frames, channels), typed as :attr:`AudioInfo.dtype`.

    The blocks are read with libsndfile's ``sf_readf_*`` through soundfile's own binding rather
    than with :meth:`soundfile.SoundFile.read`: that method asks for the position and seeks
    back to it around every read, and a seek makes libsndfile's MP3 decoder start again without
    its bit reservoir, so an MP3 read in blocks came out as stretches of silence (and mpg123
    errors on stderr) while the same file read whole was right. Reading straight through gives
    the same samples as reading the file whole, for every format
    (``tests/audio/test_audiofile.py`` checks MP3 block sizes against a whole read).

    Raises:
        InputError: The file cannot be opened or decoded (damaged or cut short).
    """
    from soundfile import _ffi, _snd  # the binding soundfile itself calls

    read = getattr(_snd, f"sf_readf_{_C_TYPES[info.dtype]}")
    try:
        with soundfile.SoundFile(str(info.path)) as audio:
            handle = audio._file
            while True:
                block = np.empty((frames_per_block, info.channels), dtype=info.dtype)
                pointer = _ffi.cast(f"{_C_TYPES[info.dtype]} *", _ffi.from_buffer(block))
                got = int(read(handle, pointer, frames_per_block))
                error = int(_snd.sf_error(handle))
                if error:
                    raise soundfile.LibsndfileError(error)
                if got <= 0:
                    return
                yield block[:got]
    except soundfile.LibsndfileError as exc:
        raise InputError(
            f"cannot decode audio file {info.path} ({_detail(exc, info.path)}); it may be "
            f"damaged or cut short; {CONVERT_HINT}"
        ) from None
    except OSError as exc:
        raise InputError(f"cannot read audio file {info.path}: {exc.strerror or exc}") from None
