"""The shape of ``dictate``'s imports, read from the source with ``ast`` (nothing is imported).

Imports inside functions count (a lazy import still ties two modules together); imports under
``if TYPE_CHECKING:`` count for cycles only (a module that imports another back for a type is
tied to it all the same: issue 38), not for the layers. ``from dictate.x import y`` is an
import of ``dictate.x.y`` when ``y`` is a submodule, else of the package ``dictate.x`` (its
``__init__``). Rules:

1. No cycles between modules. The implicit import of parent packages is not counted, so a
   package's ``__init__`` may import its own submodules.
2. Nothing runs back up: a module does not import from an ancestor package's ``__init__``,
   except the names in FROM_ANCESTOR (``__version__`` from ``dictate``).
3. Layers: every top-level module or subpackage of ``dictate`` is placed in LAYERS, and imports
   only from its own layer or lower ones.
4. A module over MAX_LINES lines says why at its top: a line starting "Size:" in its docstring;
   a module of the window (``dictate/ui``) is at most MAX_UI_LINES lines, with no excuse.
5. No module is over MAX_SIZED_LINES lines, "Size:" line or not.
"""

from __future__ import annotations

import ast
import functools
import graphlib
import itertools
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent

# Lowest first; a layer imports only from itself and the layers below. "__init__" is the root
# package (the version string), "__main__" is ``python -m dictate``.
LAYERS: list[set[str]] = [
    {
        "__init__",
        "enums",
        "edit_distance",
        "errors",
        "fileio",
        "paths",
        "config",
        "memory",  # freed memory given back to the system, deferred imports
        "parent_watch",  # a child process ends with its parent
        "text_safety",  # control characters kept out of messages, JSON and keys typed
        "cpus",  # the cores this process may run on
    },  # base: no dictation in them
    {"store"},  # the models on disk: catalog, download, resolving a model's path
    {"audio", "asr"},  # sound in, recognised words out (asr loads its model through store)
    {"events"},  # what a run reports
    # the command table and its help, a command heard on audio; words to edited text
    {"commands", "editing", "writing", "punctuation"},
    {"timed"},  # a run's text with word times, and its subtitles (transcribe --format)
    {"output", "instance_client"},  # typing the text into other windows; reaching the app
    {"seam"},  # a closed segment, the cutter, the refiners (second pass, vocabulary, commands)
    {"text"},  # the text stage: commands, the punctuator, written forms
    {"run"},  # builds the stages and drives them: pipeline, file decode, the sink
    {"evaluation", "training"},
    {"ui"},
    {"bench"},  # measures the pipeline and the window
    {"cli", "__main__"},
]
FROM_ANCESTOR = {("dictate", "__version__")}
MAX_LINES = 500
MAX_UI_LINES = 400
"""The window's parts (``dictate/ui``) are smaller still, and no "Size:" line excuses one: a
part that grows past this has taken on another part's work (issue 38)."""
MAX_SIZED_LINES = 700
"""No module is longer, whatever its "Size:" line says: past this a module holds several parts
that can be told apart (the journal, the decoder and the Whisper store were split at it: issue
49)."""


class Import(NamedTuple):
    source: str
    target: str
    where: str  # "dictate/x.py:12"
    names: tuple[str, ...] = ()  # what ``from target import ...`` takes from a package __init__

    def __str__(self) -> str:
        return f"{self.where}: {self.source} imports {self.target}"


def find_modules(root: Path) -> dict[str, Path]:
    """Module name -> file, for every module of ``dictate`` under ``root``."""
    modules = {}
    for path in sorted((root / "dictate").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


@functools.cache
def find_imports(root: Path, type_checking_too: bool = False) -> list[Import]:
    """Every import of a ``dictate`` module by another, at any depth; those for type checking
    only with ``type_checking_too``."""
    modules = find_modules(root)
    found = []
    for source, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        type_checking = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for statement in node.body
            for inner in ast.walk(statement)
        }
        package = source.split(".")[: None if path.name == "__init__.py" else -1]
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if id(node) in type_checking and not type_checking_too:
                continue
            where = f"{path.relative_to(root).as_posix()}:{node.lineno}"
            if isinstance(node, ast.Import):
                found += [Import(source, a.name, where) for a in node.names if a.name in modules]
                continue
            parent = package[: len(package) + 1 - node.level] if node.level else []
            base = ".".join([*parent, *filter(None, [node.module])])
            subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
            names = tuple(a.name for a in node.names if f"{base}.{a.name}" not in modules)
            found += [Import(source, sub, where) for sub in subs]
            if base in modules and names:
                found.append(Import(source, base, where, names))
    return found


def cycles(root: Path) -> list[str]:
    edges: dict[tuple[str, str], Import] = {}
    for imp in find_imports(root, type_checking_too=True):
        edges.setdefault((imp.source, imp.target), imp)
    sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for source, target in edges:
        sorter.add(source, target)  # the imported module comes first
    try:
        sorter.prepare()
    except graphlib.CycleError as error:
        cycle = error.args[1][::-1]  # [a, b, ..., a]: a imports b, ...
        return ["import cycle:\n  " + "\n  ".join(str(edges[e]) for e in itertools.pairwise(cycle))]
    return []


