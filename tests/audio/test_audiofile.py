"""Audio file reading (soundfile) and conversion to 16 kHz mono int16, on WAV files the tests
write in every layout and on FLAC, OGG and MP3 files written with soundfile."""

from __future__ import annotations

import itertools
import os
import struct
import wave
from pathlib import Path

import numpy as np
import pytest
import soundfile

from dictate.audio.audiofile import iter_audio_blocks, read_audio_info
from dictate.audio.capture import FileSource
from dictate.audio.format import SAMPLE_RATE
from dictate.audio.resample import Resampler, level_dbfs, to_float_mono
from dictate.errors import InputError


def sine(rate: int, seconds: float, freq: float = 440.0, amp: float = 0.5) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float64)


def riff(fmt_tag: int, channels: int, rate: int, bits: int, data: bytes, extensible: bool) -> bytes:
    block = channels * bits // 8
    if extensible:
        tail = b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
        guid = struct.pack("<H", fmt_tag) + tail  # KSDATAFORMAT_SUBTYPE_PCM / _IEEE_FLOAT
        fmt = struct.pack(
            "<HHIIHHHHI", 0xFFFE, channels, rate, rate * block, block, bits, 22, bits, 0
        )
        fmt += guid
    else:
        fmt = struct.pack("<HHIIHH", fmt_tag, channels, rate, rate * block, block, bits)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"LIST" + struct.pack("<I", 4) + b"INFO"  # an unrelated chunk to skip
    body += b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


def encode(signal: np.ndarray, bits: int, is_float: bool) -> bytes:
    if is_float:
        return signal.astype("<f4" if bits == 32 else "<f8").tobytes()
    if bits == 8:
        return np.clip(np.rint(signal * 127 + 128), 0, 255).astype(np.uint8).tobytes()
    if bits == 16:
        return np.rint(signal * 32767).astype("<i2").tobytes()
    if bits == 24:
        values = np.rint(signal * (2**23 - 1)).astype("<i4")
        return values.view(np.uint8).reshape(-1, 4)[:, :3].tobytes()
    return np.rint(signal * (2**31 - 1)).astype("<i4").tobytes()


LAYOUTS = [
    # (rate, channels, bits, float, extensible)
    (16000, 1, 16, False, False),
    (44100, 2, 16, False, False),
    (48000, 1, 24, False, True),
    (8000, 1, 8, False, False),
    (22050, 6, 32, False, True),
    (48000, 2, 32, True, False),
    (96000, 1, 64, True, True),
]


@pytest.mark.parametrize(("rate", "channels", "bits", "is_float", "extensible"), LAYOUTS)
def test_every_layout_becomes_16k_mono_with_the_tone_kept(
    tmp_path: Path, rate: int, channels: int, bits: int, is_float: bool, extensible: bool
) -> None:
    mono = sine(rate, 1.5)
    frames = np.repeat(mono[:, None], channels, axis=1).reshape(-1)
    path = tmp_path / "x.wav"
    tag = 3 if is_float else 1
    path.write_bytes(riff(tag, channels, rate, bits, encode(frames, bits, is_float), extensible))

    info = read_audio_info(path)
    assert (info.sample_rate, info.channels) == (rate, channels)
    assert (info.dtype == "float32") == is_float
    assert info.frames == len(mono)
    samples = np.concatenate([b.samples for b in FileSource(path, block_ms=37).blocks()])
    assert samples.dtype == np.int16
    assert abs(len(samples) - 1.5 * SAMPLE_RATE) <= 2  # no samples lost or invented
    spectrum = np.abs(np.fft.rfft(samples.astype(np.float64)))
    peak_hz = np.argmax(spectrum) * SAMPLE_RATE / len(samples)
    assert abs(peak_hz - 440) < 2
    # Amplitude kept (0.5 of full scale) within the resampler's ripple and 8-bit rounding.
    assert 0.45 * 32767 < np.abs(samples[1000:-1000]).max() < 0.55 * 32767


def test_block_times_are_sample_exact(tmp_path: Path) -> None:
    path = tmp_path / "t.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(44100)
        w.writeframes(np.zeros(44100, dtype="<i2").tobytes())
    blocks = list(FileSource(path, block_ms=100).blocks())
    for before, after in itertools.pairwise(blocks):
        assert after.start == pytest.approx(before.end)


