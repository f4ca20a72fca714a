"""Chapter 8: monotonicity of position tables with seeds as the unit.

* :func:`imdb_windows` -- ``[CLS] ... [SEP]`` WordPiece windows of IMDB training reviews
* :func:`scratch_runs` -- masked-LM runs from scratch, one per seed, position table kept at every budget
* :func:`table_spearman` -- Spearman's rho of ``||p_i - p_j||`` with the lag, per table
* :func:`mean_spearman_test` -- permutation test of the mean rho over tables
* :func:`mean_test_power` -- power of that test for a named mean rho
* :func:`seed_slopes` -- per seed, the slope of rho against ``log2(epochs)``
* :func:`read_tables` -- the learned position tables of pretrained models that can be read here
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from .._validation import check_positive_int, check_rng, check_seeds
from ..inference import pearson_rows, permutation_p_value, rank
from ..nn import ModelSpec, TrainConfig, evaluate_loss, fit

__all__ = [
    "imdb_windows",
    "scratch_runs",
    "table_spearman",
    "mean_spearman_test",
    "mean_test_power",
    "seed_slopes",
    "read_tables",
]


def imdb_windows(n_reviews: int, n_positions: int, *, rng: int | np.random.Generator,
                 chars: int = 400) -> np.ndarray:
    """Full-length ``[CLS] w_1 ... w_{L-2} [SEP]`` bert-base-uncased windows of random IMDB training reviews.

    Parameters
    ----------
    n_reviews : int
        Reviews drawn without replacement; those too short to fill a window are dropped.
    n_positions : int
        Window length ``L >= 3``.
    rng : int or numpy.random.Generator
    chars : int, default 400
        Characters kept of each review before tokenising.

    Returns
    -------
    (N, n_positions) int64 array
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
class _MaskedLM:
    """Masked-LM data over the ``K`` kept ids: compact id ``K`` is "other", ``K + 1`` the mask, target -100 unmasked."""

    inputs: np.ndarray
    targets: np.ndarray  # the compact id at masked slots, -100 (ignored by the loss) elsewhere
    n_kept: int


def _masked_lm_data(X: np.ndarray, *, n_kept: int, rng: np.random.Generator, mask_rate: float = 0.15) -> _MaskedLM:
    """The ``n_kept`` most frequent ids (ties: smaller id) keep a compact id; slots other than the first and last
    are masked independently with probability ``mask_rate``."""
    ids, counts = np.unique(X, return_counts=True)
    kept = ids[np.lexsort((ids, -counts))[:n_kept]].astype(np.int64)
    K = kept.size
    lookup = np.full(int(X.max()) + 1, K, dtype=np.int64)
    lookup[kept] = np.arange(K)
    compact = lookup[X]
    mask = rng.random(X.shape) < mask_rate
    mask[:, 0] = mask[:, -1] = False
    return _MaskedLM(np.where(mask, K + 1, compact), np.where(mask, compact, -100), K)


@dataclass(frozen=True)
class ScratchRuns:
    """Result of :func:`scratch_runs`.

    Fields: ``seeds``; cumulative ``epochs`` (0: the initial table); ``tables`` (S, B, n, d); ``final_loss`` (masked-LM
    loss at the last budget); ``position_only`` (in-sample loss of the position-only predictor ``mu_i``).
    """

    seeds: tuple
    epochs: tuple
    tables: np.ndarray
    final_loss: np.ndarray
    position_only: np.ndarray

    @property
    def spearman(self) -> np.ndarray:
        """(S, B) :func:`table_spearman` of every table."""
        return table_spearman(self.tables)


def _position_only_loss(inputs, targets) -> float:
    compact = np.where(targets >= 0, targets, inputs)
    mask = targets >= 0
    L, K = compact.shape[1], int(compact.max()) + 1
    counts = np.zeros((L, K))
    np.add.at(counts, (np.broadcast_to(np.arange(L), compact.shape), compact), 1.0)
    mu = counts / counts.sum(axis=1, keepdims=True)
    return float(-np.mean(np.log(mu[np.nonzero(mask)[1], targets[mask]])))


