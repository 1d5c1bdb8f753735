"""What the running Wayland compositor offers: the interfaces it advertises (its registry's
globals), read over its socket with no Wayland library, so that the typing backend can be
chosen by what works here (:func:`dictate.output.chooser.choose_backend`): ``wtype`` needs
``zwp_virtual_keyboard_manager_v1``, which wlroots compositors (sway, Hyprland, river, labwc,
Wayfire) offer and GNOME's Mutter and KDE's KWin do not.

The wire format (wayland.freedesktop.org, "Wire Format"): each message is the object id, then
the size (upper 16 bits) and opcode (lower 16) as native 32-bit words, then the arguments;
a string is its length (with the NUL), then its bytes padded to 4.
"""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Mapping
from pathlib import Path

VIRTUAL_KEYBOARD = "zwp_virtual_keyboard_manager_v1"
"""The interface ``wtype`` types through (virtual-keyboard-unstable-v1)."""

_DISPLAY, _REGISTRY, _CALLBACK = 1, 2, 3  # the object ids this client makes, in order


def socket_path(env: Mapping[str, str]) -> Path | None:
    """The compositor's socket as a client in ``env`` finds it (``WAYLAND_DISPLAY``, by default
    ``wayland-0``, in ``XDG_RUNTIME_DIR`` unless absolute), or None where it cannot be found."""
    name = env.get("WAYLAND_DISPLAY") or "wayland-0"
    if name.startswith("/"):
        return Path(name)
    runtime = env.get("XDG_RUNTIME_DIR")
    return Path(runtime) / name if runtime else None


def _message(obj: int, opcode: int, *words: int) -> bytes:
    return struct.pack(f"=II{len(words)}I", obj, (8 + 4 * len(words)) << 16 | opcode, *words)


def compositor_globals(env: Mapping[str, str], timeout: float = 1.0) -> set[str] | None:
    """The interfaces the compositor in ``env`` advertises, or None where it cannot be asked
    (no socket, no answer within ``timeout`` seconds, or a protocol error)."""
    path = socket_path(env)
    if path is None:
        return None
    deadline = time.monotonic() + timeout
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(str(path))
            # wl_display.get_registry (opcode 1), then wl_display.sync (opcode 0): the sync's
            # callback is done once every global has been announced.
            conn.sendall(_message(_DISPLAY, 1, _REGISTRY) + _message(_DISPLAY, 0, _CALLBACK))
            return _read_globals(conn, deadline)
    except (OSError, struct.error, UnicodeDecodeError):
        return None


def _read_globals(conn: socket.socket, deadline: float) -> set[str] | None:
    found: set[str] = set()
    data = b""
    while True:
        while len(data) >= 8:
            obj, word = struct.unpack_from("=II", data)
            size, opcode = word >> 16, word & 0xFFFF
            if size < 8:
                return None
            if len(data) < size:
                break
            body, data = data[8:size], data[size:]
            if obj == _REGISTRY and opcode == 0:  # wl_registry.global(name, interface, version)
                (length,) = struct.unpack_from("=I", body, 4)
                found.add(body[8 : 8 + length - 1].decode("utf-8"))
            elif obj == _CALLBACK and opcode == 0:  # wl_callback.done
                return found
            elif obj == _DISPLAY and opcode == 0:  # wl_display.error
                return None
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        conn.settimeout(left)
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk


def has_virtual_keyboard(env: Mapping[str, str]) -> bool | None:
    """Whether the compositor in ``env`` offers the virtual-keyboard protocol (None: unknown)."""
    interfaces = compositor_globals(env)
    return None if interfaces is None else VIRTUAL_KEYBOARD in interfaces
