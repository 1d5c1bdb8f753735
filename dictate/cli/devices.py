"""``dictate devices``: list the microphones PortAudio sees; remember one."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from dictate.errors import AudioDeviceError


def cmd_devices(args: argparse.Namespace, stdout: TextIO) -> int:
    from dictate.audio.devices import find_input_device, list_input_devices
    from dictate.config import load_settings, save_settings

    settings = load_settings()
    if args.use is not None:
        if args.use.strip().lower() == "default":
            settings.input_device = None
            stdout.write("dictation will use the system default input\n")
        else:
            device = find_input_device(args.use)
            settings.input_device = device.key
            stdout.write(f"dictation will use {device.key}\n")
        save_settings(settings)
        _tell_the_running_app(stdout)
        return 0
    found = list_input_devices()
    if not found:
        raise AudioDeviceError(
            "no input devices found: connect a microphone, and check that the sound server "
            "(PulseAudio or PipeWire) is running"
        )
    for device in found:
        chosen = "  (remembered)" if device.key == settings.input_device else ""
        stdout.write(device.describe() + chosen + "\n")
    return 0


def register(commands: Any) -> None:
    devices = commands.add_parser(
        "devices",
        help="list microphones; remember one",
        description="List the input devices (* marks the system default); with PulseAudio or "
        "PipeWire, each of the sound server's sources too, as pulse:NAME. --use remembers one "
        "for dictation; --use default goes back to the system default.",
    )
    devices.add_argument("--use", metavar="NAME", help="index or (part of a) name to remember")
    devices.set_defaults(func=lambda args, io: cmd_devices(args, io.stdout))


def _tell_the_running_app(stdout: TextIO) -> None:
    """The running app holds its settings in memory: make it read the file again (or it would
    go on with the old microphone, and write it back at its next change)."""
    from dictate.errors import DictateError
    from dictate.instance_client import send_command

    try:
        reply = send_command("reload")
    except DictateError as exc:
        stdout.write(f"the running app did not take it ({exc}); restart it to use it\n")
        return
    if reply == "ok":
        stdout.write("the running app uses it from its next dictation run\n")
    elif reply is not None:
        stdout.write(f"the running app did not take it ({reply}); restart it to use it\n")
