"""Does stress predict accuracy? The drivers of Chapter 9.

* **geometry of a task corpus**: its Hellinger distances (:func:`corpus_distances`) and the stress of a scheme
  against them (:func:`scheme_stress`, with the one induced-distance convention of
  :func:`posgeom.encodings.induced_distances`);
* **a dose-response within one encoding**: the MDS encoding of the corpus (:func:`scaled_mds_encoding`) with a
  fraction of its rows moved (:func:`permute_rows`), trained until the training accuracy plateaus
  (:func:`train_to_plateau`) over seeds (:func:`dose_response`);
* **inference with power**: t intervals of means over seeds, an interval for Spearman's correlation and the
  smallest correlation a design detects come from :mod:`posgeom.inference`; here, the across-scheme rank
  correlation with its permutation p-value and bootstrap interval (:func:`stress_accuracy_correlation`);
* **length extrapolation**: training at length ``n`` and testing at longer lengths (:func:`length_extrapolation`).

Tasks (order, position, distance, centre) are in :mod:`posgeom.studies.tasks`. Stress here is always the
*scale-optimal* stress: the schemes have incomparable scales, and the question is about geometry, not size. Seeds:
the run with seed ``s`` is initialised after ``seed_everything(s)`` and draws its mini-batches with seed ``s``.
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_confidence, check_distance_matrix, check_matrix, check_positive_int, check_rng
from ..corpus.counts import position_counts, position_distributions
from ..encodings.schemes import induced_distances
from ..geometry.hellinger import hellinger_distances
from ..inference import pearson_rows, permutation_p_value, rank
from ..nn import ModelSpec, TrainConfig, fit
from ..nn.positional import SCHEMES
from ..stress.core import stress_of_distances
from .tasks import TaskData, TokenizedDataset

__all__ = [
    "EXTRAPOLATING_SCHEMES",
    "corpus_distances",
    "scheme_stress",
    "SchemeRun",
    "train_and_evaluate",
    "length_extrapolation",
    "RankCorrelationTest",
    "stress_accuracy_correlation",
    "scaled_mds_encoding",
    "permute_rows",
    "PlateauRun",
    "plateau_reached",
    "train_to_plateau",
    "DoseResponse",
    "dose_response",
    "centre_task",
]


#: Schemes whose model can be evaluated at more positions than it was trained on: their positional signal is a
#: function of the position index (sinusoidal), of offsets (RoPE, ALiBi) or absent (none). A learned table, a fixed
#: MDS matrix and a learned low-rank factor have no row for an unseen position.
EXTRAPOLATING_SCHEMES = ("none", "sinusoidal", "rope", "alibi")


def corpus_distances(data, n_positions: int | None = None) -> np.ndarray:
    """Hellinger distances between the plug-in positional distributions ``mu_i`` of a training corpus.

    Parameters
    ----------
    data : TaskData or TokenizedDataset
        For :class:`TaskData`, position ``i`` counts the tokens at column ``i`` of the sequences that are not padding
        there; for :class:`TokenizedDataset`, the unpadded sequences (the same thing).
    n_positions : int, optional
        Use the first ``n_positions`` positions only (default: all).

    Returns
    -------
    (n, n) ndarray
        Hellinger distances (:func:`posgeom.hellinger_distances`): symmetric, zero diagonal, entries in [0, 1].

    Raises
    ------
    TypeError
        ``data`` is neither a :class:`TaskData` nor a :class:`TokenizedDataset`.
    ValueError
        A :class:`TaskData` padded on the left (or in the middle), or ``n_positions < 1``.

    Examples
    --------
    >>> from posgeom.studies import order_task
    >>> D = corpus_distances(order_task(20, 6, 10, rng=0))
    >>> D.shape, bool(np.allclose(D, D.T)), bool(np.all(np.diag(D) == 0)), bool(D.max() <= 1)
    ((6, 6), True, True, True)
    >>> corpus_distances(order_task(20, 6, 10, rng=0), n_positions=4).shape
    (4, 4)
    """
    if isinstance(data, TokenizedDataset):
        n = data.n_positions if n_positions is None else check_positive_int(n_positions, "n_positions")
        counts = position_counts(data.sequences, n, data.vocab_size)
    elif isinstance(data, TaskData):
        n = data.length if n_positions is None else check_positive_int(n_positions, "n_positions")
        if data.padding_mask is None:
            counts = position_counts(data.X, n, data.vocab_size)
        else:
            lengths = (~data.padding_mask).sum(axis=1)
            if np.any(data.padding_mask != (np.arange(data.length)[None, :] >= lengths[:, None])):
                raise ValueError("corpus_distances needs right padding (real tokens first, then padding)")
            counts = position_counts([row[:k] for row, k in zip(data.X, lengths)], n, data.vocab_size)
    else:
        raise TypeError(f"data must be a TaskData or a TokenizedDataset, got {type(data).__name__}")
    return hellinger_distances(position_distributions(counts))


def scheme_stress(scheme: str, D, *, d_model: int, n_heads: int, encoding=None) -> float:
    """Scale-optimal stress of a scheme's induced distances (:func:`induced_distances`) against ``D``.

    ``"none"`` induces the zero distance, whose optimal scale is 0 and stress exactly 1 (the worst value).

    Parameters
    ----------
    scheme : str
        One of :data:`posgeom.encodings.INDUCED_SCHEMES` (e.g. ``"none"``, ``"sinusoidal"``, ``"rope"``,
        ``"alibi"``, ``"learned"``, ``"fixed"``, ``"low_rank"``).
    D : (n, n) distance matrix
        Target distances between the ``n`` positions, e.g. :func:`corpus_distances` of the training corpus.
    d_model : int
        Model width (even for ``"sinusoidal"``).
    n_heads : int
        Attention heads; ``d_model / n_heads`` must be an even integer for ``"rope"``.
    encoding : (m, d) array or tensor, optional
        The absolute encoding (its first ``n`` rows), required for ``"learned"``, ``"fixed"`` and ``"low_rank"``
        and rejected for the other schemes.

    Returns
    -------
    float
        Scale-optimal stress in [0, 1]: 0 when the induced distances are proportional to ``D``.

    Raises
    ------
    ValueError
        ``D`` is not a distance matrix, the scheme is unknown, ``encoding`` is missing or superfluous, or the width
        does not split into even heads.

    Examples
    --------
    >>> from posgeom.studies import order_task
    >>> D = corpus_distances(order_task(20, 6, 10, rng=0))
    >>> scheme_stress("none", D, d_model=8, n_heads=2)
    1.0
    >>> round(scheme_stress("sinusoidal", D, d_model=8, n_heads=2), 3)
    0.043
    >>> P, _ = scaled_mds_encoding(D, 8)
    >>> bool(scheme_stress("fixed", D, d_model=8, n_heads=2, encoding=P) < 1e-9)  # the MDS encoding fits D
    True
    """
    D = check_distance_matrix(D, "D")
    E = induced_distances(scheme, D.shape[0], d_model=d_model, n_heads=n_heads, encoding=encoding)
    return stress_of_distances(E, D, scale="optimal")


@dataclass(frozen=True)
class SchemeRun:
    """Results of :func:`train_and_evaluate` (one entry per seed, in the order of ``seeds``).

    Attributes
    ----------
    scheme : str
        The positional scheme trained.
    seeds : tuple of int
        The seeds, one model each.
    train_accuracy, test_accuracy : (S,) arrays
        Accuracy of each seed's model on the training and the test set.
    extra_accuracy : dict str -> (S,) array
        Accuracy on every additional evaluation set, by name.
    encodings : list of (n_positions, d) arrays or None
        The trained absolute encoding ``P`` of each seed; ``None`` for schemes without one.

    Examples
    --------
    >>> run = SchemeRun(scheme="rope", seeds=(0, 1), train_accuracy=np.array([0.9, 1.0]),
    ...                 test_accuracy=np.array([0.7, 0.8]))
    >>> round(run.mean, 3), round(run.std, 4), run.encodings is None
    (0.75, 0.0707, True)
    """

    scheme: str
    seeds: tuple
    train_accuracy: np.ndarray
    test_accuracy: np.ndarray
    extra_accuracy: dict = field(default_factory=dict)
    encodings: list | None = None

    @property
    def mean(self) -> float:
        """Mean test accuracy over seeds."""
        return float(np.mean(self.test_accuracy))

    @property
    def std(self) -> float:
        """Standard deviation (ddof=1) of the test accuracy over seeds; 0 for a single seed."""
        return float(np.std(self.test_accuracy, ddof=1)) if len(self.seeds) > 1 else 0.0


def _check_seeds(seeds) -> tuple:
    if isinstance(seeds, (numbers.Integral, str)) or not hasattr(seeds, "__iter__"):
        raise TypeError(f"seeds must be a sequence of integers, e.g. (0, 1, 2), got {seeds!r}")
    seeds = tuple(check_positive_int(s, "each seed", minimum=0) for s in seeds)
    if not seeds:
        raise ValueError("seeds is empty; pass at least one seed")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct, got {seeds}")
    return seeds


def _check_data(data, name):
    if not isinstance(data, TaskData):
        raise TypeError(f"{name} must be a TaskData, got {type(data).__name__}")
    return data


def train_and_evaluate(scheme: str, train: TaskData, test: TaskData, *, seeds, d_model: int = 32, n_heads: int = 2,
                       n_layers: int = 1, epochs: int = 5, lr: float = 3e-3, batch_size: int = 64,
                       weight_decay: float = 0.0, vocab_size: int | None = None, n_positions: int | None = None,
                       encoding=None, rank: int | None = None, init_encoding=None, extra: dict | None = None,
                       threads: int = 1) -> SchemeRun:
    """Train one positional scheme with several seeds and report per-seed accuracies.

    For every seed ``s``: ``seed_everything(s, threads=threads)``, build
    ``TransformerClassifier(vocab_size, n_positions, d_model, n_heads, n_layers, positional=scheme, ...)``
    (bidirectional, mean pooling), train it with :func:`posgeom.nn.fit` (AdamW, constant ``lr``,
    mini-batch order seeded by ``s``) and measure accuracy on ``train``, ``test`` and every set in ``extra``.

    Parameters
    ----------
    scheme : str
        One of :data:`posgeom.models.SCHEMES`.
    train, test : TaskData
        The training set and the test set.
    seeds : sequence of int
        Distinct seeds ``>= 0``, one model each.
    d_model, n_heads, n_layers : int
        Model size (defaults: width 32, 2 heads, 1 layer).
    epochs, batch_size : int
        Training epochs (default 5) and mini-batch size (default 64) of the :class:`posgeom.nn.TrainConfig`.
    lr, weight_decay : float
        AdamW learning rate (default 3e-3) and weight decay (default 0) of the :class:`posgeom.nn.TrainConfig`.
    vocab_size : int, optional
        Default: ``max id + 1`` over ``train``, ``test`` and ``extra``.
    n_positions : int, optional
        Size of the position table; default the longest length among the data sets. Evaluating at lengths beyond
        the training length needs a scheme of :data:`EXTRAPOLATING_SCHEMES` (see :func:`length_extrapolation`).
    encoding : (n_positions, d_model) array, optional
        The frozen matrix of ``"fixed"``.
    rank : int, optional
        The rank of ``"low_rank"``.
    init_encoding : (n_positions, d_model) array, optional
        ``"low_rank"`` only: initialise ``P = A B`` at the best rank-``rank`` approximation of this matrix
        (:func:`posgeom.encodings.low_rank_factors`: ``A = U_r S_r``, ``B = V_r^T``) instead of at random.
    extra : dict str -> TaskData, optional
        Further evaluation sets.
    threads : int, default 1
        Torch intra-op threads (part of the reproducibility contract of :mod:`posgeom.training`).

    Returns
    -------
    SchemeRun
        Per-seed accuracies (and trained encodings) in the order of ``seeds``.

    Raises
    ------
    ValueError
        An unknown scheme, empty or repeated seeds, a ``vocab_size`` or ``n_positions`` too small for the data,
        evaluation beyond the training length with a non-extrapolating scheme, or a misused ``init_encoding``.
    TypeError
        A data set that is not a :class:`TaskData`, or ``seeds`` that is not a sequence of integers.

    Examples
    --------
    >>> from posgeom.studies import order_task
    >>> train, test = order_task(20, 6, 10, rng=0), order_task(20, 6, 10, rng=1)
    >>> run = train_and_evaluate("learned", train, test, seeds=(0, 1), d_model=8, epochs=1, batch_size=16)
    >>> run.seeds, run.test_accuracy.shape, [P.shape for P in run.encodings]
    ((0, 1), (2,), [(6, 8), (6, 8)])
    >>> bool(np.all((run.train_accuracy >= 0) & (run.train_accuracy <= 1)))
    True
    """
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; choose one of {SCHEMES}")
    train, test = _check_data(train, "train"), _check_data(test, "test")
    extra = {} if extra is None else dict(extra)
    for name, data in extra.items():
        _check_data(data, f"extra[{name!r}]")
    seeds = _check_seeds(seeds)
    sets = [train, test, *extra.values()]
    needed_vocab = max(d.vocab_size for d in sets)
    vocab_size = needed_vocab if vocab_size is None else check_positive_int(vocab_size, "vocab_size")
    if vocab_size < needed_vocab:
        raise ValueError(f"vocab_size={vocab_size} is smaller than the largest id + 1 = {needed_vocab}")
    longest = max(d.length for d in sets)
    n_positions = longest if n_positions is None else check_positive_int(n_positions, "n_positions")
    if n_positions < longest:
        raise ValueError(f"n_positions={n_positions} is shorter than the longest sequence ({longest})")
    if longest > train.length and scheme not in EXTRAPOLATING_SCHEMES:
        raise ValueError(
            f"scheme {scheme!r} has no positional signal for positions >= {train.length} (never trained); "
            f"evaluate it at the training length, or use one of {EXTRAPOLATING_SCHEMES}"
        )
    if init_encoding is not None and scheme != "low_rank":
        raise ValueError(f"init_encoding is only used by the 'low_rank' scheme, not {scheme!r}")
    spec = ModelSpec(vocab_size=vocab_size, n_positions=n_positions, d_model=d_model, n_heads=n_heads,
                     n_layers=n_layers, positional=scheme, rank=rank, encoding=encoding, init_encoding=init_encoding)
    config = TrainConfig(epochs=epochs, lr=lr, batch_size=batch_size, weight_decay=weight_decay, threads=threads)
    train_acc, test_acc, encodings = [], [], []
    extra_acc = {name: [] for name in extra}
    for s in seeds:
        res = fit(spec, train, seed=s, config=config)
        train_acc.append(res.train_accuracy)
        test_acc.append(res.accuracy(test))
        for name, data in extra.items():
            extra_acc[name].append(res.accuracy(data))
        encodings.append(res.encoding)
    return SchemeRun(
        scheme=scheme,
        seeds=seeds,
        train_accuracy=np.array(train_acc),
        test_accuracy=np.array(test_acc),
        extra_accuracy={name: np.array(v) for name, v in extra_acc.items()},
        encodings=None if encodings[0] is None else encodings,
    )


def length_extrapolation(scheme: str, train: TaskData, tests: dict, *, seeds, **kwargs) -> SchemeRun:
    """Train at the training length and evaluate at other (longer) lengths.

    The model is built with ``n_positions`` equal to the longest test length and trained on ``train`` only (its
    positions ``>= train.length`` are never seen in training). Only the schemes of :data:`EXTRAPOLATING_SCHEMES`
    define a positional signal there; ``"learned"``, ``"fixed"`` and ``"low_rank"`` raise ``ValueError``.

    Parameters
    ----------
    scheme : str
        One of :data:`EXTRAPOLATING_SCHEMES`.
    train : TaskData
        The training set; its length is the training length.
    tests : dict str -> TaskData
        Evaluation sets by name (any lengths); the first one is also the run's ``test_accuracy``.
    seeds : sequence of int
        Distinct seeds ``>= 0``, one model each.
    **kwargs
        Passed to :func:`train_and_evaluate` (model size, epochs, lr, ...).

    Returns
    -------
    SchemeRun
        ``extra_accuracy`` holds every set of ``tests`` by name.

    Raises
    ------
    ValueError
        A scheme outside :data:`EXTRAPOLATING_SCHEMES`, an empty ``tests``, or any error of
        :func:`train_and_evaluate`.

    Examples
    --------
    >>> from posgeom.studies import order_task
    >>> train = order_task(20, 6, 10, rng=0)
    >>> tests = {"n=6": order_task(20, 6, 10, rng=1), "n=10": order_task(20, 10, 10, rng=2)}
    >>> run = length_extrapolation("rope", train, tests, seeds=(0,), d_model=8, epochs=1)
    >>> sorted(run.extra_accuracy), run.test_accuracy.shape
    (['n=10', 'n=6'], (1,))
    >>> bool(np.array_equal(run.test_accuracy, run.extra_accuracy["n=6"]))
    True
    """
    if scheme not in EXTRAPOLATING_SCHEMES:
        raise ValueError(
            f"scheme {scheme!r} cannot be evaluated beyond its training length: a learned or fixed table has no "
            f"row for an unseen position. Use one of {EXTRAPOLATING_SCHEMES}"
        )
    if not isinstance(tests, dict) or not tests:
        raise ValueError("tests must be a non-empty dict name -> TaskData")
    first = next(iter(tests.values()))
    return train_and_evaluate(scheme, train, first, seeds=seeds, extra=tests, **kwargs)


@dataclass(frozen=True)
class RankCorrelationTest:
    """Result of :func:`stress_accuracy_correlation`.

    Attributes
    ----------
    rho : float
        Spearman correlation between scheme stress and mean accuracy (the mean over corpora when several are given).
        Negative: lower stress goes with higher accuracy.
    per_corpus : tuple of float
        The correlation on each corpus.
    p_value : float
        Two-sided permutation p-value of ``|rho|`` under "no association" (accuracies permuted across schemes
        independently within each corpus).
    exact : bool
        Whether ``p_value`` enumerates every permutation (one corpus, ``k! <= max_exact``) or is a Monte Carlo
        estimate ``(1 + #{|rho*| >= |rho|}) / (1 + n_permutations)``.
    ci : (float, float)
        Percentile bootstrap interval of ``rho`` at level ``confidence``.
    confidence : float
        Level of ``ci``, e.g. 0.95.
    n_boot : int
        Bootstrap replicates drawn.
    n_undefined : int
        Replicates in which a correlation was undefined (a resample with constant stress or accuracy); they are left
        out of the interval, and their number is reported here rather than hidden.

    Examples
    --------
    >>> test = RankCorrelationTest(rho=-0.8, per_corpus=(-0.8,), p_value=0.13, exact=True, ci=(-1.0, 0.2),
    ...                            confidence=0.95, n_boot=2000, n_undefined=0)
    >>> test.ci_contains_zero
    True
    """

    rho: float
    per_corpus: tuple
    p_value: float
    exact: bool
    ci: tuple
    confidence: float
    n_boot: int
    n_undefined: int

    @property
    def ci_contains_zero(self) -> bool:
        """Whether the bootstrap interval includes 0 (no evidence of association at this level)."""
        return bool(self.ci[0] <= 0.0 <= self.ci[1])


def _as_corpus(stress, acc, k=None):
    acc = np.asarray(acc, dtype=float)
    if acc.ndim == 1:
        acc = acc[:, None]
    if acc.ndim != 2 or acc.shape[0] < 3:
        raise ValueError(f"accuracies must be (schemes, seeds) with at least 3 schemes, got shape {acc.shape}")
    stress = np.asarray(stress, dtype=float)
    if stress.ndim == 1:
        stress = np.repeat(stress[:, None], acc.shape[1], axis=1)
    if stress.shape != acc.shape:
        raise ValueError(f"stress must be (schemes,) or (schemes, seeds) like the accuracies {acc.shape}, "
                         f"got {stress.shape}")
    if not (np.all(np.isfinite(stress)) and np.all(np.isfinite(acc))):
        raise ValueError("stress and accuracies must be finite")
    if k is not None and acc.shape[0] != k:
        raise ValueError(f"every corpus must have the same schemes; got {acc.shape[0]} and {k}")
    return stress, acc


def stress_accuracy_correlation(corpora, *, rng, n_boot: int = 2000, n_permutations: int = 20000,
                                confidence: float = 0.95, max_exact: int = 40320) -> RankCorrelationTest:
    """Does a scheme's stress rank the schemes as their accuracy does? Spearman's rho with p-value and interval.

    Parameters
    ----------
    corpora : sequence of (stress, accuracies) pairs
        One pair per corpus, with the *same schemes in the same order* in every pair: ``accuracies`` is
        (k schemes, S seeds); ``stress`` is (k,) for schemes whose stress does not depend on the seed, or (k, S) when
        it does (trained encodings). The statistic on a corpus is Spearman's rho between the per-scheme mean stress
        and mean accuracy; with several corpora it is the mean of the per-corpus rhos (each corpus weighs the same).
    rng : int or numpy.random.Generator
        Randomness of the Monte Carlo permutations and of the bootstrap.
    n_boot : int, default 2000
        Bootstrap replicates. Each draws the k schemes with replacement (the *same* draw for every corpus, since a
        scheme is the unit being compared) and, inside each drawn scheme, its S seeds with replacement; so the
        interval reflects both which schemes were compared and training noise.
    n_permutations : int, default 20000
        Monte Carlo permutations when the exact null is not enumerated.
    confidence : float, default 0.95
        Level of the bootstrap interval.
    max_exact : int, default 40320 (= 8!)
        With one corpus and ``k! <= max_exact`` the permutation p-value is exact.

    Returns
    -------
    RankCorrelationTest
        The correlation, its permutation p-value and its bootstrap interval.

    Raises
    ------
    ValueError
        No corpus, a malformed pair (fewer than 3 schemes, mismatched shapes, non-finite values, different scheme
        counts across corpora), constant stress or accuracy on a corpus, too many undefined bootstrap replicates,
        or ``n_boot``, ``n_permutations`` below 10 or ``confidence`` outside (0, 1).

    Examples
    --------
    >>> stress = np.array([0.1, 0.2, 0.3, 0.4])
    >>> acc = np.array([[0.90, 0.88], [0.80, 0.82], [0.70, 0.70], [0.60, 0.61]])
    >>> test = stress_accuracy_correlation([(stress, acc)], rng=0, n_boot=200)
    >>> test.rho, test.exact, round(test.p_value, 4)  # exact: all 4! orderings, 2 of 24 as extreme
    (-1.0, True, 0.0833)
    >>> test.ci[1] < 0, test.ci_contains_zero
    (True, False)
    """
    rng = check_rng(rng)
    n_boot = check_positive_int(n_boot, "n_boot", minimum=10)
    n_permutations = check_positive_int(n_permutations, "n_permutations", minimum=10)
    confidence = check_confidence(confidence)
    corpora = list(corpora)
    if not corpora:
        raise ValueError("corpora is empty")
    parsed, k = [], None
    for pair in corpora:
        if len(pair) != 2:
            raise ValueError("each corpus must be a (stress, accuracies) pair")
        stress, acc = _as_corpus(*pair, k=k)
        k = acc.shape[0]
        parsed.append((stress, acc))
    mean_stress = np.stack([s.mean(axis=1) for s, _ in parsed])  # (C, k)
    mean_acc = np.stack([a.mean(axis=1) for _, a in parsed])
    rs, ra = rank(mean_stress), rank(mean_acc)
    per = pearson_rows(rs, ra)
    if np.any(np.isnan(per)):
        bad = int(np.flatnonzero(np.isnan(per))[0])
        raise ValueError(f"corpus {bad} has constant stress or constant accuracy across schemes: rho is undefined")
    rho = float(per.mean())

    # Permutation null: accuracy ranks shuffled across schemes, independently per corpus.
    exact = len(parsed) == 1 and math.factorial(k) <= max_exact
    if exact:
        perms = np.array(list(itertools.permutations(range(k))))
        null = pearson_rows(rs[0][None, :], ra[0][perms])
    else:
        null = np.zeros(n_permutations)
        for c in range(len(parsed)):
            perms = rng.permuted(np.tile(np.arange(k), (n_permutations, 1)), axis=1)
            null += pearson_rows(rs[c][None, :], ra[c][perms])
        null /= len(parsed)
    p_value = permutation_p_value(rho, null, alternative="two-sided", exact=exact)

    # Bootstrap: schemes with replacement (same draw for all corpora), then seeds within each drawn scheme.
    pick = rng.integers(0, k, size=(n_boot, k))
    values = []
    for stress, acc in parsed:
        S = acc.shape[1]
        cols = rng.integers(0, S, size=(n_boot, k, S))
        s_b = stress[pick[:, :, None], cols].mean(axis=2)
        a_b = acc[pick[:, :, None], cols].mean(axis=2)
        values.append(pearson_rows(rank(s_b), rank(a_b)))
    values = np.stack(values, axis=1)  # (n_boot, C)
    defined = ~np.any(np.isnan(values), axis=1)
    undefined = int(np.sum(~defined))
    reps = values[defined].mean(axis=1)
    if reps.size < max(10, n_boot // 2):
        raise ValueError(f"{undefined} of {n_boot} bootstrap replicates had an undefined correlation (too many "
                         "constant resamples): compare more schemes")
    lo, hi = np.quantile(reps, [(1 - confidence) / 2, (1 + confidence) / 2])
    return RankCorrelationTest(rho=rho, per_corpus=tuple(float(r) for r in per), p_value=float(p_value),
                               exact=exact, ci=(float(lo), float(hi)), confidence=confidence, n_boot=n_boot,
                               n_undefined=undefined)


# ------------------------------------------------------------------------------------------------ dose-response design


def scaled_mds_encoding(D, d_model: int) -> tuple[np.ndarray, np.ndarray]:
    """The MDS encoding of ``D`` in width ``d_model``, and its copy at the scale of the sinusoidal encoding.

    The MDS encoding (:func:`posgeom.mds_encoding`, rank capped at ``d_model``) has Hellinger scale (distances at
    most 1) while token embeddings have entries of size 1; the model gets it multiplied by the constant that makes
    its root-mean-square pairwise distance equal to that of :func:`posgeom.sinusoidal_encoding` at the same size.
    A constant factor does not change scale-optimal stress.

    Parameters
    ----------
    D : (n, n) distance matrix
        Hellinger distances of the training corpus (:func:`corpus_distances`).
    d_model : int
        Model width.

    Returns
    -------
    P, P_model : (n, d_model) arrays
        The MDS encoding and its scale-matched copy (``P_model = c P`` with ``c > 0``).

    Examples
    --------
    >>> from posgeom.studies import order_task
    >>> D = corpus_distances(order_task(50, 8, 12, rng=0))
    >>> P, P_model = scaled_mds_encoding(D, 16)
    >>> P.shape, bool(np.allclose(P_model / P_model[0, 0], P / P[0, 0]))
    ((8, 16), True)
    """
    from ..encodings.absolute import mds_encoding, sinusoidal_encoding
    from ..geometry import classical_mds, pairwise_distances

    D = check_distance_matrix(D, "D")
    d_model = check_positive_int(d_model, "d_model")
    n = D.shape[0]
    P = mds_encoding(D, d_model, rank=min(classical_mds(D).rank, d_model))
    spread = np.mean(pairwise_distances(P) ** 2)
    if spread == 0:
        raise ValueError("D is zero: every position has the same distribution and the MDS encoding is a point")
    factor = np.sqrt(np.mean(pairwise_distances(sinusoidal_encoding(n, d_model)) ** 2) / spread)
    return P, factor * P


def permute_rows(P, fraction: float, *, rng) -> tuple[np.ndarray, np.ndarray]:
    """Move a fraction of the rows of an encoding to other positions (a derangement of the chosen rows).

    ``k = round(fraction * n)`` rows are chosen uniformly; they are reassigned among themselves by a uniformly drawn
    permutation *without fixed points*, so every chosen position really gets another position's vector. The set of
    vectors is unchanged (so is every property that does not depend on which position holds which vector, such as
    the rank or the norms); only the assignment of vectors to positions, hence the geometry *relative to the
    positions*, changes. ``fraction = 0`` returns a copy of ``P``.

    Parameters
    ----------
    P : (n, d) array
    fraction : float in [0, 1]
        ``k = 1`` is impossible (a single row cannot move), so a fraction that rounds to one row moves two.
    rng : int or numpy.random.Generator

    Returns
    -------
    Q : (n, d) array
        The encoding with rows moved.
    moved : (k,) int array
        The positions whose vector changed, sorted.

    Examples
    --------
    >>> P = np.arange(10.0)[:, None]
    >>> Q, moved = permute_rows(P, 0.5, rng=0)
    >>> len(moved), bool(np.all(Q[moved] != P[moved])), sorted(Q.ravel()) == sorted(P.ravel())
    (5, True, True)
    >>> bool(np.array_equal(permute_rows(P, 0.0, rng=0)[0], P))
    True
    """
    P = check_matrix(P, "P")
    rng = check_rng(rng)
    if not isinstance(fraction, numbers.Real) or not 0.0 <= float(fraction) <= 1.0:
        raise ValueError(f"fraction must be a number in [0, 1], got {fraction!r}")
    n = P.shape[0]
    k = int(round(float(fraction) * n))
    if k == 1:
        k = 2
    if k == 0:
        return P.copy(), np.array([], dtype=np.int64)
    moved = np.sort(rng.choice(n, size=k, replace=False))
    while True:  # rejection sampling of a derangement; succeeds with probability about 1/e per draw
        perm = rng.permutation(k)
        if np.all(perm != np.arange(k)):
            break
    Q = P.copy()
    Q[moved] = P[moved[perm]]
    return Q, moved


def plateau_reached(history, patience: int, tol: float) -> bool:
    """Whether an accuracy history has plateaued: its best over the last ``patience`` epochs exceeds its best over the
    ``patience`` epochs before by less than ``tol``.

    Parameters
    ----------
    history : sequence of float
        Training accuracy after each epoch.
    patience : int
    tol : float

    Returns
    -------
    bool
        False while the history is shorter than ``2 * patience``.

    Examples
    --------
    >>> plateau_reached([0.5, 0.9, 0.9, 0.9], 2, 0.01), plateau_reached([0.5, 0.6, 0.8, 0.9], 2, 0.01)
    (True, False)
    """
    from ..nn.fit import plateau_reached as rule  # the rule of TrainConfig(patience=..., tol=...)

    return rule(history, patience, tol)


@dataclass(frozen=True)
class PlateauRun:
    """Result of :func:`train_to_plateau` for one model.

    Attributes
    ----------
    train_accuracy, test_accuracy : float
        After the last epoch.
    epochs : int
        Epochs trained.
    plateaued : bool
        Whether the stopping rule fired before ``max_epochs``.
    history : (epochs,) array
        Training accuracy after every epoch.

    Examples
    --------
    >>> run = PlateauRun(train_accuracy=0.95, test_accuracy=0.9, epochs=3, plateaued=False,
    ...                  history=np.array([0.6, 0.9, 0.95]))
    >>> run.epochs == len(run.history), run.plateaued
    (True, False)
    """

    train_accuracy: float
    test_accuracy: float
    epochs: int
    plateaued: bool
    history: np.ndarray


def train_to_plateau(scheme: str, train: TaskData, test: TaskData, *, seed: int, d_model: int = 32,
                     n_heads: int = 2, n_layers: int = 1, lr: float = 1e-2, batch_size: int = 50,
                     max_epochs: int = 40, patience: int = 5, tol: float = 0.01, encoding=None,
                     threads: int = 1) -> PlateauRun:
    """Train one model until its training accuracy stops improving, and measure it.

    ``seed_everything(seed)``, then a :class:`posgeom.nn.TransformerClassifier` with positional scheme ``scheme``
    (``encoding`` is the frozen matrix of ``"fixed"``), trained with AdamW at constant ``lr`` on mini-batches in an
    order seeded by ``seed``. After every epoch the training accuracy is measured; training stops at the first
    epoch ``e >= 2 patience`` at which the best training accuracy of the last ``patience`` epochs exceeds the best
    of the ``patience`` epochs before them by less than ``tol`` (a plateau), or at ``max_epochs``.

    Parameters
    ----------
    scheme : str
        One of :data:`posgeom.models.SCHEMES`.
    train, test : TaskData
    seed : int
        Torch seed of the initialisation and of the mini-batch order.
    d_model, n_heads, n_layers, lr, batch_size
        Model and optimiser.
    max_epochs, patience : int
    tol : float
        The plateau rule above.
    encoding : (n, d_model) array, optional
    threads : int, default 1

    Returns
    -------
    PlateauRun

    Examples
    --------
    >>> from posgeom.studies import order_task
    >>> train, test = order_task(40, 6, 10, rng=0), order_task(40, 6, 10, rng=1)
    >>> run = train_to_plateau("learned", train, test, seed=0, d_model=8, max_epochs=6, patience=2)
    >>> run.epochs == len(run.history) <= 6, 0.0 <= run.test_accuracy <= 1.0
    (True, True)
    """
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; choose one of {SCHEMES}")
    train, test = _check_data(train, "train"), _check_data(test, "test")
    seed = check_positive_int(seed, "seed", minimum=0)
    max_epochs = check_positive_int(max_epochs, "max_epochs")
    patience = check_positive_int(patience, "patience")
    batch_size = check_positive_int(batch_size, "batch_size")
    if not isinstance(tol, numbers.Real) or not tol >= 0:
        raise ValueError(f"tol must be a number >= 0, got {tol!r}")
    if not isinstance(lr, numbers.Real) or not np.isfinite(lr) or lr <= 0:
        raise ValueError(f"lr must be a finite number > 0, got {lr!r}")
    if train.length != test.length:
        raise ValueError(f"train and test must have the same length, got {train.length} and {test.length}")
    vocab_size = max(train.vocab_size, test.vocab_size)
    spec = ModelSpec(vocab_size=vocab_size, n_positions=train.length, d_model=d_model, n_heads=n_heads,
                     n_layers=n_layers, positional=scheme, encoding=encoding)
    config = TrainConfig(epochs=max_epochs, lr=lr, batch_size=batch_size, patience=patience, tol=tol, threads=threads)
    res = fit(spec, train, seed=seed, config=config)
    history = list(res.history.accuracy)
    return PlateauRun(train_accuracy=res.train_accuracy, test_accuracy=res.accuracy(test), epochs=len(history),
                      plateaued=plateau_reached(history, patience, tol), history=np.array(history))


@dataclass(frozen=True)
class DoseResponse:
    """Result of :func:`dose_response`: one model per (fraction, seed).

    Attributes
    ----------
    fractions : (F,) array
        Fractions of the rows moved.
    seeds : tuple of int
        The seeds, one model per fraction each.
    stress : (F, S) array
        Scale-optimal stress of the encoding each model was given.
    train_accuracy, test_accuracy : (F, S) arrays
        Accuracy of each model on the training and the test set.
    epochs : (F, S) int array
        Epochs each model trained.
    plateaued : (F, S) bool array
        Whether each model's training stopped on a plateau.
    control_accuracy : (S,) array or None
        Test accuracy of the position-free model (``"none"``) with each seed: it never sees the encoding.

    Examples
    --------
    >>> res = DoseResponse(fractions=np.array([0.0, 1.0]), seeds=(0,), stress=np.array([[0.0], [0.4]]),
    ...                    train_accuracy=np.array([[1.0], [0.9]]), test_accuracy=np.array([[0.95], [0.7]]),
    ...                    epochs=np.array([[8], [10]]), plateaued=np.array([[True], [True]]))
    >>> res.test_accuracy.shape, res.control_accuracy is None
    ((2, 1), True)
    """

    fractions: np.ndarray
    seeds: tuple
    stress: np.ndarray
    train_accuracy: np.ndarray
    test_accuracy: np.ndarray
    epochs: np.ndarray
    plateaued: np.ndarray
    control_accuracy: np.ndarray | None = None


def dose_response(train: TaskData, test: TaskData, *, fractions, seeds, d_model: int = 32, control: bool = True,
                  **train_kwargs) -> DoseResponse:
    """Accuracy of the frozen MDS encoding as a growing fraction of its rows is moved: stress as the only dose.

    For every fraction ``f`` and seed ``s``: the MDS encoding of the training corpus's Hellinger distances
    (:func:`scaled_mds_encoding`), with ``round(f n)`` rows deranged by :func:`permute_rows` with ``rng=s`` (so the
    moved rows differ between seeds), frozen in a model trained by :func:`train_to_plateau` with seed ``s``. The
    architecture, data, optimiser, stopping rule and the *set* of position vectors are the same in every run; only
    which position holds which vector changes, and with it the stress.

    Parameters
    ----------
    train, test : TaskData
    fractions : sequence of float in [0, 1]
    seeds : sequence of int
    d_model : int, default 32
    control : bool, default True
        Also train the position-free model ``"none"`` with every seed (a negative control: its accuracy cannot
        depend on the encoding).
    **train_kwargs
        Passed to :func:`train_to_plateau`.

    Returns
    -------
    DoseResponse

    Examples
    --------
    >>> from posgeom.studies import order_task
    >>> train, test = order_task(30, 6, 10, rng=0), order_task(30, 6, 10, rng=1)
    >>> res = dose_response(train, test, fractions=(0.0, 1.0), seeds=(0, 1), d_model=8, max_epochs=2,
    ...                     patience=1)
    >>> res.stress.shape, bool(np.all(res.stress[0] < 1e-9)), bool(np.all(res.stress[1] > 0))
    ((2, 2), True, True)
    """
    train, test = _check_data(train, "train"), _check_data(test, "test")
    seeds = _check_seeds(seeds)
    fractions = np.asarray(fractions, dtype=float)
    if fractions.ndim != 1 or fractions.size < 2 or np.any((fractions < 0) | (fractions > 1)):
        raise ValueError(f"fractions must be at least two numbers in [0, 1], got {fractions}")
    D = corpus_distances(train)
    P, P_model = scaled_mds_encoding(D, d_model)
    shape = (fractions.size, len(seeds))
    stress, tr, te = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    epochs, plateaued = np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=bool)
    for a, f in enumerate(fractions):
        for b, s in enumerate(seeds):
            Q, _ = permute_rows(P_model, float(f), rng=s)
            stress[a, b] = stress_of_distances(_distances(Q), D, scale="optimal")
            run = train_to_plateau("fixed", train, test, seed=s, d_model=d_model, encoding=Q, **train_kwargs)
            tr[a, b], te[a, b] = run.train_accuracy, run.test_accuracy
            epochs[a, b], plateaued[a, b] = run.epochs, run.plateaued
    ctrl = None
    if control:
        ctrl = np.array([train_to_plateau("none", train, test, seed=s, d_model=d_model, **train_kwargs).test_accuracy
                         for s in seeds])
    return DoseResponse(fractions=fractions, seeds=seeds, stress=stress, train_accuracy=tr, test_accuracy=te,
                        epochs=epochs, plateaued=plateaued, control_accuracy=ctrl)


def _distances(P):
    from ..geometry import pairwise_distances

    return pairwise_distances(P)


def centre_task(n_pairs: int, n_positions: int, vocab_size: int, *, rng, regime: str = "smooth") -> TaskData:
    """The "a in the middle" task: label 1 iff marker 0 sits in the central half of the sequence.

    The central half is the positions ``i`` with ``L/4 <= i < 3L/4`` (``L`` a multiple of 4). Each base sequence
    (background as in :func:`posgeom.studies.order_task`) gets ``a = 0`` at a uniform central position (label 1);
    its partner moves ``a`` to a uniform edge position, swapping it with the background token there (label 0, same
    multiset). The label depends on the absolute position of ``a`` and is **invariant under reversal**
    ``i -> L - 1 - i`` (the central half is mapped onto itself), unlike :func:`posgeom.studies.position_task`,
    whose label flips.

    Parameters
    ----------
    n_pairs, n_positions, vocab_size, rng, regime
        As in :func:`posgeom.studies.order_task`; ``n_positions`` a multiple of 4.

    Returns
    -------
    TaskData
        ``2 n_pairs`` sequences, bases (label 1) first, then partners (label 0).

    Examples
    --------
    >>> data = centre_task(20, 8, 10, rng=0)
    >>> a = np.argmax(data.X == 0, axis=1)
    >>> bool(np.array_equal(data.y, (a >= 2) & (a < 6)))
    True
    >>> a_reversed = np.argmax(data.X[:, ::-1] == 0, axis=1)
    >>> bool(np.array_equal(data.y, (a_reversed >= 2) & (a_reversed < 6)))  # reversal keeps every label
    True
    """
    from .tasks import _background, _check_task_args

    n_pairs, n, vocab_size, rng = _check_task_args(n_pairs, n_positions, vocab_size, rng)
    if n % 4:
        raise ValueError(f"n_positions must be a multiple of 4 (quarters), got {n}")
    centre = np.arange(n // 4, 3 * n // 4)
    edges = np.setdiff1d(np.arange(n), centre)
    X = _background(n_pairs, n, vocab_size, rng, regime)
    partners = X.copy()
    for row, partner in zip(X, partners):
        i, j = int(rng.choice(centre)), int(rng.choice(edges))
        row[i] = 0
        partner[:] = row
        partner[i], partner[j] = row[j], 0
    X = np.concatenate([X, partners])
    a = np.argmax(X == 0, axis=1)
    y = ((a >= n // 4) & (a < 3 * n // 4)).astype(np.int64)
    return TaskData(X, y)
