"""One estimation core: estimators of the distances between positional distributions, with one interface.

==================  ==============================================================================
``PlugIn``          the empirical distributions put into the Hellinger formula (biased upward)
``CrossFitted``     the cross-fitted estimator (its estimand drifts with the number of texts)
``Resolved``        the cross-fitted, equal-reach estimator of the resolved estimand (the default)
==================  ==============================================================================

Each has ``.label``, ``.describe_estimand(data)``, ``.distances(data, *, rng)`` (a
:class:`~posgeom.geometry.distance_estimate.DistanceEstimate`) and ``.bootstrap(data, *, n_resamples, rng, ...)`` (a
:class:`~posgeom.inference.BootstrapEstimate`).
"""

from __future__ import annotations

import numpy as np

from .._blas import single_threaded_blas
from .._validation import check_positive_int, check_rng
from ..inference import BootstrapEstimate
from ._crossfit import _distances_from_squared, corrected_distances, plugin_distances
from .distance_estimate import DistanceEstimate as DistanceEstimate
from .distance_estimate import _check_incidence, _Estimator, _point_statistic, _summarise
from .noise import bootstrap_statistic
from .resolved import Resolution, _EqualReach, _resolved_splits, choose_resolution

__all__ = [
    "PlugIn",
    "CrossFitted",
    "Resolved",
]


class PlugIn(_Estimator):
    """The plug-in estimator: the empirical ``mu_i`` put into the Hellinger formula.

    Biased upward (two samples of one distribution are not at distance 0); its estimand is the distance between
    the empirical distributions themselves, which moves with the sample size.

    Examples
    --------
    >>> from posgeom.corpus import SequenceIncidence
    >>> PlugIn().distances(SequenceIncidence.from_sequences([[0, 1], [1, 0]], 2, 2)).distances[0, 1]
    np.float64(0.0)
    """

    label = "plug-in"

    def describe_estimand(self, data=None) -> str:
        """The estimand in words.

        Parameters
        ----------
        data : SequenceIncidence, optional
            Unused (the plug-in's estimand does not depend on a parameter).

        Returns
        -------
        str

        Examples
        --------
        >>> PlugIn().describe_estimand()
        'd_H between the empirical distributions (biased upward; moves with the number of texts)'
        """
        return "d_H between the empirical distributions (biased upward; moves with the number of texts)"

    def distances(self, data, *, rng=None) -> DistanceEstimate:
        """Plug-in distances of a corpus.

        Parameters
        ----------
        data : SequenceIncidence
        rng : ignored
            Accepted so that every estimator is called alike.

        Returns
        -------
        DistanceEstimate

        Examples
        --------
        >>> from posgeom.corpus import SequenceIncidence
        >>> PlugIn().distances(SequenceIncidence.from_sequences([[0, 1]], 2, 2)).squared[0, 1]
        np.float64(1.0)
        """
        D = plugin_distances(_check_incidence(data))
        return DistanceEstimate(squared=D**2, distances=D, estimator=self.label,
                                estimand=self.describe_estimand())

    def bootstrap(self, data, *, n_resamples: int = 1000, rng, statistic=None,
                  confidence: float = 0.95) -> BootstrapEstimate:
        """Bootstrap over texts of the plug-in distances (or of a statistic of their squares).

        Parameters
        ----------
        data : SequenceIncidence
        n_resamples : int, default 1000
        rng : int or numpy.random.Generator
        statistic : callable, optional
            ``statistic(Q)`` of the squared-distance matrix; default the matrix itself (interval mapped to distances).
        confidence : float, default 0.95

        Returns
        -------
        BootstrapEstimate
            Centred percentile intervals: they describe the sampling spread around the estimate, which is biased.

        Examples
        --------
        >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
        >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(60, 3, 5, rng=0), 3, 5)
        >>> PlugIn().bootstrap(inc, n_resamples=20, rng=0).replicates.shape
        (20, 3, 3)
        """
        inc, gen, B, confidence = self._bootstrap_setup(data, n_resamples, rng, statistic, confidence)
        res = bootstrap_statistic(inc, lambda D: _point_statistic(statistic, D**2), rng=gen, n_boot=B,
                                  confidence=confidence)
        return _summarise(res.estimate, res.replicates, None, confidence=confidence, label=self.label,
                          squared_scale=statistic is None)


