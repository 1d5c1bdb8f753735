"""``docs/screenshot.py``, the README's command for ``docs/screenshot.png``, run as the README
says: the real window on a real X server (Xvfb) dictating the bundled sample recording. It
broke unseen when the window's API moved; this runs it and reads the picture back (the script
itself waits for a final sentence with greyed words after it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from xserver import XServer

pytestmark = [pytest.mark.slow, pytest.mark.gui]

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_screenshot_script_shows_final_and_greyed_text(tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    with XServer() as server:
        env = server.env(XDG_CACHE_HOME=str(tmp_path / "cache"))
        env.pop("DICTATE_CONFIG", None)
        done = subprocess.run(
            [sys.executable, str(ROOT / "docs" / "screenshot.py"), str(out)],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=600,  # a hang guard, not a speed limit
            check=False,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == (900, 560)
    # The window painted its text: dark glyphs on the white page below the toolbar.
    page = [
        image.pixelColor(x, y).lightness()
        for x in range(0, image.width(), 2)
        for y in range(60, 300)
    ]
    assert min(page) < 0x40 and sum(v > 0xF0 for v in page) > len(page) // 2
