"""Appendix (NTK regime), one seed per run: :func:`kernel_deviations` (at initialisation), :func:`train_runs`
(against the kernel-regime prediction); ``design_runs`` (``app_rates``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from ..corpus import synthetic_distributions
from ..encodings.monotonicity import rank_correlations
from ..geometry import pairwise_distances
from ..nn import kernel_regime_distances
from ..nn._masked_slot import init_masked_slot, ntk_blocks, train_masked_slot

__all__ = ["kernel_deviations", "train_runs"]


def _seed(seed0: int, k: int, s: int, n_seeds: int, stride: int | None = None) -> int:
    """Seed of run ``s`` at the ``k``-th width: ``seed0 + stride k + s``, by default ``stride = 10^m >= n_seeds``."""
    stride = 10 ** int(np.ceil(np.log10(max(n_seeds, 2)))) if stride is None else stride
    if stride < n_seeds:
        raise ValueError(f"seed_stride={stride} < n_seeds={n_seeds} would give two runs one seed; use >= n_seeds")
    return seed0 + stride * k + s


def kernel_deviations(n_positions: int, vocab_size: int, widths: Sequence[int], *, sigma0: float, n_seeds: int,
                      seed0: int) -> pd.DataFrame:
    """RMS deviation of the NTK blocks from ``delta_ij I`` at initialisation (columns width, seed, diagonal,
    off-diagonal), ``n_seeds`` networks per width, network ``s`` at the ``k``-th width with seed ``_seed``'s."""
    iu = np.triu_indices(n_positions, k=1)
    rows = []
    for k, w in enumerate(widths):
        for s in range(n_seeds):
            seed = _seed(seed0, k, s, n_seeds)
            K = ntk_blocks(init_masked_slot(n_positions, vocab_size, int(w), sigma0=sigma0, seed=seed))
            diag = np.sqrt(np.mean([((K[i, i] - np.eye(vocab_size)) ** 2).sum() for i in range(n_positions)]))
            off = np.sqrt(np.mean((K[iu[0], iu[1]] ** 2).sum(axis=(1, 2))))
            rows.append({"width": int(w), "seed": seed, "diagonal": diag, "off-diagonal": off})
    return pd.DataFrame(rows)


def train_runs(target: ArrayLike, widths: Sequence[int], *, loss: str, sigma0: Callable[[int], float], lr: float,
               steps: int, n_seeds: int, seed0: int, linearised: bool = True,
               seed_stride: int | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    """Train the masked-slot network at every width from ``n_seeds`` seeds (as :func:`kernel_deviations`'), the
    initial scale ``sigma0(width)``, toward ``target`` (``sqrt(mu)`` for ``loss="mse"``, ``mu`` for cross-entropy).
    Returns one row per run, ``error`` (RMS of learned minus kernel-regime distances), ``displacement`` (trained
    minus initial table against ``D^F``, the prediction at ``sigma0 = 0``), ``rho`` (Spearman with the lag),
    ``discordance`` (1 - Kendall's tau with the prediction), ``gap`` if ``linearised``; and the last distances."""
    target = np.asarray(target)
    n, vocab = target.shape
    iu = np.triu_indices(n, k=1)
    rows, D, D_F = [], None, kernel_regime_distances(target, loss=loss, lr=lr, steps=steps, sigma0=0.0)  # any width
    for k, w in enumerate(widths):
        s0 = float(sigma0(w))
        D_pred = kernel_regime_distances(target, loss=loss, lr=lr, steps=steps, sigma0=s0)
        for s in range(n_seeds):
            seed = _seed(seed0, k, s, n_seeds, seed_stride)
            theta0 = init_masked_slot(n, vocab, int(w), sigma0=s0, seed=seed)
            net = train_masked_slot(theta0, target, loss=loss, lr=lr, steps=steps)
            D, dD = pairwise_distances(net.P.numpy()), pairwise_distances((net.P - theta0.P).numpy())
            row = {"loss": loss, "width": int(w), "seed": seed,
                   "error": float(np.sqrt(np.mean((D[iu] - D_pred[iu]) ** 2))),
                   "displacement": float(np.sqrt(np.mean((dD[iu] - D_F[iu]) ** 2))),
                   "rho": rank_correlations(D, kind="distances", kendall=False).spearman,
                   "discordance": float(1 - stats.kendalltau(D[iu], D_pred[iu]).statistic)}
            if linearised:
                lin = train_masked_slot(theta0, target, loss=loss, lr=lr, steps=steps, linearised=True)
                row["gap"] = float((net.P - lin.P).norm() / (net.P - theta0.P).norm())
            rows.append(row)
    return pd.DataFrame(rows), D


#: The design's fixed setup (``data/designs/app_rates.toml``): widths, and per arm sigma0(w), lr, steps.
DESIGN_WIDTHS = (64, 128, 256, 512, 1024)
_ARMS = {"main": (lambda w: 0.5, 0.5, 20), "control": (lambda w: float(np.sqrt(w)), 0.1, 100)}


def design_runs(design, *, n_widths: int = len(DESIGN_WIDTHS)) -> dict:
    """The runs the design file ``app_rates`` fixes, for JSON (torch on one thread): ``S = n_seeds / 10`` per width
    per arm; arm ``a``, width ``k``, run ``s`` has seed ``seed_start + 5 S a + S k + s``; the first ``n_widths``."""
    import torch
    torch.set_num_threads(1)
    S = design["n_seeds"] // (2 * len(DESIGN_WIDTHS))
    target = np.sqrt(synthetic_distributions(32, 16, rng=0, regime="smooth"))
    out = {"widths": list(DESIGN_WIDTHS), "runs_per_width": S}
    for a, (arm, (sigma0, lr, steps)) in enumerate(_ARMS.items()):
        runs, _ = train_runs(target, DESIGN_WIDTHS[:n_widths], loss="mse", sigma0=sigma0, lr=lr, steps=steps,
                             n_seeds=S, seed0=design["seed_start"] + 5 * S * a, seed_stride=S, linearised=False)
        for column in ("width", "seed", "error", "displacement", "rho"):
            out[f"{arm}_{column}"] = [int(v) if column in ("width", "seed") else float(v) for v in runs[column]]
    return out


if __name__ == "__main__":  # pragma: no cover - the design's command
    from .designs import main
    main(design_runs)
