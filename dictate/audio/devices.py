"""Input devices through PortAudio (sounddevice), imported lazily.

sounddevice raises OSError at import when the PortAudio system library is missing. The app must
still start, transcribe files and punctuate text then, so nothing imports sounddevice at module
level: :func:`sounddevice_module` does it on first use and turns the failure into
:class:`PortAudioMissing`, whose message names the package to install.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from dataclasses import dataclass
from types import ModuleType

from dictate.errors import AudioDeviceError, PortAudioMissing

log = logging.getLogger("dictate.audio")


def _install_hint() -> str:
    if sys.platform.startswith("linux"):
        return (
            "install the PortAudio library (Debian/Ubuntu: `sudo apt-get install libportaudio2`;"
            " Fedora: `sudo dnf install portaudio`)"
        )
    return "reinstall the sounddevice package, which bundles PortAudio on this system"


def sounddevice_module() -> ModuleType:
    """Import and return sounddevice.

    Raises:
        PortAudioMissing: PortAudio is not installed; the message says which package to install.
    """
    try:
        import sounddevice
    except OSError as exc:
        raise PortAudioMissing(
            f"no microphone support: {exc}; {_install_hint()}. "
            "Transcribing audio files still works."
        ) from None
    return sounddevice


_open_streams: dict[int, str] = {}
"""The PortAudio streams this process has open (``id`` -> device name), kept by
:class:`dictate.audio.capture.MicrophoneSource`."""


def stream_opened(stream: object, device: str) -> None:
    _open_streams[id(stream)] = device


def stream_closed(stream: object) -> None:
    _open_streams.pop(id(stream), None)


def refresh_devices() -> bool:
    """Make PortAudio list the devices again (it does so only once, when first loaded).

    Call it when devices may have come or gone (a headset plugged in, a sound server restarted)
    and no stream is open: PortAudio is shut down and initialised afresh. While a stream of ours
    is still open the list is left as it is (logged; returns False): shutting PortAudio down
    closes that stream, and the close of a stream whose sound server has gone can wait forever
    in libpulse (a test run hung so, in a rescan from the window).
    """
    if _open_streams:
        names = ", ".join(sorted(set(_open_streams.values())))
        log.warning("the device list is not read again while a stream is open (%s)", names)
        return False
    sd = sounddevice_module()
    sd._terminate()
    sd._initialize()
    return True


PULSE_PREFIX = "pulse:"
"""How a sound-server source is named in settings and on the command line: ``pulse:<name>``."""
_PACTL_TIMEOUT_S = 3.0


@dataclass(frozen=True)
class InputDevice:
    """One capture device: as PortAudio reports it, or a source of the sound server
    (PulseAudio, or PipeWire's PulseAudio service) recorded through PortAudio's ``pulse``
    device.

    Attributes:
        index: The PortAudio device to open (for a sound-server source, the ``pulse`` device).
        pulse_source: The sound server's name for the source (``alsa_input.usb-...``), or None
            for a plain PortAudio device.
    """

    index: int
    name: str
    host_api: str
    channels: int
    default_rate: float
    is_default: bool
    pulse_source: str | None = None

    @property
    def key(self) -> str:
        """What the settings remember and :func:`find_input_device` finds again: the name, or
        ``pulse:<source>`` (a source's description may be shared or translated)."""
        return PULSE_PREFIX + self.pulse_source if self.pulse_source else self.name

    def describe(self) -> str:
        """One line for lists and messages."""
        mark = "*" if self.is_default else " "
        where = f"{self.host_api}, {self.channels} ch, {self.default_rate:g} Hz"
        if self.pulse_source:
            return f"{mark}      {self.key}  {self.name} ({where})"
        return f"{mark} {self.index:3d}  {self.name} ({where})"


def _pactl(*args: str) -> str | None:
    """What ``pactl ARGS`` prints (in English), or None without pactl or a sound server."""
    import shutil
    import subprocess

    pactl = shutil.which("pactl")
    if pactl is None:
        return None
    try:
        done = subprocess.run(
            [pactl, *args],
            capture_output=True,
            text=True,
            timeout=_PACTL_TIMEOUT_S,
            env={**os.environ, "LC_ALL": "C"},  # the field names are translated otherwise
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def default_pulse_source() -> str | None:
    """The sound server's default source (its name, as :attr:`InputDevice.pulse_source`), or
    None without one."""
    info = _pactl("info")
    found = re.search(r"^Default Source: (.+)$", info or "", flags=re.MULTILINE)
    return found.group(1).strip() if found else None


def pulse_sources(through: int, rate: float) -> list[InputDevice]:
    """The sound server's sources, each recorded through PortAudio device ``through``.

    PortAudio's ALSA host sees the sound server as one device (``pulse``), recording from the
    server's default source; ``PULSE_SOURCE``, set when the stream opens, picks another one
    (:class:`dictate.audio.capture.MicrophoneSource`). The list comes from ``pactl`` (PulseAudio's
    or PipeWire's); without it, or without a server, it is empty.
    """
    listed = _pactl("list", "sources")
    if listed is None:
        return []
    found = []
    for block in re.split(r"^Source #\d+\s*$", listed, flags=re.MULTILINE)[1:]:
        fields = dict(re.findall(r"^\s+([A-Za-z ]+): (.*)$", block, flags=re.MULTILINE))
        name = fields.get("Name", "").strip()
        if not name:
            continue
        spec = re.search(r"(\d+)ch (\d+)Hz", fields.get("Sample Specification", ""))
        found.append(
            InputDevice(
                index=through,
                name=fields.get("Description", "").strip() or name,
                host_api="sound server",
                channels=int(spec.group(1)) if spec else 2,
                default_rate=float(spec.group(2)) if spec else rate,
                is_default=False,
                pulse_source=name,
            )
        )
    return found


def list_input_devices() -> list[InputDevice]:
    """Every device with at least one input channel, the system default marked; then, where
    PortAudio has a ``pulse`` device, every source of the sound server (:func:`pulse_sources`)."""
    sd = sounddevice_module()
    try:
        devices = sd.query_devices()
        apis = sd.query_hostapis()
        default_in = sd.default.device[0]
    except sd.PortAudioError as exc:
        raise AudioDeviceError(f"cannot list audio devices: {exc}") from None
    if default_in is None or default_in < 0:
        try:
            default_in = sd.query_devices(kind="input")["index"]
        except sd.PortAudioError:
            default_in = -1
    found = []
    through: dict[str, tuple[int, float]] = {}
    for info in devices:
        if info["max_input_channels"] < 1:
            continue
        through.setdefault(
            str(info["name"]), (int(info["index"]), float(info["default_samplerate"]))
        )
        found.append(
            InputDevice(
                index=int(info["index"]),
                name=str(info["name"]),
                host_api=str(apis[info["hostapi"]]["name"]),
                channels=int(info["max_input_channels"]),
                default_rate=float(info["default_samplerate"]),
                is_default=int(info["index"]) == default_in,
            )
        )
    server = through.get("pulse")
    if server is not None:
        found.extend(pulse_sources(*server))
    return found


def find_input_device(spec: str | int | None = None) -> InputDevice:
    """The device named by ``spec``: an index, a :attr:`InputDevice.key` (``pulse:<source>``),
    an exact name, or a unique part of a name or key.

    ``None`` or an empty string selects the system default input.

    Raises:
        AudioDeviceError: No input device at all, or none (or more than one) matches ``spec``.
    """
    devices = list_input_devices()
    if not devices:
        raise AudioDeviceError(
            "no microphone found: PortAudio reports no input device; connect one, or check that "
            "the sound server (PulseAudio/PipeWire) is running"
        )
    available = "; ".join(d.key if d.pulse_source else f"{d.index}: {d.name}" for d in devices)
    if spec is None or spec == "":
        for device in devices:
            if device.is_default:
                return device
        return devices[0]
    text = str(spec).strip()
    if text.isdigit():
        for device in devices:
            if device.index == int(text) and device.pulse_source is None:
                return device
        raise AudioDeviceError(f"no input device with index {text} (inputs: {available})")
    for device in devices:
        if device.key == text:
            return device
    exact = [d for d in devices if d.name == text]  # two sources may share a description
    partial = exact or [
        d for d in devices if text.lower() in d.key.lower() or text.lower() in d.name.lower()
    ]
    if len(partial) == 1:
        return partial[0]
    if not partial:
        if text.startswith(PULSE_PREFIX):
            raise AudioDeviceError(
                f"the sound server has no source {text[len(PULSE_PREFIX) :]!r} (is it unplugged, "
                f"or the sound server not running?); inputs: {available}"
            )
        raise AudioDeviceError(f"no input device named {text!r} (inputs: {available})")
    names = ", ".join(d.key for d in partial)
    raise AudioDeviceError(f"input device {text!r} is ambiguous: it matches {names}")
