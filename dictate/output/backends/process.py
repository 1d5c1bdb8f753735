"""Running a typing program (xdotool, wtype, dotool, ydotool) for the backends that type
through one, with the time it may take."""

from __future__ import annotations

import subprocess

from dictate.errors import TypingError

TIMEOUT = 60.0
"""Seconds for one typing command (a long sentence at 8 ms a key is ~2 s)."""


def run_command(command: list[str], name: str, stdin: str | None = None) -> str:
    """Run a typing program; its failure (or a missing program) is a :class:`TypingError`."""
    try:
        result = subprocess.run(
            command, input=stdin, capture_output=True, text=True, timeout=TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise TypingError(f"{name} failed: {exc}") from None
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        reason = detail[-1] if detail else f"exit status {result.returncode}"
        raise TypingError(f"{name} could not type: {reason}")
    return result.stdout
