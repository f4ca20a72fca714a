"""Chapter 4: Theorem 4 at stationary points of the regularised loss, seed by seed: :func:`role_task` (the two-pair
task), :func:`train_regularised` (AdamW, then float64 L-BFGS); ``design_runs`` (``ch04_checks``)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from .._validation import check_positive_int, check_real, check_seeds
from ..nn.tasks import TaskData

__all__ = ["role_task", "train_regularised"]
_CAUSES = ("strong", "weak", "none")
#: The strong task's variants: the (x_2, x_3) token pairs each removes (96 sequences each, the same label counts).
VARIANTS = {"closed under exchange": {(1, 2), (2, 1), (0, 0), (3, 3)}, "cyclic": {(0, 1), (1, 2), (2, 3), (3, 0)},
            "high before low": {(2, 0), (2, 1), (3, 0), (3, 1)}}
_STORED = ("initial", "start_ratio", "grad_norm", "grad_positions", "iterations", "ce", "penalty", "accuracy",
           "further_decrease", "start_decrease", "start_grad_norm", "further")


def role_task(cause: str, *, vocab_size: int = 4) -> TaskData:
    """Every sequence of the two-pair task once (``V`` even, >= 4): pair A = (0, 1) with a cause, pair B = (2, 3)
    without. Label ``y = 2 a + b``, ``b = [x_2 + x_3 >= V]``; ``a = [x_0 + x_1 >= V]`` for ``"none"``, the same for
    ``"weak"`` but ``[x_0 < x_1]`` when both tokens are 0 or 1, for ``"strong"`` whether a low and a high token swapped.
    """
    V = check_positive_int(vocab_size, "vocab_size", minimum=4)
    if V % 2:
        raise ValueError(f"vocab_size must be even, got {V}")
    if cause not in _CAUSES:
        raise ValueError(f"cause must be one of {_CAUSES}, got {cause!r}")
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
    """Result of :func:`train_regularised`, per seed: the position tables ``initial`` (S, L, d); every final
    parameter in ``params``; ``start_ratio`` (``||grad L_lam|| / (lam ||theta||)`` of the warm start); ``grad_norm``,
    ``grad_positions`` (all parameters, table) at the end; ``iterations`` (``max_iter``: criterion missed); ``ce``,
    ``penalty``, ``accuracy``; what ``extra`` further iterations gain from the end (``further_decrease``) and from
    the warm start (``start_decrease``); ``start_grad_norm``; the tables after them (``further``); ``lam``."""
    initial: np.ndarray
    params: dict
    start_ratio: np.ndarray
    grad_norm: np.ndarray
    grad_positions: np.ndarray
    iterations: np.ndarray
    ce: np.ndarray
    penalty: np.ndarray
    accuracy: np.ndarray
    further_decrease: np.ndarray
    start_decrease: np.ndarray
    start_grad_norm: np.ndarray
    further: np.ndarray
    lam: float

    def stored(self) -> dict:
        """The runs as JSON lists (of ``params``, the position table only); :meth:`from_stored` reads them back."""
        return {"final": self.final.tolist(), "lam": self.lam, **{k: getattr(self, k).tolist() for k in _STORED}}

    @classmethod
    def from_stored(cls, fields: dict) -> RegularisedRuns:
        """Runs written by :meth:`stored`: the same arrays, bit for bit (``params`` holds the position table)."""
        return cls(params={"positional.weight": np.array(fields["final"])}, lam=fields["lam"],
                   **{k: np.array(fields[k]) for k in _STORED})

    @property
    def final(self) -> np.ndarray:
        """The position tables at the end, one (L, d) table per seed."""
        return self.params["positional.weight"]

    @property
    def gradient_ratio(self) -> np.ndarray:
        """Per seed, ``||grad L_lam|| / (lam ||theta||)`` at the end (0 at a stationary point)."""
        return self.grad_norm / np.sqrt(2 * self.lam * self.penalty)

    def stationary(self, *, at_start: bool = False) -> np.ndarray:
        """Per seed, whether the gain of further descent stays within the Polyak-Lojasiewicz bound ``||grad||^2 /
        (2 lam)`` of a ``lam``-strongly convex loss, at the end (or at the warm start, the negative control)."""
        grad, gain = (self.start_grad_norm, self.start_decrease) if at_start else (self.grad_norm,
                                                                                  self.further_decrease)
        return gain <= grad**2 / (2 * self.lam)


def _batched_lbfgs(f, x, *, done, max_iter: int, memory: int, c1: float = 1e-4):
    """Per row of ``x``, L-BFGS (Armijo) on ``f(x_rows, rows) -> (losses, grads)`` until ``done``: x, grad, steps."""
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
        s_act, y_act, rho_act = s_hist[:, active], y_hist[:, active], rho[:, active]  # one gather per iteration
        for i in order:
            a = rho_act[i] * (s_act[i] * q).sum(1)
            q -= a[:, None] * y_act[i]
            alphas.append(a)
        r = gamma[active, None] * q
        for i, a in zip(reversed(order), reversed(alphas)):
            r += s_act[i] * (a - rho_act[i] * (y_act[i] * r).sum(1))[:, None]
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
                      max_iter: int = 3000, memory: int = 50, extra: int = 50) -> RegularisedRuns:
    """Warm-start one model per seed (AdamW, cosine; seed ``s`` draws the ``N(0, 1)`` table, the other weights, the
    batch order), then float64 L-BFGS on ``L_lam = CE + lam / 2 ||theta||^2`` until ``||grad|| <= tol lam ||theta||``
    or ``max_iter``; ``extra`` further iterations measure what is left to gain (the result is the stop)."""
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
    config = TrainConfig(epochs=epochs, lr=lr, batch_size=batch_size, weight_decay=weight_decay, schedule="cosine")
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

    loss_start, grad_start = objective(x0, None)
    x, grad, iterations = _batched_lbfgs(objective, x0, done=done, max_iter=max_iter, memory=memory)
    more, _, _ = _batched_lbfgs(objective, x, done=lambda x, g: torch.zeros(len(x), dtype=torch.bool),
                                max_iter=check_positive_int(extra, "extra"), memory=memory)
    loss_end, loss_more = objective(x, None)[0], objective(more, None)[0]
    with torch.no_grad():
        out = logits(x)
        ce = member_losses(out, y.expand(S, -1), -100)
        acc = (out.argmax(-1) == y).double().mean(dim=1)
    grad_positions = unflatten(grad)["positional.weight"].numpy().reshape(S, -1)
    return RegularisedRuns(initial=initial, params={k: v.numpy() for k, v in unflatten(x.detach()).items()},
        start_ratio=(grad_start.norm(dim=1) / (lam * x0.norm(dim=1))).numpy(), grad_norm=grad.norm(dim=1).numpy(),
        grad_positions=np.linalg.norm(grad_positions, axis=1), iterations=iterations.numpy(), ce=ce.numpy(),
        penalty=(lam / 2 * x.pow(2).sum(dim=1)).numpy(), accuracy=acc.numpy(),
        further_decrease=(loss_end - loss_more).numpy(), start_decrease=(loss_start - loss_more).numpy(),
        start_grad_norm=grad_start.norm(dim=1).numpy(), further=unflatten(more)["positional.weight"].numpy(),
        lam=float(lam))


def design_runs(design) -> dict:
    """Every run of Chapter 4 on the design's seeds, per task (the causes, then ``VARIANTS``), stored."""
    from ..nn import seed_everything
    seed_everything(0, threads=1)
    base, tasks = role_task("strong"), {c: role_task(c) for c in _CAUSES}
    for name, pairs in VARIANTS.items():
        keep = np.array([tuple(p) not in pairs for p in base.X[:, 2:].tolist()])
        tasks[name] = replace(base, X=base.X[keep], y=base.y[keep])
    return {k: train_regularised(t, seeds=design.seeds, lam=0.02, tol=1e-3).stored() for k, t in tasks.items()}


if __name__ == "__main__":  # pragma: no cover - the design's command
    from .designs import main
    main(design_runs, command="python -m posgeom.studies.separation_seeds data/designs/ch04_checks.toml "
         "data/results/ch04_checks.json")
