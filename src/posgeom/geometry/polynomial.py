"""A large-alphabet comparison: ``BestPolynomial``, the full-vocabulary distance by polynomial approximation."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.polynomial import chebyshev

from .._validation import check_positive_int
from ._crossfit import squared_from_gram
from .estimators import Estimator

__all__ = ["BestPolynomial"]


def _power_coefficients(degree: int) -> np.ndarray:
    """Power-basis coefficients on ``[0, 1]`` of the Chebyshev interpolant of ``sqrt`` (near-best uniform)."""
    nodes = 0.5 * (1 + np.cos(np.pi * (np.arange(degree + 1) + 0.5) / (degree + 1)))
    fit = chebyshev.Chebyshev.fit(nodes, np.sqrt(nodes), degree, domain=[0, 1])
    return fit.convert(kind=np.polynomial.Polynomial, domain=[0, 1], window=[0, 1]).coef


def _sqrt_estimates(counts, n: int, *, c_degree: float = 0.7, c_interval: float = 2.0) -> np.ndarray:
    """Estimates of ``sqrt(p)`` from ``X ~ Binomial(n, p)`` (the rule stated in ``BestPolynomial``)."""
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


class BestPolynomial(Estimator):
    """Cross-fitted full-vocabulary Hellinger distances from polynomial estimates of ``sqrt(p)`` (a comparison).

    In each half of a split, a cell's count ``X ~ Binomial(n, p)`` among the ``n`` texts reaching its position gives
    ``T``: where ``X / n < Delta = 2 ln n / n`` the unbiased estimate of the degree-``L = max(1, round(0.7 ln n))``
    Chebyshev interpolant of ``sqrt`` on ``[0, Delta]``, else ``sqrt(X/n) + (1 - X/n) / (8 sqrt(X n))`` (after Jiao et
    al. 2015); ``G_ij = sum_k T^A_ik T^B_jk`` over all ``support_size`` tokens, then ``Q`` as cross-fitted.

    Parameters
    ----------
    support_size : int, optional (default the vocabulary size)
    n_splits : int, default 20

    Examples
    --------
    >>> BestPolynomial(n_splits=5).label
    'best polynomial'
    """
    label = "best polynomial"

    def __init__(self, *, support_size: int | None = None, n_splits: int = 20):
        self.support_size = None if support_size is None else check_positive_int(support_size, "support_size")
        self.n_splits = check_positive_int(n_splits, "n_splits", minimum=2)

    def _options(self) -> str:
        return f"support_size={self.support_size}, n_splits={self.n_splits}"

    def _estimand(self, data):
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

    def _weights(self, inc, texts):
        return np.bincount(texts, minlength=inc.n_sequences).astype(float)

    def _split(self, inc, units, order):
        S = self.support_size or inc.vocab_size
        texts_a, texts_b = units.halves(order)
        za, da = self._half(inc, self._weights(inc, texts_a), S)
        zb, db = self._half(inc, self._weights(inc, texts_b), S)
        G = S * np.outer(za, zb) + np.outer(za, np.asarray(db.sum(axis=1)).ravel())
        G += np.outer(np.asarray(da.sum(axis=1)).ravel(), zb) + (da @ db.T).toarray()
        return squared_from_gram(G)

    def _point(self, inc, gen, units, prep):
        Qs = np.stack([self._split(inc, units, gen.permutation(units.n_units)) for _ in range(self.n_splits)])
        return self._estimate(Qs, estimand=self.describe_estimand())

    def _resample(self, inc, prep, units, drawn, gen):
        return self._split(inc, units, drawn)
