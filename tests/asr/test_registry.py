"""The engine registry (dictate/asr/registry.py): every engine declared once, and no other module
of ``dictate`` spelling an engine's name (read from the source with ``ast``, nothing imported)."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import pytest

from dictate.asr.engine import CommandDecoding, Recognizer, VocabularyTaking, Warming
from dictate.asr.process_engine import ProcessEngine
from dictate.asr.registry import (
    ENGINES,
    FIRST_PASS,
    SECOND_PASS,
    SPHINX,
    VOSK,
    WHISPER,
    Abilities,
    EngineOptions,
    abilities_of,
    available_first_passes,
    engine_spec,
    load_first_pass,
    options_of,
    spec_of,
)
from dictate.asr.sphinx_engine import SphinxEngine, SphinxRecognizer
from dictate.asr.vosk_engine import VoskEngine, VoskRecognizer
from dictate.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = "dictate/asr/registry.py"

# (file, name): why the name is spelled there and cannot come from the registry. Minimal: each
# entry is a place the registry cannot reach; test_the_engine_classes_are_named_as_declared
# checks that the classes' names agree with it.
ALLOWED: dict[tuple[str, str], str] = {
    ("dictate/asr/sphinx_engine.py", SPHINX.name): "the class names itself; the registry "
    "imports this module (to load it), so importing the registry back would be an import cycle "
    "(tests/test_import_graph.py counts lazy imports)",
    ("dictate/asr/vosk_engine.py", VOSK.name): "the class names itself (as sphinx_engine.py)",
    ("dictate/asr/whisper_engine.py", WHISPER.name): "the class names itself (as sphinx_engine.py)",
    ("dictate/store/store.py", VOSK.name): "the store's folder models/vosk: a layout on disk "
    "that must not follow a renamed engine, in the store layer, below the registry's",
    ("dictate/store/whisper_models.py", WHISPER.name): "the store's folder models/whisper (as "
    "store.py)",
}


def test_every_engine_is_declared_once_with_a_label_and_a_kind_of_model() -> None:
    specs = list(ENGINES.values())
    assert len({spec.name for spec in specs}) == len(specs) == len(ENGINES)
    for name, spec in ENGINES.items():
        assert spec.name == name and spec.name.isidentifier()
        assert spec.label.strip() and spec.title().strip()
        assert spec.model_kind in ("bundled", "vosk", "whisper"), spec
        assert callable(spec.load)
        assert engine_spec(name) is spec


def test_the_first_passes_are_exactly_the_engines_with_partial_words() -> None:
    streaming = tuple(n for n, s in ENGINES.items() if s.abilities.partial_words)
    refining = tuple(n for n, s in ENGINES.items() if s.abilities.second_pass)
    assert (streaming, refining) == (FIRST_PASS, SECOND_PASS)
    assert set(FIRST_PASS).isdisjoint(SECOND_PASS)
    assert set(FIRST_PASS) | set(SECOND_PASS) == set(ENGINES)
    assert SPHINX.name in FIRST_PASS and WHISPER.name in SECOND_PASS
    # No Vosk model is installed in the tests' user folders: the bundled engine alone.
    assert available_first_passes() == tuple(
        n for n in FIRST_PASS if ENGINES[n].model_kind == "bundled"
    )


def test_an_unknown_engine_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(InputError) as refused:
        engine_spec("nope")
    assert "'nope'" in str(refused.value)
    for name in ENGINES:
        assert name in str(refused.value)


def test_a_loaded_engine_is_found_by_its_name_and_a_stranger_has_no_abilities() -> None:
    stranger = SimpleNamespace(name="test double")
    assert spec_of(stranger) is None and abilities_of(stranger) == Abilities()
    assert spec_of(SimpleNamespace(name=SPHINX.name)) is SPHINX


def test_options_of_a_loaded_engine_load_it_again() -> None:
    engine = load_first_pass(EngineOptions(SPHINX.name))
    options = options_of(engine)
    assert options == EngineOptions(SPHINX.name)  # the bundled model is not the user's choice
    again = engine_spec(options.engine or "").load(options)
    assert type(again) is type(engine) and again.name == engine.name == SPHINX.name
    assert again.model_path == engine.model_path
    # An engine whose model the user chooses takes its folder along (not loaded here: a Vosk
    # model is hundreds of MB).
    vosk = SimpleNamespace(name=VOSK.name, model_path=Path("/models/vosk-model-x"))
    assert options_of(vosk) == EngineOptions(VOSK.name, str(Path("/models/vosk-model-x")))


def test_the_engine_classes_are_named_as_declared() -> None:
    """The names the engine modules spell themselves (ALLOWED) are the registry's."""
    from dictate.asr.whisper_engine import WhisperSecondPass

    assert (SphinxEngine.name, VoskEngine.name, WhisperSecondPass.name) == (
        SPHINX.name,
        VOSK.name,
        WHISPER.name,
    )


