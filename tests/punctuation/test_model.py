"""The ONNX model runner on tiny real ONNX models."""

from __future__ import annotations

import itertools
import json
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest
from tiny_model import build_graph

from dictate.errors import ModelError, ModelNotFound, ProviderError
from dictate.punctuation.model import (
    PunctuationModel,
    best_windows,
    context_scores,
    plan_windows,
)


def _cuda_works(model_dir: Path) -> bool:
    return PunctuationModel(model_dir, "auto").provider == "CUDAExecutionProvider"


def test_tag_is_read_from_the_last_subtoken(tiny_model_dir: Path) -> None:
    model = PunctuationModel(tiny_model_dir, "cpu")
    words = ["the", "stop", "stops", "huh", "well", "you"]
    assert len(model.tokenizer.word_ids(["stops"])[0]) == 2  # stop ##s
    tagging = model.tag(words)
    assert tagging.punct_tags() == ["O", "PERIOD", "O", "QUESTION", "COMMA", "O"]
    assert tagging.punct_probs.shape == (6, 4)
    np.testing.assert_allclose(tagging.punct_probs.sum(axis=1), 1.0, rtol=1e-5)


def test_casing_head(tiny_model_dir: Path) -> None:
    tagging = PunctuationModel(tiny_model_dir, "cpu").tag(["london", "nasa", "the"])
    assert tagging.case_tags() == ["CAPITALIZED", "ALL_CAPS", "LOWER"]


def test_model_without_casing_head(tmp_path: Path) -> None:
    from tiny_model import build_tiny_model

    model = PunctuationModel(build_tiny_model(tmp_path, casing=False), "cpu")
    assert not model.has_casing
    assert model.tag(["london"]).case_probs is None


def test_unknown_and_odd_words_still_get_one_tag_each(tiny_model_dir: Path) -> None:
    model = PunctuationModel(tiny_model_dir, "cpu")
    words = ["zyxxy", "\u200b", "🙂", "naïve", "x" * 500, "stop"]
    tagging = model.tag(words)
    assert len(tagging) == len(words)
    assert tagging.punct_tags()[-1] == "PERIOD"


def test_tokenizer_padding_and_truncation_are_disabled(tiny_model_dir: Path) -> None:
    # tiny_model saves its tokenizer with truncation and padding at 8 tokens, like MiniLM's.
    model = PunctuationModel(tiny_model_dir, "cpu")
    words = ["the"] * 30 + ["stop"]
    assert model.count_tokens(words) == 31
    assert model.tag(words).punct_tags()[-1] == "PERIOD"


def test_empty_input(tiny_model_dir: Path) -> None:
    tagging = PunctuationModel(tiny_model_dir, "cpu").tag([])
    assert len(tagging) == 0
    assert tagging.case_probs is not None and tagging.case_probs.shape == (0, 3)


def test_long_input_is_stitched_from_the_window_with_most_context(edge_model_dir: Path) -> None:
    # The edge model claims QUESTION for tokens near either end of its 16-token window. Each
    # word must take its tag from a window where it sits inside, so only the text's own first
    # and last word (which no window can put inside) keep that artefact.
    model = PunctuationModel(edge_model_dir, "cpu")
    words = ["the", "people", "look", "at", "the", "world"] * 20
    tags = model.tag(words).punct_tags()
    assert tags[0] == tags[-1] == "QUESTION"
    assert tags[1:-1] == ["O"] * (len(words) - 2)


def test_batched_windows_match_one_at_a_time(edge_model_dir: Path) -> None:
    words = ["the", "stop", "people", "huh", "a", "well", "sentence"] * 15
    batched = PunctuationModel(edge_model_dir, "cpu", batch_size=8).tag(words)
    single = PunctuationModel(edge_model_dir, "cpu", batch_size=1).tag(words)
    np.testing.assert_allclose(batched.punct_probs, single.punct_probs, rtol=1e-6)


def test_word_longer_than_a_window(edge_model_dir: Path) -> None:
    model = PunctuationModel(edge_model_dir, "cpu")
    words = ["the", "stop" + "s" * 40, "people", "stop"]  # 41 subtokens, window holds 14
    assert len(model.tag(words)) == 4


@pytest.mark.parametrize(
    ("lengths", "budget"),
    [([1] * 10, 4), ([3, 1, 2, 5, 1, 1, 4, 2], 6), ([1] * 3, 10), ([7, 1, 7], 7), ([2] * 50, 9)],
)
def test_plan_windows_covers_every_word_within_budget(lengths: list[int], budget: int) -> None:
    windows = plan_windows(lengths, budget)
    assert windows[0][0] == 0 and windows[-1][1] == len(lengths)
    for (start, stop), (next_start, _) in itertools.pairwise(windows):
        assert start < next_start <= stop  # progress, and no gap between windows
    for start, stop in windows:
        assert stop - start == 1 or sum(lengths[start:stop]) <= budget


