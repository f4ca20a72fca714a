"""Chapter 9: does lower stress predict higher accuracy, with seeds as the unit?

* :func:`xor_task` -- a control whose label ignores positions
* :func:`permute_rows` -- an encoding with a fraction of its rows deranged
* :func:`seeded_dose_response` -- stress and accuracy of the MDS encoding with rows moved, seed by seed
* :func:`within_seed_spearman` -- Spearman's correlation of stress and accuracy within each seed
* :func:`dose_permutation_p_value` -- permutation test of the doses within seeds
* :func:`within_seed_power` -- power of the ``t`` test on the mean within-seed correlation
* :func:`extrapolation_runs` -- train at length ``n``, test at ``n``, again at ``n`` and at ``2n``
* :func:`association_verdict` -- the reading of an interval of the mean within-seed correlation
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from .._validation import check_distance_matrix, check_matrix, check_positive_int, check_rng, check_seeds
from ..corpus.counts import position_counts, position_distributions
from ..encodings.absolute import mds_encoding, sinusoidal_encoding
from ..geometry import classical_mds, pairwise_distances
from ..geometry.hellinger import hellinger_distances
from ..inference import pearson_rows, permutation_p_value, rank
from ..nn import ModelSpec, TrainConfig, fit, fit_ensemble
from ..stress.core import stress_of_distances
from ..nn.tasks import TaskData, _background, _check_task_args

__all__ = [
    "xor_task",
    "permute_rows",
    "seeded_dose_response",
    "within_seed_spearman",
    "dose_permutation_p_value",
    "within_seed_power",
    "extrapolation_runs",
    "association_verdict",
]


def _split_pairs(data: TaskData, n_first: int) -> tuple[TaskData, TaskData]:
    """Split a paired task (rows ``k`` and ``P + k`` are partners) into two, partners kept together."""
    if not isinstance(data, TaskData) or len(data) % 2:
        raise ValueError("data must be a TaskData with an even number of sequences (pairs)")
    P = len(data) // 2
    n_first = check_positive_int(n_first, "n_first")
    if n_first >= P:
        raise ValueError(f"n_first must be below the number of pairs {P}, got {n_first}")
    first = np.r_[0:n_first, P : P + n_first]
    second = np.r_[n_first:P, P + n_first : 2 * P]
    return TaskData(data.X[first], data.y[first]), TaskData(data.X[second], data.y[second])


def _scaled_mds_encoding(D, d_model: int) -> np.ndarray:
    """The MDS encoding of ``D`` in width ``d_model``, scaled to the RMS pair distance of the sinusoidal one."""
    D = check_distance_matrix(D, "D")
    d_model = check_positive_int(d_model, "d_model")
    P = mds_encoding(D, d_model, rank=min(classical_mds(D).rank, d_model))
    spread = np.mean(pairwise_distances(P) ** 2)
    if spread == 0:
        raise ValueError("D is zero: every position has the same distribution and the MDS encoding is a point")
    factor = np.sqrt(np.mean(pairwise_distances(sinusoidal_encoding(D.shape[0], d_model)) ** 2) / spread)
    return factor * P


def permute_rows(encoding: ArrayLike, fraction: float, *, rng: int | np.random.Generator) -> np.ndarray:
    """Move ``round(fraction * n)`` uniformly chosen rows of an encoding by a derangement among themselves.

    Parameters
    ----------
    encoding : (n, d) array
    fraction : float in [0, 1]
        A fraction that rounds to one row moves two.
    rng : int or numpy.random.Generator

    Returns
    -------
    (n, d) array

    Examples
    --------
    >>> P = np.arange(10.0)[:, None]
    >>> Q = permute_rows(P, 0.5, rng=0)
    >>> int((Q != P).sum()), sorted(Q.ravel()) == sorted(P.ravel())
    (5, True)
    """
    P = check_matrix(encoding, "encoding")
    rng = check_rng(rng)
    if not isinstance(fraction, numbers.Real) or not 0.0 <= float(fraction) <= 1.0:
        raise ValueError(f"fraction must be a number in [0, 1], got {fraction!r}")
    n = P.shape[0]
    k = int(round(float(fraction) * n))
    if k == 1:
        k = 2
    if k == 0:
        return P.copy()
    moved = np.sort(rng.choice(n, size=k, replace=False))
    while True:  # rejection sampling of a derangement; succeeds with probability about 1/e per draw
        perm = rng.permutation(k)
        if np.all(perm != np.arange(k)):
            break
    Q = P.copy()
    Q[moved] = P[moved[perm]]
    return Q


def xor_task(n_pairs: int, n_positions: int, vocab_size: int, *, rng: int | np.random.Generator,
             regime: str = "smooth") -> TaskData:
    """A control whose label ignores positions: 1 iff exactly one of the tokens 0 and 1 is present.

    Parameters
    ----------
    n_pairs, n_positions, vocab_size, rng, regime
        As in :func:`posgeom.nn.order_task` (``2 n_pairs`` sequences).

    Returns
    -------
    TaskData

    Examples
    --------
    >>> data = xor_task(50, 8, 12, rng=0)
    >>> bool(np.array_equal(data.y, (data.X == 0).any(axis=1) ^ (data.X == 1).any(axis=1)))
    True
    """
    n_pairs, n, vocab_size, rng = _check_task_args(n_pairs, n_positions, vocab_size, rng)
    m = 2 * n_pairs
    X = _background(m, n, vocab_size, rng, regime)
    fill = X[rng.permutation(m)]  # background tokens at the same positions, from other sequences
    keep = rng.integers(0, 2, size=(m, 2)).astype(bool)
    for row, other, (ka, kb) in zip(X, fill, keep):
        i, j = rng.choice(n, size=2, replace=False)
        row[i] = 0 if ka else other[i]
        row[j] = 1 if kb else other[j]
    y = (keep[:, 0] ^ keep[:, 1]).astype(np.int64)
    return TaskData(X, y)


@dataclass(frozen=True)
class DoseRuns:
    """Result of :func:`seeded_dose_response`: ``fractions`` (F,), ``seeds`` (S), and (S, F) arrays.

    ``stress`` is the scale-optimal stress of each frozen encoding against its seed's training corpus; then
    ``train_accuracy`` and ``test_accuracy``.
    """

    fractions: np.ndarray
    seeds: tuple
    stress: np.ndarray
    train_accuracy: np.ndarray
    test_accuracy: np.ndarray


def seeded_dose_response(task: Callable[..., TaskData], *, seeds: Sequence[int], fractions: Sequence[float],
                         n_pairs: int, n_test_pairs: int, n_positions: int, vocab_size: int, config: TrainConfig,
                         d_model: int = 16, n_heads: int = 2, n_layers: int = 1) -> DoseRuns:
    """Stress and accuracy of the frozen MDS encoding with a growing fraction of its rows moved, seed by seed.

    Seed ``s`` draws its task with ``rng=[s, 0]``, moves rows with ``rng=[s, 1]`` (:func:`permute_rows`) and trains
    the ``F`` models at once (:func:`posgeom.nn.fit_ensemble`, seeds ``s F + a``).

    Parameters
    ----------
    task : callable
        ``task(n_pairs, n_positions, vocab_size, *, rng)`` returning a paired task, e.g. :func:`xor_task`.
    seeds : sequence of int
    fractions : sequence of float in [0, 1]
        At least two doses.
    n_pairs, n_test_pairs, n_positions, vocab_size : int
        Pairs in each seed's training and test set; the task's shape.
    config : posgeom.nn.TrainConfig
    d_model, n_heads, n_layers : int

    Returns
    -------
    DoseRuns
    """
    seeds = check_seeds(seeds)
    fractions = np.asarray(fractions, dtype=float)
    if fractions.ndim != 1 or fractions.size < 2 or np.any((fractions < 0) | (fractions > 1)):
        raise ValueError(f"fractions must be at least two numbers in [0, 1], got {fractions}")
    F = fractions.size
    shape = (len(seeds), F)
    stress, tr, te = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    for b, s in enumerate(seeds):
        data = task(n_pairs + n_test_pairs, n_positions, vocab_size, rng=np.random.default_rng([s, 0]))
        train, test = _split_pairs(data, n_pairs)
        D = hellinger_distances(position_distributions(position_counts(train.X, train.length, train.vocab_size)))
        P = _scaled_mds_encoding(D, d_model)
        rng = np.random.default_rng([s, 1])
        Qs = [permute_rows(P, float(f), rng=rng) for f in fractions]
        stress[b] = [stress_of_distances(pairwise_distances(Q), D, scale="optimal") for Q in Qs]
        specs = [ModelSpec(vocab_size=vocab_size, n_positions=n_positions, d_model=d_model, n_heads=n_heads,
                           n_layers=n_layers, positional="fixed", encoding=Q) for Q in Qs]
        fits = fit_ensemble(specs, train, seeds=[s * F + a for a in range(F)], config=config)
        tr[b] = [f.train_accuracy for f in fits]
        te[b] = [f.accuracy(test) for f in fits]
    return DoseRuns(fractions=fractions, seeds=seeds, stress=stress, train_accuracy=tr, test_accuracy=te)


def within_seed_spearman(stress: ArrayLike, accuracy: ArrayLike) -> np.ndarray:
    """Spearman's correlation of stress and accuracy across the doses of each seed (0 for a constant row).

    Parameters
    ----------
    stress, accuracy : (S, F) arrays

    Returns
    -------
    (S,) array

    Examples
    --------
    >>> within_seed_spearman([[0, 1, 2], [0, 1, 2]], [[0.9, 0.8, 0.7], [0.5, 0.5, 0.5]]).tolist()
    [-1.0, 0.0]
    """
    x, y = np.asarray(stress, dtype=float), np.asarray(accuracy, dtype=float)
    if x.ndim != 2 or x.shape != y.shape or x.shape[1] < 2:
        raise ValueError(f"stress and accuracy must be (S, F) arrays with F >= 2, got {x.shape} and {y.shape}")
    with np.errstate(invalid="ignore", divide="ignore"):
        r = pearson_rows(rank(x, axis=1), rank(y, axis=1))
    return np.nan_to_num(np.asarray(r, dtype=float), nan=0.0)


def dose_permutation_p_value(stress: ArrayLike, accuracy: ArrayLike, *, rng: int | np.random.Generator,
                             n_permutations: int = 10000) -> float:
    """Two-sided p-value of the mean within-seed Spearman correlation, permuting the doses within every seed.

    Parameters
    ----------
    stress, accuracy : (S, F) arrays
    rng : int or numpy.random.Generator
    n_permutations : int, default 10000

    Returns
    -------
    float

    Examples
    --------
    >>> s = np.tile(np.arange(4.0), (6, 1))
    >>> dose_permutation_p_value(s, -s, rng=0, n_permutations=999) < 0.01
    True
    """
    x, y = np.asarray(stress, dtype=float), np.asarray(accuracy, dtype=float)
    n_permutations = check_positive_int(n_permutations, "n_permutations")
    observed = within_seed_spearman(x, y).mean()
    rng = check_rng(rng)
    S, F = y.shape
    keys = rng.random((n_permutations, S, F)).argsort(axis=2)
    shuffled = np.take_along_axis(np.broadcast_to(y, (n_permutations, S, F)), keys, axis=2)
    null = within_seed_spearman(np.broadcast_to(x, shuffled.shape).reshape(-1, F),
                                shuffled.reshape(-1, F)).reshape(n_permutations, S).mean(axis=1)
    return permutation_p_value(observed, null, alternative="two-sided")


def within_seed_power(n_seeds: int, n_doses: int, rho: float, *, rng: int | np.random.Generator,
                      alpha: float = 0.05, n_sim: int = 4000) -> float:
    """Power of the two-sided ``t`` test on the mean within-seed Spearman correlation, by simulation.

    Parameters
    ----------
    n_seeds, n_doses : int
        At least 2 and 3; each seed draws ``n_doses`` bivariate normal pairs.
    rho : float in (-1, 1)
        Their correlation (0 gives the level).
    rng : int or numpy.random.Generator
    alpha : float, default 0.05
    n_sim : int, default 4000
        Simulated experiments.

    Returns
    -------
    float

    Examples
    --------
    >>> within_seed_power(20, 5, -0.6, rng=0) > 0.9
    True
    """
    n_seeds = check_positive_int(n_seeds, "n_seeds", minimum=2)
    n_doses = check_positive_int(n_doses, "n_doses", minimum=3)
    n_sim = check_positive_int(n_sim, "n_sim")
    if not -1 < float(rho) < 1:
        raise ValueError(f"rho must lie in (-1, 1), got {rho!r}")
    rng = check_rng(rng)
    z = rng.standard_normal((2, n_sim * n_seeds, n_doses))
    x, y = z[0], rho * z[0] + np.sqrt(1 - rho**2) * z[1]
    r = within_seed_spearman(x, y).reshape(n_sim, n_seeds)
    t = r.mean(axis=1) / (r.std(axis=1, ddof=1) / np.sqrt(n_seeds))
    return float(np.mean(np.abs(t) > stats.t.ppf(1 - alpha / 2, n_seeds - 1)))


@dataclass(frozen=True)
class ExtrapolationRuns:
    """Result of :func:`extrapolation_runs`: ``seeds`` and ``accuracy``, ``{"n", "n again", "2n"} -> (S,) array``."""

    seeds: tuple
    accuracy: dict


def extrapolation_runs(scheme: str, task: Callable[..., TaskData], *, seeds: Sequence[int], n_pairs: int,
                       n_test_pairs: int, n_positions: int, vocab_size: int, config: TrainConfig, d_model: int = 16,
                       n_heads: int = 2) -> ExtrapolationRuns:
    """Train at length ``n``; test on fresh sets at ``n``, again at ``n``, and at ``2n``, one seed at a time.

    Seed ``s`` draws its sets with ``rng=[s, 0]`` (the long one with ``rng=[s, 1]``) and trains with seed ``s``.

    Parameters
    ----------
    scheme : {"sinusoidal", "rope", "alibi", "none"}
    task : callable
        ``task(n_pairs, n_positions, vocab_size, *, rng)``.
    seeds : sequence of int
    n_pairs, n_test_pairs, n_positions, vocab_size : int
        Pairs in the training set and in each test set; the task's shape.
    config : posgeom.nn.TrainConfig
    d_model, n_heads : int

    Returns
    -------
    ExtrapolationRuns
    """
    if scheme not in ("sinusoidal", "rope", "alibi", "none"):
        raise ValueError(f"scheme {scheme!r} has no positional signal beyond the training length")
    seeds = check_seeds(seeds)
    n = check_positive_int(n_positions, "n_positions")
    acc = {"n": [], "n again": [], "2n": []}
    spec = ModelSpec(vocab_size=vocab_size, n_positions=2 * n, d_model=d_model, n_heads=n_heads, positional=scheme)
    for s in seeds:
        data = task(n_pairs + 2 * n_test_pairs, n, vocab_size, rng=np.random.default_rng([s, 0]))
        train, tests = _split_pairs(data, n_pairs)
        first, second = _split_pairs(tests, n_test_pairs)
        long = task(n_test_pairs, 2 * n, vocab_size, rng=np.random.default_rng([s, 1]))
        model = fit(spec, train, seed=s, config=config)
        for key, t in (("n", first), ("n again", second), ("2n", long)):
            acc[key].append(model.accuracy(t))
    return ExtrapolationRuns(seeds=seeds, accuracy={k: np.array(v) for k, v in acc.items()})


def association_verdict(lower: float, upper: float, power: float, *, target_power: float = 0.8) -> str:
    """The reading of a ``t`` interval ``[lower, upper]`` of the mean within-seed correlation.

    Parameters
    ----------
    lower, upper : float
    power : float
        The design's power for the named effect (:func:`within_seed_power`).
    target_power : float, default 0.8

    Returns
    -------
    str
        "lower stress, higher/lower accuracy", "no association detected" (powered) or "undetermined".

    Examples
    --------
    >>> association_verdict(-0.6, -0.2, 0.9), association_verdict(-0.3, 0.1, 0.5)
    ('lower stress, higher accuracy', 'undetermined')
    """
    if not lower <= upper:
        raise ValueError(f"need lower <= upper, got {lower}, {upper}")
    if upper < 0:
        return "lower stress, higher accuracy"
    if lower > 0:
        return "lower stress, lower accuracy"
    return "no association detected" if power >= target_power else "undetermined"
