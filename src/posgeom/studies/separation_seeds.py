"""Theorem 4 at a plateau of the regularised loss, seed by seed: which pairs of positions collapse, which stay apart.

The chapter on positional separation reads the theorem for the regularised loss
``L_lam(theta) = CE(theta) + lam / 2 ||theta||^2``. That reading makes its own prediction: at a minimiser, a pair of
positions whose order no label depends on gains nothing from being apart and pays the penalty for it, so it
*collapses*; a pair whose order matters *stays apart*.

* :func:`role_task`: the whole population (each sequence once, so the training loss *is* the population loss and
  no data sample needs replicating) of a task with two pairs of positions: pair A = (0, 1) with a strong, a weak or
  no cause to be told apart, pair B = (2, 3) with none.
* :func:`train_regularised`: models without layer normalisation, warm-started by :func:`posgeom.nn.fit_ensemble`,
  then full-batch float64 L-BFGS on the explicit ``L_lam`` of every member until each meets the stationarity
  criterion ``||grad L_lam|| <= tol * lam ||theta||`` (:class:`RegularisedRuns` records every member's final ratio).
* :func:`pair_distances`: ``||p_i - p_j||`` of the two pairs relative to the mean distance over all pairs of the
  same table (a scale-free reading).
* :func:`sign_flip_p`: an exact sign-flip test over seeds (the power of the paired t test is
  :func:`posgeom.inference.t_test_power`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_positive_int, check_real, check_seeds
from ..nn.tasks import TaskData

__all__ = [
    "PAIRS",
    "CAUSES",
    "role_task",
    "RegularisedRuns",
    "train_regularised",
    "pair_distances",
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


@dataclass(frozen=True)
class RegularisedRuns:
    """Result of :func:`train_regularised` (one entry per seed).

    Attributes
    ----------
    seeds : (S,) int array
    initial, final : (S, L, d) arrays
        The position tables before training and at the end.
    params : dict of str to (S, ...) array
        Every final parameter, stacked over the seeds (float64), named as in the model.
    grad_start, grad_norm : (S,) arrays
        ``||grad L_lam||`` of each member (all parameters) at the start and at the end of phase 2.
    start_ratio : (S,) array
        ``||grad L_lam|| / (lam ||theta||)`` at the start of phase 2 (the AdamW warm start): the stationarity
        criterion's ratio before L-BFGS, a negative control for it.
    grad_positions : (S,) array
        The part of the final gradient that acts on the position table, ``||grad_P L_lam||``.
    iterations : (S,) int array
        Phase-2 iterations each member took (``max_iter`` for a member that never met the criterion).
    ce, penalty, accuracy : (S,) arrays
        Cross-entropy, ``lam / 2 ||theta||^2`` and training accuracy at the end.
    lam, tol : float
        The ``lam`` of the loss and the stationarity criterion.
    """

    seeds: np.ndarray
    initial: np.ndarray
    final: np.ndarray
    params: dict
    grad_start: np.ndarray
    start_ratio: np.ndarray
    grad_norm: np.ndarray
    grad_positions: np.ndarray
    iterations: np.ndarray
    ce: np.ndarray
    penalty: np.ndarray
    accuracy: np.ndarray
    lam: float
    tol: float

    @property
    def gradient_ratio(self) -> np.ndarray:
        """``||grad L_lam|| / (lam ||theta||)`` at the end, per seed: the gradient against the penalty's own gradient.

        At a stationary point the cross-entropy's gradient balances the penalty's, ``lam theta``, exactly, so the
        ratio is 0; a ratio near 1 means the residual force is as large as the penalty's.
        """
        return self.grad_norm / np.sqrt(2 * self.lam * self.penalty)

    @property
    def stationary(self) -> np.ndarray:
        """Per seed, whether the criterion ``||grad L_lam|| <= tol * lam ||theta||`` holds at the end."""
        return self.gradient_ratio <= self.tol


def _batched_lbfgs(f, x, *, done, max_iter: int, memory: int, c1: float = 1e-4):
    """L-BFGS for ``S`` separate objectives at once: each row of ``x`` has its own history and its own step.

    ``f(x_rows, rows)`` returns the losses (k,) and gradients (k, n) of the members ``rows``; ``done(x, grad)`` the
    members that meet their stopping criterion (they are left where they are). Steps: the two-loop recursion of
    each member's last ``memory`` pairs, a backtracking line search on each member's own Armijo condition
    (sufficient decrease ``c1``), a pair kept only when its curvature ``s.y`` is positive. Returns ``x``, the
    gradients and the iterations each member took.
    """
    import torch

    S, n = x.shape
    x = x.clone()
    loss, grad = f(x, torch.arange(S))
    s_hist, y_hist = torch.zeros(memory, S, n, dtype=x.dtype), torch.zeros(memory, S, n, dtype=x.dtype)
    rho, gamma = torch.zeros(memory, S, dtype=x.dtype), torch.ones(S, dtype=x.dtype)
    iters = torch.zeros(S, dtype=torch.long)
    for it in range(max_iter):
        active = torch.nonzero(~done(x, grad)).flatten()
        if active.numel() == 0:
            break
        g = grad[active]
        q, alphas, order = g.clone(), [], [(it - 1 - j) % memory for j in range(memory)]  # newest pair first
        for i in order:
            a = rho[i, active] * (s_hist[i, active] * q).sum(1)
            q -= a[:, None] * y_hist[i, active]
            alphas.append(a)
        r = gamma[active, None] * q
        for i, a in zip(reversed(order), reversed(alphas)):
            r += s_hist[i, active] * (a - rho[i, active] * (y_hist[i, active] * r).sum(1))[:, None]
        d, slope = -r, -(r * g).sum(1)
        uphill = slope >= 0  # not a descent direction: fall back on the gradient
        d[uphill], slope[uphill] = -g[uphill], -(g[uphill] ** 2).sum(1)
        t = torch.where(iters[active] == 0, torch.clamp(1 / g.norm(dim=1), max=1.0), torch.ones_like(slope))
        new_x, new_loss, new_grad = x[active].clone(), loss[active].clone(), g.clone()
        pending = torch.ones(active.numel(), dtype=torch.bool)
        for _ in range(40):
            rows = torch.nonzero(pending).flatten()
            if rows.numel() == 0:
                break
            trial = x[active[rows]] + t[rows, None] * d[rows]
            trial_loss, trial_grad = f(trial, active[rows])
            ok = trial_loss <= loss[active[rows]] + c1 * t[rows] * slope[rows]
            kept = rows[ok]
            new_x[kept], new_loss[kept], new_grad[kept] = trial[ok], trial_loss[ok], trial_grad[ok]
            pending[kept] = False
            t[rows[~ok]] *= 0.5
        step, change = new_x - x[active], new_grad - g
        sy = (step * change).sum(1)
        valid = sy > 1e-12 * step.norm(dim=1) * change.norm(dim=1)
        slot = it % memory
        s_hist[slot, active], y_hist[slot, active] = step, change
        rho[slot, active] = torch.where(valid, 1 / sy, torch.zeros_like(sy))
        gamma[active] = torch.where(valid, sy / (change * change).sum(1), gamma[active])
        x[active], loss[active], grad[active] = new_x, new_loss, new_grad
        iters[active] += 1
    return x, grad, iters


def train_regularised(data: TaskData, *, seeds: Sequence[int], lam: float = 2e-2, width: int = 8, epochs: int = 40,
                      lr: float = 0.02, weight_decay: float = 0.5, batch_size: int = 64, tol: float = 1e-3,
                      max_iter: int = 3000, memory: int = 50) -> RegularisedRuns:
    """Fit one model per seed, then minimise the explicit ``L_lam`` of every member to a stationary point.

    The models have no layer normalisation (``ModelSpec(layer_norm=False)``): with it, the cross-entropy would be
    blind to the scale of the weights feeding each LayerNorm, and the penalty would shrink them forever (an
    ill-posed, ill-conditioned minimisation). Seed ``s`` draws the initial position table (``N(0, 1)`` entries, so
    every pair starts apart), initialises the other parameters and orders the mini-batches of phase 1
    (:func:`posgeom.nn.fit_ensemble`: AdamW, decoupled decay ``weight_decay``, cosine schedule), a warm start.
    Phase 2 minimises ``L_lam(theta) = CE(theta) + lam / 2 ||theta||^2`` (every parameter, positions included) of
    every member in float64 by full-batch L-BFGS, each member with its own history and its own line search, until
    each member meets the stationarity criterion ``||grad L_lam|| <= tol * lam ||theta||`` or ``max_iter``
    iterations have passed (the result records every member's final ratio: check it, nothing here hides a miss).

    Parameters
    ----------
    data : TaskData
    seeds : sequence of int
        Distinct seeds ``>= 0``.
    lam : float, default 2e-2
        The ``lam`` of the regularised loss, ``> 0``.
    width, epochs, lr, weight_decay, batch_size :
        Model width (one layer, two heads) and the :class:`posgeom.nn.TrainConfig` of phase 1.
    tol : float, default 1e-3
        The stationarity criterion, ``> 0``.
    max_iter : int, default 3000
        Cap on the L-BFGS iterations of a member.
    memory : int, default 50
        Pairs of L-BFGS history per member.

    Returns
    -------
    RegularisedRuns

    Raises
    ------
    ValueError
        A non-positive ``lam``, ``tol``, ``max_iter`` or ``memory``, or invalid seeds.

    Examples
    --------
    >>> runs = train_regularised(role_task("strong"), seeds=[0, 1], epochs=1, max_iter=5)
    >>> runs.final.shape, runs.grad_norm.shape, int(runs.iterations.max())
    ((2, 4, 8), (2,), 5)
    """
    import torch
    from torch.func import stack_module_state

    from ..nn import ModelSpec, TrainConfig, fit_ensemble
    from ..nn._batched import batched_logits, member_losses

    seeds = check_seeds(seeds)
    lam, tol = check_real(lam, "lam"), check_real(tol, "tol")
    max_iter, memory = check_positive_int(max_iter, "max_iter"), check_positive_int(memory, "memory")
    L, V = data.length, data.vocab_size
    initial = np.stack([np.random.default_rng(s).standard_normal((L, width)) for s in seeds])
    specs = [ModelSpec(vocab_size=V, n_positions=L, d_model=width, n_heads=2, n_layers=1,
                       n_classes=int(data.y.max()) + 1, init_encoding=P0, layer_norm=False) for P0 in initial]
    config = TrainConfig(epochs=epochs, lr=lr, batch_size=batch_size, weight_decay=weight_decay,
                         schedule="cosine")
    runs = fit_ensemble(specs, data, seeds=seeds, config=config)
    params, buffers = stack_module_state([r.model for r in runs])
    S, model0 = len(seeds), runs[0].model
    names = list(params)
    shapes = [params[k].shape[1:] for k in names]
    sizes = [int(np.prod(shape)) for shape in shapes]
    x0 = torch.cat([params[k].detach().double().reshape(S, -1) for k in names], dim=1)
    buffers = {k: v.double() if v.is_floating_point() else v for k, v in buffers.items()}
    X, y = torch.as_tensor(data.X), torch.as_tensor(data.y)

    def unflatten(x):
        return {k: part.reshape(x.shape[0], *shape) for k, part, shape in zip(names, x.split(sizes, 1), shapes)}

    def logits(x):
        return batched_logits(model0, unflatten(x), buffers, X.expand(x.shape[0], -1, -1), None, pooled=True)

    def objective(x, rows):
        x = x.detach().requires_grad_(True)
        total = member_losses(logits(x), y.expand(x.shape[0], -1), -100) + lam / 2 * x.pow(2).sum(dim=1)
        (grad,) = torch.autograd.grad(total.sum(), x)
        return total.detach(), grad

    def done(x, grad):
        return grad.norm(dim=1) <= tol * lam * x.norm(dim=1)

    grad_start = objective(x0, None)[1].norm(dim=1)
    x, grad, iterations = _batched_lbfgs(objective, x0, done=done, max_iter=max_iter, memory=memory)
    with torch.no_grad():
        out = logits(x)
        ce = member_losses(out, y.expand(S, -1), -100)
        acc = (out.argmax(-1) == y).double().mean(dim=1)
    final = {k: v.numpy() for k, v in unflatten(x.detach()).items()}
    grads = {k: v.numpy() for k, v in unflatten(grad).items()}
    return RegularisedRuns(
        seeds=np.array(seeds), initial=initial, final=final["positional.weight"], params=final,
        grad_start=grad_start.numpy(), start_ratio=(grad_start / (lam * x0.norm(dim=1))).numpy(),
        grad_norm=grad.norm(dim=1).numpy(),
        grad_positions=np.linalg.norm(grads["positional.weight"].reshape(S, -1), axis=1),
        iterations=iterations.numpy(), ce=ce.numpy(), penalty=(lam / 2 * x.pow(2).sum(dim=1)).numpy(),
        accuracy=acc.numpy(), lam=float(lam), tol=float(tol))


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
