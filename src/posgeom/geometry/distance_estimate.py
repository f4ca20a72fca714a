"""What every estimator of the distances returns, and the estimators' shared base.

======================  ==============================================================
``DistanceEstimate``    estimated distances labelled with their estimator and estimand
======================  ==============================================================
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_confidence, check_positive_int, check_rng
from ..corpus.incidence import SequenceIncidence
from ..inference import BootstrapEstimate
from .estimators import _intervals
from .resolved import Resolution

__all__: list[str] = []


@dataclass(frozen=True)
class DistanceEstimate:
    """Estimated distances between positional distributions, labelled with their estimator and estimand.

    Attributes
    ----------
    squared : (n, n) ndarray
        Unclipped estimates of the squared distances (negative where the noise exceeds the distance). Use these
        for averages and for classical MDS.
    distances : (n, n) ndarray
        ``sqrt(clip(squared, 0, 1))``, zero diagonal.
    estimator : str
        The estimator's label.
    estimand : str
        What ``squared`` estimates, in words.
    mc_spread : (n, n) ndarray or None
        Monte Carlo standard error of ``squared`` over random splits (``None`` for the plug-in).
    resolution : Resolution or None
        The resolved estimand's parameters (``None`` for the other estimators).

    Examples
    --------
    >>> from posgeom.corpus import SequenceIncidence
    >>> from posgeom.geometry import PlugIn
    >>> est = PlugIn().distances(SequenceIncidence.from_sequences([[0, 1], [0, 1]], 2, 2))
    >>> est.estimator, est.distances[0, 1]
    ('plug-in', np.float64(1.0))
    """

    squared: np.ndarray
    distances: np.ndarray
    estimator: str
    estimand: str
    mc_spread: np.ndarray | None = None
    resolution: Resolution | None = None


def _check_incidence(data) -> SequenceIncidence:
    if not isinstance(data, SequenceIncidence):
        raise TypeError(f"data must be a SequenceIncidence (SequenceIncidence.from_sequences(...) or "
                        f"posgeom.data.TokenizedCorpus.incidence(...)), got {type(data).__name__}")
    return data


def _summarise(centre, reps, centre_mc, *, confidence, label, squared_scale, point=None) -> BootstrapEstimate:
    """Centred percentile intervals ``centre + q(E)``, ``E = replicate - mean``, with Monte Carlo errors of the ends."""
    centre = np.asarray(centre, dtype=np.float64)
    shape = centre.shape
    reps = np.asarray(reps, dtype=np.float64).reshape(reps.shape[0], -1)
    errors = reps - reps.mean(axis=0)
    flat = centre.reshape(-1)
    mc = np.zeros_like(flat) if centre_mc is None else np.asarray(centre_mc, dtype=np.float64).reshape(-1)

    def transform(x):
        return np.sqrt(np.clip(x, 0.0, 1.0)) if squared_scale else x

    (lo, lo_mc), (hi, hi_mc) = _intervals(errors, flat, mc, confidence, "percentile", transform)
    estimate = transform(flat)

    def shaped(x):
        return float(x[0]) if len(shape) == 0 else x.reshape(shape)

    return BootstrapEstimate(estimate=shaped(estimate), replicates=reps.reshape((reps.shape[0],) + shape),
                             lower=shaped(lo), upper=shaped(hi), lower_mc_error=shaped(lo_mc),
                             upper_mc_error=shaped(hi_mc), confidence=confidence,
                             method="centred percentile bootstrap over texts", label=label, point=point)


def _point_statistic(statistic, Q):
    return np.asarray(Q if statistic is None else statistic(Q), dtype=np.float64)


class _Estimator:
    label = ""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._options()})"

    def _options(self) -> str:
        return ""

    def _bootstrap_setup(self, data, n_resamples, rng, statistic, confidence):
        inc = _check_incidence(data)
        gen = check_rng(rng)
        n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
        confidence = check_confidence(confidence)
        if statistic is not None and not callable(statistic):
            raise TypeError("statistic must be a callable Q -> float or array (Q: the squared-distance matrix), "
                            "or None for the distance matrix")
        return inc, gen, n_resamples, confidence

