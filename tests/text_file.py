"""What a test's receiving window wrote to its file (tests/xserver.py, tests/wayland.py)."""

from __future__ import annotations

import time
from pathlib import Path


class TextFile:
    """A receiver that writes all its text to ``file`` on every change."""

    file: Path

    @property
    def text(self) -> str:
        return self.file.read_text(encoding="utf-8") if self.file.exists() else ""

    def wait_for(self, expected: str, timeout: float = 20.0) -> str:
        """The receiver's text once it equals ``expected`` (or whatever it is at the timeout)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.text == expected:
                return expected
            time.sleep(0.02)
        return self.text
