"""The one bootstrap engine: resampling units, one resampling loop, one interval.

``BootstrapEstimate`` (the result), ``Units`` (texts, or groups of texts that stay together), ``bootstrap`` (the
loop and the centred percentile interval), ``difference`` (a paired contrast), ``paired`` (two bootstraps as one).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_confidence, check_positive_int
from ._intervals import Interval


@dataclass(frozen=True)
class BootstrapEstimate:
    """A bootstrap interval: the estimate, its replicates, the interval, and the Monte Carlo error of its ends.

    Attributes
    ----------
    estimate, lower, upper : float or ndarray
    replicates : ndarray, shape ``(n_resamples, *shape)``
    lower_mc_error, upper_mc_error : float or ndarray
        Monte Carlo standard errors of the ends (how much they would move with another seed).
    confidence : float
    method, label : str
        How the interval was formed and over which units; what was resampled.
    point : object, optional
        The full-sample estimate behind ``estimate`` (e.g. a ``DistanceEstimate``).

    Examples
    --------
    >>> BootstrapEstimate(1.0, np.zeros(2), 0.0, 2.0, 0.0, 0.0, 0.9, "centred percentile", "toy").covers(0.0)
    True
    """
    estimate: float | np.ndarray
    replicates: np.ndarray
    lower: float | np.ndarray
    upper: float | np.ndarray
    lower_mc_error: float | np.ndarray
    upper_mc_error: float | np.ndarray
    confidence: float
    method: str
    label: str
    point: object = None

    @property
    def n_resamples(self) -> int:
        """Number of resamples."""
        return int(np.shape(self.replicates)[0])

    @property
    def bias(self):
        """Mean replicate minus the estimate."""
        return np.mean(self.replicates, axis=0) - self.estimate

    @property
    def interval(self) -> Interval:
        """The interval of a scalar statistic as an ``Interval`` (raises for arrays)."""
        if np.ndim(self.estimate) != 0:
            raise ValueError("interval is defined for a scalar statistic; index lower and upper for arrays")
        return Interval(float(self.estimate), float(self.lower), float(self.upper), float(self.confidence))

    def covers(self, value):
        """Whether each interval contains ``value`` (elementwise for arrays)."""
        out = (np.asarray(self.lower) <= value) & (np.asarray(value) <= np.asarray(self.upper))
        return bool(out) if np.ndim(out) == 0 else out


class Units:
    """The resampling units of a corpus: the ``groups=`` convention of every estimator.

    ``groups`` gives a label per text; texts with one label (the phrases of one source sentence) are one unit: a
    resample draws whole groups with replacement, and a split into halves never separates one draw of a group. Default:
    every text is its own unit.
    """
    def __init__(self, n_texts: int, *, groups: ArrayLike | None = None):
        self.n_texts = check_positive_int(n_texts, "n_texts")
        self.grouped, self.n_units = groups is not None, self.n_texts  # grouped: a unit is a group of texts
        if self.grouped:
            labels = np.asarray(groups)
            if labels.shape != (self.n_texts,):
                raise ValueError(f"groups must hold one label per text ({self.n_texts}), got shape {labels.shape}")
            _, inverse = np.unique(labels, return_inverse=True)
            self._order = np.argsort(inverse, kind="stable")  # unit u's texts: _order[_start[u]:_start[u + 1]]
            self._start = np.concatenate(([0], np.cumsum(np.bincount(inverse))))
            self.n_units = self._start.size - 1

    def resample(self, gen: np.random.Generator) -> np.ndarray:
        """``n_units`` units drawn uniformly with replacement (their indices)."""
        return gen.integers(0, self.n_units, size=self.n_units)

    def texts(self, units: np.ndarray) -> np.ndarray:
        """The texts of the given units, in order (with repeats)."""
        if not self.grouped:
            return np.asarray(units)
        units = np.asarray(units, dtype=np.int64)
        size = self._start[units + 1] - self._start[units]
        return self._order[np.repeat(self._start[units] - np.cumsum(size) + size, size) + np.arange(size.sum())]

    def halves(self, units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The texts of the first ``floor(k/2)`` of ``k`` units and of the others."""
        h = len(units) // 2
        return self.texts(units[:h]), self.texts(units[h:])

    def shuffled_halves(self, units: np.ndarray, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``halves`` of the units in a random order."""
        units = np.asarray(units)
        return self.halves(units[gen.permutation(units.size)])

    def describe(self) -> str:
        """The unit in words."""
        return f"groups of texts ({self.n_units} groups)" if self.grouped else "texts"


def _order_statistics(E, kth):
    """The ``kth`` (0-based) order statistics of the columns of ``E``."""
    kth = np.asarray(kth)
    return np.partition(E, np.unique(kth), axis=0)[kth]


def _ends(errors, centre, centre_mc, confidence, scale):
    """Interval ends mapped by ``scale`` with their Monte Carlo errors (see ``bootstrap``)."""
    B = errors.shape[0]
    shift_mc = np.hypot(centre_mc, errors.std(axis=0, ddof=1) / np.sqrt(B))
    out = []
    for p in ((1 - confidence) / 2, (1 + confidence) / 2):
        c = p * (B - 1)
        f = int(np.floor(c))
        s = np.sqrt(B * p * (1 - p))
        o = _order_statistics(errors, [f, min(f + 1, B - 1), max(int(np.floor(c - s)), 0),
                                       min(int(np.ceil(c + s)), B - 1)])
        end = centre + o[0] + (c - f) * (o[1] - o[0])
        quantile_mc = 0.5 * np.abs(scale(centre + o[3]) - scale(centre + o[2]))
        shift_part = 0.5 * np.abs(scale(end + shift_mc) - scale(end - shift_mc))
        out.append((scale(end), np.hypot(quantile_mc, shift_part)))
    return out


def bootstrap(replicate: Callable[[np.ndarray], ArrayLike], estimate: ArrayLike, *, units: Units,
              rng: np.random.Generator, n_resamples: int, confidence: float = 0.95, scale: Callable | None = None,
              estimate_mc: ArrayLike | None = None, label: str = "", point: object = None) -> BootstrapEstimate:
    """Bootstrap a statistic over resampling units: the package's one resampling loop and one interval.

    ``replicate(drawn)`` gives the statistic on the resample of the units ``drawn`` (indices with repeats; it may
    draw a split from ``rng``), ``estimate`` the statistic on the whole sample; ``scale`` (default the identity) is a
    monotone map applied to estimate, replicates and ends after the interval is formed (e.g. squared distances to
    distances); ``estimate_mc`` is the Monte Carlo error of ``estimate`` itself, added to the ends' errors.

    **The interval: centred percentile.** With ``E_b = replicate_b - mean(replicates)`` the interval is
    ``[estimate + q_lo(E), estimate + q_hi(E)]`` at the ``(1 -+ confidence)/2`` quantiles (as ``numpy.quantile``):
    the percentile interval translated by the bootstrap's bias estimate. The book's estimators are unbiased for their
    estimand in the bootstrap world, whose truth (the full-sample empirical distributions) carries the noise of every
    rare token, so the replicates are shifted by an amount with no real-world counterpart (intervals referred to the
    plug-in covered a known truth in 0% of replications). Unlike the basic interval it is not reflected, which is
    right when a monotone transform makes the law symmetric, as for the book's squared distances, distances and
    stresses; its coverage is tested for a distance and a stress. The Monte Carlo error of an end is half the distance
    between the order statistics one binomial SD (``sqrt(B p (1 - p))`` ranks) either side of its rank, combined with
    those of the mean and of ``estimate``.
    """
    B = check_positive_int(n_resamples, "n_resamples", minimum=2)
    confidence = check_confidence(confidence)
    centre = np.asarray(estimate, dtype=np.float64)
    reps = np.empty((B,) + centre.shape)
    for b in range(B):
        try:
            reps[b] = replicate(units.resample(rng))
        except ValueError as exc:
            raise ValueError(f"bootstrap resample {b}: {exc}") from None
    scale = np.asarray if scale is None else scale  # the identity on arrays
    flat, flat_reps = centre.reshape(-1), reps.reshape(B, -1)
    mc = np.zeros_like(flat) if estimate_mc is None else np.asarray(estimate_mc, dtype=np.float64).reshape(-1)
    k = flat.size
    lower, upper, lower_mc, upper_mc = (np.empty(k) for _ in range(4))
    for start in range(0, k, 4096):  # columns in blocks: the partitions copy their input
        sl = slice(start, min(start + 4096, k))
        errors = flat_reps[:, sl] - flat_reps[:, sl].mean(axis=0)
        (lower[sl], lower_mc[sl]), (upper[sl], upper_mc[sl]) = _ends(errors, flat[sl], mc[sl], confidence, scale)
    def shaped(x):
        return float(x[0]) if centre.ndim == 0 else x.reshape(centre.shape)
    return BootstrapEstimate(estimate=shaped(scale(flat)), replicates=scale(reps), lower=shaped(lower),
                             upper=shaped(upper), lower_mc_error=shaped(lower_mc), upper_mc_error=shaped(upper_mc),
                             confidence=confidence, method=f"centred percentile bootstrap over {units.describe()}, "
                                                           f"{B} resamples", label=label, point=point)


def _components(boot: BootstrapEstimate, index: int | None = None) -> tuple[list, np.ndarray]:
    """Estimate, ends and their MC errors (flattened, broadcast) and replicates ``(B, k)``, or component ``index``."""
    fields = [np.broadcast_to(np.asarray(getattr(boot, f), dtype=np.float64), np.shape(boot.estimate)).reshape(-1)
              for f in ("estimate", "lower", "upper", "lower_mc_error", "upper_mc_error")]
    reps = np.asarray(boot.replicates, dtype=np.float64).reshape(boot.n_resamples, -1)
    return (fields, reps) if index is None else ([v[[index]] for v in fields], reps[:, [index]])


def difference(boot: BootstrapEstimate, a: int, b: int | None = None, *, threshold: float = 0.0,
               label: str = "") -> BootstrapEstimate:
    """Component ``a`` minus component ``b`` (same resamples, its own interval) or minus ``threshold``."""
    (est, lo, hi, lo_mc, hi_mc), reps = _components(boot)
    if b is None:
        return BootstrapEstimate(float(est[a] - threshold), reps[:, a] - threshold, float(lo[a] - threshold),
                                 float(hi[a] - threshold), float(lo_mc[a]), float(hi_mc[a]), boot.confidence,
                                 boot.method, label)
    diff = reps[:, a] - reps[:, b]
    (lo, lo_mc), (hi, hi_mc) = _ends((diff - diff.mean())[:, None], np.array([est[a] - est[b]]), np.zeros(1),
                                     boot.confidence, np.asarray)
    return BootstrapEstimate(float(est[a] - est[b]), diff, float(lo[0]), float(hi[0]), float(lo_mc[0]),
                             float(hi_mc[0]), boot.confidence, boot.method, label)


def paired(a: BootstrapEstimate, b: BootstrapEstimate, *, index: int | None = None) -> BootstrapEstimate:
    """Two bootstraps drawn with one seed (the same resampled units) as one: the components of ``a`` then ``b`` (or
    component ``index`` of each), so ``difference(paired(a, b), 0, 1)`` is the paired ``a - b``."""
    if (a.n_resamples, a.confidence, a.method) != (b.n_resamples, b.confidence, b.method):
        raise ValueError("paired needs two bootstraps drawn with one seed (same resamples, units, confidence), got "
                         f"{(a.n_resamples, a.confidence, a.method)} and {(b.n_resamples, b.confidence, b.method)}")
    (fa, ra), (fb, rb) = _components(a, index), _components(b, index)
    est, lo, hi, lo_mc, hi_mc = (np.concatenate(pair) for pair in zip(fa, fb))
    return BootstrapEstimate(est, np.concatenate([ra, rb], axis=1), lo, hi, lo_mc, hi_mc, a.confidence, a.method,
                             a.label)
