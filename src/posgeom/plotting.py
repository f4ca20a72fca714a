"""Figures used throughout the book: :func:`distance_heatmap`, :func:`lag_profile_plot` (distance against lag)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from matplotlib.axes import Axes

import numpy as np

__all__ = ["distance_heatmap", "lag_profile_plot"]


def _axes(ax):
    """``ax``, or the axes of a new 4 x 3.4 inch figure."""
    if ax is None:
        import matplotlib.pyplot as plt
        _, ax = plt.subplots(figsize=(4, 3.4))
    return ax


def distance_heatmap(D: ArrayLike, *, ax: Axes | None = None, title: str | None = None, vmax: float | None = None,
                     label: str | None = None, cbar: bool = True) -> Axes:
    """Draw a position-by-position distance matrix as a heatmap (position 0 at the top left).

    Parameters
    ----------
    D : (n, n) array_like
    ax, title : matplotlib.axes.Axes, str, optional
        Where to draw (a new 4 x 3.4 inch figure if ``None``); the title.
    vmax, label, cbar : float, str, bool, optional
        Colour scale top (from 0; default the largest entry); colour bar label (default ``$d_H$``); whether to draw it.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> distance_heatmap(np.abs(np.subtract.outer(np.arange(5.0), np.arange(5.0))), title="ruler").get_title()
    'ruler'
    """
    import seaborn as sns
    ax = _axes(ax)
    D = np.asarray(D, dtype=float)
    n = D.shape[0]
    step = max(1, n // 8)
    sns.heatmap(D, ax=ax, cmap="viridis", vmin=0, vmax=vmax, square=True, cbar=cbar,
                cbar_kws={"label": "$d_H$" if label is None else label, "shrink": 0.8},
                xticklabels=step, yticklabels=step)
    ax.set_xlabel("position $j$")
    ax.set_ylabel("position $i$")
    if title:
        ax.set_title(title)
    return ax


def lag_profile_plot(D: ArrayLike, *, ax: Axes | None = None, label: str | None = None) -> Axes:
    """Plot ``D_ij`` against ``|i - j|``: every pair as a faint dot, the mean per lag as a line.

    Parameters
    ----------
    D : (n, n) array_like
    ax, label : matplotlib.axes.Axes, str, optional
        Where to draw (a new figure if ``None``); the line's legend label.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> lag_profile_plot(np.abs(np.subtract.outer(np.arange(4.0), np.arange(4.0)))).lines[0].get_ydata()
    array([0., 1., 2., 3.])
    """
    from .geometry.shift import lag_profile
    ax = _axes(ax)
    D = np.asarray(D, dtype=float)
    n = D.shape[0]
    i, j = np.triu_indices(n, k=1)
    (line,) = ax.plot(np.arange(n), lag_profile(D), label=label)
    ax.scatter(j - i, D[i, j], s=2, alpha=0.15, color=line.get_color())
    ax.set_xlabel("lag $|i - j|$")
    ax.set_ylabel("distance")
    return ax


def spectrum_plot(eigenvalues: ArrayLike, *, ax: Axes | None = None, label: str | None = None,
                  n_show: int | None = None) -> Axes:
    """Bar plot of the eigenvalues of ``B`` (negative ones in red), largest first. Returns the axes."""
    ax = _axes(ax)
    lam = np.asarray(eigenvalues, dtype=float)[: n_show or None]
    colors = np.where(lam >= 0, "tab:blue", "tab:red")
    ax.bar(np.arange(1, lam.size + 1), lam, color=colors, label=label)
    ax.axhline(0, color="black", lw=0.5)
    ax.set_xlabel("index $k$")
    ax.set_ylabel(r"eigenvalue $\lambda_k$ of $B$")
    return ax
