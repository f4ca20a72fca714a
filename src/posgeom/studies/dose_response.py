"""Does lower stress predict higher accuracy? The seed-level dose-response of Chapter 9.

One *seed* is one independent experiment: its own draw of the corpus law and of the training and test sets, its own
row moves of the encoding, its own initialisations and mini-batch orders. Within a seed, the MDS encoding of the
training corpus (:func:`posgeom.studies.scaled_mds_encoding`, stress 0) is given to ``F`` otherwise identical models
with a growing fraction of its rows moved (:func:`posgeom.studies.permute_rows`); the ``F`` models train at once in
one batched model (:func:`posgeom.nn.fit_ensemble`). Inference treats seeds as the unit:

* :func:`seeded_dose_response` -- the runs, as ``(S, F)`` arrays of stress and accuracy (:class:`DoseRuns`);
* :func:`within_seed_spearman` -- Spearman's correlation of stress and test accuracy *within* each seed, whose mean
  over seeds gets a ``t`` interval (:func:`posgeom.inference.t_interval`), and :func:`dose_permutation_p_value`, a
  permutation of the doses within seeds;
* :func:`within_seed_power` -- the power of that ``t`` test for a named within-seed correlation, by simulation;
* :func:`xor_task` -- a control whose label ignores positions, on the same background as the order task;
* :func:`extrapolation_runs` -- train at length ``n``, test on fresh sets at ``n``, again at ``n`` and at ``2n``,
  every seed with its own sets, so the test sets' sampling variance is part of every interval.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._validation import check_positive_int
from ..geometry import pairwise_distances
from ..inference import pearson_rows, rank
from ..nn import ModelSpec, TrainConfig, fit, fit_ensemble
from ..stress.core import stress_of_distances
from .stress_accuracy import corpus_distances, permute_rows, scaled_mds_encoding
from .tasks import TaskData, _background, _check_task_args

__all__ = [
    "DoseRuns",
    "split_pairs",
    "xor_task",
    "seeded_dose_response",
    "within_seed_spearman",
    "dose_permutation_p_value",
    "within_seed_power",
    "association_verdict",
    "ExtrapolationRuns",
    "extrapolation_runs",
]


def split_pairs(data: TaskData, n_first: int) -> tuple[TaskData, TaskData]:
    """Split a paired task (row ``k`` and row ``P + k`` are partners) into two paired tasks, partners kept together.

    Parameters
    ----------
    data : TaskData
        ``2 P`` sequences, bases first, then partners (as :func:`posgeom.studies.order_task` returns them).
    n_first : int
        Pairs in the first part, ``1 <= n_first < P``.

    Returns
    -------
    first, second : TaskData
        ``2 n_first`` and ``2 (P - n_first)`` sequences, each bases first, then partners.

    Examples
    --------
    >>> from posgeom.studies import order_task
    >>> a, b = split_pairs(order_task(10, 6, 10, rng=0), 6)
    >>> len(a), len(b), bool(np.all(a.y[:6] == 1 - a.y[6:]))
    (12, 8, True)
    """
    if not isinstance(data, TaskData) or len(data) % 2:
        raise ValueError("data must be a TaskData with an even number of sequences (pairs)")
    P = len(data) // 2
    n_first = check_positive_int(n_first, "n_first")
    if n_first >= P:
        raise ValueError(f"n_first must be below the number of pairs {P}, got {n_first}")
    first = np.r_[0:n_first, P : P + n_first]
    second = np.r_[n_first:P, P + n_first : 2 * P]
    return TaskData(data.X[first], data.y[first]), TaskData(data.X[second], data.y[second])


def xor_task(n_pairs: int, n_positions: int, vocab_size: int, *, rng, regime: str = "smooth") -> TaskData:
    """A control whose label ignores positions: 1 iff exactly one of the markers 0 and 1 is present.

    The background is that of :func:`posgeom.studies.order_task` (same law, same markers at uniformly drawn
    positions); each base sequence then keeps both markers, only ``a = 0``, only ``b = 1`` or neither (each with
    probability 1/4; a removed marker is replaced by a background token drawn from another sequence at the same
    position), and its partner is a second draw of the same kind. The label -- the exclusive or of the two presences
    -- is a function of the multiset of tokens, balanced, and not linear in the token counts, so a small model learns
    it only partly: its accuracy is not saturated.

    Parameters
    ----------
    n_pairs, n_positions, vocab_size, rng, regime
        As in :func:`posgeom.studies.order_task`.

    Returns
    -------
    TaskData
        ``2 n_pairs`` sequences.

    Examples
    --------
    >>> data = xor_task(50, 8, 12, rng=0)
    >>> has_a, has_b = (data.X == 0).any(axis=1), (data.X == 1).any(axis=1)
    >>> bool(np.array_equal(data.y, has_a ^ has_b))
    True
    >>> shuffled = np.random.default_rng(1).permuted(data.X, axis=1)  # positions do not matter
    >>> bool(np.array_equal(data.y, (shuffled == 0).any(axis=1) ^ (shuffled == 1).any(axis=1)))
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
    """Result of :func:`seeded_dose_response`: one model per (seed, dose).

    Attributes
    ----------
    fractions : (F,) array
        Fractions of rows moved (the doses).
    seeds : tuple of int
        One independent experiment each.
    stress : (S, F) array
        Scale-optimal stress of each model's frozen encoding against its seed's training corpus.
    train_accuracy, test_accuracy : (S, F) arrays
        Accuracy of each model on its seed's training and test sets.

    Examples
    --------
    >>> runs = DoseRuns(np.array([0.0, 1.0]), (0,), np.array([[0.0, 0.3]]), np.ones((1, 2)), np.ones((1, 2)))
    >>> runs.stress.shape
    (1, 2)
    """

    fractions: np.ndarray
    seeds: tuple
    stress: np.ndarray
    train_accuracy: np.ndarray
    test_accuracy: np.ndarray


