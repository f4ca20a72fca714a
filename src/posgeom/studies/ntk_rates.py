"""Appendix (NTK regime): width sweeps of the masked-slot network, one independent seed per run.

* :func:`loglog_fit` -- slope of ``log value`` on ``log width`` with its ``t`` interval, as a table row
* :func:`lag_spearman` -- Spearman correlation of the pair distances with the lag
* :func:`kernel_deviations` -- deviation of the NTK blocks from ``delta_ij I`` at initialisation
* :func:`train_runs` -- trained (and linearised) networks against the kernel-regime prediction
* :func:`plot_rates` -- the appendix's key figure
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from ..geometry import pairwise_distances
from ..inference import power_law_fit, spearman
from ..nn import init_masked_slot, kernel_regime_distances, ntk_blocks, train_masked_slot

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "loglog_fit",
    "lag_spearman",
    "kernel_deviations",
    "train_runs",
    "plot_rates",
]


def loglog_fit(widths: ArrayLike, values: ArrayLike, *, confidence: float = 0.99) -> dict:
    """:func:`posgeom.inference.power_law_fit` as a table row (one value per independent run).

    Parameters
    ----------
    widths, values : (n,) array_like
        Positive, ``n >= 3``.
    confidence : float, default 0.99

    Returns
    -------
    dict
        ``slope``, ``low``, ``high``, ``points``, ``intercept``.

    Examples
    --------
    >>> w = np.array([64, 128, 256, 512] * 2)
    >>> fit = loglog_fit(w, 3 * w**-0.5 * np.repeat([1.0, 1.1], 4))
    >>> round(fit["slope"], 6), fit["points"]
    (-0.5, 8)
    """
    fit = power_law_fit(widths, values, confidence=confidence)
    return {"slope": fit.slope, "low": fit.lower, "high": fit.upper, "points": int(fit.n),
            "intercept": fit.intercept}


def lag_spearman(D: ArrayLike) -> float:
    """Spearman correlation of the distances ``D[i, j]``, ``i < j``, with the lag ``j - i``.

    Parameters
    ----------
    D : (n, n) array

    Returns
    -------
    float

    Examples
    --------
    >>> x = np.arange(5.0)
    >>> lag_spearman(np.abs(x[:, None] - x[None, :]))
    1.0
    """
    D = np.asarray(D)
    iu = np.triu_indices(D.shape[0], k=1)
    return float(spearman(D[iu], iu[1] - iu[0]))


def _seed(seed0: int, k: int, s: int, n_seeds: int) -> int:
    return seed0 + 10 ** int(np.ceil(np.log10(max(n_seeds, 2)))) * k + s


def kernel_deviations(n_positions: int, vocab_size: int, widths: Sequence[int], *, sigma0: float, n_seeds: int,
                      seed0: int) -> pd.DataFrame:
    """RMS deviation of the NTK blocks from ``delta_ij I`` at initialisation, one row per independent network.

    Parameters
    ----------
    n_positions, vocab_size : int
        Positions and output size of the masked-slot network.
    widths : sequence of int
    sigma0 : float
        Initial embedding scale.
    n_seeds, seed0 : int
        Networks per width; network ``s`` at the ``k``-th width gets seed ``seed0 + 10^m k + s``, ``10^m >= n_seeds``.

    Returns
    -------
    pandas.DataFrame
        Columns width, seed, diagonal, off-diagonal.

    Examples
    --------
    >>> k = kernel_deviations(3, 2, [8, 16], sigma0=0.5, n_seeds=2, seed0=0)
    >>> len(k), bool(k["seed"].is_unique)
    (4, True)
    """
    n, vocab = n_positions, vocab_size
    iu = np.triu_indices(n, k=1)
    rows = []
    for k, w in enumerate(widths):
        for s in range(n_seeds):
            seed = _seed(seed0, k, s, n_seeds)
            K = ntk_blocks(init_masked_slot(n, vocab, int(w), sigma0=sigma0, seed=seed))
            diag = np.sqrt(np.mean([((K[i, i] - np.eye(vocab)) ** 2).sum() for i in range(n)]))
            off = np.sqrt(np.mean((K[iu[0], iu[1]] ** 2).sum(axis=(1, 2))))
            rows.append({"width": int(w), "seed": seed, "diagonal": diag, "off-diagonal": off})
    return pd.DataFrame(rows)


def train_runs(target: ArrayLike, widths: Sequence[int], *, loss: str, sigma0: Callable[[int], float], lr: float,
               steps: int, n_seeds: int, seed0: int, linearised: bool = True) -> tuple[pd.DataFrame, np.ndarray]:
    """Train the masked-slot network at every width, ``n_seeds`` independent initialisations each.

    One row per run: ``error`` (RMS of learned minus kernel-regime distances), ``rho`` (:func:`lag_spearman`),
    ``discordance`` (1 - Kendall's tau with the prediction) and, if ``linearised``, the relative ``gap`` to the
    linearised network.

    Parameters
    ----------
    target : (n, V) array
        ``sqrt(mu)`` for ``"mse"``, ``mu`` for ``"cross_entropy"``.
    widths : sequence of int
    loss : {"mse", "cross_entropy"}
    sigma0 : callable
        Width to initial embedding scale.
    lr : float
    steps : int
    n_seeds, seed0 : int
        As in :func:`kernel_deviations`.
    linearised : bool, default True

    Returns
    -------
    runs : pandas.DataFrame
    D : (n, n) array
        The learned distances of the last run.

    Examples
    --------
    >>> runs, D = train_runs(np.full((3, 2), 0.7), [8], loss="mse", sigma0=lambda w: 0.5, lr=0.5, steps=2,
    ...                      n_seeds=2, seed0=0, linearised=False)
    >>> len(runs), D.shape
    (2, (3, 3))
    """
    target = np.asarray(target)
    n, vocab = target.shape
    iu = np.triu_indices(n, k=1)
    rows, D = [], None
    for k, w in enumerate(widths):
        s0 = float(sigma0(w))
        D_pred = kernel_regime_distances(target, loss=loss, lr=lr, steps=steps, sigma0=s0)
        for s in range(n_seeds):
            seed = _seed(seed0, k, s, n_seeds)
            theta0 = init_masked_slot(n, vocab, int(w), sigma0=s0, seed=seed)
            net = train_masked_slot(theta0, target, loss=loss, lr=lr, steps=steps)
            D = pairwise_distances(net.P.numpy())
            row = {"loss": loss, "width": int(w), "seed": seed,
                   "error": float(np.sqrt(np.mean((D[iu] - D_pred[iu]) ** 2))),
                   "rho": lag_spearman(D),
                   "discordance": float(1 - stats.kendalltau(D[iu], D_pred[iu]).statistic)}
            if linearised:
                lin = train_masked_slot(theta0, target, loss=loss, lr=lr, steps=steps, linearised=True)
                row["gap"] = float((net.P - lin.P).norm() / (net.P - theta0.P).norm())
            rows.append(row)
    return pd.DataFrame(rows), D


def plot_rates(series: list, rho_series: list, D_last: ArrayLike, *, widths: Sequence[int], title: str) -> Figure:
    """Errors against width with fitted lines, lag correlations by width, and one learned distance matrix.

    Parameters
    ----------
    series : list of (label, runs, fit, marker)
        The first fit anchors the dotted slope ``-1/2`` line.
    rho_series : list of (label, runs, prediction or None, marker)
    D_last : (n, n) array
    widths : sequence of int
    title : str
        Title of the right panel.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ..plotting import distance_heatmap

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), constrained_layout=True)
    ax = axes[0]
    grid = np.geomspace(widths[0], widths[-1], 50)
    for label, df, fit, marker in series:
        dots = ax.loglog(df["width"], df["error"], marker, alpha=0.35, ms=4)
        ax.loglog(grid, np.exp(fit["intercept"]) * grid ** fit["slope"], color=dots[0].get_color(),
                  label=f"{label}: slope {fit['slope']:.2f}")
    anchor = series[0][2]
    ax.loglog(grid, 2 * np.exp(anchor["intercept"]) * grid**-0.5, "k:", label="slope $-1/2$ (theory)")
    ax.set_xlabel("width $w$")
    ax.set_ylabel("RMS distance error $E$")
    ax.legend(fontsize=7)
    ax = axes[1]
    for label, df, pred, marker in rho_series:
        means = df.groupby("width")["rho"].mean()
        line = ax.plot(means.index, means.values, marker=marker, label=label)
        if pred is not None:
            ax.axhline(pred, ls="--", lw=0.8, color=line[0].get_color())
    ax.set_xscale("log", base=2)
    ax.set_xlabel("width $w$")
    ax.set_ylabel("Spearman with the lag (mean over seeds)")
    ax.legend(fontsize=7)
    distance_heatmap(D_last, ax=axes[2], title=title, label="distance")
    return fig