def test_resampler_in_pieces_equals_whole() -> None:
    signal = sine(48000, 1.0)
    whole = Resampler(48000)
    expected = np.concatenate([whole.process(signal), whole.flush()])
    pieces = Resampler(48000)
    parts = [pieces.process(signal[i : i + 777]) for i in range(0, len(signal), 777)]
    got = np.concatenate([*parts, pieces.flush()])
    assert len(got) == len(expected)
    assert np.abs(got.astype(int) - expected.astype(int)).max() <= 1


def test_stereo_is_averaged_and_level_measured() -> None:
    left = np.full(100, 0.5, dtype=np.float32)
    stereo = np.stack([left, -left], axis=1)
    assert np.allclose(to_float_mono(stereo), 0.0)
    assert level_dbfs(np.zeros(10, dtype=np.int16)) == -100.0
    full = np.full(100, 32767, dtype=np.int16)
    assert level_dbfs(full) == pytest.approx(0.0, abs=0.01)
    assert level_dbfs(full // 10) == pytest.approx(-20.0, abs=0.05)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", r"is empty \(0 bytes\)"),
        (b"ID3\x03\x00 an mp3 file", "not an audio file this app can read"),
        (b"RIFF\x10\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01", "Malformed 'fmt ' chunk"),
        (riff(0x55, 1, 8000, 8, b"\x00" * 100, False), "not an audio file this app can read"),
        (riff(1, 1, 8000, 12, b"\x00" * 100, False)[:44], "No 'data' chunk"),
        (riff(1, 0, 8000, 16, b"\x00" * 100, False), "Channel count is zero"),
        (riff(1, 1, 8000, 16, b"", False), "holds no audio"),
    ],
)
def test_bad_files_get_one_clear_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.wav"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message) as info:
        FileSource(path)
    text = str(info.value)
    assert str(path) in text and "\n" not in text
    assert text.count(str(path)) == 1  # libsndfile's own "Error opening '...'" is not repeated


def test_missing_file_directory_fifo_and_device(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        FileSource(tmp_path / "nope.wav")
    with pytest.raises(InputError, match="is a directory"):
        FileSource(tmp_path)
    fifo = tmp_path / "fifo.wav"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="is a FIFO"):  # refused before opening: no hang
        FileSource(fifo)
    with pytest.raises(InputError, match="is a device"):
        FileSource("/dev/zero")


def test_mu_law_is_read(tmp_path: Path) -> None:
    """The hand-written reader refused mu-law WAV (telephone recordings); libsndfile reads it."""
    path = tmp_path / "ulaw.wav"
    data = bytes([0xFF, 0x80] * 4000)  # mu-law: 0xFF is zero, 0x80 is the largest positive value
    path.write_bytes(riff(7, 1, 8000, 8, data, False))
    info = read_audio_info(path)
    assert (info.subtype, info.frames, info.dtype) == ("ULAW", 8000, "float32")
    samples = np.concatenate([b.samples for b in FileSource(path).blocks()])
    assert abs(len(samples) - SAMPLE_RATE) <= 2 and np.abs(samples).max() > 16000


# Lossless and lossy containers, written with soundfile (libsndfile's encoders).
@pytest.mark.parametrize(
    ("fmt", "subtype", "suffix"),
    [
        ("FLAC", "PCM_16", ".flac"),
        ("FLAC", "PCM_24", ".flac"),
        ("OGG", "VORBIS", ".ogg"),
        ("OGG", "OPUS", ".opus"),
        ("MP3", "MPEG_LAYER_III", ".mp3"),
    ],
)
def test_flac_ogg_and_mp3_become_16k_mono_with_the_tone_kept(
    tmp_path: Path, fmt: str, subtype: str, suffix: str
) -> None:
    rate = 48000
    stereo = np.repeat(sine(rate, 1.5)[:, None], 2, axis=1)
    path = tmp_path / f"tone{suffix}"
    soundfile.write(str(path), stereo, rate, format=fmt, subtype=subtype)
    info = read_audio_info(path)
    assert (info.format, info.subtype, info.channels) == (fmt, subtype, 2)
    samples = np.concatenate([b.samples for b in FileSource(path, block_ms=37).blocks()])
    # Lossy encoders pad the start and end by a frame or two.
    assert abs(len(samples) - 1.5 * SAMPLE_RATE) <= 0.1 * SAMPLE_RATE
    spectrum = np.abs(np.fft.rfft(samples.astype(np.float64)))
    assert abs(np.argmax(spectrum) * SAMPLE_RATE / len(samples) - 440) < 2
    assert 0.4 * 32767 < np.abs(samples[2000:-2000]).max() < 0.6 * 32767


