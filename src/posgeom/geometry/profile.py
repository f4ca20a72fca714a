"""Linear statistics of a squared-distance matrix along the lag (``LagStatistics``), ``ladder_sign`` and ``pad_texts``.

Each statistic is linear in the squared distances ``Q_ij`` of a block of positions' pairs ``i < j``, so an unbiased
estimator of ``Q`` (``Resolved``) estimates it without bias, and on a flat corpus its expectation is 0.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .ladder import Ladder

import numpy as np

from .._validation import check_positive_int
from ..corpus.incidence import SequenceIncidence, check_incidence
from .ladder import contiguous_tokens

__all__ = ["LagStatistics", "pad_texts", "ladder_sign"]


class LagStatistics:
    """The lag profile, the lag slope and the position trend of a block of positions, as one vector statistic.

    Profile: the mean of ``Q_ij`` at each lag ``j - i``; slope: the least-squares slope of ``Q_ij`` on the lag; trend:
    the slope on the midpoint ``(i + j) / 2`` within each lag (0 for a Toeplitz ``Q``).

    Parameters
    ----------
    n_positions : int
    first, last : int, optional
        The block, inclusive (default all positions; at least 3).
    with_share : bool, default False
        Append the Toeplitz share, the ``R^2`` of ``Q_ij`` on the lag (not linear in ``Q``: biased down by noise).

    Attributes
    ----------
    lags : ndarray
        The lags ``1 .. m - 1`` of the block of ``m`` positions (the first ``m - 1`` entries).
    slope_index, trend_index : int
    share_index : int or None

    Examples
    --------
    >>> LagStatistics(5)(np.abs(np.subtract.outer(np.arange(5.0), np.arange(5.0)))).round(12)  # Toeplitz Q
    array([1., 2., 3., 4., 1., 0.])
    """
    def __init__(self, n_positions: int, *, first: int = 0, last: int | None = None, with_share: bool = False):
        n = check_positive_int(n_positions, "n_positions", minimum=3)
        last = n - 1 if last is None else int(last)
        first = int(first)
        if not 0 <= first < last <= n - 1 or last - first < 2:
            raise ValueError(f"the block [{first}, {last}] must hold at least 3 of the positions 0 .. {n - 1}")
        self.n_positions, self.first, self.last = n, first, last
        i, j = np.triu_indices(last - first + 1, 1)
        self._i, self._j = i + first, j + first
        self._lag = lag = j - i
        self.lags = np.arange(1, last - first + 1)
        self._count = np.bincount(lag)[1:].astype(np.float64)
        x = lag - lag.mean()
        self._slope_w = x / (x @ x)
        mid = (self._i + self._j) / 2.0
        mid_c = mid - (np.bincount(lag, weights=mid)[1:] / self._count)[lag - 1]
        self._trend_w = mid_c / (mid_c @ mid_c)
        self.slope_index = self.lags.size
        self.trend_index = self.lags.size + 1
        self.share_index = self.lags.size + 2 if with_share else None

    def __repr__(self) -> str:
        return f"LagStatistics(n_positions={self.n_positions}, first={self.first}, last={self.last})"

    def __call__(self, Q) -> np.ndarray:
        """``[lag profile (m - 1 values), lag slope, position trend(, share)]`` of a squared-distance matrix."""
        Q = np.asarray(Q, dtype=np.float64)
        if Q.shape != (self.n_positions, self.n_positions):
            raise ValueError(f"expected a {self.n_positions} x {self.n_positions} matrix, got shape {Q.shape}")
        q = Q[self._i, self._j]
        profile = np.bincount(self._lag, weights=q)[1:] / self._count
        out = [profile, [self._slope_w @ q, self._trend_w @ q]]
        if self.share_index is not None:  # R^2 of q on the lag: the lag profile's share of q's variance
            centred, fitted = q - q.mean(), profile[self._lag - 1] - q.mean()
            total = centred @ centred
            out.append([float(fitted @ fitted / total) if total > 0 else float("nan")])
        return np.concatenate(out)

    def profile(self, values) -> np.ndarray:
        """The lag profile part of a vector of this statistic (or of a stack of them, along the last axis).

        Parameters
        ----------
        values : array_like

        Returns
        -------
        ndarray

        Examples
        --------
        >>> LagStatistics(4).profile(np.arange(5.0))
        array([0., 1., 2.])
        """
        return np.asarray(values)[..., : self.lags.size]

    @staticmethod
    def _part(values, index: int):
        """Entry ``index`` of a vector of the statistic (a float), or of each of a stack of them."""
        part = np.asarray(values)[..., index]
        return float(part) if part.ndim == 0 else part

    def slope(self, values):
        """The lag slope part of a vector (a float), or of a stack of vectors (an array).

        Parameters
        ----------
        values : array_like

        Returns
        -------
        float or ndarray

        Examples
        --------
        >>> LagStatistics(4).slope(np.arange(5.0))
        3.0
        """
        return self._part(values, self.slope_index)

    def trend(self, values):
        """The position trend part of a vector (a float), or of a stack of vectors (an array).

        Parameters
        ----------
        values : array_like

        Returns
        -------
        float or ndarray

        Examples
        --------
        >>> LagStatistics(4).trend(np.arange(5.0))
        4.0
        """
        return self._part(values, self.trend_index)

    def share(self, values):
        """The Toeplitz share part of a vector built with ``with_share=True`` (else a ValueError).

        Parameters
        ----------
        values : array_like

        Returns
        -------
        float or ndarray

        Examples
        --------
        >>> LagStatistics(4, with_share=True).share(np.arange(6.0))
        5.0
        """
        if self.share_index is None:
            raise ValueError("this LagStatistics was built without with_share=True")
        return self._part(values, self.share_index)


def pad_texts(data: SequenceIncidence, pad_id: int) -> SequenceIncidence:
    """The same texts padded to the window with ``pad_id`` (``[PAD]`` is 0 for BERT), the pads counted.

    Parameters
    ----------
    data : SequenceIncidence of texts filling positions ``0 .. length - 1``
    pad_id : int

    Returns
    -------
    SequenceIncidence

    Examples
    --------
    >>> pad_texts(SequenceIncidence.from_sequences([[1, 2, 3], [2]], 3, 4), 0).counts().toarray()[2]
    array([1, 0, 0, 1])
    """
    check_incidence(data)
    pad_id = int(pad_id)
    if not 0 <= pad_id < data.vocab_size:
        raise ValueError(f"pad_id {pad_id} is outside the vocabulary 0 .. {data.vocab_size - 1}")
    tokens = contiguous_tokens(data)
    n, m = data.n_positions, data.n_sequences
    padded = np.full(m * n, pad_id, dtype=np.int64)
    padded[np.repeat(np.arange(m) * n, data.lengths) + data.positions[data.cell]] = tokens
    return SequenceIncidence.from_contiguous(padded, np.full(m, n), n, data.vocab_size)


def ladder_sign(ladder: Ladder, index: int) -> int:
    """``1`` (``-1``) if every rung's interval of one component lies above (below) 0, else ``0``.

    Parameters
    ----------
    ladder : Ladder
    index : int, the component (e.g. ``LagStatistics.slope_index``)

    Returns
    -------
    int

    Examples
    --------
    >>> from posgeom.geometry import Ladder
    >>> from posgeom.inference import BootstrapEstimate
    >>> r = BootstrapEstimate(np.ones(1), np.zeros((3, 1)), np.array([0.5]), np.array([2.0]), 0, 0, 0.95, "p", "t")
    >>> ladder_sign(Ladder((1.0, 0.5), (r, r), "toy"), 0)
    1
    """
    return {"lower": -1, "higher": 1}.get(ladder.decide(index).outcome, 0)
