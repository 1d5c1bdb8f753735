"""No module of the window reaches into another part's private names (as the import-layer test
keeps the layers): a part talks to another through its public interface or a signal. Seven
helper modules reached nine of the window's private names before (issue 38). The packages a
segment passes through (seam, run, text, commands, timed) are held to it too (issue 49).

Checked by reading the source: an attribute ``x._name`` where ``x`` is not ``self`` or ``cls``,
and ``getattr(x, "_name")``, are allowed only for names the same module defines."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "dictate"
CHECKED = ["ui", "bench", "seam", "run", "text", "commands", "timed"]
"""The window's parts, and the benchmarks that drive the window."""


def _defined(tree: ast.AST) -> set[str]:
    """Names the module defines: functions, classes, module names, attributes set on self."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def private_reaches(source: str) -> list[str]:
    """``x._name`` and ``getattr(x, "_name")`` in ``source`` for a ``_name`` it does not
    define, ``x`` not ``self`` or ``cls``."""
    tree = ast.parse(source)
    own = _defined(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            obj, name = node.value, node.attr
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            obj, name = node.args[0], node.args[1].value
        else:
            continue
        if not name.startswith("_") or name.startswith("__") or name in own:
            continue
        if isinstance(obj, ast.Name) and obj.id in ("self", "cls"):
            continue
        found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_part_touches_another_parts_private_names() -> None:
    found = {
        str(path.relative_to(ROOT)): reaches
        for package in CHECKED
        for path in sorted((ROOT / package).rglob("*.py"))
        if (reaches := private_reaches(path.read_text(encoding="utf-8")))
    }
    assert not found, found


def test_the_check_finds_a_reach() -> None:
    assert private_reaches("def f(window):\n    return window._typist\n") == ["2: window._typist"]
    assert private_reaches("x = getattr(controller, '_pipeline', None)\n") == [
        "1: getattr(controller, '_pipeline', None)"
    ]
    assert not private_reaches("class A:\n    def f(self):\n        return self._x\n")
    assert not private_reaches("def _helper():\n    pass\nimport m\nm._helper()\n")
