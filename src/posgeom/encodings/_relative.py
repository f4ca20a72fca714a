"""Private but for ``alibi_slopes``: ALiBi's slopes, RoPE's rotations, T5's buckets and the distance each induces
(the convention is in ``posgeom.encodings._schemes``; the torch modules are in :mod:`posgeom.nn`).
"""
from __future__ import annotations

import math

import numpy as np

from .._validation import check_positive_int
from ..geometry.euclidean import pairwise_distances

__all__ = ["alibi_slopes"]


def sinusoidal_frequencies(d_model: int, *, base: float = 10000.0) -> np.ndarray:
    """The frequency schedule ``theta_k = base^(-2k/d)``, ``k = 0..d/2-1``, shared by sinusoidal and RoPE."""
    d = check_positive_int(d_model, "d_model")
    if d % 2:
        raise ValueError(f"d must be even (sine/cosine pairs), got d={d}")
    base = float(base)
    if not np.isfinite(base) or base <= 1:
        raise ValueError(f"base must be a finite number > 1, got {base}")
    return base ** (-np.arange(0, d, 2, dtype=float) / d)


def alibi_slopes(n_heads: int) -> np.ndarray:
    """The ALiBi head slopes ``m_1..m_h`` of Press et al. (2022).

    For ``h`` a power of two, ``m_k = 2^(-8k/h)``, ``k = 1..h``; otherwise, with ``c`` the largest power of two below
    ``h``, the ``c`` slopes for ``c`` heads followed by the first ``h - c`` of every other slope for ``2c`` heads (the
    reference implementation's rule).

    Parameters
    ----------
    n_heads : int

    Returns
    -------
    (n_heads,) float ndarray of positive slopes (decreasing for a power of two)

    Examples
    --------
    >>> alibi_slopes(4)
    array([0.25      , 0.0625    , 0.015625  , 0.00390625])
    """
    h = check_positive_int(n_heads, "n_heads")
    def power_of_two(k: int) -> list[float]:
        start = 2.0 ** (-8.0 / k)
        return [start ** (i + 1) for i in range(k)]
    if h & (h - 1) == 0:
        return np.array(power_of_two(h))
    closest = 2 ** int(math.floor(math.log2(h)))
    return np.array(power_of_two(closest) + power_of_two(2 * closest)[0::2][: h - closest])


def _alibi_distances(n_positions: int, *, slope: float = 1.0) -> np.ndarray:
    """ALiBi's induced distance ``m |i - j|`` (Press et al., 2022): the magnitude of its linear attention bias."""
    n = check_positive_int(n_positions, "n_positions", minimum=2)
    i = np.arange(n, dtype=float)
    return float(slope) * np.abs(i[:, None] - i[None, :])


def _rope_distances(n_positions: int, d_model: int, *, base: float = 10000.0) -> np.ndarray:
    """RoPE's induced distance ``||R_i x - R_j x||`` between rotated copies of ``x = (0, 1, 0, 1, ...)`` (Su et al.)."""
    n = check_positive_int(n_positions, "n_positions", minimum=2)
    angles = np.arange(n, dtype=float)[:, None] * sinusoidal_frequencies(d_model, base=base)[None, :]
    rotated = np.empty((n, d_model))
    rotated[:, 0::2] = -np.sin(angles)  # block k of x, (0, 1), rotated by the angle i theta_k
    rotated[:, 1::2] = np.cos(angles)
    return pairwise_distances(rotated)


def _t5_bucket(relative_position):
    """T5's bidirectional relative-position bucket (Raffel et al., 2020): 32 buckets, maximum distance 128."""
    rel = np.asarray(relative_position).astype(np.int64)
    num_buckets, max_distance = 16, 128  # 16 buckets for each direction
    bucket = (rel > 0).astype(np.int64) * num_buckets
    rel = np.abs(rel)
    max_exact = num_buckets // 2
    is_small = rel < max_exact
    with np.errstate(divide="ignore"):
        large = max_exact + (
            np.log(np.maximum(rel, 1) / max_exact) / np.log(max_distance / max_exact) * (num_buckets - max_exact)
        ).astype(np.int64)
    large = np.minimum(large, num_buckets - 1)
    return bucket + np.where(is_small, rel, large)


def _t5_bucket_distances(n_positions: int) -> np.ndarray:
    """The dissimilarity T5's buckets induce: the bucket index of ``|i - j|``."""
    n = check_positive_int(n_positions, "n_positions", minimum=2)
    i = np.arange(n)
    offset = -np.abs(i[:, None] - i[None, :])  # non-positive offsets: the first half of the bidirectional buckets
    return _t5_bucket(offset).astype(float)
