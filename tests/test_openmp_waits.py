"""Whisper's OpenMP threads wait asleep (dictate.cpus.openmp_threads_sleep): read back from the
OpenMP runtime itself, which prints its settings when it loads where ``OMP_DISPLAY_ENV`` asks it
to. Its spin count tells the policies apart (0 asleep, 300000 by default, 30000000000 active);
the policy it prints does not (the default prints as PASSIVE)."""

from __future__ import annotations

import os
import subprocess
import sys
import wave
from pathlib import Path

import pytest
from whisper_marks import needs_tiny

from dictate.cpus import WAIT_POLICY_ENV, openmp_threads_sleep

ROOT = Path(__file__).resolve().parent.parent
LOAD = "from dictate.asr.whisper_engine import WhisperSecondPass; WhisperSecondPass()"


def spin_counts(command: list[str], policy: str | None = None) -> list[str]:
    """How long the OpenMP runtimes ``command`` loaded let a waiting thread spin (libgomp's
    ``GOMP_SPINCOUNT``, as each printed it: CTranslate2's, and Silero's where it loads)."""
    env = {k: v for k, v in os.environ.items() if k != WAIT_POLICY_ENV}
    env.update(OMP_DISPLAY_ENV="VERBOSE", DICTATE_NO_HARVEST="1")
    if policy is not None:
        env[WAIT_POLICY_ENV] = policy
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = [line.split("=", 1)[1].strip(" '") for line in done.stderr.splitlines()
            if line.strip().startswith("GOMP_SPINCOUNT")]  # fmt: skip
    assert said, f"the OpenMP runtime printed no settings:\n{done.stderr[-2000:]}"
    return said


def test_the_policy_is_set_only_where_the_user_chose_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(WAIT_POLICY_ENV, raising=False)
    assert openmp_threads_sleep()
    assert os.environ[WAIT_POLICY_ENV] == "PASSIVE"
    monkeypatch.setenv(WAIT_POLICY_ENV, "ACTIVE")
    assert not openmp_threads_sleep()
    assert os.environ[WAIT_POLICY_ENV] == "ACTIVE"


@needs_tiny
def test_whisper_loads_with_threads_that_wait_asleep() -> None:
    assert spin_counts([sys.executable, "-c", LOAD]) == ["0"]


@needs_tiny
def test_a_users_own_wait_policy_is_kept() -> None:
    assert spin_counts([sys.executable, "-c", LOAD], policy="ACTIVE") == ["30000000000"]


@needs_tiny
def test_transcribes_whisper_waits_asleep(tmp_path: Path) -> None:
    audio = tmp_path / "silence.wav"
    with wave.open(str(audio), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(b"\0\0" * 16000)
    command = [sys.executable, "-m", "dictate", "transcribe", str(audio), "--engine", "sphinx",
               "--second-pass", "tiny.en"]  # fmt: skip
    assert set(spin_counts(command)) == {"0"}