class CrossFitted(_Estimator):
    """The cross-fitted estimator (``posgeom.geometry._crossfit.corrected_distances``), averaged over random splits.

    Its estimand, ``||alpha_i - alpha_j||^2 / 2`` with ``alpha_i = E sqrt(mu_i^half)``, depends on how many texts
    reach each position: it grows with the corpus and is not 0 for equal distributions reached by different
    numbers of texts. Kept for comparison; :class:`Resolved` fixes both.

    Parameters
    ----------
    n_splits : int, default 20
        Random splits averaged by the point estimate.

    Examples
    --------
    >>> CrossFitted(n_splits=10).label
    'cross-fitted'
    """

    label = "cross-fitted"

    def __init__(self, *, n_splits: int = 20):
        self.n_splits = check_positive_int(n_splits, "n_splits", minimum=2)

    def _options(self) -> str:
        return f"n_splits={self.n_splits}"

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
        >>> CrossFitted().describe_estimand()[:20]
        '||E sqrt(mu_half_i) '
        """
        return ("||E sqrt(mu_half_i) - E sqrt(mu_half_j)||^2 / 2 at the corpus's own reach "
                "(moves with the number of texts)")

    def distances(self, data, *, rng) -> DistanceEstimate:
        """Cross-fitted distances of a corpus.

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
        >>> inc = SequenceIncidence.from_sequences([[0, 1]] * 4, 2, 2)
        >>> CrossFitted(n_splits=2).distances(inc, rng=0).distances[0, 1]
        np.float64(1.0)
        """
        est = corrected_distances(_check_incidence(data), rng=rng, n_splits=self.n_splits)
        return DistanceEstimate(squared=est.squared, distances=est.distances, estimator=self.label,
                                estimand=self.describe_estimand(), mc_spread=est.mc_spread)

    def bootstrap(self, data, *, n_resamples: int = 1000, rng, statistic=None,
                  confidence: float = 0.95) -> BootstrapEstimate:
        """Bootstrap over texts (one split per resample; see :func:`~posgeom.geometry.bootstrap_corrected`).

        Parameters
        ----------
        data : SequenceIncidence
        n_resamples : int, default 1000
        rng : int or numpy.random.Generator
        statistic : callable, optional
            ``statistic(Q)`` of the squared-distance matrix; default the matrix itself.
        confidence : float, default 0.95

        Returns
        -------
        BootstrapEstimate

        Examples
        --------
        >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
        >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(60, 3, 5, rng=0), 3, 5)
        >>> CrossFitted().bootstrap(inc, n_resamples=20, rng=0, statistic=lambda Q: Q[0, 2]).replicates.shape
        (20,)
        """
        from .estimators import bootstrap_corrected

        inc, gen, B, confidence = self._bootstrap_setup(data, n_resamples, rng, statistic, confidence)
        res = bootstrap_corrected(inc, rng=gen, n_boot=B, estimate_splits=self.n_splits, confidence=confidence)
        centre = _point_statistic(statistic, res.point.squared)
        reps = np.stack([_point_statistic(statistic, Q.astype(np.float64)) for Q in res.replicates])
        return _summarise(centre, reps, res.point.mc_spread if statistic is None else None,
                          confidence=confidence, label=self.label, squared_scale=statistic is None,
                          point=res.point)


class Resolved(_Estimator):
    r"""The resolved estimator: cross-fitted at a fixed vocabulary resolution, every position seen through ``m*`` texts.

    Its estimand, ``theta_ij = ||alpha(mu_i^K) - alpha(mu_j^K)||^2 / 2`` with ``alpha_k(mu) = E sqrt(X_k/m*)``,
    ``X ~ Multinomial(m*, mu^K)`` (:func:`~posgeom.geometry.resolved_estimand`), is fixed by the
    :class:`~posgeom.geometry.Resolution` alone: it is exactly 0 for equal distributions, whatever the number of
    texts reaching each position, and it does not move with the size of the corpus.

    Parameters
    ----------
    resolution : Resolution, optional
        The estimand's parameters; default: chosen from each corpus by :func:`choose_resolution` (so that the
        estimand is stated with every estimate). Fix it with :meth:`fixed` to estimate one estimand on several
        corpora (a stability ladder).
    n_splits : int, default 20
        Random splits averaged by the point estimate.
    bootstrap_splits : int, default 1
        Random splits averaged in each bootstrap resample (see :meth:`bootstrap`).
    min_expected : float, default 5.0
        Passed to :func:`choose_resolution` when ``resolution`` is not given.

    Examples
    --------
    >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
    >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(400, 4, 20, rng=0), 4, 20)
    >>> est = Resolved().distances(inc, rng=0)
    >>> est.estimator, est.resolution.texts_per_position
    ('resolved', 160)
    """

    label = "resolved"

    def __init__(self, *, resolution: Resolution | None = None, n_splits: int = 20, bootstrap_splits: int = 1,
                 min_expected: float = 5.0):
        if resolution is not None and not isinstance(resolution, Resolution):
            raise TypeError(f"resolution must be a Resolution or None, got {type(resolution).__name__}")
        self.resolution = resolution
        self.n_splits = check_positive_int(n_splits, "n_splits", minimum=2)
        self.bootstrap_splits = check_positive_int(bootstrap_splits, "bootstrap_splits")
        self.min_expected = float(min_expected)

    def _options(self) -> str:
        what = "chosen per corpus" if self.resolution is None else self.resolution.describe()
        return f"resolution: {what}, n_splits={self.n_splits}"

    def fixed(self, data, *, fraction: float = 1.0) -> Resolved:
        """This estimator with its resolution fixed on a corpus, planned for subsamples down to ``fraction``.

        Parameters
        ----------
        data : SequenceIncidence
        fraction : float, default 1.0
            The smallest share of the texts the estimand must be estimable from (``1/8`` for a four-rung ladder).

        Returns
        -------
        Resolved

        Examples
        --------
        >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
        >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(800, 4, 20, rng=0), 4, 20)
        >>> Resolved().fixed(inc, fraction=0.25).resolution.texts_per_position
        71
        """
        res = choose_resolution(_check_incidence(data), fraction=fraction, min_expected=self.min_expected)
        return Resolved(resolution=res, n_splits=self.n_splits, bootstrap_splits=self.bootstrap_splits,
                        min_expected=self.min_expected)

    def resolution_for(self, data) -> Resolution:
        """The resolution used on ``data``: the fixed one, or the one the rule picks.

        Parameters
        ----------
        data : SequenceIncidence

        Returns
        -------
        Resolution

        Examples
        --------
        >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
        >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(400, 4, 20, rng=0), 4, 20)
        >>> Resolved().resolution_for(inc).texts_per_position
        160
        """
        if self.resolution is not None:
            return self.resolution
        return choose_resolution(_check_incidence(data), min_expected=self.min_expected)

    def describe_estimand(self, data=None) -> str:
        """The estimand in words (with its resolution on ``data`` when the resolution is not fixed).

        Parameters
        ----------
        data : SequenceIncidence, optional

        Returns
        -------
        str

        Examples
        --------
        >>> from posgeom.geometry import Resolution
        >>> Resolved(resolution=Resolution((0, 1), 40, 5)).describe_estimand()
        'resolved d_H^2: 2 most frequent tokens + other, 40 texts per position and half'
        """
        if self.resolution is None and data is None:
            return "resolved d_H^2 at the resolution chosen from the corpus"
        return f"resolved d_H^2: {self.resolution_for(data).describe()}"

    def distances(self, data, *, rng) -> DistanceEstimate:
        """Resolved distances of a corpus: the mean of ``n_splits`` cross-fitted, equal-reach estimates.

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
        >>> inc = SequenceIncidence.from_sequences([[0, 1]] * 100, 2, 2)  # 100 texts resolve tokens 0 and 1
        >>> Resolved().distances(inc, rng=0).distances[0, 1]
        np.float64(1.0)
        """
        inc = _check_incidence(data)
        gen = check_rng(rng)
        res = self.resolution_for(inc)
        with single_threaded_blas():
            return self._estimate(_resolved_splits(inc, res, rng=gen, n_splits=self.n_splits), res)

    def _estimate(self, Qs, res) -> DistanceEstimate:
        """The point estimate from the splits' estimates ``Qs``."""
        Q = Qs.mean(axis=0)
        return DistanceEstimate(squared=Q, distances=_distances_from_squared(Q), estimator=self.label,
                                estimand=f"resolved d_H^2: {res.describe()}",
                                mc_spread=Qs.std(axis=0, ddof=1) / np.sqrt(Qs.shape[0]), resolution=res)

    def bootstrap(self, data, *, n_resamples: int = 1000, rng, statistic=None,
                  confidence: float = 0.95) -> BootstrapEstimate:
        r"""Bootstrap over texts of the resolved distances (or of a statistic of their squares).

        Parameters
        ----------
        data : SequenceIncidence
        n_resamples : int, default 1000
        rng : int or numpy.random.Generator
        statistic : callable, optional
            ``statistic(Q)`` of the squared-distance matrix; default the matrix itself (interval formed on the
            squared scale and mapped to distances).
        confidence : float, default 0.95

        Returns
        -------
        BootstrapEstimate

        Notes
        -----
        A resample draws the texts with replacement and averages ``b = bootstrap_splits`` random splits of the
        draws. The interval is the estimate plus the quantiles of the centred replicates. Their spread has two
        parts: the sampling of the texts (what the interval is for) and the splits' own noise, which the point
        estimate (``n_splits`` splits) carries less of. The interval is therefore conservative by that noise (on
        the book's corpora one split's noise is 10-30% of a replicate's variance); no adjustment is made, so the
        interval stays valid for any statistic, smooth or not.

        Examples
        --------
        >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
        >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(400, 4, 20, rng=0), 4, 20)
        >>> res = Resolved().bootstrap(inc, n_resamples=30, rng=0, statistic=lambda Q: Q[0, 3])
        >>> bool(res.lower <= res.estimate <= res.upper)
        True
        """
        inc, gen, B, confidence = self._bootstrap_setup(data, n_resamples, rng, statistic, confidence)
        res = self.resolution_for(inc)
        engine = _EqualReach(inc, res)
        S, b_splits, m = self.n_splits, self.bootstrap_splits, inc.n_sequences
        with single_threaded_blas():
            point = self._estimate(_resolved_splits(inc, res, rng=gen, n_splits=S, engine=engine), res)
            centre = _point_statistic(statistic, point.squared)
            reps = np.empty((B,) + centre.shape)
            for b in range(B):
                draws = gen.integers(0, m, size=m)
                try:
                    Qs = _resolved_splits(inc, res, rng=gen, n_splits=b_splits, draws=draws, engine=engine)
                except ValueError as exc:
                    raise ValueError(f"bootstrap resample {b}: {exc}") from None
                reps[b] = _point_statistic(statistic, Qs.mean(axis=0))
        return _summarise(centre, reps, point.mc_spread if statistic is None else None, confidence=confidence,
                          label=f"{self.label} ({res.describe()})", squared_scale=statistic is None, point=point)


#: The estimators by their command-line names.
_ESTIMATORS = ("resolved", "cross-fitted", "plug-in")


def _as_estimator(name: str) -> PlugIn | CrossFitted | Resolved:
    """An estimator with default options from its name (as ``posgeom report --estimator`` takes it).

    Parameters
    ----------
    name : {"resolved", "cross-fitted", "plug-in"}

    Returns
    -------
    PlugIn, CrossFitted or Resolved

    Raises
    ------
    ValueError
        For an unknown name (the message lists the choices).

    Examples
    --------
    >>> _as_estimator("resolved")
    Resolved(resolution: chosen per corpus, n_splits=20)
    """
    table = {"resolved": Resolved, "cross-fitted": CrossFitted, "plug-in": PlugIn}
    if name not in table:
        raise ValueError(f"unknown estimator {name!r}: choose one of {', '.join(_ESTIMATORS)}")
    return table[name]()