def _check_seeds(seeds) -> tuple:
    if isinstance(seeds, (numbers.Integral, str)) or not hasattr(seeds, "__iter__"):
        raise TypeError(f"seeds must be a sequence of integers, got {seeds!r}")
    seeds = tuple(check_positive_int(s, "each seed", minimum=0) for s in seeds)
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct and non-empty, got {seeds}")
    return seeds


def seeded_dose_response(task, *, seeds, fractions, n_pairs: int, n_test_pairs: int, n_positions: int,
                         vocab_size: int, config: TrainConfig, d_model: int = 16, n_heads: int = 2,
                         n_layers: int = 1) -> DoseRuns:
    """Stress and accuracy of the frozen MDS encoding with a growing fraction of its rows moved, seed by seed.

    For seed ``s``: ``task(n_pairs + n_test_pairs, n_positions, vocab_size, rng=[s, 0])`` split into a training
    and a test set (:func:`split_pairs`; one draw, so both follow the seed's corpus law); the MDS encoding of the
    training corpus's Hellinger distances (:func:`posgeom.studies.scaled_mds_encoding`); for each fraction ``f`` a
    copy with ``round(f n)`` rows deranged (:func:`posgeom.studies.permute_rows`, generator seeded ``[s, 1]``);
    the ``F`` models (scheme ``"fixed"``) trained at once by :func:`posgeom.nn.fit_ensemble` with member seeds
    ``s F + a``.

    Parameters
    ----------
    task : callable
        ``task(n_pairs, n_positions, vocab_size, *, rng)`` returning a paired :class:`TaskData`.
    seeds : sequence of int
        Distinct seeds ``>= 0``.
    fractions : sequence of float in [0, 1]
        At least two doses.
    n_pairs, n_test_pairs : int
        Pairs in each seed's training and test set.
    n_positions, vocab_size : int
    config : posgeom.nn.TrainConfig
    d_model, n_heads, n_layers : int

    Returns
    -------
    DoseRuns

    Examples
    --------
    >>> from posgeom.studies import order_task
    >>> runs = seeded_dose_response(order_task, seeds=(0, 1), fractions=(0.0, 1.0), n_pairs=20, n_test_pairs=10,
    ...                             n_positions=6, vocab_size=10, d_model=8, config=TrainConfig(epochs=1, lr=1e-2))
    >>> runs.stress.shape, bool(np.all(runs.stress[:, 0] < 1e-9)), bool(np.all(runs.stress[:, 1] > 0))
    ((2, 2), True, True)
    """
    seeds = _check_seeds(seeds)
    fractions = np.asarray(fractions, dtype=float)
    if fractions.ndim != 1 or fractions.size < 2 or np.any((fractions < 0) | (fractions > 1)):
        raise ValueError(f"fractions must be at least two numbers in [0, 1], got {fractions}")
    F = fractions.size
    shape = (len(seeds), F)
    stress, tr, te = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    for b, s in enumerate(seeds):
        data = task(n_pairs + n_test_pairs, n_positions, vocab_size, rng=np.random.default_rng([s, 0]))
        train, test = split_pairs(data, n_pairs)
        D = corpus_distances(train)
        _, P = scaled_mds_encoding(D, d_model)
        rng = np.random.default_rng([s, 1])
        Qs = [permute_rows(P, float(f), rng=rng)[0] for f in fractions]
        stress[b] = [stress_of_distances(pairwise_distances(Q), D, scale="optimal") for Q in Qs]
        specs = [ModelSpec(vocab_size=vocab_size, n_positions=n_positions, d_model=d_model, n_heads=n_heads,
                           n_layers=n_layers, positional="fixed", encoding=Q) for Q in Qs]
        fits = fit_ensemble(specs, train, seeds=[s * F + a for a in range(F)], config=config)
        tr[b] = [f.train_accuracy for f in fits]
        te[b] = [f.accuracy(test) for f in fits]
    return DoseRuns(fractions=fractions, seeds=seeds, stress=stress, train_accuracy=tr, test_accuracy=te)


