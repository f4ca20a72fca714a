"""The distance estimators, one interface, one registry: ``PlugIn`` (biased upward), ``CrossFitted`` (its estimand
drifts with the number of texts), ``Resolved`` (the default), ``ESTIMATORS`` (command-line name -> class).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._blas import single_threaded_blas
from .._validation import check_positive_int, check_rng
from ..corpus.incidence import check_incidence
from ..inference import BootstrapEstimate
from ..inference._bootstrap import Units, bootstrap
from ._crossfit import CrossFitter, corrected_distances, distances_from_squared, plugin_distances, squared_from_gram
from .resolved import EqualReach, Resolution, choose_resolution, resolved_splits

__all__ = ["PlugIn", "CrossFitted", "Resolved"]


@dataclass(frozen=True)
class DistanceEstimate:
    """Estimated distances between positional distributions, labelled with their estimator and estimand.

    Attributes
    ----------
    squared : (n, n) ndarray
        Unclipped estimates of the squared distances; use these for averages and for classical MDS.
    distances : (n, n) ndarray, ``sqrt(clip(squared, 0, 1))``, zero diagonal
    estimator, estimand : str
    mc_spread : (n, n) ndarray or None
        Monte Carlo standard error of ``squared`` over random splits (``None`` for the plug-in).
    resolution : Resolution or None

    Examples
    --------
    >>> from posgeom.corpus import SequenceIncidence
    >>> PlugIn().distances(SequenceIncidence.from_sequences([[0, 1], [0, 1]], 2, 2)).estimator
    'plug-in'
    """
    squared: np.ndarray
    distances: np.ndarray
    estimator: str
    estimand: str
    mc_spread: np.ndarray | None = None
    resolution: Resolution | None = None


class Estimator:
    """The estimators' shared interface: a point estimate and a bootstrap through the one engine."""
    label = ""
    #: Whether the estimand carries the split-half noise floor (is biased upward by the sampling noise).
    upward_floor = False

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._options()})"

    def _options(self) -> str:
        return ""

    def _prepare(self, inc):
        """What the point estimate and every resample share (e.g. a prepared table)."""
        return None

    def _label(self, inc, prep) -> str:
        return self.label

    def _plan(self, data, fraction):
        return self

    def planned(self, data, *, fraction: float) -> Estimator:
        """The estimator for every rung of a ladder down to ``fraction`` of ``data`` (``Resolved`` fixes one)."""
        return self._plan(data, fraction)

    def describe_estimand(self, data=None) -> str:
        """The estimand in words (``data``: the corpus whose resolution a ``Resolved`` estimator picks)."""
        return self._estimand(data)

    def distances(self, data, *, rng, groups=None) -> DistanceEstimate:
        """The point estimate of a corpus (see the class); ``groups`` as in ``bootstrap``."""
        inc = check_incidence(data)
        gen = check_rng(rng)
        with single_threaded_blas():
            return self._point(inc, gen, Units(inc.n_sequences, groups=groups), self._prepare(inc))

    def bootstrap(self, data, *, rng, n_resamples: int = 1000, statistic=None, confidence: float = 0.95,
                  groups=None) -> BootstrapEstimate:
        """Bootstrap of the distances (or of a statistic of their squares) over texts or groups of texts.

        A resample draws the units with replacement and estimates from one random split of its draws (slightly
        conservative: that split's noise is 10-30% of a replicate's variance on the book's corpora).

        Parameters
        ----------
        data : SequenceIncidence
        rng : int or numpy.random.Generator
            Randomness of the point estimate's splits, then of the resamples and their splits.
        n_resamples : int, default 1000
        statistic : callable, optional
            ``statistic(Q)`` of the squared distances; default ``Q`` itself, its interval mapped to distances.
        confidence : float, default 0.95
        groups : (n_texts,) array, optional, a label per text (``Units``)

        Returns
        -------
        BootstrapEstimate

        Examples
        --------
        >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
        >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(400, 4, 20, rng=0), 4, 20)
        >>> Resolved().bootstrap(inc, n_resamples=30, rng=0, statistic=lambda Q: Q[0, 3]).n_resamples
        30
        """
        inc = check_incidence(data)
        gen = check_rng(rng)
        if statistic is not None and not callable(statistic):
            raise TypeError("statistic must be a callable Q -> float or array (Q: the squared-distance matrix), "
                            "or None for the distance matrix")
        units = Units(inc.n_sequences, groups=groups)
        prep = self._prepare(inc)
        stat = (lambda Q: Q) if statistic is None else statistic
        root = (lambda Q: np.sqrt(np.clip(Q, 0.0, 1.0))) if statistic is None else None  # Q's interval to distances
        with single_threaded_blas():
            point = self._point(inc, gen, units, prep)
            return bootstrap(lambda drawn: stat(self._resample(inc, prep, units, drawn, gen)),
                             stat(point.squared), units=units, rng=gen, n_resamples=n_resamples,
                             confidence=confidence, scale=root,
                             estimate_mc=point.mc_spread if statistic is None else None,
                             label=self._label(inc, prep), point=point)

    def _estimate(self, Qs, **extra) -> DistanceEstimate:
        """The point estimate from the splits' estimates ``Qs``."""
        Q = Qs.mean(axis=0)
        return DistanceEstimate(squared=Q, distances=distances_from_squared(Q), estimator=self.label,
                                mc_spread=Qs.std(axis=0, ddof=1) / np.sqrt(Qs.shape[0]), **extra)


