"""Packaging: every package is listed, and a plain `pip install .` finds the shipped model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - CI runs 3.11
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_on_disk_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "dictate").rglob("__init__.py")
    }
    assert on_disk <= listed, f"add {sorted(on_disk - listed)} to [tool.setuptools] packages"


@pytest.mark.slow
def test_the_shipped_model_is_found_from_a_plain_install(tmp_path: Path) -> None:
    if not (ROOT / "models" / "punctuator" / "model.onnx").is_file():
        pytest.fail("models/punctuator/model.onnx is missing from the checkout")
    venv = tmp_path / "venv"
    # Without its own pip and setuptools (Python 3.11's bundled setuptools 65 cannot read the
    # SPDX license string): this environment's, through the .pth file below.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    # The new environment sees this one's packages (dependencies, wheel) through a .pth file;
    # plain path lines do not run this environment's editable-install hook, so `dictate`
    # itself can only come from the copy installed below.
    site = subprocess.run(
        [str(python), "-c", "import site; print(site.getsitepackages()[0])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    here = [p for p in sys.path if p.endswith("site-packages")]
    (Path(site) / "outer.pth").write_text("\n".join(here) + "\n", encoding="utf-8")
    # PYTHONPATH would put a checkout before the installed copy (seen running the suite so).
    env = {
        k: v for k, v in os.environ.items() if k not in ("DICTATE_PUNCTUATOR_MODEL", "PYTHONPATH")
    }
    env["PIP_NO_INDEX"] = "1"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", str(ROOT)],
        check=True,
        env=env,
        cwd=tmp_path,
    )
    code = (
        "import dictate.store.resolve as r; path = r.resolve_punctuator_model(); "
        "print(path); print(r.__file__); from dictate.paths import asset_path; "
        "print(asset_path('calibration_en.flac'))"  # the Whisper tiers' clip (issue 55)
    )
    result = subprocess.run(
        [str(python), "-c", code], capture_output=True, text=True, check=True, env=env, cwd=tmp_path
    )
    model_path, module_path, clip = result.stdout.split()
    assert str(venv) in module_path  # the installed copy, not the checkout
    assert Path(clip).is_relative_to(venv) and Path(clip).stat().st_size > 100_000
    assert Path(model_path).is_relative_to(venv)
    assert (Path(model_path) / "model.onnx").stat().st_size > 1_000_000
