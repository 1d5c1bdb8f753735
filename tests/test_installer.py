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


def fake_install(tmp_path: Path, nvidia_smi: str | None, installed: str = "") -> Path:
    """Stand-ins for what the install step calls: ``python3 -m venv`` makes a venv whose
    ``pip`` and ``dictate`` only log their arguments (``pip show`` finds the packages named in
    ``installed``), and ``nvidia-smi`` runs ``nvidia_smi`` (None: there is none). Returns the
    folder of stand-ins."""
    fake, template = tmp_path / "bin", tmp_path / "template"
    fake.mkdir()
    template.mkdir()
    log = tmp_path / "calls.log"
    scripts = {
        template / "pip": f'echo "pip $*" >> {log}\n'
        f'if [ "$1" = show ]; then case " {installed} " in *" $3 "*) exit 0 ;; esac; exit 1; fi',
        template / "dictate": f'echo "dictate $*" >> {log}',
        fake / "python3": f'[ "$1 $2" = "-m venv" ] || exit 9\nmkdir -p "$3/bin"\n'
        f'cp {template}/pip {template}/dictate "$3/bin/"',
    }
    if nvidia_smi is not None:
        scripts[fake / "nvidia-smi"] = nvidia_smi
    for path, body in scripts.items():
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    return fake


def install_with(tmp_path: Path, fake: Path, *args: str, **env: str) -> tuple[str, list[str]]:
    """The installer's full run without apt and without starting: its output and the logged
    calls of pip and dictate."""
    environment = {
        "PATH": f"{fake}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        # the kernel driver's file, where tests find none (this machine may have a GPU)
        "NVIDIA_VERSION_FILE": str(tmp_path / "no-driver"),
        **env,
    }
    prefix = str(tmp_path / "app")
    result = run("--no-system-packages", "--no-start", "--prefix", prefix, *args, env=environment)
    assert result.returncode == 0, result.stderr
    calls = (tmp_path / "calls.log").read_text().splitlines()
    return result.stdout, calls


GPU_LISTED = 'echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0b5f2a6c)"'
# nvidia-smi installed, but the driver not loaded (what it says then, and its status)
NO_DRIVER = "echo 'NVIDIA-SMI has failed: no NVIDIA driver'\nexit 9"


@pytest.mark.parametrize(
    ("nvidia_smi", "driver_file", "expected"),
    [
        (GPU_LISTED, False, "gpu (nvidia-smi lists an NVIDIA GPU)"),
        (NO_DRIVER, True, "gpu (the NVIDIA driver is loaded)"),
        (NO_DRIVER, False, "cpu (no NVIDIA GPU found)"),
        (None, False, "cpu (no NVIDIA GPU found)"),
    ],
)
def test_the_onnx_runtime_build_follows_the_gpu(
    tmp_path: Path, nvidia_smi: str | None, driver_file: bool, expected: str
) -> None:
    """An NVIDIA GPU with its driver gets onnxruntime-gpu (the ``gpu`` extra), anything else
    the small CPU build (the ``cpu`` extra); the smoke test runs either way."""
    fake = fake_install(tmp_path, nvidia_smi)
    env = {}
    if driver_file:
        (tmp_path / "version").write_text("NVRM version: NVIDIA UNIX x86_64 Kernel Module 550\n")
        env["NVIDIA_VERSION_FILE"] = str(tmp_path / "version")
    out, calls = install_with(tmp_path, fake, **env)
    extra = expected.split()[0]
    assert f"ONNX Runtime: {expected}" in out
    assert f"pip install -q {ROOT}[{extra},voices]" in calls  # and the speech voice
    assert not any(c.startswith("pip uninstall") for c in calls)  # nothing to take out
    assert calls[-1] == "dictate --self-test"


@pytest.mark.parametrize("force", ["flag", "env"])
def test_the_build_can_be_forced_either_way(tmp_path: Path, force: str) -> None:
    """--cpu on a GPU machine, --gpu on one without (or DICTATE_RUNTIME); the build of an
    earlier install in the same venv is taken out first (both share the module's files)."""
    for want, smi, earlier in (
        ("cpu", GPU_LISTED, "onnxruntime-gpu"),
        ("gpu", None, "onnxruntime"),
    ):
        case = tmp_path / want
        case.mkdir()
        fake = fake_install(case, smi, installed=f"dictate {earlier}")
        args, env = ([f"--{want}"], {}) if force == "flag" else ([], {"DICTATE_RUNTIME": want})
        out, calls = install_with(case, fake, *args, **env)
        assert f"ONNX Runtime: {want} (asked for)" in out
        assert f"pip uninstall -q -y {earlier}" in calls
        assert calls.index(f"pip uninstall -q -y {earlier}") < calls.index(
            f"pip install -q {ROOT}[{want},voices]"
        )
    assert run("--which-runtime", "--cpu").stdout.strip() == "cpu (asked for)"
    bad = run("--which-runtime", env={**os.environ, "DICTATE_RUNTIME": "cuda"})
    assert bad.returncode == 2 and "DICTATE_RUNTIME must be gpu, cpu or auto" in bad.stderr


def test_each_extra_brings_one_onnx_runtime_build() -> None:
    """The two builds install the same ``onnxruntime`` module and overwrite each other's files:
    the base dependencies have neither, and each extra brings exactly one on every platform
    (``dev`` the CPU one, so the test command stays small; ``gpu`` the CPU one where there are
    no onnxruntime-gpu wheels)."""
    from packaging.requirements import Requirement

    tomllib = pytest.importorskip("tomllib", reason="Python 3.11 or later")

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    platforms = {
        "linux-x86_64": {"sys_platform": "linux", "platform_machine": "x86_64"},
        "linux-aarch64": {"sys_platform": "linux", "platform_machine": "aarch64"},
        "windows": {"sys_platform": "win32", "platform_machine": "AMD64"},
        "macos": {"sys_platform": "darwin", "platform_machine": "arm64"},
    }

    def builds(requirements: list[str], where: str) -> list[str]:
        found = [Requirement(r) for r in requirements]
        return [
            r.name
            for r in found
            if r.name in ("onnxruntime", "onnxruntime-gpu")
            and (r.marker is None or r.marker.evaluate(platforms[where]))
        ]

    extras = project["optional-dependencies"]
    for where in platforms:
        assert builds(project["dependencies"], where) == [], where
        assert builds(extras["cpu"], where) == builds(extras["dev"], where) == ["onnxruntime"]
        gpu_wheels = where in ("linux-x86_64", "windows")
        for name in ("gpu", "cuda"):
            assert builds(extras[name], where) == [
                "onnxruntime-gpu" if gpu_wheels else "onnxruntime"
            ], (name, where)
