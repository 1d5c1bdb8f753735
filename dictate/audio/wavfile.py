"""A small, strict reader of WAV files in every layout a person is likely to have.

Python's ``wave`` module reads only integer PCM and (before 3.12) not WAVE_FORMAT_EXTENSIBLE,
which is what sox, Audacity and most recorders write for more than two channels or more than
16 bits. This reader takes integer PCM of 8, 16, 24 and 32 bits, 32/64-bit float, plain or
extensible, any rate and channel count, and streams the samples in blocks so an hour-long
recording is never loaded whole. Anything else gets one :class:`InputError` that names the
file and says how to convert it.
"""

from __future__ import annotations

import stat
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dictate.errors import InputError

_PCM = 0x0001
_FLOAT = 0x0003
_EXTENSIBLE = 0xFFFE
_CONVERT_HINT = "convert it with e.g. `sox IN.ext -r 16000 -c 1 -b 16 OUT.wav`"


@dataclass(frozen=True)
class WavInfo:
    """What the header of a WAV file says."""

    path: Path
    sample_rate: int
    channels: int
    sample_width: int
    """Bytes per sample of one channel."""
    is_float: bool
    data_offset: int
    frames: int

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return self.frames / self.sample_rate


def read_wav_info(path: str | Path) -> WavInfo:
    """Parse the header of a WAV file.

    Raises:
        InputError: The file cannot be opened, is not a RIFF/WAVE file, is truncated, or holds a
            sample format other than integer PCM or IEEE float.
    """
    path = Path(path)
    try:
        # Refused before opening: opening a FIFO with no writer blocks for ever, and a device
        # or directory is never a WAV file.
        mode = path.stat().st_mode
        if not stat.S_ISREG(mode):
            kind = (
                "a directory" if stat.S_ISDIR(mode)
                else "a FIFO" if stat.S_ISFIFO(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                else "not a regular file"
            )  # fmt: skip
            raise InputError(f"{path} is {kind}, not an audio file; give a WAV file")
        with path.open("rb") as fh:
            return _parse(path, fh)
    except FileNotFoundError:
        raise InputError(f"audio file {path} does not exist") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory, not an audio file") from None
    except OSError as exc:
        raise InputError(f"cannot read audio file {path}: {exc.strerror or exc}") from None


def _parse(path: Path, fh: object) -> WavInfo:
    read = fh.read  # type: ignore[attr-defined]
    seek = fh.seek  # type: ignore[attr-defined]
    head = read(12)
    if len(head) < 12 or head[:4] not in (b"RIFF", b"RF64") or head[8:12] != b"WAVE":
        raise InputError(f"{path} is not a WAV file (no RIFF/WAVE header); {_CONVERT_HINT}")
    fmt: tuple[int, int, int, int] | None = None
    while True:
        chunk = read(8)
        if len(chunk) < 8:
            break
        chunk_id, size = chunk[:4], struct.unpack("<I", chunk[4:])[0]
        if chunk_id == b"fmt ":
            body = read(size)
            if len(body) < 16:
                raise InputError(f"{path}: truncated WAV format chunk")
            tag, channels, rate, _, _, bits = struct.unpack("<HHIIHH", body[:16])
            if tag == _EXTENSIBLE:
                if len(body) < 26:
                    raise InputError(f"{path}: truncated WAVE_FORMAT_EXTENSIBLE chunk")
                tag = struct.unpack("<H", body[24:26])[0]
            fmt = (tag, channels, rate, bits)
            if size % 2:
                read(1)
        elif chunk_id == b"data":
            if fmt is None:
                raise InputError(f"{path}: WAV data chunk comes before its format chunk")
            tag, channels, rate, bits = fmt
            width = (bits + 7) // 8
            if tag not in (_PCM, _FLOAT) or (tag == _PCM and width not in (1, 2, 3, 4)):
                raise InputError(
                    f"{path}: unsupported WAV sample format (format tag {tag:#06x}, {bits} bits);"
                    f" {_CONVERT_HINT}"
                )
            if tag == _FLOAT and width not in (4, 8):
                raise InputError(f"{path}: unsupported {bits}-bit float WAV; {_CONVERT_HINT}")
            if channels < 1 or rate < 1:
                raise InputError(f"{path}: WAV header says {channels} channels at {rate} Hz")
            offset = seek(0, 1)
            end = seek(0, 2)
            # Streamed recorders write 0 or 0xFFFFFFFF as the size; trust the file length then.
            available = end - offset
            data_bytes = available if size in (0, 0xFFFFFFFF) else min(size, available)
            return WavInfo(
                path=path,
                sample_rate=rate,
                channels=channels,
                sample_width=width,
                is_float=tag == _FLOAT,
                data_offset=offset,
                frames=data_bytes // (width * channels),
            )
        else:
            seek(size + (size % 2), 1)
    if fmt is None:
        raise InputError(f"{path}: WAV file has no format chunk")
    raise InputError(f"{path}: WAV file has no audio data")


def _decode(raw: bytes, info: WavInfo) -> np.ndarray:
    width = info.sample_width
    if info.is_float:
        data = np.frombuffer(raw, dtype="<f4" if width == 4 else "<f8").astype(np.float32)
    elif width == 1:
        data = np.frombuffer(raw, dtype=np.uint8)
    elif width == 2:
        data = np.frombuffer(raw, dtype="<i2").astype(np.int16)
    elif width == 3:
        bytes3 = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3)
        wide = np.zeros((bytes3.shape[0], 4), dtype=np.uint8)
        wide[:, 1:] = bytes3  # little-endian: the 24 bits become the top of an int32
        data = wide.view("<i4").reshape(-1).astype(np.int32)
    else:
        data = np.frombuffer(raw, dtype="<i4").astype(np.int32)
    return data.reshape(-1, info.channels)


def iter_wav_blocks(info: WavInfo, frames_per_block: int) -> Iterator[np.ndarray]:
    """Yield the samples as arrays of shape (frames, channels) in the file's own sample type."""
    frame_bytes = info.sample_width * info.channels
    remaining = info.frames
    try:
        with info.path.open("rb") as fh:
            fh.seek(info.data_offset)
            while remaining > 0:
                want = min(frames_per_block, remaining)
                raw = fh.read(want * frame_bytes)
                got = len(raw) // frame_bytes
                if got == 0:
                    return
                yield _decode(raw[: got * frame_bytes], info)
                remaining -= got
    except OSError as exc:
        raise InputError(f"cannot read audio file {info.path}: {exc.strerror or exc}") from None
