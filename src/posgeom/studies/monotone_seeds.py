"""Chapter 8's monotonicity experiment with seeds as the unit: from-scratch runs, pretrained tables, their tests.

* :func:`imdb_windows`: ``[CLS] w_1 ... w_{L-2} [SEP]`` WordPiece windows of IMDB training reviews.
* :func:`scratch_runs`: ``S`` independent masked-LM runs of a small Transformer with a learned position table; run
  ``s`` draws its own windows and masks (data seed), initialisation and mini-batch order from the seed ``s``
  (:func:`posgeom.nn.fit`), and keeps its position table at every budget (:class:`ScratchRuns`).
* :func:`mean_spearman_test`: the permutation test with seeds as the unit: the statistic is the mean over tables of
  Spearman's rho between ``||p_i - p_j||`` and the lag; each replicate relabels the rows of every table by its own
  random permutation.
* :func:`mean_test_power`: the power of that test for a named mean rho, from its null and the between-seed spread.
* :func:`seed_slopes`: per seed, the least-squares slope of rho against ``log2(epochs)``; :func:`t_test_power`: the
  power of the two-sided one-sample t test on such per-seed values.
* :func:`read_tables`: the learned position tables of a list of pretrained models, skipping (with a note) those that
  cannot be loaded here.
* :func:`gaussian_control`: a random table of the same shape and column spread as a given one (negative control).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_positive_int, check_rng

__all__ = [
    "imdb_windows",
    "ScratchRuns",
    "scratch_runs",
    "table_spearman",
    "MeanSpearmanTest",
    "mean_spearman_test",
    "mean_test_power",
    "seed_slopes",
    "t_test_power",
    "read_tables",
    "gaussian_control",
]


def imdb_windows(n_reviews: int, n_positions: int, *, rng, chars: int = 400) -> np.ndarray:
    """Full-length WordPiece windows of ``n_reviews`` random IMDB training reviews (the bert-base-uncased tokenizer).

    Parameters
    ----------
    n_reviews : int
        Reviews drawn without replacement from the training split.
    n_positions : int
        Window length ``L``: ``[CLS]``, ``L - 2`` word pieces, ``[SEP]``; reviews too short to fill it are dropped.
    rng : int or numpy.random.Generator
        Which reviews.
    chars : int, default 400
        Characters kept of each review before tokenising (ample for 30 word pieces of English).

    Returns
    -------
    (N, n_positions) int64 array
        ``N <= n_reviews`` windows.
    """
    from ..data import CountingConvention, iter_token_sequences, load_imdb, load_tokenizer

    n_reviews = check_positive_int(n_reviews, "n_reviews")
    n_positions = check_positive_int(n_positions, "n_positions", minimum=3)
    imdb = load_imdb("train", html_breaks="space")
    pick = check_rng(rng).choice(len(imdb), size=n_reviews, replace=False)
    texts = [imdb.texts[k][:chars] for k in pick]
    conv = CountingConvention(n_positions)
    windows = [s for batch in iter_token_sequences(texts, load_tokenizer(), conv) for s in batch]
    return np.array([s for s in windows if len(s) == n_positions], dtype=np.int64)


@dataclass(frozen=True)
class ScratchRuns:
    """Result of :func:`scratch_runs`: ``S`` independent runs, each observed at the same budgets.

    Attributes
    ----------
    seeds : tuple of int
        One per run.
    epochs : tuple of int
        The budgets (cumulative epochs, ``0`` = the initial table), increasing.
    tables : (S, B, n, d) array
        The position table of run ``s`` at budget ``b``.
    final_loss : (S,) array
        Masked-LM training loss (eval mode, on the run's own data) at the last budget.
    position_only : (S,) array
        Per run, the in-sample cross-entropy of the best position-only predictor, ``mu_i``, on the masked slots.
    """

    seeds: tuple
    epochs: tuple
    tables: np.ndarray
    final_loss: np.ndarray
    position_only: np.ndarray

    @property
    def spearman(self) -> np.ndarray:
        """(S, B) Spearman's rho of each table's distances with the lag (:func:`table_spearman`)."""
        return table_spearman(self.tables)


def _position_only_loss(inputs, targets) -> float:
    compact = np.where(targets >= 0, targets, inputs)
    mask = targets >= 0
    L, K = compact.shape[1], int(compact.max()) + 1
    counts = np.zeros((L, K))
    np.add.at(counts, (np.broadcast_to(np.arange(L), compact.shape), compact), 1.0)
    mu = counts / counts.sum(axis=1, keepdims=True)
    return float(-np.mean(np.log(mu[np.nonzero(mask)[1], targets[mask]])))


def scratch_runs(windows, *, seeds, n_windows: int, epochs=(0, 1, 2, 4, 8), width: int = 32, n_layers: int = 2,
                 n_heads: int = 4, n_kept: int = 500, lr: float = 3e-3, batch_size: int = 32) -> ScratchRuns:
    """Train one masked-LM Transformer per seed from scratch and keep its learned position table at each budget.

    Run ``s``: ``n_windows`` windows drawn from ``windows`` and their 15% masks by ``numpy.random.default_rng(s)``
    (:func:`posgeom.studies.masked_lm_data`, ``n_kept`` most frequent ids), then :func:`posgeom.nn.fit` with seed
    ``s`` (initialisation, including the ``N(0, 0.02^2)`` position table, and mini-batch order), constant AdamW at
    ``lr``, one torch thread. The budgets are points on each run's trajectory; the runs are independent.

    Parameters
    ----------
    windows : (N, L) int array
        Token windows to draw from.
    seeds : sequence of int
        Distinct seeds ``>= 0``.
    n_windows : int
        Windows per run (``<= N``).
    epochs : sequence of int, default (0, 1, 2, 4, 8)
        Budgets.
    width, n_layers, n_heads, n_kept, lr, batch_size
        Model and training settings.

    Returns
    -------
    ScratchRuns
    """
    from ..nn import ModelSpec, TrainConfig, fit
    from ..nn.training import evaluate_loss
    from .masked_lm import masked_lm_data

    windows = np.asarray(windows)
    seeds = tuple(check_positive_int(s, "each seed", minimum=0) for s in seeds)
    if len(set(seeds)) != len(seeds) or not seeds:
        raise ValueError(f"seeds must be distinct and non-empty, got {seeds}")
    n_windows = check_positive_int(n_windows, "n_windows")
    if n_windows > len(windows):
        raise ValueError(f"n_windows={n_windows} exceeds the {len(windows)} windows available")
    budgets = sorted({check_positive_int(int(e), "each budget", minimum=0) for e in epochs})
    config = TrainConfig(epochs=max(budgets[-1], 1), lr=lr, batch_size=batch_size, threads=1)
    tables, losses, position_only = [], [], []
    for s in seeds:
        rng = np.random.default_rng(s)
        pick = rng.choice(len(windows), size=n_windows, replace=False)
        data = masked_lm_data(windows[pick], n_kept=n_kept, rng=rng)
        spec = ModelSpec(vocab_size=data.vocab_size, n_positions=windows.shape[1], d_model=width, n_heads=n_heads,
                         n_layers=n_layers, n_classes=data.n_classes)
        snaps, final = [], []

        def keep(epoch, model, data=data, snaps=snaps, final=final):
            if epoch in budgets:
                snaps.append(model.positional_encoding().detach().numpy().astype(np.float64).copy())
            if epoch == budgets[-1]:
                final.append(evaluate_loss(model, data.inputs, data.targets))
            return epoch >= budgets[-1]

        if 0 in budgets:
            keep(0, spec.build(seed=s))
        if budgets[-1] > 0:
            fit(spec, (data.inputs, data.targets), seed=s, config=config, on_epoch_end=keep)
        tables.append(np.stack(snaps))
        losses.append(final[0])
        position_only.append(_position_only_loss(data.inputs, data.targets))
    return ScratchRuns(seeds=seeds, epochs=tuple(budgets), tables=np.stack(tables), final_loss=np.array(losses),
                       position_only=np.array(position_only))


def _pair_ranks(tables: np.ndarray):
    """Per table, the (n, n) symmetric matrix of the ranks of its pair distances; the pair indices; the lag ranks."""
    from ..inference import rank

    n = tables.shape[-2]
    i, j = np.triu_indices(n, k=1)
    sq = (tables**2).sum(-1)
    gram = tables @ np.swapaxes(tables, -1, -2)
    dist = np.sqrt(np.maximum(sq[..., :, None] + sq[..., None, :] - 2 * gram, 0.0))[..., i, j]  # (..., pairs)
    full = np.zeros(tables.shape[:-2] + (n, n))
    full[..., i, j] = rank(dist)
    return full + np.swapaxes(full, -1, -2), i, j, rank((j - i).astype(float))


def table_spearman(tables) -> np.ndarray:
    """Spearman's rho between ``||p_i - p_j||`` and the lag ``j - i`` over all pairs, for each table.

    Parameters
    ----------
    tables : (..., n, d) array

    Returns
    -------
    (...) array

    Examples
    --------
    >>> float(table_spearman(np.arange(6.0)[:, None]))
    1.0
    """
    from ..inference import pearson_rows

    tables = np.asarray(tables, dtype=float)
    full, i, j, lag = _pair_ranks(tables)
    return pearson_rows(full[..., i, j], lag)


@dataclass(frozen=True)
class MeanSpearmanTest:
    """Result of :func:`mean_spearman_test`.

    Attributes
    ----------
    statistic : float
        Mean over tables of Spearman's rho with the lag.
    per_table : (S,) array
        Each table's rho.
    null : (B,) array
        The statistic with every table's rows relabelled by its own random permutation.
    p_value : float
        ``(1 + #{null >= statistic}) / (B + 1)``, one-sided.
    """

    statistic: float
    per_table: np.ndarray
    null: np.ndarray
    p_value: float

    def quantile(self, level: float = 0.95) -> float:
        """The ``level`` quantile of the null (the critical value of the level-``1 - level`` test)."""
        return float(np.quantile(self.null, level))


def mean_spearman_test(tables, *, rng, n_permutations: int = 1999) -> MeanSpearmanTest:
    """Are the tables, on average, more monotone than the same vectors in random positional orders?

    Under the null hypothesis the positions of each table are exchangeable; the tables are independent (one per
    seed), so each replicate relabels each table's rows by its own uniform permutation. The smallest attainable
    p-value is ``1 / (n_permutations + 1)``.

    Parameters
    ----------
    tables : (S, n, d) array or a single (n, d) table
    rng : int or numpy.random.Generator
    n_permutations : int, default 1999

    Returns
    -------
    MeanSpearmanTest

    Examples
    --------
    >>> t = mean_spearman_test(np.arange(8.0)[None, :, None], rng=0, n_permutations=99)
    >>> t.statistic, t.p_value
    (1.0, 0.01)
    """
    from ..inference import pearson_rows

    tables = np.asarray(tables, dtype=float)
    if tables.ndim == 2:
        tables = tables[None]
    if tables.ndim != 3:
        raise ValueError(f"tables must be (S, n, d) or (n, d), got shape {tables.shape}")
    rng = check_rng(rng)
    B = check_positive_int(n_permutations, "n_permutations")
    full, i, j, lag = _pair_ranks(tables)
    per_table = pearson_rows(full[:, i, j], lag)
    n = tables.shape[1]
    null = np.zeros(B)
    chunk = max(1, 4_000_000 // i.size)
    for full_s in full:
        perms = np.argsort(rng.random((B, n)), axis=1)
        for c in range(0, B, chunk):
            pc = perms[c : c + chunk]
            null[c : c + chunk] += pearson_rows(full_s[pc[:, i], pc[:, j]], lag)
    null /= len(tables)
    stat = float(per_table.mean())
    p = float((1 + np.sum(null >= stat - 1e-12)) / (B + 1))
    return MeanSpearmanTest(statistic=stat, per_table=per_table, null=null, p_value=p)


def mean_test_power(test: MeanSpearmanTest, effect: float, spread: float, *, alpha: float = 0.05) -> float:
    """Power of :func:`mean_spearman_test` at level ``alpha`` when the seeds' rho has mean ``effect``.

    Normal approximation: the mean of ``S`` independent seeds has standard deviation ``spread / sqrt(S)``; the test
    rejects when it exceeds the ``1 - alpha`` quantile ``q`` of its permutation null, so the power is
    ``1 - Phi((q - effect) sqrt(S) / spread)``.

    Parameters
    ----------
    test : MeanSpearmanTest
        Supplies the null and the number of seeds ``S``.
    effect : float
        The mean rho the design should detect.
    spread : float
        Between-seed standard deviation of rho (> 0).
    alpha : float, default 0.05

    Returns
    -------
    float

    Examples
    --------
    >>> t = MeanSpearmanTest(0.0, np.zeros(4), np.linspace(-0.1, 0.1, 1001), 1.0)
    >>> round(mean_test_power(t, 0.09, 0.02), 2)  # q = 0.09: the effect sits on the critical value
    0.5
    """
    from scipy import stats

    if not spread > 0:
        raise ValueError(f"spread must be > 0, got {spread!r}")
    q = test.quantile(1 - alpha)
    return float(stats.norm.sf((q - effect) * np.sqrt(len(test.per_table)) / spread))


def seed_slopes(values, epochs) -> np.ndarray:
    """Per seed, the least-squares slope of ``values`` against ``log2(epochs)`` (rho gained per doubling).

    Parameters
    ----------
    values : (S, B) array
    epochs : (B,) positive budgets

    Returns
    -------
    (S,) array

    Examples
    --------
    >>> seed_slopes(np.array([[0.1, 0.2, 0.3]]), [1, 2, 4]).round(3).tolist()
    [0.1]
    """
    values = np.asarray(values, dtype=float)
    x = np.log2(np.asarray(epochs, dtype=float))
    if values.ndim != 2 or values.shape[1] != x.size or x.size < 2:
        raise ValueError(f"values must be (S, B) with B = len(epochs) >= 2, got {values.shape}")
    xc = x - x.mean()
    return (values - values.mean(axis=1, keepdims=True)) @ xc / (xc**2).sum()


def t_test_power(effect_size: float, n: int, *, alpha: float = 0.05) -> float:
    """Power of the two-sided one-sample t test (``n - 1`` degrees of freedom) for a standardised mean ``delta / sd``.

    Parameters
    ----------
    effect_size : float
        ``delta / sigma``: the named effect over the between-seed standard deviation.
    n : int, >= 2
        Seeds.
    alpha : float, default 0.05

    Returns
    -------
    float
        From the noncentral t distribution with noncentrality ``effect_size * sqrt(n)``.

    Examples
    --------
    >>> round(t_test_power(0.8, 20), 2)
    0.92
    """
    from scipy import stats

    n = check_positive_int(n, "n", minimum=2)
    q, nc = stats.t.ppf(1 - alpha / 2, n - 1), effect_size * np.sqrt(n)
    return float(stats.nct.sf(q, n - 1, nc) + stats.nct.cdf(-q, n - 1, nc))


def read_tables(models) -> tuple[dict, dict]:
    """The learned position tables of ``models`` (:func:`posgeom.data.learned_position_embeddings`), where possible.

    Parameters
    ----------
    models : sequence of str
        Model names, folders or hub ids.

    Returns
    -------
    tables : dict
        Name -> (n, d) array, for the models that could be read.
    skipped : dict
        Name -> the reason a model could not be read here (no hub, not installed, no table).
    """
    from ..data import learned_position_embeddings

    tables, skipped = {}, {}
    for name in models:
        try:
            tables[name] = learned_position_embeddings(name)
        except (OSError, ImportError, ValueError) as exc:
            skipped[name] = f"{type(exc).__name__}: {str(exc).split('. ')[0]}"
    return tables, skipped


def gaussian_control(P, *, rng) -> np.ndarray:
    """A table of i.i.d. normal entries with the shape and the per-column mean and spread of ``P``.

    Parameters
    ----------
    P : (n, d) array
    rng : int or numpy.random.Generator

    Returns
    -------
    (n, d) array

    Examples
    --------
    >>> gaussian_control(np.ones((4, 3)) * [1.0, 2.0, 3.0], rng=0).shape
    (4, 3)
    """
    P = np.asarray(P, dtype=float)
    return P.mean(axis=0) + P.std(axis=0) * check_rng(rng).standard_normal(P.shape)
