"""The installer script's option handling and desktop integration, and the PyInstaller spec's
inputs. (The full install needs the network for pip and sudo for apt; it is run by hand, see
installer/README.md.)"""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SETUP = ROOT / "installer" / "setup.sh"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SETUP), *args], capture_output=True, text=True, timeout=60, env=env
    )


def test_help_and_bad_options() -> None:
    assert run("--help").returncode == 0 and "--no-start" in run("--help").stdout
    bad = run("--frobnicate")
    assert bad.returncode == 2 and "unknown option --frobnicate" in bad.stderr
    assert run("--desktop-only").returncode == 2


def test_desktop_entry_and_icon(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "HOME": str(tmp_path)}
    result = run("--desktop-only", "--bin", "/opt/dictate/venv/bin/dictate", env=env)
    assert result.returncode == 0, result.stderr
    entry = tmp_path / "applications" / "dictate.desktop"
    icon = tmp_path / "icons" / "hicolor" / "scalable" / "apps" / "dictate.svg"
    assert icon.read_bytes() == (ROOT / "assets" / "dictate.svg").read_bytes()
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(entry)
    section = parser["Desktop Entry"]
    assert section["Type"] == "Application"
    assert section["Exec"] == "/opt/dictate/venv/bin/dictate"
    assert section["Icon"] == "dictate" and section["Name"] == "dictate"
    # The desktop's own action for the global toggle (right-click on the launcher).
    assert section["Actions"] == "toggle;"
    assert parser["Desktop Action toggle"]["Exec"] == "/opt/dictate/venv/bin/dictate toggle"


def test_pyinstaller_spec_inputs_exist() -> None:
    spec = (ROOT / "installer" / "dictate.spec").read_text()
    assert '"models" / "punctuator"' in spec and '"assets"' in spec
    assert (ROOT / "installer" / "launch.py").is_file()
    assert (ROOT / "models" / "punctuator" / "model.onnx").is_file()


def test_start_returns_the_terminal_and_says_how_to_reach_dictate(tmp_path: Path) -> None:
    """The app starts detached (the script returns while it runs) and, when ~/.local/bin is
    not on PATH, the script prints the line that puts it there."""
    marker = tmp_path / "started"
    app = tmp_path / "fake-dictate"
    app.write_text(f"#!/bin/sh\ntouch {marker}\nsleep 30\n")
    app.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DISPLAY": ":99"}
    result = run("--start-only", "--bin", str(app), env=env)
    assert result.returncode == 0, result.stderr
    assert 'export PATH="$HOME/.local/bin:$PATH"' in result.stdout
    assert "dictate is starting" in result.stdout
    for _ in range(100):
        if marker.exists():
            break
        time.sleep(0.05)
    assert marker.exists()  # it runs on after the script has returned
    subprocess.run(["pkill", "-f", str(app)], check=False)

    on_path = {**env, "PATH": f"{tmp_path}/.local/bin:/usr/bin:/bin"}
    quiet = run("--start-only", "--no-start", "--bin", str(app), env=on_path)
    assert quiet.returncode == 0 and "export PATH" not in quiet.stdout
    headless = run("--start-only", "--bin", str(app), env={**env, "DISPLAY": ""})
    assert "no display here" in headless.stdout


def test_a_user_without_sudo_is_told_what_to_install(tmp_path: Path) -> None:
    """Found in review: on a Debian with a root password and no sudo, the script died with
    "sudo: command not found". The commands it would call are stand-ins here, so nothing is
    installed: an ordinary user (id -u 1000), every package missing, no sudo on PATH."""
    fake = tmp_path / "bin"
    fake.mkdir()
    for name, body in {
        "id": 'if [ "$1" = -u ]; then echo 1000; else exec /usr/bin/id "$@"; fi',
        "dpkg-query": "exit 1",
        "apt-get": f"touch {tmp_path}/apt-get-called",
    }.items():
        (fake / name).write_text(f"#!/bin/sh\n{body}\n")
        (fake / name).chmod(0o755)
    env = {"PATH": f"{fake}:/usr/bin:/bin", "HOME": str(tmp_path)}
    if shutil.which("sudo", path=env["PATH"]) is not None:
        pytest.skip("sudo is installed on this machine")
    result = run("--no-start", "--prefix", str(tmp_path / "app"), env=env)
    assert result.returncode == 2
    assert "sudo is not installed" in result.stderr and "libportaudio2" in result.stderr
    assert "--no-system-packages" in result.stderr
    assert not (tmp_path / "apt-get-called").exists() and not (tmp_path / "app").exists()
