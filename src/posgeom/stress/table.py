"""The stress table: how well the encodings in use reproduce a corpus's positional geometry.

* :func:`stress_table`: raw and scale-optimal stress of every row against one target ``D``, with bootstrap
  intervals (all rows on the same resamples, fitted rows refitted) when the texts behind ``D`` are given.

The rows are in :mod:`posgeom.stress.candidates`, the evaluated table in :mod:`posgeom.stress.results`, the exact
decomposition that explains it in :mod:`posgeom.stress.shift_invariant`; the names below are re-exported here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..corpus.incidence import SequenceIncidence

import copy
import math
import numbers
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_confidence, check_distance_matrix, check_positive_int, check_rng
from ..geometry._crossfit import _distances_from_squared, plugin_distances
from .candidates import (
    _MDS_CACHE,
    Candidate,
    _fixed_distances,
    _fixed_encoding,
    mds_candidate,
    standard_candidates,
)
from .results import ESTIMATORS, StressRow, StressTable, _check_estimator
from .shift_invariant import ShiftInvariantStress, shift_invariant_decomposition

__all__ = [
    "stress_table",
]

_INTERVALS = ("percentile", "basic")
# also importable from here, documented where they are defined (candidates, results, shift_invariant)
_REEXPORTED = (ESTIMATORS, Candidate, _fixed_distances, _fixed_encoding, mds_candidate, standard_candidates, StressRow,
               StressTable, ShiftInvariantStress, shift_invariant_decomposition)


def _evaluate(candidates, D) -> np.ndarray:
    """``[raw_1, optimal_1, scale_1, raw_2, ...]`` for every candidate against ``D``.

    The same numbers as :func:`~posgeom.stress.stress_of_distances` (raw and optimal) and
    :func:`~posgeom.stress.optimal_scale`, with ``D`` validated once and its upper triangle taken once, and one
    eigendecomposition shared by all MDS rows (this runs once per bootstrap resample).
    """
    D = check_distance_matrix(D, "D")
    n = D.shape[0]
    iu = np.triu_indices(n, k=1)
    d = D[iu]
    if not np.any(d > 0):
        raise ValueError("D is zero for every pair of positions: stress is undefined (0/0)")
    dd = float(d @ d)
    out = np.empty(3 * len(candidates))
    token = _MDS_CACHE.set({})
    try:
        for k, c in enumerate(candidates):
            E = np.asarray(c.distances(D), dtype=float)
            if E.shape != (n, n):
                raise ValueError(
                    f"candidate {c.name!r} induces distances of shape {E.shape}, but D describes n={n} positions; "
                    "build the candidates for the same n"
                )
            e = check_distance_matrix(E, "E")[iu]
            ee, ed = float(e @ e), float(e @ d)
            a = ed / ee if ee > 0 else 0.0
            r_raw, r_opt = e - d, e * a - d
            out[3 * k] = float(r_raw @ r_raw) / dd
            out[3 * k + 1] = float(r_opt @ r_opt) / dd
            out[3 * k + 2] = a
    finally:
        _MDS_CACHE.reset(token)
    return out


def _quantile_mc_errors(samples: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Monte Carlo standard errors of the percentile ends of ``samples`` (B, k), as in ``bootstrap_corrected``.

    Half the distance between the order statistics one binomial standard deviation (``sqrt(B p (1 - p))`` ranks)
    either side of the quantile's rank: a density-free standard error of a sample quantile. Reflected (basic)
    intervals have the same errors, ends swapped.
    """
    B = samples.shape[0]
    sorted_ = np.sort(samples, axis=0)
    out = []
    for p in ((1 - confidence) / 2, (1 + confidence) / 2):
        c, s = p * (B - 1), np.sqrt(B * p * (1 - p))
        lo, hi = max(int(np.floor(c - s)), 0), min(int(np.ceil(c + s)), B - 1)
        out.append(0.5 * np.abs(sorted_[hi] - sorted_[lo]))
    return out[0], out[1]


