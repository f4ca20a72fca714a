"""A large-alphabet comparison: the full-vocabulary distance by polynomial approximation.

====================  ========================================================================================
``BestPolynomial``    the cross-fitted full-vocabulary estimator built on them, with the estimators' interface
====================  ========================================================================================
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.polynomial import chebyshev

from .._blas import single_threaded_blas
from .._validation import check_positive_int, check_rng
from ._crossfit import _distances_from_squared
from .distance_estimate import DistanceEstimate, _check_incidence, _Estimator, _point_statistic, _summarise

__all__ = [
    "BestPolynomial",
]


def _power_coefficients(degree: int) -> np.ndarray:
    """Power-basis coefficients on ``[0, 1]`` of the Chebyshev interpolant of ``sqrt`` (near-best uniform)."""
    nodes = 0.5 * (1 + np.cos(np.pi * (np.arange(degree + 1) + 0.5) / (degree + 1)))
    fit = chebyshev.Chebyshev.fit(nodes, np.sqrt(nodes), degree, domain=[0, 1])
    return fit.convert(kind=np.polynomial.Polynomial, domain=[0, 1], window=[0, 1]).coef


def _sqrt_estimates(counts, n: int, *, c_degree: float = 0.7, c_interval: float = 2.0) -> np.ndarray:
    r"""Estimates of ``sqrt(p)`` from ``X ~ Binomial(n, p)``: polynomial where ``X`` is small, corrected plug-in above.

    Parameters
    ----------
    counts : int array
        Observed counts ``X``.
    n : int
        Number of draws.
    c_degree, c_interval : float
        The degree ``L = max(1, round(c_degree ln n))`` and the interval ``[0, Delta]``, ``Delta = c_interval ln n /
        n``, of the polynomial approximation.

    Returns
    -------
    float ndarray
        Same shape as ``counts``.

    Notes
    -----
    Where ``X / n < Delta``: the unbiased estimate of ``P(p)``, the degree-``L`` Chebyshev interpolant of ``sqrt``
    on ``[0, Delta]`` (a near-best uniform approximation, error of order ``sqrt(Delta) / L``), using
    ``E[(X)_k / (n)_k] = p^k``. Elsewhere: ``sqrt(X/n) + (1 - X/n) / (8 sqrt(X n))``, the plug-in with its
    first-order bias removed. As in Jiao et al. (2015) the two regimes are chosen from the count itself (their
    analysis splits the sample for this; we do not). Unseen cells get ``P``'s estimate at ``X = 0``,
    ``sqrt(Delta) a_0``, which is not 0: the design needs the support size.

    Examples
    --------
    >>> est = _sqrt_estimates(np.array([0, 5, 500]), 1000)
    >>> bool(est[0] > 0), round(float(est[2]), 3)
    (True, 0.707)
    """
    X = np.asarray(counts, dtype=np.float64)
    n = check_positive_int(n, "n")
    L = max(1, int(round(c_degree * np.log(n))))
    delta = min(1.0, c_interval * np.log(max(n, 2)) / n)
    a = _power_coefficients(L) * np.sqrt(delta) / delta ** np.arange(L + 1)
    poly = np.zeros_like(X)
    falling = np.ones_like(X)
    for k in range(L + 1):
        if k:
            falling = falling * (X - (k - 1)) / (n - (k - 1)) if n > k - 1 else np.zeros_like(X)
        poly += a[k] * falling
    p = X / n
    with np.errstate(divide="ignore", invalid="ignore"):
        smooth = np.sqrt(p) + np.where(X > 0, (1 - p) / (8 * np.sqrt(X * n)), 0.0)
    return np.where(p < delta, poly, smooth)


class BestPolynomial(_Estimator):
    """Cross-fitted full-vocabulary Hellinger distances from polynomial estimates of ``sqrt(p)`` (a comparison).

    For a random split of the texts into halves, every cell (position ``i``, token ``k``) of each half gets
    ``_sqrt_estimates`` of its count among the half's texts reaching ``i``; ``G_ij = sum_k T^A_ik T^B_jk`` over
    the whole vocabulary (``support_size`` tokens, unseen ones included) and
    ``Q_ij = (G_ii + G_jj)/2 - (G_ij + G_ji)/2``, averaged over splits. Its target is the full-vocabulary
    ``d_H^2`` up to the polynomial's approximation error, which needs about ``S / ln S`` observations per position
    for a support of ``S`` tokens.

    Parameters
    ----------
    support_size : int, optional
        The number of tokens with a possibly non-zero probability; default the vocabulary size.
    n_splits : int, default 20

    Examples
    --------
    >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
    >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(400, 4, 20, rng=0), 4, 20)
    >>> BestPolynomial().distances(inc, rng=0).distances.shape
    (4, 4)
    """

    label = "best polynomial"

    def __init__(self, *, support_size: int | None = None, n_splits: int = 20):
        self.support_size = None if support_size is None else check_positive_int(support_size, "support_size")
        self.n_splits = check_positive_int(n_splits, "n_splits", minimum=2)

    def _options(self) -> str:
        return f"support_size={self.support_size}, n_splits={self.n_splits}"

    def describe_estimand(self, data=None) -> str:
        """The estimand in words.

        Parameters
        ----------
        data : SequenceIncidence, optional
            Unused.

        Returns
        -------
        str

        Examples
        --------
        >>> BestPolynomial().describe_estimand()[:24]
        'full-vocabulary d_H^2 (u'
        """
        return "full-vocabulary d_H^2 (up to the polynomial approximation error)"

    def _half(self, inc, weights, S):
        counts = inc.counts(weights).tocsr()
        reach = inc.sequences_per_position(weights)
        n_pos = inc.n_positions
        if np.any(reach < 1):
            raise ValueError(f"position {int(np.argmin(reach))} receives no text in a half of a split")
        zero = np.array([_sqrt_estimates(np.zeros(1), int(r))[0] for r in reach])
        rows = np.repeat(np.arange(n_pos), np.diff(counts.indptr))
        vals = np.empty(counts.nnz)
        for i in range(n_pos):
            sl = slice(counts.indptr[i], counts.indptr[i + 1])
            vals[sl] = _sqrt_estimates(counts.data[sl], int(reach[i])) - zero[i]
        delta = sp.csr_matrix((vals, (rows, counts.indices)), shape=counts.shape)
        return zero, delta

    def _split(self, inc, weights_a, weights_b, S):
        za, da = self._half(inc, weights_a, S)
        zb, db = self._half(inc, weights_b, S)
        G = S * np.outer(za, zb) + np.outer(za, np.asarray(db.sum(axis=1)).ravel())
        G += np.outer(np.asarray(da.sum(axis=1)).ravel(), zb) + (da @ db.T).toarray()
        g = np.diag(G).copy()
        Q = 0.5 * (g[:, None] + g[None, :]) - 0.5 * (G + G.T)
        np.fill_diagonal(Q, 0.0)
        return Q

    def distances(self, data, *, rng):
        """Full-vocabulary distances of a corpus, averaged over random splits.

        Parameters
        ----------
        data : SequenceIncidence
        rng : int or numpy.random.Generator

        Returns
        -------
        DistanceEstimate

        Examples
        --------
        >>> from posgeom.corpus import SequenceIncidence
        >>> inc = SequenceIncidence.from_sequences([[0, 1]] * 2000, 2, 2)  # true distance 1
        >>> round(float(BestPolynomial().distances(inc, rng=0).distances[0, 1]), 2)  # the unseen token's share
        0.99
        """
        inc = _check_incidence(data)
        gen = check_rng(rng)
        S = self.support_size or inc.vocab_size
        m = inc.n_sequences
        Qs = []
        with single_threaded_blas():
            for _ in range(self.n_splits):
                half = np.zeros(m)
                half[gen.permutation(m)[: m // 2]] = 1.0
                Qs.append(self._split(inc, half, 1.0 - half, S))
        Qs = np.stack(Qs)
        Q = Qs.mean(axis=0)
        return DistanceEstimate(squared=Q, distances=_distances_from_squared(Q), estimator=self.label,
                                estimand=self.describe_estimand(),
                                mc_spread=Qs.std(axis=0, ddof=1) / np.sqrt(self.n_splits))

    def bootstrap(self, data, *, n_resamples: int = 200, rng, statistic=None, confidence: float = 0.95):
        """Bootstrap over texts (one random split of the draws per resample).

        Parameters
        ----------
        data : SequenceIncidence
        n_resamples : int, default 200
        rng : int or numpy.random.Generator
        statistic : callable, optional
            ``statistic(Q)`` of the squared-distance matrix; default the matrix itself.
        confidence : float, default 0.95

        Returns
        -------
        BootstrapEstimate
            Centred percentile intervals, conservative by the noise of one split.

        Examples
        --------
        >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
        >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(200, 3, 10, rng=0), 3, 10)
        >>> BestPolynomial().bootstrap(inc, n_resamples=5, rng=0, statistic=lambda Q: Q[0, 2]).replicates.shape
        (5,)
        """
        inc, gen, B, confidence = self._bootstrap_setup(data, n_resamples, rng, statistic, confidence)
        point = self.distances(inc, rng=gen)
        centre = _point_statistic(statistic, point.squared)
        S, m = self.support_size or inc.vocab_size, inc.n_sequences
        reps = np.empty((B,) + centre.shape)
        with single_threaded_blas():
            for b in range(B):
                draws = gen.integers(0, m, size=m)
                wa = np.bincount(draws[: m // 2], minlength=m).astype(float)
                wb = np.bincount(draws[m // 2:], minlength=m).astype(float)
                reps[b] = _point_statistic(statistic, self._split(inc, wa, wb, S))
        return _summarise(centre, reps, point.mc_spread if statistic is None else None, confidence=confidence,
                          label=self.label, squared_scale=statistic is None, point=point)