def scratch_runs(windows: ArrayLike, *, seeds: Sequence[int], n_windows: int, epochs: Sequence[int] = (0, 1, 2, 4, 8),
                 width: int = 32, n_layers: int = 2, n_heads: int = 4, n_kept: int = 500, lr: float = 3e-3,
                 batch_size: int = 32) -> ScratchRuns:
    """Train one masked-LM Transformer per seed and keep its learned position table at every budget.

    Run ``s`` draws its windows and 15% masks from ``numpy.random.default_rng(s)`` and trains with
    :func:`posgeom.nn.fit` (seed ``s``, constant AdamW, one thread).

    Parameters
    ----------
    windows : (N, L) int array
    seeds : sequence of int
    n_windows : int
        Windows per run, at most ``N``.
    epochs : sequence of int, default (0, 1, 2, 4, 8)
        Budgets.
    width, n_layers, n_heads, n_kept, lr, batch_size
        Model width, depth, heads; ids with their own output; AdamW learning rate; mini-batch size.

    Returns
    -------
    ScratchRuns
    """
    windows = np.asarray(windows)
    seeds = check_seeds(seeds)
    n_windows = check_positive_int(n_windows, "n_windows")
    if n_windows > len(windows):
        raise ValueError(f"n_windows={n_windows} exceeds the {len(windows)} windows available")
    n_kept = check_positive_int(n_kept, "n_kept")
    budgets = sorted({check_positive_int(int(e), "each budget", minimum=0) for e in epochs})
    config = TrainConfig(epochs=max(budgets[-1], 1), lr=lr, batch_size=batch_size, threads=1)
    tables, losses, position_only = [], [], []
    for s in seeds:
        rng = np.random.default_rng(s)
        pick = rng.choice(len(windows), size=n_windows, replace=False)
        data = _masked_lm_data(windows[pick], n_kept=n_kept, rng=rng)
        spec = ModelSpec(vocab_size=data.n_kept + 2, n_positions=windows.shape[1], d_model=width, n_heads=n_heads,
                         n_layers=n_layers, n_classes=data.n_kept + 1)
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
    """Per table the symmetric (n, n) ranks of its pair distances; the pair indices; the lag ranks."""
    n = tables.shape[-2]
    i, j = np.triu_indices(n, k=1)
    sq = (tables**2).sum(-1)
    gram = tables @ np.swapaxes(tables, -1, -2)
    dist = np.sqrt(np.maximum(sq[..., :, None] + sq[..., None, :] - 2 * gram, 0.0))[..., i, j]  # (..., pairs)
    full = np.zeros(tables.shape[:-2] + (n, n))
    full[..., i, j] = rank(dist)
    return full + np.swapaxes(full, -1, -2), i, j, rank((j - i).astype(float))


def table_spearman(tables: ArrayLike) -> np.ndarray:
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
    full, i, j, lag = _pair_ranks(np.asarray(tables, dtype=float))
    return pearson_rows(full[..., i, j], lag)


@dataclass(frozen=True)
class MeanSpearmanTest:
    """Result of :func:`mean_spearman_test`.

    Fields: ``statistic`` (mean rho over tables); ``per_table`` (S,); ``null`` (B,), every table's rows relabelled by
    its own permutation; the one-sided ``p_value``.
    """

    statistic: float
    per_table: np.ndarray
    null: np.ndarray
    p_value: float

    def quantile(self, level: float = 0.95) -> float:
        """The ``level`` quantile of the null."""
        return float(np.quantile(self.null, level))


def mean_spearman_test(tables: ArrayLike, *, rng: int | np.random.Generator,
                       n_permutations: int = 1999) -> MeanSpearmanTest:
    """Are the tables, on average, more monotone than the same vectors in random positional orders?

    Parameters
    ----------
    tables : (S, n, d) array or one (n, d) table
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
    return MeanSpearmanTest(statistic=stat, per_table=per_table, null=null, p_value=permutation_p_value(stat, null))


def mean_test_power(test: MeanSpearmanTest, effect: float, spread: float, *, alpha: float = 0.05) -> float:
    """Power of :func:`mean_spearman_test` when the seeds' rho has mean ``effect`` (normal approximation).

    Parameters
    ----------
    test : MeanSpearmanTest
        Supplies the null and the number of seeds ``S``.
    effect, spread : float
        The mean rho to detect; its between-seed standard deviation (> 0).
    alpha : float, default 0.05

    Returns
    -------
    float
        ``1 - Phi((q - effect) sqrt(S) / spread)``, ``q`` the null's ``1 - alpha`` quantile.
    """
    if not spread > 0:
        raise ValueError(f"spread must be > 0, got {spread!r}")
    q = test.quantile(1 - alpha)
    return float(stats.norm.sf((q - effect) * np.sqrt(len(test.per_table)) / spread))


def seed_slopes(values: ArrayLike, epochs: ArrayLike) -> np.ndarray:
    """Per seed, the least-squares slope of ``values`` against ``log2(epochs)``.

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


def read_tables(models: Sequence[str]) -> tuple[dict, dict]:
    """The learned position tables of ``models`` (:func:`posgeom.data.learned_position_embeddings`) where readable.

    Parameters
    ----------
    models : sequence of str
        Model names, folders or hub ids.

    Returns
    -------
    tables, skipped : dict
        Name -> (n, d) array; name -> why the model could not be read here.
    """
    from ..data import learned_position_embeddings

    tables, skipped = {}, {}
    for name in models:
        try:
            tables[name] = learned_position_embeddings(model=name)
        except (OSError, ImportError, ValueError) as exc:
            skipped[name] = f"{type(exc).__name__}: {str(exc).split('. ')[0]}"
    return tables, skipped