def stress_table(
    D: ArrayLike | None,
    candidates: Sequence[Candidate],
    *,
    data: SequenceIncidence | None = None,
    rng: int | np.random.Generator = 0,
    n_boot: int = 500,
    confidence: float = 0.95,
    interval: str = "percentile",
    title: str = "",
    estimator: str = "corrected",
    n_splits: int = 20,
    n_jobs: int = 1,
) -> StressTable:
    """Raw and scale-optimal stress of every candidate against ``D``, with bootstrap intervals if data are given.

    The estimator of the Hellinger distances ``D`` is an explicit choice, recorded on the table and printed in
    every output format:

    * ``estimator="corrected"`` (default): ``D`` is the cross-fitted, bias-corrected estimate
      (``geometry._crossfit.corrected_distances``, ``n_splits`` random splits). With ``data``, the intervals come
      from :func:`posgeom.geometry.bootstrap_corrected` with the whole table's evaluation as its statistic: every
      resample's corrected ``D`` is computed (one random split per resample), fitted rows (MDS) are refitted on it,
      and every row is evaluated on it. The intervals are *centred* percentile intervals (point estimate plus the
      quantiles of the replicates' deviations from their mean), so they contain their own point estimate; the
      Monte Carlo errors of their ends are stored (``StressRow.raw_ci_mc``, ``optimal_ci_mc``).
    * ``estimator="plugin"``: ``D`` is the plug-in estimate (``posgeom.geometry._crossfit.plugin_distances``), biased
      upward by sampling noise, and the intervals come from :func:`posgeom.geometry.bootstrap_statistic`
      (percentile or basic; a plug-in percentile interval can exclude its own estimate, because the replicates are
      shifted upward: see ``StressRow.raw_bias``).

    Parameters
    ----------
    D : (n, n) array or None
        Target distances. ``None``: computed from ``data`` with ``estimator`` (the corrected estimate uses ``rng``
        for its splits). Without ``data``, ``D`` is taken as given and ``estimator`` records how the caller
        computed it.
    candidates : sequence of Candidate
        The rows (e.g. :func:`standard_candidates`); names must be unique.
    data : posgeom.corpus.SequenceIncidence, optional
        The sequences behind ``D`` (e.g. ``TokenizedCorpus.incidence(convention)``). If given, every row gets a
        bootstrap interval for raw *and* scale-optimal stress, and a given ``D`` must be the estimate of ``data``
        (checked; a mismatch raises a ValueError): ``plugin_distances(data)``, or, for the corrected estimator,
        ``corrected_distances(data, rng=rng, n_splits=n_splits).distances`` with the same integer seed.
    rng : int or numpy.random.Generator, default 0
        Randomness of the resampling (and of the corrected estimator's splits). An int is stored on the table as
        its ``seed``.
    n_boot : int, default 500
        Resamples (``>= 2``). Each costs one Hellinger matrix (plug-in) or one cross-half product (corrected), plus
        one refit of every fitted row.
    confidence : float, default 0.95
        Coverage of the intervals.
    interval : {"percentile", "basic"}, default "percentile"
        ``"percentile"``: for the plug-in estimator the quantiles of the replicates; for the corrected one the
        centred percentile interval. ``"basic"``: the reflected interval, ``(2 s - upper, 2 s - lower)`` for the
        plug-in estimator (which corrects for a shift of the replicates away from the estimate ``s``, see
        :attr:`posgeom.inference.BootstrapEstimate.basic_interval`), clipped at 0.
    title : str, optional
        Stored on the table (corpus, convention, ``n``).
    estimator : {"corrected", "plugin", "resolved"} or an estimator object, default "corrected"
        The estimator of ``D`` (keyword-only). See above. An object of :mod:`posgeom.geometry.estimation`
        (``Resolved()``, ``CrossFitted()``, ``PlugIn()``) is accepted too; ``Resolved`` (or ``"resolved"``) gives
        ``D`` = the resolved estimate (:class:`posgeom.geometry.Resolved`, its resolution chosen on ``data`` unless
        fixed) and centred percentile intervals from :meth:`posgeom.geometry.Resolved.bootstrap`; the table states
        the estimand (``StressTable.estimand``).
    n_splits : int, default 20
        Random splits averaged by the corrected point estimate (ignored by the plug-in estimator).
    n_jobs : int, default 1
        Threads for the corrected bootstrap (the numbers do not depend on it).

    Returns
    -------
    StressTable
        One :class:`~posgeom.stress.results.StressRow` per candidate with raw stress, scale-optimal stress, the optimal
        scale and, with ``data``, intervals, the Monte Carlo errors of their ends and the replicates' shift; the table
        records ``estimator``.

    Raises
    ------
    ValueError
        No candidates, repeated names, an unknown ``estimator`` or ``interval``, neither ``D`` nor ``data``, a
        ``D`` that is not the estimate of ``data``, a candidate for a different ``n``, or a bootstrap without
        ``rng``.
    TypeError
        Non-Candidate rows, a non-string title, or ``data`` that is not a ``SequenceIncidence``.

    Examples
    --------
    >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
    >>> from posgeom.encodings import sinusoidal_encoding
    >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(200, 5, 12, rng=0), 5, 12)
    >>> rows = [_fixed_encoding("sin", sinusoidal_encoding(5, 8)), mds_candidate(rank=2)]
    >>> table = stress_table(None, rows, data=inc, rng=0, n_boot=10)
    >>> table.estimator, table.n_boot, table.seed, table["MDS rank 2"].optimal_ci is not None
    ('corrected', 10, 0, True)
    >>> lo, hi = table["sin"].optimal_ci
    >>> bool(lo <= table["sin"].optimal <= hi)
    True
    >>> stress_table(None, rows, data=inc, rng=0, n_boot=10, estimator="plugin").estimator_label
    'plug-in'
    """
    candidates = list(candidates)
    if not candidates:
        raise ValueError("candidates is empty; pass e.g. standard_candidates(n)")
    bad = [c for c in candidates if not isinstance(c, Candidate)]
    if bad:
        raise TypeError(f"candidates must be Candidate objects, got {type(bad[0]).__name__}")
    names = [c.name for c in candidates]
    dup = sorted({x for x in names if names.count(x) > 1})
    if dup:
        raise ValueError(f"candidate names must be unique; repeated: {dup}")
    resolved, estimator, n_splits = _as_table_estimator(estimator, n_splits)
    if interval not in _INTERVALS:
        raise ValueError(f"interval must be one of {_INTERVALS}, got {interval!r}")
    if not isinstance(title, str):
        raise TypeError(f"title must be a string, got {type(title).__name__}")
    n_splits = check_positive_int(n_splits, "n_splits", minimum=2)
    if data is not None:
        from ..corpus.incidence import SequenceIncidence

        if not isinstance(data, SequenceIncidence):
            raise TypeError(
                f"data must be a posgeom.corpus.SequenceIncidence, got {type(data).__name__}; build one with "
                "SequenceIncidence.from_sequences or TokenizedCorpus.incidence"
            )
    if D is None:
        if data is None:
            raise ValueError("pass the target distances D, or data (a SequenceIncidence) to compute them from")
        if estimator == "plugin":
            D = plugin_distances(data)
    estimand = replicates = None
    if resolved is not None:
        if data is not None:
            resolved = type(resolved)(resolution=resolved.resolution_for(data), n_splits=resolved.n_splits,
                                      bootstrap_splits=resolved.bootstrap_splits)
            estimand = resolved.describe_estimand(data)
        elif resolved.resolution is not None:
            estimand = resolved.describe_estimand()
    if D is not None:
        D = check_distance_matrix(D)
        if data is not None and data.n_positions != D.shape[0]:
            raise ValueError(f"data has n_positions={data.n_positions} but D describes n={D.shape[0]} positions")
    lower = upper = bias = seed = lower_mc = upper_mc = None
    if data is not None:
        seed = int(rng) if isinstance(rng, numbers.Integral) else None
        rng = check_rng(rng)
        n_boot = check_positive_int(n_boot, "n_boot", minimum=2)
        confidence = check_confidence(confidence)
        if resolved is not None:
            boot = resolved.bootstrap(data, n_resamples=n_boot, rng=rng, confidence=float(confidence),
                                      statistic=lambda Q: _evaluate(candidates, _distances_from_squared(Q)))
            if D is not None and not np.allclose(D, boot.point.distances, rtol=1e-9, atol=1e-12):
                raise ValueError("D is not the resolved estimate of data with this rng: pass D=None to compute it "
                                 "from data")
            D = boot.point.distances
            point = np.asarray(boot.estimate, dtype=float)
            lower, upper = np.asarray(boot.lower), np.asarray(boot.upper)
            lower_mc, upper_mc = np.asarray(boot.lower_mc_error), np.asarray(boot.upper_mc_error)
            replicates = np.asarray(boot.replicates, dtype=float)
            bias = replicates.mean(axis=0) - point
        elif estimator == "plugin":
            from ..geometry.noise import bootstrap_statistic

            point = _evaluate(candidates, D)
            boot = bootstrap_statistic(data, lambda Db: _evaluate(candidates, Db), rng=rng, n_boot=n_boot,
                                       confidence=float(confidence))
            if not np.allclose(boot.estimate, point, rtol=1e-9, atol=1e-12):
                raise ValueError(
                    "D is not the (plug-in) Hellinger matrix of data: the table's point values differ from data's; "
                    "pass D=None to compute D from data, or the incidence D was computed from"
                )
            bias = np.asarray(boot.bias)
            samples = np.asarray(boot.replicates, dtype=float).reshape(n_boot, -1)
            replicates = samples
            mc_lo, mc_hi = _quantile_mc_errors(samples, float(confidence))
            if interval == "percentile":
                lower, upper = boot.lower, boot.upper
                lower_mc, upper_mc = mc_lo, mc_hi
            else:
                lower, upper = boot.basic_interval
                lower, upper = np.maximum(lower, 0.0), np.maximum(upper, 0.0)
                lower_mc, upper_mc = mc_hi, mc_lo
        else:
            from ..geometry._crossfit import corrected_distances
            from ..geometry.estimators import bootstrap_corrected

            if D is not None:  # the bootstrap's point estimate draws its splits first from the same generator
                expected = corrected_distances(data, rng=copy.deepcopy(rng), n_splits=n_splits).distances
                if not np.allclose(D, expected, rtol=1e-9, atol=1e-12):
                    raise ValueError(
                        "D is not the corrected Hellinger estimate of data with this rng: pass D=None to compute it "
                        "from data (or corrected_distances(data, rng=<the same int seed>, n_splits=n_splits)"
                        ".distances), or estimator='plugin' for a plug-in D"
                    )
            boot = bootstrap_corrected(data, statistic=lambda Db: _evaluate(candidates, Db), rng=rng, n_boot=n_boot,
                                       estimate_splits=n_splits, confidence=float(confidence), interval=interval,
                                       n_jobs=n_jobs)
            D = boot.point.distances
            point = np.asarray(boot.estimate, dtype=float)
            lower, upper = np.asarray(boot.lower), np.asarray(boot.upper)
            lower_mc, upper_mc = np.asarray(boot.lower_mc_error), np.asarray(boot.upper_mc_error)
            bias = np.mean(boot.replicates, axis=0) - point
            replicates = np.asarray(boot.replicates, dtype=float)
    else:
        n_boot = 0
        point = _evaluate(candidates, D)
    n = D.shape[0]
    rows = []
    for j, c in enumerate(candidates):
        raw, opt, a = (float(v) for v in point[3 * j:3 * j + 3])
        if not all(math.isfinite(v) for v in (raw, opt, a)):  # pragma: no cover - stress is finite for valid input
            raise ValueError(f"candidate {c.name!r} gives a non-finite stress")
        raw_ci = opt_ci = raw_bias = opt_bias = raw_mc = opt_mc = None
        if lower is not None:
            raw_ci = (float(lower[3 * j]), float(upper[3 * j]))
            opt_ci = (float(lower[3 * j + 1]), float(upper[3 * j + 1]))
            raw_bias, opt_bias = float(bias[3 * j]), float(bias[3 * j + 1])
            raw_mc = (float(lower_mc[3 * j]), float(upper_mc[3 * j]))
            opt_mc = (float(lower_mc[3 * j + 1]), float(upper_mc[3 * j + 1]))
        rows.append(StressRow(c.name, c.description, raw, opt, a, raw_ci, opt_ci, c.fitted, raw_bias, opt_bias,
                              raw_mc, opt_mc))
    return StressTable(
        rows=tuple(rows), n_positions=n, n_boot=n_boot, confidence=float(confidence) if n_boot else None,
        interval=interval if n_boot else None, seed=seed if n_boot else None, title=title, estimator=estimator,
        n_splits=n_splits if estimator != "plugin" and data is not None else None, target=_read_only(D),
        estimand=estimand or "", replicates=replicates,
    )


def _as_table_estimator(estimator, n_splits):
    """``(Resolved object or None, the table's estimator name, n_splits)`` from an estimator object or name."""
    from ..geometry.estimation import CrossFitted, PlugIn, Resolved

    if isinstance(estimator, Resolved):
        return estimator, "resolved", estimator.n_splits
    if isinstance(estimator, CrossFitted):
        return None, "corrected", estimator.n_splits
    if isinstance(estimator, PlugIn):
        return None, "plugin", n_splits
    if estimator == "resolved":
        return Resolved(n_splits=n_splits), "resolved", n_splits
    return None, _check_estimator(estimator), n_splits


def _read_only(D: np.ndarray) -> np.ndarray:
    D = np.array(D, dtype=float, copy=True)
    D.setflags(write=False)
    return D
