"""The width sweep of the appendix on monotonicity in the NTK regime: kernel deviations, trained runs, rate fits.

Every run is one independent initialisation of the masked-slot network (:func:`posgeom.nn.init_masked_slot`) with
its own seed; the sweeps here give each (width, repetition) pair a distinct seed, so the runs of one sweep are
independent and the slope of ``log error`` on ``log width`` has an ordinary least-squares ``t`` interval with the
runs as its unit (:func:`loglog_fit`). :func:`kernel_deviations` measures the NTK at initialisation,
:func:`train_runs` trains the network (and its linearisation) and compares it with the kernel-regime prediction,
:func:`plot_rates` draws the appendix's key figure.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "loglog_fit",
    "lag_spearman",
    "kernel_deviations",
    "train_runs",
    "plot_rates",
]


def loglog_fit(widths, values, *, confidence: float = 0.99) -> dict:
    """:func:`posgeom.inference.power_law_fit` as a table row: slope, its ``t`` interval, points, intercept.

    The interval has ``points - 2`` degrees of freedom and assumes independent points: pass one value per
    independent run.

    Parameters
    ----------
    widths, values : (n,) array_like
        Positive values, ``n >= 3``.
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
    from ..inference import power_law_fit

    fit = power_law_fit(widths, values, confidence=confidence)
    return {"slope": fit.slope, "low": fit.lower, "high": fit.upper, "points": int(fit.n),
            "intercept": fit.intercept}


def lag_spearman(D) -> float:
    """Spearman correlation of the distances of all pairs ``i < j`` of ``D`` with the lag ``j - i``.

    Parameters
    ----------
    D : (n, n) array
        A distance matrix.

    Returns
    -------
    float

    Examples
    --------
    >>> x = np.arange(5.0)
    >>> lag_spearman(np.abs(x[:, None] - x[None, :]))
    1.0
    """
    from ..inference import spearman

    D = np.asarray(D)
    iu = np.triu_indices(D.shape[0], k=1)
    return float(spearman(D[iu], iu[1] - iu[0]))


def _seed(seed0: int, k: int, s: int, n_seeds: int) -> int:
    return seed0 + 10 ** int(np.ceil(np.log10(max(n_seeds, 2)))) * k + s


def kernel_deviations(n: int, vocab: int, widths, *, sigma0: float, n_seeds: int, seed0: int) -> pd.DataFrame:
    """RMS deviation of the NTK blocks from ``delta_ij I`` at initialisation, one row per independent network.

    Parameters
    ----------
    n, vocab : int
        Positions and output size of the masked-slot network.
    widths : sequence of int
    sigma0 : float
        Initial embedding scale.
    n_seeds : int
        Networks per width.
    seed0 : int
        First seed; the network ``s`` at the ``k``-th width gets ``seed0 + 10^m k + s`` with ``10^m >= n_seeds``.

    Returns
    -------
    pandas.DataFrame
        Columns width, seed, diagonal (RMS over ``i`` of ``||Theta_ii - I||_F``), off-diagonal (RMS over
        ``i < j`` of ``||Theta_ij||_F``).

    Examples
    --------
    >>> k = kernel_deviations(3, 2, [8, 16], sigma0=0.5, n_seeds=2, seed0=0)
    >>> len(k), bool(k["seed"].is_unique)
    (4, True)
    """
    from ..nn import init_masked_slot, ntk_blocks

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


def train_runs(target, widths, *, loss: str, sigma0, lr: float, steps: int, n_seeds: int, seed0: int,
               linearised: bool = True) -> tuple[pd.DataFrame, np.ndarray]:
    """Train the masked-slot network at every width, ``n_seeds`` independent initialisations each.

    ``sigma0`` maps the width to the initial embedding scale. Each row is one run, with its seed (distinct
    across the sweep) and: ``error``, the RMS over pairs of learned minus kernel-regime distances; ``rho``, the
    Spearman correlation of the learned distances with the lag; ``discordance``, one minus Kendall's tau between
    learned and predicted distances; and, if ``linearised``, ``gap``, the distance of the trained embeddings from
    those of the linearised network, relative to their displacement.

    Parameters
    ----------
    target : (n, V) array
        The positions' statistics (``sqrt(mu)`` for ``"mse"``, ``mu`` for ``"cross_entropy"``).
    widths : sequence of int
    loss : str
        ``"mse"`` or ``"cross_entropy"``.
    sigma0 : callable
        Width to initial embedding scale.
    lr, steps
        Gradient descent.
    n_seeds, seed0 : int
        Runs per width and first seed (as in :func:`kernel_deviations`).
    linearised : bool, default True
        Also train the linearisation and record ``gap``.

    Returns
    -------
    tuple
        The table of runs and the learned distance matrix of the last run.

    Examples
    --------
    >>> mu = np.full((3, 2), 0.5)
    >>> runs, D = train_runs(np.sqrt(mu), [8], loss="mse", sigma0=lambda w: 0.5, lr=0.5, steps=2, n_seeds=2,
    ...                      seed0=0, linearised=False)
    >>> len(runs), D.shape
    (2, (3, 3))
    """
    from scipy import stats

    from ..geometry import pairwise_distances
    from ..nn import init_masked_slot, kernel_regime_distances, train_masked_slot

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
            D = pairwise_distances(net["P"].numpy())
            row = {"loss": loss, "width": int(w), "seed": seed,
                   "error": float(np.sqrt(np.mean((D[iu] - D_pred[iu]) ** 2))),
                   "rho": lag_spearman(D),
                   "discordance": float(1 - stats.kendalltau(D[iu], D_pred[iu]).statistic)}
            if linearised:
                lin = train_masked_slot(theta0, target, loss=loss, lr=lr, steps=steps, linearised=True)
                row["gap"] = float((net["P"] - lin["P"]).norm() / (net["P"] - theta0["P"]).norm())
            rows.append(row)
    return pd.DataFrame(rows), D


def plot_rates(series, rho_series, D_last, *, widths, title: str):
    """The appendix's key figure: errors against width with fitted lines, lag correlations, one learned table.

    ``series`` is a list of ``(label, runs, fit, marker)``; the first fit also anchors the dotted slope ``-1/2``
    line. ``rho_series`` is a list of ``(label, runs, prediction or None, marker)``.

    Parameters
    ----------
    series : list of tuple
    rho_series : list of tuple
    D_last : (n, n) array
        The learned distances drawn in the right panel.
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
