"""Many seeds at once: :func:`fit_ensemble` trains ``S`` copies of one architecture as one batched model (parameters
stacked, forward pass in ``posgeom.nn._batched``; AdamW is elementwise, so each member takes its own step)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn
from torch.func import stack_module_state

from .._validation import check_seeds
from ._batched import batched_logits, member_losses
from ._checks import IGNORE_INDEX
from ._fit import FitResult, check_inputs
from .spec import ModelSpec, TrainConfig
from .training import TrainingHistory

__all__ = ["fit_ensemble"]


def _member_specs(spec, n: int) -> list:
    """One ModelSpec per member: ``spec`` repeated, or a sequence of ``n`` specs of one architecture."""
    if isinstance(spec, ModelSpec):
        return [spec] * n
    specs = list(spec) if isinstance(spec, (list, tuple)) else None
    if not specs or not all(isinstance(s, ModelSpec) for s in specs):
        raise TypeError(f"spec must be a ModelSpec or a sequence of ModelSpec (one per seed), got {spec!r:.80}")
    if len(specs) != n:
        raise ValueError(f"got {len(specs)} specs for {n} seeds; pass one spec, or one per seed")
    if not all(specs[0].same_architecture(s) for s in specs[1:]):
        raise ValueError("the members' specs must differ at most in the values of encoding and init_encoding")
    return specs


#: Tokens times width per forward pass of a group of members (best measured on benchmarks/bench_ensemble.py).
_SIZE_PER_GROUP = 2**18


def _groups(n_members: int, size_per_member: int) -> list[slice]:
    """The members in equal consecutive groups of about ``_SIZE_PER_GROUP`` tokens times width each."""
    n_groups = min(n_members, max(1, -(-n_members * size_per_member // _SIZE_PER_GROUP)))
    size = -(-n_members // n_groups)
    return [slice(a, min(a + size, n_members)) for a in range(0, n_members, size)]


def _member_data(specs, data, config, n_members: int):
    """``(X, y, mask)`` with a member axis in front, from one shared dataset (views) or one per member."""
    if _is_dataset_sequence(data):
        if len(data) != n_members:
            raise ValueError(f"got {len(data)} datasets for {n_members} seeds; pass one dataset (shared by every "
                             "member) or one per seed")
        parts = [check_inputs(sp, d, config) for sp, d in zip(specs, data)]
        for k, (X, y, mask) in enumerate(parts[1:], start=1):
            X0, y0, mask0 = parts[0]
            if X.shape != X0.shape or y.shape != y0.shape:
                raise ValueError(f"dataset {k} has X {tuple(X.shape)} and y {tuple(y.shape)}, dataset 0 has X "
                                 f"{tuple(X0.shape)} and y {tuple(y0.shape)}; the members' datasets must have equal "
                                 "shapes (pad or subsample them to one size)")
            if (mask is None) != (mask0 is None):
                raise ValueError(f"dataset {k} and dataset 0 disagree on padding_mask (one has it, the other not); "
                                 "give every dataset a padding_mask or none")
        X, y, mask = (torch.stack([part[i] for part in parts]) if parts[0][i] is not None else None
                      for i in range(3))
        return X, y, mask
    X, y, mask = check_inputs(specs[0], data, config)
    expand = (lambda t: None if t is None else t.expand(n_members, *t.shape))
    return expand(X), expand(y), expand(mask)


def _is_dataset_sequence(data) -> bool:
    """Whether ``data`` is a list or tuple of datasets rather than one dataset given as a tuple."""
    if not isinstance(data, (list, tuple)) or not data:
        return False

    def one(item):
        if hasattr(item, "X") and hasattr(item, "y"):
            return True
        return isinstance(item, (list, tuple)) and len(item) in (2, 3) and np.ndim(item[0]) == 2
    return all(one(item) for item in data)


def _logits(model, params, buffers, X, mask, pooled, chunk=1024):
    """Every member's logits on its whole dataset ``X`` (S, N, L), in chunks of ``chunk`` sequences."""
    members = []
    for group in _groups(X.shape[0], min(chunk, X.shape[1]) * X.shape[2] * model.d_model):
        sub, subbuf = {k: v[group] for k, v in params.items()}, {k: v[group] for k, v in buffers.items()}
        parts = []
        for s in range(0, X.shape[1], chunk):
            mb = None if mask is None else mask[group, s : s + chunk]
            parts.append(batched_logits(model, sub, subbuf, X[group, s : s + chunk], mb, pooled=pooled))
        members.append(torch.cat(parts, dim=1))
    return torch.cat(members)  # (S, N, C) or (S, N, L, C)


