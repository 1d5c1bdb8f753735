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


def test_tail_average_is_the_mean_of_the_snapshots_it_was_due(tmp_path: Path) -> None:
    from dictate.training.average import TailAverage

    average = TailAverage(start=6, every=2)
    layer = torch.nn.Linear(2, 2)
    taken = []
    for step in range(1, 12):  # steps 6, 8, 10 and the last, 11
        with torch.no_grad():
            layer.weight.fill_(float(step))
        if average.due(step, last_step=11):
            average.add({"model": layer.state_dict()})
            taken.append(step)
    assert taken == [6, 8, 10, 11]
    assert torch.allclose(average.mean("model")["weight"], torch.full((2, 2), 35 / 4))
    restored = TailAverage(start=0, every=1)
    restored.load_state_dict(average.state_dict())  # survives a checkpoint and --resume
    assert restored.count == 4 and torch.equal(restored.mean("model")["bias"], layer.bias.detach())


def test_tail_average_with_no_snapshot_says_so() -> None:
    from dictate.training.average import TailAverage

    with pytest.raises(ValueError, match="before the start step"):
        TailAverage(start=10, every=5).mean("model")


@pytest.mark.parametrize("value", ["1.5", "late", "-0.1"])
def test_train_refuses_a_bad_average_share_with_one_message(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from dictate.training.train import main as train_main

    with pytest.raises(SystemExit) as exit_info:
        train_main(["--average-from", value, "fit"])
    assert exit_info.value.code == 2
    assert "--average-from takes shares from 0 to below 1" in capsys.readouterr().err
