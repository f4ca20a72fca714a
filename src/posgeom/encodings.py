"""Positional encodings as matrices ``P`` (n x d, row ``i`` encodes position ``i``).

Absolute schemes are returned as matrices; relative schemes (ALiBi, RoPE) are described by the distance they induce
between positions (see the functions named ``*_distances``).
"""

from __future__ import annotations

import numpy as np

from ._validation import check_positive_int

__all__ = ["sinusoidal_frequencies", "sinusoidal_encoding"]


def sinusoidal_frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """The frequency schedule ``theta_k = base^(-2k/d)``, ``k = 0..d/2-1``, shared by sinusoidal and RoPE."""
    d = check_positive_int(d, "d")
    if d % 2:
        raise ValueError(f"d must be even (sine/cosine pairs), got d={d}")
    base = float(base)
    if not np.isfinite(base) or base <= 1:
        raise ValueError(f"base must be a finite number > 1, got {base}")
    return base ** (-np.arange(0, d, 2, dtype=float) / d)


def sinusoidal_encoding(n: int, d: int, base: float = 10000.0) -> np.ndarray:
    """The sinusoidal encoding of Vaswani et al. (2017).

    ``P[i, 2k] = sin(i theta_k)``, ``P[i, 2k+1] = cos(i theta_k)`` with ``theta_k = base^(-2k/d)``.
    Every row has norm ``sqrt(d/2)`` and ``||p_i - p_j||^2 = sum_k 2 (1 - cos((i - j) theta_k))`` depends only on
    ``i - j``.

    Parameters
    ----------
    n : int
        Number of positions.
    d : int
        Model width (even).
    base : float, default 10000.0

    Returns
    -------
    (n, d) float array
    """
    n = check_positive_int(n, "n")
    theta = sinusoidal_frequencies(d, base)
    angles = np.arange(n, dtype=float)[:, None] * theta[None, :]
    P = np.empty((n, d))
    P[:, 0::2] = np.sin(angles)
    P[:, 1::2] = np.cos(angles)
    return P