def _evaluate(model, params, buffers, X, y, mask):
    """Per-member accuracy (S,) and mean cross-entropy (S,)."""
    with torch.no_grad():
        logits = _logits(model, params, buffers, X, mask, y.ndim == 2)
        S = logits.shape[0]
        flat, target = logits.reshape(S, -1, logits.shape[-1]), y.reshape(S, -1)
        keep = target != IGNORE_INDEX
        acc = ((flat.argmax(dim=-1) == target) & keep).sum(dim=1).double() / keep.sum(dim=1).double()
        return acc, torch.stack([nn.functional.cross_entropy(f, t, ignore_index=IGNORE_INDEX)
                                 for f, t in zip(flat, target)])


def fit_ensemble(spec: ModelSpec | Sequence[ModelSpec], data: object, *, seeds: Sequence[int],
                 config: TrainConfig) -> tuple[FitResult, ...]:
    """Train one model per seed, all at once in one batched model: :func:`posgeom.nn.fit` for many seeds.

    Member ``k`` is the run ``fit(spec, data, seed=seeds[k], config=config)`` (on ``data[k]`` if one dataset per
    seed is given), up to rounding: batched kernels sum in another order, as a change of thread count does.

    Parameters
    ----------
    spec : ModelSpec or sequence of ModelSpec
        One spec, or one per seed differing only in the values of ``encoding`` or ``init_encoding``.
    data : TaskData-like or tuple, or a list or tuple of them
        One dataset as in :func:`posgeom.nn.fit`, or one per seed (all of the same shapes, all or none masked).
    seeds : sequence of distinct int >= 0
    config : TrainConfig

    Returns
    -------
    tuple of FitResult, in the order of ``seeds``

    Examples
    --------
    >>> X = np.array([[1, 2], [2, 1], [1, 1], [2, 2]] * 4)
    >>> runs = fit_ensemble(ModelSpec(vocab_size=3, n_positions=2, d_model=8), (X, X[:, 1] - 1), seeds=(0, 1),
    ...                     config=TrainConfig(epochs=5, lr=1e-2))
    >>> [r.seed for r in runs]
    [0, 1]
    """
    seeds = check_seeds(seeds)
    specs = _member_specs(spec, len(seeds))
    S = len(seeds)
    X, y, mask = _member_data(specs, data, config, S)
    torch.set_num_threads(config.threads)
    torch.use_deterministic_algorithms(True)
    models = [sp.build(seed=s) for sp, s in zip(specs, seeds)]
    params, buffers = stack_module_state(models)
    pooled = y.ndim == 2
    model0 = models[0]
    n = X.shape[1]
    batch = config.batch(n)
    members = torch.arange(S)[:, None]
    generators = [torch.Generator().manual_seed(s) for s in seeds]
    optimiser = torch.optim.AdamW(list(params.values()), lr=config.lr, weight_decay=config.weight_decay, foreach=True)
    scheduler = (torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, T_max=config.epochs * math.ceil(n / batch))
                 if config.schedule == "cosine" else None)
    losses = [[] for _ in seeds]
    for _ in range(config.epochs):
        order = torch.stack([torch.randperm(n, generator=g) for g in generators])
        total = torch.zeros(S, dtype=torch.float64)
        for start in range(0, n, batch):
            idx = order[:, start : start + batch]
            optimiser.zero_grad(set_to_none=True)
            parts = []
            for group in _groups(S, idx.shape[1] * X.shape[2] * model0.d_model):
                rows, ids = members[group], idx[group]
                mb = None if mask is None else mask[rows, ids]
                logits = batched_logits(model0, {k: v[group] for k, v in params.items()},
                                        {k: v[group] for k, v in buffers.items()}, X[rows, ids], mb, pooled=pooled)
                part = member_losses(logits, y[rows, ids], IGNORE_INDEX)
                part.sum().backward()
                parts.append(part.detach())
            loss = torch.cat(parts)
            if not bool(torch.isfinite(loss).all()):
                raise FloatingPointError(f"training loss became {loss.tolist()}; lower lr (now {config.lr})")
            optimiser.step()
            if scheduler is not None:
                scheduler.step()
            total += loss.detach().double() * idx.shape[1]
        for k in range(S):
            losses[k].append(float(total[k] / n))
    final_acc, final_loss = _evaluate(model0, params, buffers, X, y, mask)
    results = []
    for k, (model, seed) in enumerate(zip(models, seeds)):
        with torch.no_grad():
            for name, p in model.named_parameters():
                p.copy_(params[name][k])
        history = TrainingHistory(loss=tuple(losses[k]), final_loss=float(final_loss[k]), epochs=len(losses[k]),
                                  stopped_early=False, seed=seed)
        results.append(FitResult(model=model.eval(), history=history, train_accuracy=float(final_acc[k])))
    return tuple(results)