def test_each_engine_has_the_members_of_the_abilities_declared() -> None:
    """Code reads what an engine can do in the registry, then calls the member that goes with
    it unprobed: each streaming engine has the members of its abilities, and no other."""
    from dictate.asr.sphinx_engine import SphinxEngine
    from dictate.asr.vosk_engine import VoskEngine

    classes = {
        SPHINX.name: (SphinxEngine, SphinxRecognizer),
        VOSK.name: (VoskEngine, VoskRecognizer),
    }
    assert set(classes) == set(FIRST_PASS)
    for name, (engine, recognizer) in classes.items():
        abilities = ENGINES[name].abilities
        assert callable(getattr(engine, "command_decoder", None)) == abilities.command_decoder
        assert callable(getattr(recognizer, "warm", None)) == abilities.warm, name
        assert callable(getattr(recognizer, "add_vocabulary", None)) == abilities.vocabulary
    recognizer = load_first_pass(EngineOptions(SPHINX.name)).recognizer()
    assert recognizer.alternatives == []  # always there, before any segment too


def _as_declared(
    sphinx: SphinxEngine, vosk: VoskEngine, process: ProcessEngine
) -> tuple[list[CommandDecoding], list[Recognizer], Warming, list[VocabularyTaking]]:
    """Never called: mypy checks that the engines are :class:`CommandDecoding` and their
    recognisers :class:`Recognizer` (``alternatives`` always there), PocketSphinx's
    :class:`Warming`, as the registry declares them."""
    recognizers: list[Recognizer] = [sphinx.recognizer(), vosk.recognizer(), process.recognizer()]
    taking: list[VocabularyTaking] = [sphinx.recognizer(), process.recognizer()]
    return [sphinx, vosk, process], recognizers, sphinx.recognizer(), taking


def engine_names_spelled(root: Path) -> list[tuple[str, int, str]]:
    """(file, line, name) of every string constant under ``root/dictate`` that is exactly an
    engine's name, outside the registry (docstrings, comments and longer text do not count)."""
    found = []
    for path in sorted((root / "dictate").rglob("*.py")):
        where = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        if where == REGISTRY or not any(name in text for name in ENGINES):
            continue  # (parsing only the files that hold a name keeps this test fast)
        for node in ast.walk(ast.parse(text)):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value in ENGINES
            ):
                found.append((where, node.lineno, str(node.value)))
    return found


def test_no_module_but_the_registry_spells_an_engine_name() -> None:
    found = engine_names_spelled(ROOT)
    unexplained = [f"{f}:{line}: {name!r}" for f, line, name in found if (f, name) not in ALLOWED]
    assert not unexplained, (
        "use dictate.asr.registry (SPHINX.name, FIRST_PASS, an ability, model_kind) instead:\n"
        + "\n".join(unexplained)
    )
    stale = set(ALLOWED) - {(f, name) for f, _, name in found}
    assert not stale, f"allowed but no longer spelled: drop them from ALLOWED: {sorted(stale)}"


def test_the_source_check_finds_a_name_and_ignores_text(tmp_path: Path) -> None:
    (tmp_path / "dictate" / "asr").mkdir(parents=True)
    (tmp_path / "dictate" / "asr" / "registry.py").write_text(f"NAME = {SPHINX.name!r}\n")
    (tmp_path / "dictate" / "x.py").write_text(
        f'"""{SPHINX.name}"""\n'  # a docstring that is the name alone still counts
        f"# {VOSK.name}\n"
        f"label = 'the {VOSK.name} engine'\n"
        f"path = 'models/{VOSK.name}-model'\n"
        f"if engine == {WHISPER.name!r}:\n    pass\n"
    )
    assert engine_names_spelled(tmp_path) == [
        ("dictate/x.py", 1, SPHINX.name),
        ("dictate/x.py", 5, WHISPER.name),
    ]