def within_seed_spearman(stress, accuracy) -> np.ndarray:
    """Spearman's correlation of stress and accuracy across the doses of each seed (row by row).

    Parameters
    ----------
    stress, accuracy : (S, F) arrays
        One row per seed.

    Returns
    -------
    (S,) array
        In ``[-1, 1]``; 0 for a seed whose stresses or accuracies are all equal (no association can be seen).

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


def dose_permutation_p_value(stress, accuracy, *, rng, n_permutations: int = 10000) -> float:
    """Two-sided p-value of the mean within-seed Spearman correlation, permuting the doses within every seed.

    Under the null hypothesis that the dose does not change the accuracy, a seed's accuracies are exchangeable
    across its doses; the null distribution permutes them independently in every seed.

    Parameters
    ----------
    stress, accuracy : (S, F) arrays
    rng : int or numpy.random.Generator
    n_permutations : int, default 10000

    Returns
    -------
    float
        ``(1 + #{|null| >= |observed|}) / (1 + n_permutations)``.

    Examples
    --------
    >>> s = np.tile(np.arange(4.0), (6, 1))
    >>> dose_permutation_p_value(s, -s, rng=0, n_permutations=999) < 0.01
    True
    """
    x, y = np.asarray(stress, dtype=float), np.asarray(accuracy, dtype=float)
    n_permutations = check_positive_int(n_permutations, "n_permutations")
    observed = within_seed_spearman(x, y).mean()
    rng = np.random.default_rng(rng)
    S, F = y.shape
    keys = rng.random((n_permutations, S, F)).argsort(axis=2)
    shuffled = np.take_along_axis(np.broadcast_to(y, (n_permutations, S, F)), keys, axis=2)
    null = within_seed_spearman(np.broadcast_to(x, shuffled.shape).reshape(-1, F),
                                shuffled.reshape(-1, F)).reshape(n_permutations, S).mean(axis=1)
    return float((1 + np.sum(np.abs(null) >= abs(observed) - 1e-12)) / (1 + n_permutations))


def within_seed_power(n_seeds: int, n_doses: int, rho: float, *, rng, alpha: float = 0.05,
                      n_sim: int = 4000) -> float:
    """Power of the two-sided ``t`` test on the mean within-seed Spearman correlation, by simulation.

    Each simulated seed draws ``n_doses`` (stress, accuracy) pairs from a bivariate normal law with correlation
    ``rho``; its Spearman correlation is computed; the test rejects when the ``t`` interval of the mean over
    ``n_seeds`` seeds excludes 0. Spearman's statistic depends on ranks only, so the normal margins are no
    restriction; the assumptions are the normal copula and one common ``rho`` for every seed.

    Parameters
    ----------
    n_seeds, n_doses : int
        ``n_seeds >= 2``, ``n_doses >= 3``.
    rho : float in (-1, 1)
        The within-seed correlation to detect (0 gives the test's level).
    rng : int or numpy.random.Generator
    alpha : float, default 0.05
    n_sim : int, default 4000

    Returns
    -------
    float
        The rejection rate.

    Examples
    --------
    >>> round(within_seed_power(20, 5, 0.0, rng=0, n_sim=4000), 2)  # the level
    0.05
    >>> within_seed_power(20, 5, -0.6, rng=0) > 0.9
    True
    """
    n_seeds = check_positive_int(n_seeds, "n_seeds", minimum=2)
    n_doses = check_positive_int(n_doses, "n_doses", minimum=3)
    n_sim = check_positive_int(n_sim, "n_sim")
    if not -1 < float(rho) < 1:
        raise ValueError(f"rho must lie in (-1, 1), got {rho!r}")
    rng = np.random.default_rng(rng)
    z = rng.standard_normal((2, n_sim * n_seeds, n_doses))
    x, y = z[0], rho * z[0] + np.sqrt(1 - rho**2) * z[1]
    r = within_seed_spearman(x, y).reshape(n_sim, n_seeds)
    t = r.mean(axis=1) / (r.std(axis=1, ddof=1) / np.sqrt(n_seeds))
    return float(np.mean(np.abs(t) > stats.t.ppf(1 - alpha / 2, n_seeds - 1)))


@dataclass(frozen=True)
class ExtrapolationRuns:
    """Result of :func:`extrapolation_runs`: test accuracy per seed on each of its own test sets.

    Attributes
    ----------
    seeds : tuple of int
    accuracy : dict str -> (S,) array
        ``"n"``, ``"n again"`` (a second, independent test set of the training length) and ``"2n"``.

    Examples
    --------
    >>> r = ExtrapolationRuns((0,), {"n": np.array([0.9]), "n again": np.array([0.88]), "2n": np.array([0.6])})
    >>> float(r.accuracy["n"][0] - r.accuracy["2n"][0])
    0.30000000000000004
    """

    seeds: tuple
    accuracy: dict


def extrapolation_runs(scheme: str, task, *, seeds, n_pairs: int, n_test_pairs: int, n_positions: int,
                       vocab_size: int, config: TrainConfig, d_model: int = 16, n_heads: int = 2) -> ExtrapolationRuns:
    """Train at length ``n`` and test on fresh sets at ``n``, again at ``n``, and at ``2n``: one seed at a time.

    Seed ``s`` draws its training set and two test sets of length ``n`` in one call of ``task`` (``rng=[s, 0]``,
    split by :func:`split_pairs`) and a test set of length ``2n`` in another (``rng=[s, 1]``), so each seed's
    accuracies carry the sampling variance of its own test sets. Use a background whose law does not depend on the
    length (``regime="uniform"``), so the long inputs differ from the training ones by their length only. The model
    (a table of ``2n`` positions for the schemes that have one) is :func:`posgeom.nn.fit` with seed ``s``.

    Parameters
    ----------
    scheme : str
        A scheme with a positional signal at unseen positions (``"sinusoidal"``, ``"rope"``, ``"alibi"``,
        ``"none"``).
    task : callable
        ``task(n_pairs, n_positions, vocab_size, *, rng)``.
    seeds : sequence of int
    n_pairs, n_test_pairs : int
        Pairs in the training set and in each test set.
    n_positions, vocab_size : int
    config : posgeom.nn.TrainConfig
    d_model, n_heads : int

    Returns
    -------
    ExtrapolationRuns

    Examples
    --------
    >>> import functools
    >>> from posgeom.studies import order_task
    >>> task = functools.partial(order_task, regime="uniform")
    >>> r = extrapolation_runs("sinusoidal", task, seeds=(0,), n_pairs=10, n_test_pairs=10, n_positions=6,
    ...                        vocab_size=10, d_model=8, config=TrainConfig(epochs=1, lr=1e-2))
    >>> sorted(r.accuracy), r.accuracy["2n"].shape
    (['2n', 'n', 'n again'], (1,))
    """
    if scheme not in ("sinusoidal", "rope", "alibi", "none"):
        raise ValueError(f"scheme {scheme!r} has no positional signal beyond the training length")
    seeds = _check_seeds(seeds)
    n = check_positive_int(n_positions, "n_positions")
    acc = {"n": [], "n again": [], "2n": []}
    spec = ModelSpec(vocab_size=vocab_size, n_positions=2 * n, d_model=d_model, n_heads=n_heads, positional=scheme)
    for s in seeds:
        data = task(n_pairs + 2 * n_test_pairs, n, vocab_size, rng=np.random.default_rng([s, 0]))
        train, tests = split_pairs(data, n_pairs)
        first, second = split_pairs(tests, n_test_pairs)
        long = task(n_test_pairs, 2 * n, vocab_size, rng=np.random.default_rng([s, 1]))
        model = fit(spec, train, seed=s, config=config)
        for key, t in (("n", first), ("n again", second), ("2n", long)):
            acc[key].append(model.accuracy(t))
    return ExtrapolationRuns(seeds=seeds, accuracy={k: np.array(v) for k, v in acc.items()})


def association_verdict(lower: float, upper: float, power: float, *, target_power: float = 0.8) -> str:
    """The reading of a ``t`` interval of the mean within-seed correlation of stress and accuracy.

    Parameters
    ----------
    lower, upper : float
        The interval's ends.
    power : float
        The design's power for the named effect size (:func:`within_seed_power`).
    target_power : float, default 0.8

    Returns
    -------
    str
        ``"lower stress, higher accuracy"`` (interval below 0), ``"lower stress, lower accuracy"`` (above 0),
        ``"no association detected"`` (contains 0, power at least ``target_power``) or ``"undetermined"``.

    Examples
    --------
    >>> association_verdict(-0.6, -0.2, 0.9), association_verdict(-0.3, 0.1, 0.9), association_verdict(-0.3, 0.1, 0.5)
    ('lower stress, higher accuracy', 'no association detected', 'undetermined')
    """
    if not lower <= upper:
        raise ValueError(f"need lower <= upper, got {lower}, {upper}")
    if upper < 0:
        return "lower stress, higher accuracy"
    if lower > 0:
        return "lower stress, lower accuracy"
    return "no association detected" if power >= target_power else "undetermined"
