"""Input devices through PortAudio (sounddevice), imported lazily.

sounddevice raises OSError at import when the PortAudio system library is missing. The app must
still start, transcribe files and punctuate text then, so nothing imports sounddevice at module
level: :func:`sounddevice_module` does it on first use and turns the failure into
:class:`PortAudioMissing`, whose message names the package to install.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from types import ModuleType

from dictate.errors import AudioDeviceError, PortAudioMissing


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


def refresh_devices() -> None:
    """Make PortAudio list the devices again (it does so only once, when first loaded).

    Call it when devices may have come or gone (a headset plugged in, a sound server restarted)
    and no stream is open: PortAudio is shut down and initialised afresh.
    """
    sd = sounddevice_module()
    sd._terminate()
    sd._initialize()


@dataclass(frozen=True)
class InputDevice:
    """One capture device as PortAudio reports it."""

    index: int
    name: str
    host_api: str
    channels: int
    default_rate: float
    is_default: bool

    def describe(self) -> str:
        """One line for lists and messages."""
        mark = "*" if self.is_default else " "
        return (
            f"{mark} {self.index:3d}  {self.name} ({self.host_api}, {self.channels} ch, "
            f"{self.default_rate:g} Hz)"
        )


def list_input_devices() -> list[InputDevice]:
    """Every device with at least one input channel, the system default marked."""
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
    for info in devices:
        if info["max_input_channels"] < 1:
            continue
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
    return found


def find_input_device(spec: str | int | None = None) -> InputDevice:
    """The device named by ``spec``: an index, an exact name, or a unique part of a name.

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
    available = "; ".join(f"{d.index}: {d.name}" for d in devices)
    if spec is None or spec == "":
        for device in devices:
            if device.is_default:
                return device
        return devices[0]
    text = str(spec).strip()
    if text.isdigit():
        for device in devices:
            if device.index == int(text):
                return device
        raise AudioDeviceError(f"no input device with index {text} (inputs: {available})")
    exact = [d for d in devices if d.name == text]
    if exact:
        return exact[0]
    partial = [d for d in devices if text.lower() in d.name.lower()]
    if len(partial) == 1:
        return partial[0]
    if not partial:
        raise AudioDeviceError(f"no input device named {text!r} (inputs: {available})")
    names = ", ".join(d.name for d in partial)
    raise AudioDeviceError(f"input device {text!r} is ambiguous: it matches {names}")