class PlugIn(Estimator):
    """The plug-in estimator: the empirical ``mu_i`` in the Hellinger formula (biased upward; ``rng`` unused).

    Examples
    --------
    >>> PlugIn().label
    'plug-in'
    """
    label = "plug-in"
    upward_floor = True

    def _estimand(self, data):
        return "d_H between the empirical distributions (biased upward; moves with the number of texts)"

    def distances(self, data, *, rng=0, groups=None) -> DistanceEstimate:
        """Plug-in distances of a corpus (``rng`` and ``groups`` unused).

        Parameters
        ----------
        data : SequenceIncidence
        rng, groups : unused

        Returns
        -------
        DistanceEstimate

        Examples
        --------
        >>> from posgeom.corpus import SequenceIncidence
        >>> PlugIn().distances(SequenceIncidence.from_sequences([[0, 1]], 2, 2)).squared[0, 1]
        np.float64(1.0)
        """
        return self._point(check_incidence(data), None, None, None)

    def _point(self, inc, gen, units, prep):
        D = plugin_distances(inc)
        return DistanceEstimate(squared=D**2, distances=D, estimator=self.label, estimand=self.describe_estimand())

    def _resample(self, inc, prep, units, drawn, gen):
        return plugin_distances(inc, weights=np.bincount(units.texts(drawn), minlength=inc.n_sequences)) ** 2


class CrossFitted(Estimator):
    """The cross-fitted estimator (``corrected_distances``): its estimand grows with the corpus (for comparison).

    Parameters
    ----------
    n_splits : int, default 20

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

    def _estimand(self, data):
        return ("||E sqrt(mu_half_i) - E sqrt(mu_half_j)||^2 / 2 at the corpus's own reach "
                "(moves with the number of texts)")

    def _prepare(self, inc):
        return CrossFitter(inc, np.float32)  # float32 products: ~1e-6 error, far below any sampling error here

    def _point(self, inc, gen, units, prep):
        est = corrected_distances(inc, rng=gen, units=units, n_splits=self.n_splits)
        return DistanceEstimate(squared=est.squared, distances=est.distances, estimator=self.label,
                                estimand=self.describe_estimand(), mc_spread=est.mc_spread)

    def _resample(self, inc, prep, units, drawn, gen):
        return squared_from_gram(prep.gram(*units.halves(drawn)))


class Resolved(Estimator):
    """The resolved estimator (the default): unbiased for ``resolved_estimand``, whatever the corpus size.

    Parameters
    ----------
    resolution : Resolution, optional (default: chosen from each corpus by ``choose_resolution``)
    n_splits, bootstrap_splits : int, default 20 and 1
        Random splits averaged by the point estimate, and in each bootstrap resample.
    min_expected : float, default 5.0 (passed to ``choose_resolution``)

    Examples
    --------
    >>> Resolved(n_splits=10)
    Resolved(resolution: chosen per corpus, n_splits=10)
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

    def _at(self, resolution: Resolution) -> Resolved:
        return Resolved(resolution=resolution, n_splits=self.n_splits, bootstrap_splits=self.bootstrap_splits,
                        min_expected=self.min_expected)

    def fixed(self, data, *, fraction: float = 1.0) -> Resolved:
        """This estimator with its resolution fixed on ``data``, for subsamples down to ``fraction`` of it.

        Parameters
        ----------
        data : SequenceIncidence
        fraction : float, default 1.0

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
        return self._at(choose_resolution(check_incidence(data), fraction=fraction, min_expected=self.min_expected))

    def _plan(self, data, fraction):
        return self if self.resolution is not None else self.fixed(data, fraction=fraction)

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
        >>> Resolved(resolution=Resolution((0,), 9, 3)).resolution_for(None).texts_per_position
        9
        """
        if self.resolution is not None:
            return self.resolution
        return choose_resolution(check_incidence(data), min_expected=self.min_expected)

    def _estimand(self, data):
        if self.resolution is None and data is None:
            return "resolved d_H^2 at the resolution chosen from the corpus"
        return f"resolved d_H^2: {self.resolution_for(data).describe()}"

    def _prepare(self, inc):
        res = self.resolution_for(inc)
        return res, EqualReach(inc, res)

    def _label(self, inc, prep) -> str:
        return f"{self.label} ({prep[0].describe()})"

    def _point(self, inc, gen, units, prep):
        res, engine = prep
        Qs = resolved_splits(engine, units, np.arange(units.n_units), rng=gen, n_splits=self.n_splits)
        return self._estimate(Qs, estimand=f"resolved d_H^2: {res.describe()}", resolution=res)

    def _resample(self, inc, prep, units, drawn, gen):
        return resolved_splits(prep[1], units, drawn, rng=gen, n_splits=self.bootstrap_splits).mean(axis=0)


#: The estimators by their command-line names (the one registry).
ESTIMATORS = {"resolved": Resolved, "cross-fitted": CrossFitted, "plug-in": PlugIn}


def estimator_from_name(name: str) -> Estimator:
    """An estimator with default options from its command-line name (a ValueError lists the choices)."""
    if name not in ESTIMATORS:
        raise ValueError(f"unknown estimator {name!r}: choose one of {', '.join(ESTIMATORS)}")
    return ESTIMATORS[name]()
