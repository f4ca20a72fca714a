"""Theorem 4 at a plateau of the regularised loss, seed by seed: which pairs of positions collapse, which stay apart.

The chapter on positional separation reads the theorem for the regularised loss
``L_lam(theta) = CE(theta) + lam / 2 ||theta||^2``. That reading makes its own prediction: at a minimiser, a pair of
positions whose order no label depends on gains nothing from being apart and pays the penalty for it, so it
*collapses*; a pair whose order matters *stays apart*.

* :func:`role_task`: the whole population (each sequence once, so the training loss *is* the population loss and
  no data sample needs replicating) of a task with two pairs of positions: pair A = (0, 1) with a strong, a weak or
  no cause to be told apart, pair B = (2, 3) with none.
* :func:`train_regularised`: phase 1, :func:`posgeom.nn.fit_ensemble` (AdamW with decoupled weight decay,
  mini-batches, cosine schedule); phase 2, full-batch Adam on the explicit ``L_lam`` of every member, with the
  gradient norm at its start and end, its ratio to the penalty's gradient and the loss trace (:class:`RegularisedRuns`).
* :func:`pair_distances`: ``||p_i - p_j||`` of the two pairs relative to the mean distance over all pairs of the
  same table (a scale-free reading).
* :func:`cumulative_decay`, :func:`sign_flip_p`: the strength of AdamW's decay, an exact sign-flip test over seeds
  (the power of the paired t test is :func:`posgeom.inference.t_test_power`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_positive_int, check_seeds
from .tasks import TaskData

__all__ = [
    "PAIRS",
    "CAUSES",
    "role_task",
    "RegularisedRuns",
    "train_regularised",
    "pair_distances",
    "cumulative_decay",
    "sign_flip_p",
]

#: The two pairs of :func:`role_task`: A (with the cause of the task) and B (without).
PAIRS = {"A": (0, 1), "B": (2, 3)}
#: The causes pair A can be given.
CAUSES = ("strong", "weak", "none")


def role_task(cause: str, *, vocab_size: int = 4) -> TaskData:
    """The whole population of a two-pair task, each sequence once: pair A = (0, 1) with a cause, B = (2, 3) without.

    Sequences have length 4 over ``V`` tokens and two label bits (4 classes, ``y = 2 a + b``). Pair B always holds
    two uniform tokens and ``b = [x_2 + x_3 >= V]``: the label needs both tokens, never their order. Pair A:

    * ``"strong"``: the first token from the lower half of the vocabulary, the second from the upper half, and with
      probability 1/2 the two exchanged; ``a`` says whether they were (non-stationary and order-sensitive);
    * ``"weak"``: two uniform tokens, ``a = [x_0 < x_1]`` when both are 0 or 1 and ``[x_0 + x_1 >= V]`` otherwise
      (the order decides the label for 2 of the ``V^2`` token pairs);
    * ``"none"``: two uniform tokens and ``a = [x_0 + x_1 >= V]``: pair A plays exactly the role of pair B.

    Parameters
    ----------
    cause : {"strong", "weak", "none"}
    vocab_size : int, default 4
        Even ``V >= 4``.

    Returns
    -------
    TaskData
        ``X`` (N, 4) with ``N = 2 (V/2)^2 V^2`` for ``"strong"``, ``V^4`` otherwise.

    Raises
    ------
    ValueError
        An unknown ``cause``, or ``V`` odd or smaller than 4.

    Examples
    --------
    >>> role_task("strong").X.shape, role_task("none").X.shape
    ((128, 4), (256, 4))
    >>> data = role_task("weak")
    >>> sorted(set(data.y.tolist()))
    [0, 1, 2, 3]
    """
    V = check_positive_int(vocab_size, "vocab_size", minimum=4)
    if V % 2:
        raise ValueError(f"vocab_size must be even, got {V}")
    if cause not in CAUSES:
        raise ValueError(f"cause must be one of {CAUSES}, got {cause!r}")
    low, high, every = range(V // 2), range(V // 2, V), range(V)
    if cause == "strong":
        pair_a = [(lo, hi, 0) for lo, hi in itertools.product(low, high)]
        pair_a += [(hi, lo, 1) for lo, hi in itertools.product(low, high)]
    elif cause == "weak":
        pair_a = [(x0, x1, int(x0 < x1) if max(x0, x1) < 2 else int(x0 + x1 >= V))
                  for x0, x1 in itertools.product(every, every)]
    else:
        pair_a = [(x0, x1, int(x0 + x1 >= V)) for x0, x1 in itertools.product(every, every)]
    rows = [(x0, x1, x2, x3) for (x0, x1, _), x2, x3 in itertools.product(pair_a, every, every)]
    labels = [2 * a + int(x2 + x3 >= V) for (_, _, a), x2, x3 in itertools.product(pair_a, every, every)]
    return TaskData(np.array(rows, dtype=np.int64), np.array(labels, dtype=np.int64))


def cumulative_decay(lr: float, weight_decay: float, steps: int, *, schedule: str = "cosine") -> float:
    """The product ``prod_t (1 - lr_t * weight_decay)``: how much AdamW's decoupled decay alone shrinks a weight.

    Parameters
    ----------
    lr, weight_decay : float
        Peak learning rate and decay.
    steps : int
        Optimiser steps.
    schedule : {"cosine", "constant"}
        ``lr_t = lr (1 + cos(pi t / steps)) / 2`` (torch's cosine annealing) or ``lr``.

    Returns
    -------
    float

    Examples
    --------
    >>> round(cumulative_decay(0.05, 0.01, 80), 3)
    0.98
    """
    steps = check_positive_int(steps, "steps")
    t = np.arange(steps)
    rates = lr * (1 + np.cos(np.pi * t / steps)) / 2 if schedule == "cosine" else np.full(steps, lr)
    return float(np.prod(1 - rates * weight_decay))




@dataclass(frozen=True)
class RegularisedRuns:
    """Result of :func:`train_regularised` (one entry per seed).

    Attributes
    ----------
    seeds : (S,) int array
    initial, final : (S, L, d) arrays
        The position tables before training and at the end.
    grad_start, grad_norm : (S,) arrays
        ``||grad L_lam||`` of each member (all parameters) at the start and at the end of phase 2.
    grad_positions : (S,) array
        The part of the final gradient that acts on the position table, ``||grad_P L_lam||``.
    late : (S, L, d) array
        The position tables four fifths of the way through phase 2 (how much they still move at the end).
    loss_trace : (k,) array
        Mean ``L_lam`` over the members after each step of phase 2.
    ce, penalty, accuracy : (S,) arrays
        Cross-entropy, ``lam / 2 ||theta||^2`` and training accuracy at the end.
    decay : float
        The cumulative decay factor of phase 1 (:func:`cumulative_decay`).
    lam : float
        The ``lam`` of phase 2.
    """

    seeds: np.ndarray
    initial: np.ndarray
    final: np.ndarray
    grad_start: np.ndarray
    grad_norm: np.ndarray
    grad_positions: np.ndarray
    late: np.ndarray
    loss_trace: np.ndarray
    ce: np.ndarray
    penalty: np.ndarray
    accuracy: np.ndarray
    decay: float
    lam: float

    @property
    def gradient_ratio(self) -> np.ndarray:
        """``||grad L_lam|| / (lam ||theta||)`` at the end, per seed: the gradient against the penalty's own gradient.

        At a stationary point the cross-entropy's gradient balances the penalty's, ``lam theta``, exactly, so the
        ratio is 0; a ratio near 1 means the residual force is as large as the penalty's.
        """
        return self.grad_norm / np.sqrt(2 * self.lam * self.penalty)

    @property
    def plateau(self) -> float:
        """Relative change of the mean ``L_lam`` over the last fifth of phase 2: ``|L(end) - L(4/5)| / L(end)``."""
        k = len(self.loss_trace)
        return float(abs(self.loss_trace[-1] - self.loss_trace[(4 * k) // 5 - 1]) / self.loss_trace[-1])


def train_regularised(data: TaskData, *, seeds: Sequence[int], lam: float = 1e-2, width: int = 8, epochs: int = 40,
                      lr: float = 0.02, weight_decay: float = 0.5, batch_size: int = 64,
                      steps: int = 300, polish_lr: float = 0.03) -> RegularisedRuns:
    """Fit one model per seed with :func:`posgeom.nn.fit_ensemble`, then descend the explicit ``L_lam`` to a plateau.

    Seed ``s`` draws the initial position table (``N(0, 1)`` entries, so every pair starts apart), initialises the
    other parameters and orders the mini-batches of phase 1 (AdamW, decoupled decay ``weight_decay``, cosine
    schedule). Phase 2 takes ``steps`` full-batch Adam steps (cosine schedule from ``polish_lr``) on
    ``sum_k [CE_k + lam / 2 ||theta_k||^2]`` in float64; the members' losses are separate and Adam is elementwise,
    so this is each member's own descent of its ``L_lam``.

    Parameters
    ----------
    data : TaskData
    seeds : sequence of int
        Distinct seeds ``>= 0``.
    lam : float, default 1e-2
        The ``lam`` of the regularised loss (every parameter, positions included).
    width, epochs, lr, weight_decay, batch_size :
        Model width (one layer, two heads) and the :class:`posgeom.nn.TrainConfig` of phase 1.
    steps, polish_lr :
        Phase 2.

    Returns
    -------
    RegularisedRuns

    Examples
    --------
    >>> runs = train_regularised(role_task("strong"), seeds=[0, 1], epochs=1, steps=5)
    >>> runs.final.shape, runs.grad_norm.shape
    ((2, 4, 8), (2,))
    """
    import torch
    from torch.func import stack_module_state

    from ..nn import ModelSpec, TrainConfig, fit_ensemble
    from ..nn._batched import batched_logits, member_losses

    seeds = check_seeds(seeds)
    L, V = data.length, data.vocab_size
    initial = np.stack([np.random.default_rng(s).standard_normal((L, width)) for s in seeds])
    specs = [ModelSpec(vocab_size=V, n_positions=L, d_model=width, n_heads=2, n_layers=1,
                       n_classes=int(data.y.max()) + 1, init_encoding=P0) for P0 in initial]
    config = TrainConfig(epochs=epochs, lr=lr, batch_size=batch_size, weight_decay=weight_decay,
                         schedule="cosine")
    runs = fit_ensemble(specs, data, seeds=seeds, config=config)
    params, buffers = stack_module_state([r.model for r in runs])
    params = {k: v.detach().double().requires_grad_(True) for k, v in params.items()}
    buffers = {k: v.double() if v.is_floating_point() else v for k, v in buffers.items()}
    S, model0 = len(seeds), runs[0].model
    X, y = torch.as_tensor(data.X).expand(S, -1, -1), torch.as_tensor(data.y).expand(S, -1)

    def objective():
        ce = member_losses(batched_logits(model0, params, buffers, X, None, pooled=True), y, -100)
        penalty = lam / 2 * sum(p.pow(2).reshape(S, -1).sum(dim=1) for p in params.values())
        for p in params.values():
            p.grad = None
        (ce + penalty).sum().backward()
        grad = torch.sqrt(sum(p.grad.pow(2).reshape(S, -1).sum(dim=1) for p in params.values()))
        return ce.detach(), penalty.detach(), grad.detach()

    optimiser = torch.optim.Adam(list(params.values()), lr=polish_lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, T_max=steps)
    trace, grad_start, late = [], None, None
    for step in range(steps):
        if step == (4 * steps) // 5:
            late = params["positional.weight"].detach().numpy().copy()
        ce, penalty, grad = objective()
        grad_start = grad if grad_start is None else grad_start
        optimiser.step()
        scheduler.step()
        trace.append(float((ce + penalty).mean()))
    ce, penalty, grad = objective()
    with torch.no_grad():
        acc = (batched_logits(model0, params, buffers, X, None, pooled=True).argmax(-1) == y).double().mean(dim=1)
    return RegularisedRuns(
        seeds=np.array(seeds), initial=initial, final=params["positional.weight"].detach().numpy(),
        grad_start=grad_start.numpy(), grad_norm=grad.numpy(),
        grad_positions=params["positional.weight"].grad.reshape(S, -1).norm(dim=1).numpy(), late=late,
        loss_trace=np.array(trace), ce=ce.numpy(),
        penalty=penalty.numpy(), accuracy=acc.numpy(),
        decay=cumulative_decay(lr, weight_decay, config.steps(len(data))), lam=float(lam))


def pair_distances(tables: ArrayLike) -> dict[str, np.ndarray]:
    """``||p_i - p_j||`` of the pairs of :data:`PAIRS`, divided by the table's mean distance over all pairs.

    Parameters
    ----------
    tables : (S, L, d) array
        One position table per seed.

    Returns
    -------
    dict of str to (S,) array
        Keys ``"A"``, ``"B"``.

    Examples
    --------
    >>> P = np.array([[[0.0], [1.0], [3.0], [3.0]]])  # pair distances 1, 3, 3, 2, 2, 0: mean 11/6
    >>> {k: round(float(v[0]), 3) for k, v in pair_distances(P).items()}
    {'A': 0.545, 'B': 0.0}
    """
    P = np.asarray(tables, dtype=float)
    D = np.linalg.norm(P[:, :, None, :] - P[:, None, :, :], axis=-1)
    iu = np.triu_indices(P.shape[1], k=1)
    scale = D[:, iu[0], iu[1]].mean(axis=1)
    return {k: D[:, i, j] / scale for k, (i, j) in PAIRS.items()}


def sign_flip_p(x: ArrayLike) -> float:
    """Exact two-sided sign-flip permutation p-value of the mean of ``x`` (all ``2^n`` sign patterns, ``n <= 20``).

    Under "no effect" each seed's contrast is symmetric about 0, so flipping signs leaves its law unchanged.

    Parameters
    ----------
    x : (n,) array
        One contrast per independent seed.

    Returns
    -------
    float
        The share of sign patterns whose ``|mean|`` is at least the observed one (never 0).

    Examples
    --------
    >>> sign_flip_p([1.0, 2.0, 3.0, 4.0])  # only the all-plus and all-minus patterns are as extreme
    0.125
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or not 1 <= x.size <= 20:
        raise ValueError(f"x must be a 1-D array of 1 to 20 contrasts, got shape {x.shape}")
    signs = 1 - 2 * ((np.arange(2**x.size)[:, None] >> np.arange(x.size)) & 1)
    null = np.abs(signs @ x) / x.size
    return float(np.mean(null >= abs(x.mean()) * (1 - 1e-12)))
