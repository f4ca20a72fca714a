"""The plug-in bias of the Hellinger distance, exactly: ``expected_plugin_squared_distance``."""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from .._validation import check_distributions, check_positive_int

__all__ = ["expected_plugin_squared_distance"]


def _expected_sqrt_frequencies(mu, m: int) -> np.ndarray:
    """``E[sqrt(X_k / m)]`` for ``X ~ Multinomial(m, mu)``, category by category."""
    mu = np.asarray(check_distributions(np.atleast_2d(np.asarray(mu, dtype=float)), "mu"))
    if mu.shape[0] != 1:
        raise ValueError(f"mu must be one probability vector, got shape {mu.shape}")
    mu = mu[0]
    m = check_positive_int(m, "m")
    x = np.arange(m + 1)
    root = np.sqrt(x / m)
    out = np.zeros(mu.size)
    for k in np.flatnonzero(mu > 0):
        out[k] = root @ stats.binom.pmf(x, m, mu[k])
    return out


def expected_plugin_squared_distance(mu: ArrayLike, nu: ArrayLike, m: int, *, m_other: int | None = None) -> float:
    """The expected plug-in ``d_H^2`` between independent samples of ``mu`` and ``nu``, exactly.

    Parameters
    ----------
    mu, nu : (V,) array_like, probability vectors on the same categories
    m, m_other : int, the sizes of the samples from ``mu`` and from ``nu`` (default ``m``)

    Returns
    -------
    float
        ``1 - sum_k E[sqrt(p_k)] E[sqrt(q_k)]``: the true ``d_H^2`` plus the plug-in bias.

    Examples
    --------
    >>> round(expected_plugin_squared_distance([0.5, 0.5], [0.5, 0.5], 10), 4)  # one fair coin twice
    0.0281
    """
    mu, nu = np.asarray(mu, dtype=float), np.asarray(nu, dtype=float)
    if mu.shape != nu.shape:
        raise ValueError(f"mu and nu must have the same length, got shapes {mu.shape} and {nu.shape}")
    m_other = m if m_other is None else m_other
    return float(1.0 - _expected_sqrt_frequencies(mu, m) @ _expected_sqrt_frequencies(nu, m_other))
