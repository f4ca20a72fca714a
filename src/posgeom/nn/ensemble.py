"""Many seeds at once: :func:`fit_ensemble` trains ``S`` copies of one architecture as a single batched model.

The members' parameters are stacked (``torch.func.stack_module_state``), the forward pass runs with the member
axis in front (batched matrix products, ``posgeom.nn._batched``), and one AdamW optimiser steps the stacked tensors
-- AdamW is elementwise, so this is each member's own AdamW step. Member ``k`` is the run
``fit(spec, data, seed=seeds[k], config=config)`` would make: its own initialisation (built after
``seed_everything(seeds[k])``), its own mini-batch order (a generator seeded with ``seeds[k]``), its own stopping
epoch. The models have no dropout, so there is no other random stream. Results agree with :func:`posgeom.nn.fit` up
to rounding (batched kernels sum in another order), not bit for bit: in float64 to about 1e-8 after a whole run; in
float32, training carries the rounding differences along, as it does when ``fit`` only changes its thread count.
So a chapter that fits its seeds with ``fit_ensemble`` gets its own numbers, reproducible run to run, close to but
not identical with a loop over ``fit``."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn
from torch.func import stack_module_state

from .._validation import check_seeds
from ._batched import batched_logits, member_losses
from ._checks import IGNORE_INDEX
from ._fit import FitResult, _check_inputs, plateau_reached
from .spec import ModelSpec, TrainConfig
from .training import TrainingHistory

__all__ = [
    "fit_ensemble",
]


def _member_specs(spec, n: int) -> list:
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


def _evaluate(model, params, buffers, X, y, mask, chunk=1024):
    """Per-member loss and accuracy on all of ``(X, y)``: two (S,) tensors."""
    S = next(iter(params.values())).shape[0]
    with torch.no_grad():
        parts = []
        for s in range(0, X.shape[0], chunk):
            xb = X[s : s + chunk].expand(S, -1, -1)
            mb = None if mask is None else mask[s : s + chunk].expand(S, -1, -1)
            parts.append(batched_logits(model, params, buffers, xb, mb, pooled=y.ndim == 1))
        logits = torch.cat(parts, dim=1)  # (S, N, C) or (S, N, L, C)
        flat = logits.reshape(S, -1, logits.shape[-1])
        target = y.reshape(-1)
        loss = torch.stack([nn.functional.cross_entropy(f, target, ignore_index=IGNORE_INDEX) for f in flat])
        keep = target != IGNORE_INDEX
        acc = (flat.argmax(dim=-1)[:, keep] == target[keep]).double().mean(dim=1)
    return loss, acc


def fit_ensemble(spec: ModelSpec | Sequence[ModelSpec], data: object, *, seeds: Sequence[int],
                 config: TrainConfig) -> tuple[FitResult, ...]:
    """Train one model per seed, all at once in one batched model: :func:`posgeom.nn.fit` for many seeds.

    Member ``k`` starts from ``spec.build(seed=seeds[k])``, draws its mini-batches in the order of a generator
    seeded with ``seeds[k]`` and stops on its own plateau (``config.patience``), as ``fit`` would. The batched
    forward and backward passes sum in another order than ``fit``'s, so members agree with ``fit`` up to rounding,
    which training then carries along (see the module docstring).

    Parameters
    ----------
    spec : ModelSpec or sequence of ModelSpec
        The architecture; or one spec per seed, differing only in the values of ``encoding`` (the frozen matrix of
        ``"fixed"``) or ``init_encoding``.
    data : TaskData-like or tuple
        As in :func:`posgeom.nn.fit`; every member trains on the same data.
    seeds : sequence of int
        Distinct seeds ``>= 0``, one member each.
    config : TrainConfig
        As in :func:`posgeom.nn.fit`, shared by every member.

    Returns
    -------
    tuple of FitResult
        One per seed, in the order of ``seeds``: the same type :func:`posgeom.nn.fit` returns.

    Raises
    ------
    TypeError
        ``seeds`` not a sequence of integers, or a ``spec``, ``config`` or data of the wrong type.
    ValueError
        Empty or repeated seeds, specs of different architectures or in another number than the seeds, or any
        data error of :func:`posgeom.nn.fit`.
    FloatingPointError
        A member's training loss became NaN or infinite.

    Examples
    --------
    >>> import numpy as np
    >>> from posgeom.nn import fit
    >>> X = np.array([[1, 2], [2, 1], [1, 1], [2, 2]] * 4)
    >>> y = X[:, 1] - 1
    >>> spec, config = ModelSpec(vocab_size=3, n_positions=2, d_model=8), TrainConfig(epochs=5, lr=1e-2)
    >>> runs = fit_ensemble(spec, (X, y), seeds=(0, 1), config=config)
    >>> alone = fit(spec, (X, y), seed=1, config=config)
    >>> [r.seed for r in runs], bool(np.allclose(runs[1].history.loss, alone.history.loss, rtol=1e-5))
    ([0, 1], True)
    """
    seeds = check_seeds(seeds)
    specs = _member_specs(spec, len(seeds))
    X, y, mask = _check_inputs(specs[0], data, config)
    torch.set_num_threads(config.threads)
    torch.use_deterministic_algorithms(True)
    models = [sp.build(seed=s) for sp, s in zip(specs, seeds)]
    params, buffers = stack_module_state(models)
    pooled = y.ndim == 1
    model0 = models[0]
    S, n = len(seeds), X.shape[0]
    batch = config.batch(n)
    generators = [torch.Generator().manual_seed(s) for s in seeds]
    optimiser = torch.optim.AdamW(list(params.values()), lr=config.lr, weight_decay=config.weight_decay)
    scheduler = (torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, T_max=config.steps(n))
                 if config.schedule == "cosine" else None)
    losses = [[] for _ in seeds]
    measured = [[] for _ in seeds]
    final = [None] * S  # a member's parameters when it stopped
    stopped = [False] * S
    for epoch in range(1, config.epochs + 1):
        active = [k for k in range(S) if final[k] is None]
        order = torch.stack([torch.randperm(n, generator=g) for g in generators])
        total = torch.zeros(S, dtype=torch.float64)
        for start in range(0, n, batch):
            idx = order[:, start : start + batch]
            mb = None if mask is None else mask[idx]
            logits = batched_logits(model0, params, buffers, X[idx], mb, pooled=pooled)
            loss = member_losses(logits, y[idx], IGNORE_INDEX)
            if not bool(torch.isfinite(loss[active]).all()):
                raise FloatingPointError(f"training loss became {loss.tolist()}; lower lr (now {config.lr})")
            optimiser.zero_grad(set_to_none=True)
            loss.sum().backward()
            optimiser.step()
            if scheduler is not None:
                scheduler.step()
            total += loss.detach().double() * idx.shape[1]
        for k in active:
            losses[k].append(float(total[k] / n))
        if config.patience is not None:
            _, acc = _evaluate(model0, params, buffers, X, y, mask)
            for k in active:
                measured[k].append(float(acc[k]))
                if plateau_reached(measured[k], config.patience, config.tol):
                    stopped[k] = epoch < config.epochs
                    final[k] = {name: v[k].detach().clone() for name, v in params.items()}
        if all(f is not None for f in final):
            break
    for k in range(S):
        if final[k] is None:
            final[k] = {name: v[k].detach().clone() for name, v in params.items()}
    stacked = {name: torch.stack([f[name] for f in final]) for name in params}
    final_loss, final_acc = _evaluate(model0, stacked, buffers, X, y, mask)
    results = []
    for k, (model, seed) in enumerate(zip(models, seeds)):
        with torch.no_grad():
            for name, p in model.named_parameters():
                p.copy_(final[k][name])
        history = TrainingHistory(loss=tuple(losses[k]), final_loss=float(final_loss[k]), epochs=len(losses[k]),
                                  stopped_early=stopped[k], seed=seed, accuracy=tuple(measured[k]))
        train_acc = measured[k][-1] if measured[k] else float(final_acc[k])
        results.append(FitResult(model=model.eval(), history=history, train_accuracy=train_acc))
    return tuple(results)
