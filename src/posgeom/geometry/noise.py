"""The sampling noise of Hellinger estimates: split-half noise floors and bootstrap intervals.

==========================  =====================================================================================
``bootstrap_statistic``     percentile bootstrap over texts of a statistic of the plug-in distances
==========================  =====================================================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..corpus.incidence import SequenceIncidence

from collections.abc import Callable

import numpy as np

from .._blas import single_threaded_blas
from .._validation import check_confidence, check_positive_int, check_rng
from ..corpus.incidence import _as_incidence
from ..inference import BootstrapEstimate
from ..inference._bootstrap import percentile_bootstrap
from ._crossfit import plugin_distances
from .hellinger import _hellinger_from_products

__all__ = [
    "bootstrap_statistic",
]


def _split_half_distances(data, *, rng, n_splits: int = 1, n_positions: int | None = None,
                         vocab_size: int | None = None, pad_id: int | None = None) -> np.ndarray:
    """The noise floor: distance of each position's ``mu_i`` to itself between two random halves of the sequences.

    Parameters
    ----------
    data : SequenceIncidence, or token id sequences
        With sequences, also pass ``n_positions`` and ``vocab_size`` (and ``pad_id`` to count padding).
    rng : int or numpy.random.Generator
        Randomness of the splits.
    n_splits : int, default 1
        Number of independent random splits.
    n_positions : int, optional
        Number of positions ``n`` (token id sequences only).
    vocab_size : int, optional
        Vocabulary size ``V`` (token id sequences only).
    pad_id : int, optional
        Count padding with this id (token id sequences only), as in :func:`posgeom.position_counts`.

    Returns
    -------
    (n_splits, n) float array
        ``out[k, i] = d_H(mu_i^A, mu_i^B)`` for the ``k``-th split of the ``m`` sequences into halves of sizes
        ``floor(m/2)`` and ``ceil(m/2)``. Its expectation is the plug-in bias at half the sample size; a between-
        position distance at or below it is not distinguishable from sampling noise.

    Raises
    ------
    ValueError
        A position receives no sequence in one half (too few sequences reach it): use fewer positions; or fewer
        than 2 sequences.
    TypeError
        ``n_positions``/``vocab_size`` missing for sequences, or passed together with a ``SequenceIncidence``.

    Examples
    --------
    >>> from posgeom.corpus import synthetic_corpus
    >>> X = synthetic_corpus(200, 4, 10, rng=0)
    >>> floor = _split_half_distances(X, rng=0, n_splits=2, n_positions=4, vocab_size=10)
    >>> floor.shape, bool(floor.max() < 0.3)
    ((2, 4), True)
    """
    inc = _as_incidence(data, n_positions, vocab_size, pad_id)
    rng = check_rng(rng)
    n_splits = check_positive_int(n_splits, "n_splits")
    m = inc.n_sequences
    if m < 2:
        raise ValueError("split-half needs at least 2 sequences")
    out = np.empty((n_splits, inc.n_positions))
    for k in range(n_splits):  # row-wise products only: no BLAS matrix product here
        half = np.zeros(m)
        half[rng.permutation(m)[: m // 2]] = 1.0
        try:
            SA = inc.sqrt_distributions(half)
            SB = inc.sqrt_distributions(1.0 - half)
        except ValueError as exc:
            raise ValueError(f"split-half: {exc}") from None
        # Paired (row-wise) Hellinger distance, by the formula of posgeom.geometry
        out[k] = _hellinger_from_products(np.einsum("ij,ij->i", SA, SA), np.einsum("ij,ij->i", SB, SB),
                                         np.einsum("ij,ij->i", SA, SB))
    return out


def bootstrap_statistic(data: SequenceIncidence | Sequence[Sequence[int]], statistic: Callable, *,
                        rng: int | np.random.Generator, n_boot: int = 200,
                        confidence: float = 0.95,
                        n_positions: int | None = None, vocab_size: int | None = None,
                        pad_id: int | None = None, dtype: type = np.float64) -> BootstrapEstimate:
    """Bootstrap over sequences of any statistic of the Hellinger distance matrix.

    Parameters
    ----------
    data : SequenceIncidence, or token id sequences
        With sequences, also pass ``n_positions`` and ``vocab_size`` (and ``pad_id`` to count padding).
    statistic : callable
        ``statistic(D) -> float or ndarray`` with ``D`` the (n x n) Hellinger distance matrix of a (re)sample.
    rng : int or numpy.random.Generator
        Seed of the resampling.
    n_boot : int, default 200
        Number of resamples.
    confidence : float, default 0.95
        Coverage of the percentile intervals, strictly between 0 and 1.
    n_positions : int, optional
        Number of positions ``n`` (token id sequences only).
    vocab_size : int, optional
        Vocabulary size ``V`` (token id sequences only).
    pad_id : int, optional
        Count padding with this id (token id sequences only).
    dtype : numpy dtype, default float64
        Storage type of the replicates (float32 halves the memory of matrix-valued statistics).

    Returns
    -------
    BootstrapEstimate
        ``estimate`` on the whole corpus, ``replicates`` of shape ``(n_boot, *shape)``, and the intervals.

    Raises
    ------
    ValueError
        ``n_boot < 2``, ``confidence`` outside ``(0, 1)``, or a resample that leaves a position without observations.
    TypeError
        ``statistic`` not callable, or ``n_positions``/``vocab_size`` missing for sequences.

    Notes
    -----
    Each resample draws ``m`` sequences uniformly with replacement (``w = bincount(integers(0, m, m))``). The cost
    of a resample is one pass over the tokens plus one Hellinger matrix (an ``n x n x U`` product over the ``U``
    tokens that occur), computed with single-threaded BLAS (faster for these products, and bit-reproducible). A
    resample that leaves a position without observations raises a ValueError: use fewer positions. Percentile
    intervals describe sampling variability; they are not centred on the true value when the estimator is biased
    (see :attr:`~posgeom.inference.BootstrapEstimate.bias`).

    Examples
    --------
    >>> from posgeom.corpus import synthetic_corpus
    >>> X = synthetic_corpus(100, 4, 10, rng=0, regime="abrupt", n_topics=2)
    >>> res = bootstrap_statistic(X, lambda D: D[0, 3], rng=0, n_boot=20, n_positions=4, vocab_size=10)
    >>> res.replicates.shape, bool(res.lower <= res.estimate <= res.upper)
    ((20,), True)
    """
    inc = _as_incidence(data, n_positions, vocab_size, pad_id)
    rng = check_rng(rng)
    n_boot = check_positive_int(n_boot, "n_boot", minimum=2)
    confidence = check_confidence(confidence)
    if not callable(statistic):
        raise TypeError("statistic must be a callable D -> float or array")
    with single_threaded_blas():
        estimate = np.asarray(statistic(plugin_distances(inc)), dtype=np.float64)
        m = inc.n_sequences
        samples = np.empty((n_boot,) + estimate.shape, dtype=dtype)
        for b in range(n_boot):
            w = np.bincount(rng.integers(0, m, size=m), minlength=m)
            try:
                D = plugin_distances(inc, weights=w)
            except ValueError as exc:
                raise ValueError(f"bootstrap resample {b}: {exc}") from None
            samples[b] = statistic(D)
    est = float(estimate) if estimate.ndim == 0 else estimate
    return percentile_bootstrap(est, samples, confidence=confidence, label="plug-in distances")
