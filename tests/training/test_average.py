"""Weight averaging of fine-tuned runs (dictate.training.average), on small real torch modules."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from dictate.training.average import average_state_dicts, main  # noqa: E402


def _work(folder: Path, seed: int, width: int = 4) -> Path:
    torch.manual_seed(seed)
    folder.mkdir(parents=True)
    model = torch.nn.Sequential(torch.nn.Linear(width, 3), torch.nn.BatchNorm1d(3))
    torch.save(model.state_dict(), folder / "model.pt")
    torch.save(torch.nn.Linear(3, 2).state_dict(), folder / "probe_head.pt")
    return folder


def test_averaging_two_runs_gives_the_mean_of_every_float_tensor(tmp_path: Path) -> None:
    a, b = _work(tmp_path / "a", 0), _work(tmp_path / "b", 1)
    assert main([str(a), str(b), str(tmp_path / "soup")]) == 0
    for name in ("model.pt", "probe_head.pt"):
        left, right = torch.load(a / name), torch.load(b / name)
        soup = torch.load(tmp_path / "soup" / name)
        assert soup.keys() == left.keys()
        for key, value in soup.items():
            if value.is_floating_point():
                assert torch.allclose(value, (left[key] + right[key]) / 2)
            else:
                assert torch.equal(value, left[key])  # BatchNorm's step counter is copied


def test_runs_of_different_shapes_are_refused_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _work(tmp_path / "a", 0), _work(tmp_path / "b", 1, width=5)
    assert main([str(a), str(b), str(tmp_path / "soup")]) == 2
    assert "shapes differ" in capsys.readouterr().err
    (tmp_path / "c").mkdir()
    assert main([str(a), str(tmp_path / "c"), str(tmp_path / "soup")]) == 2
    assert "model.pt is missing" in capsys.readouterr().err
    (tmp_path / "c" / "model.pt").write_bytes(b"not a checkpoint")
    (tmp_path / "c" / "probe_head.pt").write_bytes(b"")
    assert main([str(a), str(tmp_path / "c"), str(tmp_path / "soup")]) == 2
    assert "cannot read the runs" in capsys.readouterr().err


def test_differing_integer_tensors_are_refused() -> None:
    left = {"w": torch.zeros(2), "n": torch.tensor(1)}
    right = {"w": torch.ones(2), "n": torch.tensor(2)}
    with pytest.raises(ValueError, match="non-float"):
        average_state_dicts([left, right])
    assert torch.equal(
        average_state_dicts([left, {**right, "n": torch.tensor(1)}])["w"], torch.full((2,), 0.5)
    )
