"""Relative positional schemes as numpy objects: ALiBi's slopes, RoPE's rotations, T5's buckets, and the distance
each induces between positions. Private but for :func:`~posgeom.encodings.alibi_slopes`.

ALiBi, RoPE and T5 add no vector to the tokens, so their stress needs an *induced distance* between positions
(the paper leaves this open; the book's convention, used by every chapter, is in
``posgeom.encodings._schemes.induced_distances``):

* ALiBi: ``m |i - j|``, the magnitude of its linear attention bias (``_alibi_distances``), with head slopes
  ``m_h`` from :func:`alibi_slopes`;
* RoPE: ``||R_i x - R_j x||`` between rotated copies of a vector (``_rope_distances``), which for unit blocks is
  exactly the sinusoidal distance at the head width;
* T5: the bucket index of ``|i - j|`` (``_t5_bucket``, ``_t5_bucket_distances``).

Pure numpy: the torch modules that *use* these schemes live in :mod:`posgeom.nn`.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_positive_int
from ..geometry.euclidean import pairwise_distances

__all__ = [
    "alibi_slopes",
]


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

    For ``h`` a power of two the slopes are the geometric sequence that starts at ``2^(-8/h)`` with ratio
    ``2^(-8/h)``: ``m_k = 2^(-8k/h)``, ``k = 1..h`` (for ``h = 8``: ``1/2, 1/4, ..., 1/256``). For other ``h``, with
    ``c`` the largest power of two below ``h``, they are the ``c`` slopes for ``c`` heads followed by the first
    ``h - c`` slopes of every other element (``[0::2]``) of the sequence for ``2c`` heads (the rule of the reference
    implementation).

    Parameters
    ----------
    n_heads : int
        Number of attention heads ``h >= 1``.

    Returns
    -------
    (n_heads,) float ndarray
        Positive, decreasing slopes.

    Raises
    ------
    ValueError, TypeError
        If ``n_heads`` is not a positive integer.

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
    if not (isinstance(slope, numbers.Real) and np.isfinite(slope) and slope > 0):
        raise ValueError(f"slope must be a finite number > 0, got {slope!r}")
    i = np.arange(n, dtype=float)
    return float(slope) * np.abs(i[:, None] - i[None, :])


def _rope_rotate(x: np.ndarray, n: int, theta: np.ndarray) -> np.ndarray:
    """Rows ``R_i x`` for ``i = 0..n-1``: block ``k`` (coordinates ``2k, 2k+1``) rotated by the angle ``i theta_k``."""
    angles = np.arange(n, dtype=float)[:, None] * theta[None, :]
    c, s = np.cos(angles), np.sin(angles)
    a, b = x[0::2][None, :], x[1::2][None, :]
    out = np.empty((n, x.size))
    out[:, 0::2] = c * a - s * b
    out[:, 1::2] = s * a + c * b
    return out


def _rope_distances(n_positions: int, d_model: int, *, base: float = 10000.0, x: ArrayLike | None = None) -> np.ndarray:
    """RoPE's induced distance: ``||R_i x - R_j x||`` between rotated copies of one vector ``x`` (Su et al., 2024)."""
    n, d = check_positive_int(n_positions, "n_positions", minimum=2), d_model
    theta = sinusoidal_frequencies(d, base=base)
    if x is None:
        x = np.tile([0.0, 1.0], d // 2)
    else:
        x = np.asarray(x, dtype=float)
        if x.shape != (d,):
            raise ValueError(f"x must be a vector of length d={d}, got shape {x.shape}")
        if not np.all(np.isfinite(x)):
            raise ValueError("x contains NaN or infinite values")
    return pairwise_distances(_rope_rotate(x, n, theta))


def _t5_bucket(relative_position, *, num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = True):
    """T5's relative-position bucket (Raffel et al., 2020), as in the reference implementation."""
    num_buckets = check_positive_int(num_buckets, "num_buckets", minimum=4)
    max_distance = check_positive_int(max_distance, "max_distance", minimum=2)
    rel = np.asarray(relative_position)
    if not np.issubdtype(rel.dtype, np.integer):
        raise TypeError(f"relative_position must be integers, got dtype {rel.dtype}")
    rel = rel.astype(np.int64)
    bucket = np.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        bucket += (rel > 0).astype(np.int64) * num_buckets
        rel = np.abs(rel)
    else:
        rel = -np.minimum(rel, 0)
    max_exact = num_buckets // 2
    if max_distance <= max_exact:
        raise ValueError(f"max_distance={max_distance} must exceed num_buckets // 4 (bidirectional) = {max_exact}")
    is_small = rel < max_exact
    with np.errstate(divide="ignore"):
        large = max_exact + (
            np.log(np.maximum(rel, 1) / max_exact) / np.log(max_distance / max_exact) * (num_buckets - max_exact)
        ).astype(np.int64)
    large = np.minimum(large, num_buckets - 1)
    return bucket + np.where(is_small, rel, large)


def _t5_bucket_distances(n_positions: int, *, num_buckets: int = 32, max_distance: int = 128) -> np.ndarray:
    """A dissimilarity induced by T5's bucketed relative positions: the bucket index of ``|i - j|``."""
    n = check_positive_int(n_positions, "n_positions", minimum=2)
    i = np.arange(n)
    offset = -np.abs(i[:, None] - i[None, :])  # non-positive offsets: the first half of the bidirectional buckets
    return _t5_bucket(offset, num_buckets=num_buckets, max_distance=max_distance, bidirectional=True).astype(float)