@pytest.mark.parametrize("name", ["en_phrases.wav", "ko_phrases.wav"])
def test_a_flac_copy_of_a_fixture_gives_exactly_the_wav_samples(tmp_path: Path, name: str) -> None:
    wav = Path(__file__).parents[1] / "data" / name
    flac = tmp_path / "copy.flac"
    data, rate = soundfile.read(str(wav), dtype="int16")
    soundfile.write(str(flac), data, rate, subtype="PCM_16")
    from_wav = np.concatenate([b.samples for b in FileSource(wav).blocks()])
    from_flac = np.concatenate([b.samples for b in FileSource(flac, block_ms=53).blocks()])
    assert np.array_equal(from_wav, from_flac)


def test_a_damaged_flac_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "cut.flac"
    soundfile.write(str(path), sine(16000, 2.0), 16000, subtype="PCM_16")
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    source = FileSource(path)
    with pytest.raises(InputError, match=r"cannot decode audio file .*cut\.flac"):
        for _ in source.blocks():
            pass


@pytest.mark.parametrize(("rate", "channels"), [(16000, 1), (48000, 2)])
def test_an_mp3_read_in_blocks_is_the_mp3_read_whole(
    tmp_path: Path, rate: int, channels: int
) -> None:
    """soundfile's own block reads seek around every read, and libsndfile's MP3 decoder loses
    its bit reservoir on a seek: most blocks came out silent. Ours read straight through."""
    path = tmp_path / "speechlike.mp3"
    rng = np.random.default_rng(0)
    signal = sine(rate, 3.0) * (0.5 + 0.5 * np.sin(np.arange(3 * rate) / rate * 7))
    signal = signal + 0.05 * rng.standard_normal(len(signal))
    soundfile.write(str(path), np.repeat(signal[:, None], channels, axis=1), rate, format="MP3")
    info = read_audio_info(path)
    whole, _ = soundfile.read(str(path), dtype="float32", always_2d=True)
    for block_frames in (512, 1776, 16000):
        blocks = list(iter_audio_blocks(info, block_frames))
        assert all(np.abs(b).max() > 0.01 for b in blocks[1:-1])  # no silent stretch
        assert np.allclose(np.concatenate(blocks), whole, atol=1e-6)


def test_a_cut_off_wav_says_how_much_its_header_promised(tmp_path: Path) -> None:
    whole = tmp_path / "whole.wav"
    soundfile.write(str(whole), np.zeros(32_000, np.int16), 16_000, subtype="PCM_16")
    stereo = tmp_path / "stereo.wav"
    soundfile.write(str(stereo), np.zeros((8_000, 2), np.int16), 8_000, subtype="PCM_16")
    for path, frames, missing in ((whole, 32_000, 0), (stereo, 8_000, 0)):
        info = read_audio_info(path)
        assert (info.frames, info.missing_frames) == (frames, missing)
    cut = tmp_path / "cut.wav"
    cut.write_bytes(whole.read_bytes()[: 44 + 20_000 * 2])  # 20,000 of 32,000 samples
    info = read_audio_info(cut)
    assert (info.frames, info.missing_frames, info.missing_s) == (20_000, 12_000, 0.75)
    cut_stereo = tmp_path / "cut_stereo.wav"
    cut_stereo.write_bytes(stereo.read_bytes()[: 44 + 2_000 * 4])
    assert read_audio_info(cut_stereo).missing_frames == 6_000


@pytest.mark.parametrize("rate", [1, 100, 3999, 1_000_000])
def test_a_header_rate_no_recording_has_is_one_clear_error(tmp_path: Path, rate: int) -> None:
    # 1 Hz: an hour of "audio" to resample to 16 kHz (it ran for over 300 s, no progress).
    path = tmp_path / f"rate{rate}.wav"
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(np.zeros(3600, np.int16).tobytes())
    with pytest.raises(InputError, match=f"its header says {rate} Hz, not the rate of a recording"):
        FileSource(path)


@pytest.mark.parametrize("rate", [4000, 8000, 768_000])
def test_the_lowest_and_highest_recording_rates_are_read(tmp_path: Path, rate: int) -> None:
    path = tmp_path / f"rate{rate}.wav"
    soundfile.write(str(path), sine(rate, 0.1), rate, subtype="PCM_16")
    assert FileSource(path).info.sample_rate == rate