def test_plan_windows_overlaps_by_about_half() -> None:
    assert plan_windows([1] * 10, 4) == [(0, 4), (2, 6), (4, 8), (6, 10)]


def test_best_windows_prefers_the_most_context() -> None:
    lengths = [1] * 10
    windows = [(0, 4), (2, 6), (4, 8), (6, 10)]
    # Words 0-1 only in window 0; word 3 sits deeper in window 1 than in 0; ties go first.
    assert best_windows(lengths, windows).tolist() == [0, 0, 0, 1, 1, 2, 2, 3, 3, 3]


def test_context_scores() -> None:
    lengths = [1, 2, 1, 1, 3]
    # inner window: context is the smaller side in tokens
    assert context_scores(lengths, (1, 4), 5) == [0.0, 1.0, 0.0]
    # a window touching the text's start has unlimited left context
    assert context_scores(lengths, (0, 3), 5) == [3.0, 1.0, 0.0]
    assert context_scores(lengths, (0, 5), 5) == [float("inf")] * 5


def test_auto_provider_reports_what_the_session_uses(
    tiny_model_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="dictate"):
        model = PunctuationModel(tiny_model_dir, "auto")
    assert model.provider in model._session.get_providers()
    if model.provider == "CPUExecutionProvider":
        # No GPU here: the fallback and its reason are logged, not silent.
        assert model.session_info.note
        assert "runs on the CPU" in caplog.text


def test_cpu_provider_is_forced(tiny_model_dir: Path) -> None:
    model = PunctuationModel(tiny_model_dir, "cpu")
    assert model._session.get_providers() == ["CPUExecutionProvider"]


def test_the_sessions_threads_wait_asleep(tiny_model_dir: Path) -> None:
    """Not spinning: on two cores the spinning threads took the CPU the others needed
    (dictate/punctuation/session.py)."""
    options = PunctuationModel(tiny_model_dir, "cpu")._session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_cuda_provider_fails_clearly_without_a_gpu(tiny_model_dir: Path) -> None:
    if _cuda_works(tiny_model_dir):
        pytest.skip("a working CUDA device is present")
    with pytest.raises(ProviderError, match="CUDA requested"):
        PunctuationModel(tiny_model_dir, "cuda")


def test_unknown_provider(tiny_model_dir: Path) -> None:
    with pytest.raises(ProviderError, match="unknown execution provider"):
        PunctuationModel(tiny_model_dir, "tpu")


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def test_missing_directory_and_files(tiny_model_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ModelNotFound, match="does not exist"):
        PunctuationModel(tmp_path / "nowhere")
    broken = _copy(tiny_model_dir, tmp_path / "m")
    (broken / "tokenizer.json").unlink()
    with pytest.raises(ModelNotFound, match=r"has no tokenizer\.json"):
        PunctuationModel(broken)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("model.onnx", b"this is not protobuf", "corrupt or not an ONNX model"),
        ("tokenizer.json", b"{not json", "cannot load tokenizer"),
        ("config.json", b"[1, 2]", "not a JSON object"),
        ("config.json", b'{"format_version": 99}', "format_version 99"),
        ("config.json", b"\xff\xfe", "cannot read model config"),
    ],
)
def test_corrupt_files(
    tiny_model_dir: Path, tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    broken = _copy(tiny_model_dir, tmp_path / "m")
    (broken / name).write_bytes(content)
    with pytest.raises(ModelError, match=message):
        PunctuationModel(broken, "cpu")


def test_config_with_wrong_labels(tiny_model_dir: Path, tmp_path: Path) -> None:
    broken = _copy(tiny_model_dir, tmp_path / "m")
    config = json.loads((broken / "config.json").read_text())
    config["punct_labels"] = ["O", "COMMA", "PERIOD", "EXCLAMATION"]
    (broken / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelError, match="punct_labels"):
        PunctuationModel(broken, "cpu")


def test_config_and_graph_disagree_on_casing(tiny_model_dir: Path, tmp_path: Path) -> None:
    import onnx

    broken = _copy(tiny_model_dir, tmp_path / "m")
    onnx.save(build_graph(casing=False, edge_question=False), str(broken / "model.onnx"))
    with pytest.raises(ModelError, match="case_logits"):
        PunctuationModel(broken, "cpu")


def test_label_order_in_config_is_honoured(tiny_model_dir: Path, tmp_path: Path) -> None:
    # A model whose columns are in another order: the config says which is which.
    swapped = _copy(tiny_model_dir, tmp_path / "m")
    config = json.loads((swapped / "config.json").read_text())
    config["punct_labels"] = ["O", "COMMA", "QUESTION", "PERIOD"]
    (swapped / "config.json").write_text(json.dumps(config))
    assert PunctuationModel(swapped, "cpu").tag(["stop", "huh"]).punct_tags() == [
        "QUESTION",
        "PERIOD",
    ]