def upward_imports(root: Path) -> list[str]:
    return [
        f"{imp}: from its own ancestor package's __init__; import the submodule that has it"
        for imp in find_imports(root)
        if imp.source.startswith(imp.target + ".")
        and (not imp.names or any((imp.target, name) not in FROM_ANCESTOR for name in imp.names))
    ]


def layer_violations(root: Path, layers: list[set[str]]) -> list[str]:
    def top(module: str) -> str:
        return module.split(".")[1] if "." in module else "__init__"

    level = {name: i for i, layer in enumerate(layers) for name in layer}
    unplaced = sorted({top(m) for m in find_modules(root)} - level.keys())
    return [f"dictate.{name} is in no layer: place it in LAYERS" for name in unplaced] + [
        f"{imp}: layer {level[top(imp.source)]} imports the higher layer {level[top(imp.target)]}"
        for imp in find_imports(root)
        if level.get(top(imp.source), 99) < level.get(top(imp.target), -1)
    ]


def unexplained_sizes(root: Path) -> list[str]:
    found = []
    for path in find_modules(root).values():
        name, text = path.relative_to(root).as_posix(), path.read_text(encoding="utf-8")
        lines, docstring = len(text.splitlines()), ast.get_docstring(ast.parse(text)) or ""
        if name.startswith("dictate/ui/") and lines > MAX_UI_LINES:
            found.append(f"{name}: {lines} lines; a part of the window is at most {MAX_UI_LINES}")
        elif lines > MAX_LINES and "\nSize:" not in f"\n{docstring}":
            found.append(f'{name}: {lines} lines; split it, or say why in a "Size:" docstring line')
    return found


def oversized(root: Path) -> list[str]:
    found = []
    for path in find_modules(root).values():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_SIZED_LINES:
            name = path.relative_to(root).as_posix()
            found.append(f"{name}: {lines} lines; no module is over {MAX_SIZED_LINES}: split it")
    return found


def test_the_import_graph_keeps_its_shape() -> None:
    problems = [
        *cycles(ROOT),
        *upward_imports(ROOT),
        *layer_violations(ROOT, LAYERS),
        *unexplained_sizes(ROOT),
        *oversized(ROOT),
    ]
    assert not problems, "\n".join(problems)


def test_a_size_line_excuses_no_module_over_the_hard_limit(tmp_path: Path) -> None:
    for name, lines in {"sized.py": MAX_SIZED_LINES - 4, "huge.py": MAX_SIZED_LINES - 3}.items():
        (tmp_path / "dictate" / name).parent.mkdir(parents=True, exist_ok=True)
        text = '"""Long.\n\nSize: a reason.\n"""\n' + "x = 1\n" * lines
        (tmp_path / "dictate" / name).write_text(text)
    assert unexplained_sizes(tmp_path) == []
    [found] = oversized(tmp_path)
    assert found == f"dictate/huge.py: {MAX_SIZED_LINES + 1} lines; no module is over 700: split it"


def test_an_import_for_type_checking_only_closes_a_cycle_too(tmp_path: Path) -> None:
    for name, text in {
        "__init__.py": "",
        "window.py": "import dictate.part",
        "part.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import dictate.window",
    }.items():
        (tmp_path / "dictate" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "dictate" / name).write_text(text)
    [cycle] = cycles(tmp_path)
    assert "dictate/part.py:3: dictate.part imports dictate.window" in cycle


def test_each_rule_reports_what_breaks_it(tmp_path: Path) -> None:
    for name, text in {
        "__init__.py": "__version__ = '1'",
        "low.py": "from dictate import __version__\ndef f():\n    import dictate.high",
        "high.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import dictate.pkg.up",
        "a.py": "def f():\n    from dictate.pkg import b",  # b is a module: imports dictate.pkg.b
        "pkg/__init__.py": "from dictate.pkg.b import X",  # its own submodule: not a cycle
        "pkg/b.py": "from dictate.a import f\nX = 1",
        "pkg/up.py": "from .. import __version__\nfrom . import X",
        "long.py": '"""Long."""\n' + "x = 1\n" * MAX_LINES,
        "explained.py": '"""Long.\n\nSize: a test.\n"""\n' + "x = 1\n" * MAX_LINES,
        "ui/part.py": '"""A part.\n\nSize: no excuse here.\n"""\n' + "x = 1\n" * MAX_UI_LINES,
        "stray.py": "",
    }.items():
        (tmp_path / "dictate" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "dictate" / name).write_text(text)
    layers = [{"__init__", "low", "a", "pkg", "long", "explained", "ui"}, {"high"}]

    [cycle] = cycles(tmp_path)
    assert "dictate/a.py:2: dictate.a imports dictate.pkg.b\n" in cycle + "\n"
    assert "dictate/pkg/b.py:1: dictate.pkg.b imports dictate.a\n" in cycle + "\n"
    assert upward_imports(tmp_path) == [
        "dictate/pkg/up.py:2: dictate.pkg.up imports dictate.pkg: from its own ancestor"
        " package's __init__; import the submodule that has it"
    ]
    assert layer_violations(tmp_path, layers) == [
        "dictate.stray is in no layer: place it in LAYERS",
        "dictate/low.py:3: dictate.low imports dictate.high: layer 0 imports the higher layer 1",
    ]
    assert sorted(unexplained_sizes(tmp_path)) == [
        'dictate/long.py: 501 lines; split it, or say why in a "Size:" docstring line',
        "dictate/ui/part.py: 404 lines; a part of the window is at most 400",
    ]
