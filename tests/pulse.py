"""A real, private PulseAudio server for capture tests.

Its null sink's monitor is the default source, so PortAudio's ALSA "default" device (routed to
PulseAudio by libasound2-plugins) records whatever is played into the sink: a real microphone as
far as PortAudio, sounddevice and our code can tell. The server is started with ``-n`` (no
default script), so nothing suspends the idle sink and no hardware is probed.

Without the ``pulseaudio`` binary or PortAudio the tests that need it are skipped, except under
CI (``CI`` set), where they fail: CI installs both, and a skip there would hide a regression.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from types import TracebackType

import pytest

SINK = "dictate_mic"


def need(condition: bool, reason: str) -> None:
    """Skip the test if ``condition`` is false, but fail instead on CI."""
    if condition:
        return
    if os.environ.get("CI"):
        pytest.fail(f"required on CI: {reason}")
    pytest.skip(reason)


def portaudio_available() -> bool:
    # Not by importing sounddevice: PortAudio lists its devices once, at import, and must do so
    # only after PULSE_SERVER points at our server.
    import ctypes.util

    return ctypes.util.find_library("portaudio") is not None


class PulseServer:
    """Start ``pulseaudio`` on a socket in ``directory``; point this process at it."""

    def __init__(self, directory: Path, rescan: bool = True) -> None:
        need(shutil.which("pulseaudio") is not None, "pulseaudio is not installed")
        need(portaudio_available(), "PortAudio (libportaudio2) is not installed")
        self.directory = directory
        self.rescan = rescan  # False: leave PortAudio's device list as it was (a restart test)
        self.socket = directory / "native"
        self.address = f"unix:{self.socket}"
        self.process: subprocess.Popen[bytes] | None = None
        self._previous: str | None = None

    def env(self) -> dict[str, str]:
        return {**os.environ, "PULSE_SERVER": self.address}

    def __enter__(self) -> PulseServer:
        env = {**os.environ, "PULSE_RUNTIME_PATH": str(self.directory), "HOME": str(self.directory)}
        self.process = subprocess.Popen(
            [
                "pulseaudio",
                "-n",
                "--daemonize=no",
                "--exit-idle-time=-1",
                "--use-pid-file=no",
                "--log-target=stderr",
                "--log-level=error",
                "-L",
                f"module-native-protocol-unix socket={self.socket} auth-anonymous=1",
                "-L",
                f"module-null-sink sink_name={SINK} rate=48000",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 15
        while not self.socket.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                self.stop()
                pytest.fail(f"pulseaudio did not start: {err}")
            time.sleep(0.05)
        self.pactl("set-default-sink", SINK)
        self.pactl("set-default-source", f"{SINK}.monitor")
        self._previous = os.environ.get("PULSE_SERVER")
        os.environ["PULSE_SERVER"] = self.address
        if self.rescan:
            from dictate.audio.devices import refresh_devices

            refresh_devices()  # PortAudio enumerates once; make it see this server's devices
        return self

    def pactl(self, *args: str) -> str:
        result = subprocess.run(
            ["pactl", *args], env=self.env(), capture_output=True, text=True, timeout=10
        )
        if result.returncode != 0:
            raise RuntimeError(f"pactl {' '.join(args)}: {result.stderr.strip()}")
        return result.stdout

    def play(self, wav: Path) -> subprocess.Popen[bytes]:
        """Play ``wav`` into the null sink (in the background)."""
        return subprocess.Popen(
            ["paplay", f"--device={SINK}", str(wav)],
            env=self.env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def kill(self) -> None:
        """Kill the server as a crash or an unplugged device would: no goodbye."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
        if self._previous is None:
            os.environ.pop("PULSE_SERVER", None)
        else:
            os.environ["PULSE_SERVER"] = self._previous
