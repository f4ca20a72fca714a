"""Chapter 8, seeds as the unit: :func:`imdb_windows`, :func:`scratch_runs` (masked-LM runs, the table kept at every
budget), :func:`mean_spearman_test`; ``design_runs`` (``ch08_trend``, ``ch08_exploratory``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from .._validation import check_positive_int, check_rng, check_seeds
from ..corpus import position_counts, position_distributions
from ..inference import permutation_p_value
from ..inference._correlation import pearson_rows, rank
from ..nn import ModelSpec, TrainConfig, fit
from ..nn.training import _evaluate_loss

__all__ = ["imdb_windows", "scratch_runs", "mean_spearman_test"]


def imdb_windows(n_reviews: int, n_positions: int, *, rng: int | np.random.Generator, chars: int = 400) -> np.ndarray:
    """(N, n_positions) full ``[CLS] ... [SEP]`` windows of the first ``chars`` characters of ``n_reviews`` random
    IMDB training reviews (too short ones dropped)."""
    from ..data import CountingConvention, load_imdb, load_tokenizer
    from ..data._tokens import iter_token_sequences
    n_reviews = check_positive_int(n_reviews, "n_reviews")
    n_positions = check_positive_int(n_positions, "n_positions", minimum=3)
    imdb = load_imdb("train", html_breaks="space")
    pick = check_rng(rng).choice(len(imdb), size=n_reviews, replace=False)
    texts = [imdb.texts[k][:chars] for k in pick]
    conv = CountingConvention(n_positions)
    windows = [s for batch in iter_token_sequences(texts, load_tokenizer(), conv) for s in batch]
    return np.array([s for s in windows if len(s) == n_positions], dtype=np.int64)


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


def _table_spearman(tables: np.ndarray) -> np.ndarray:
    """Spearman's rho between ``||p_i - p_j||`` and the lag ``j - i`` over all pairs, for each (..., n, d) table."""
    full, i, j, lag = _pair_ranks(np.asarray(tables, dtype=float))
    return pearson_rows(full[..., i, j], lag)


@dataclass(frozen=True)
class ScratchRuns:
    """Result of :func:`scratch_runs`: ``seeds``; budgets ``epochs`` (0: initial); ``tables`` (S, B, n, d); masked-LM
    ``final_loss`` (S,) at the last budget; ``position_only`` (S,), the position-only predictor's in-sample loss."""
    seeds: tuple
    epochs: tuple
    tables: np.ndarray
    final_loss: np.ndarray
    position_only: np.ndarray

    @property
    def spearman(self) -> np.ndarray:
        """(S, B) Spearman's rho of distance with lag of every table."""
        return _table_spearman(self.tables)

    def slopes(self, *, relabel: ArrayLike | None = None) -> np.ndarray:
        """(S,) ``_trend_slopes`` of every run, its rows relabelled by the permutation ``relabel`` if given."""
        if relabel is not None and not np.array_equal(np.sort(relabel), np.arange(self.tables.shape[2])):
            raise ValueError(f"relabel must be a permutation of the {self.tables.shape[2]} positions")
        tables = self.tables if relabel is None else self.tables[:, :, np.asarray(relabel)]
        return _trend_slopes(_table_spearman(tables), self.epochs)


def _trend_slopes(rho: ArrayLike, epochs: Sequence[int]) -> np.ndarray:
    """(S,) per row of the (S, B) ``rho``, its least-squares slope on ``log2(epochs)`` over the budgets above 0."""
    trained = [b for b, e in enumerate(epochs) if e > 0]
    if len(trained) < 2:
        raise ValueError(f"a slope needs at least two budgets above 0, got epochs={tuple(epochs)}")
    values = np.asarray(rho, dtype=float)[:, trained]
    xc = np.log2(np.array([epochs[b] for b in trained], dtype=float))
    xc -= xc.mean()
    return (values - values.mean(axis=1, keepdims=True)) @ xc / (xc**2).sum()


def _masked_lm_data(X: np.ndarray, *, n_kept: int, rng: np.random.Generator, mask_rate: float = 0.15):
    """Inputs (masked at ``mask_rate`` but the ends), targets, ``K`` ("other"), position-only loss; ``n_kept`` ids."""
    ids, counts = np.unique(X, return_counts=True)
    kept = ids[np.lexsort((ids, -counts))[:n_kept]].astype(np.int64)
    K = kept.size
    lookup = np.full(int(X.max()) + 1, K, dtype=np.int64)
    lookup[kept] = np.arange(K)
    compact = lookup[X]
    mask = rng.random(X.shape) < mask_rate
    mask[:, 0] = mask[:, -1] = False
    mu = position_distributions(position_counts(compact, X.shape[1], int(compact.max()) + 1)).toarray()
    position_only = float(-np.mean(np.log(mu[np.nonzero(mask)[1], compact[mask]])))
    return np.where(mask, K + 1, compact), np.where(mask, compact, -100), K, position_only


def scratch_runs(windows: ArrayLike, *, seeds: Sequence[int], n_windows: int, epochs: Sequence[int] = (0, 1, 2, 4, 8),
                 width: int = 32, n_layers: int = 2, n_heads: int = 4, n_kept: int = 500, lr: float = 3e-3,
                 batch_size: int = 32) -> ScratchRuns:
    """Train one masked-LM Transformer per seed on ``n_windows`` of ``windows``; keep its position table at every
    budget of ``epochs`` (0: at initialisation). Run ``s`` draws windows and 15% masks from ``default_rng(s)`` and
    fits with seed ``s`` (constant AdamW); ``n_kept`` ids have their own output."""
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
        inputs, targets, K, loss_mu = _masked_lm_data(windows[pick], n_kept=n_kept, rng=rng)
        spec = ModelSpec(vocab_size=K + 2, n_positions=windows.shape[1], d_model=width, n_heads=n_heads,
                         n_layers=n_layers, n_classes=K + 1)
        snaps, final = [], []
        def keep(epoch, model, inputs=inputs, targets=targets, snaps=snaps, final=final):
            if epoch in budgets:
                snaps.append(model.positional_encoding().detach().numpy().astype(np.float64).copy())
            if epoch == budgets[-1]:
                final.append(_evaluate_loss(model, inputs, targets))
            return epoch >= budgets[-1]
        if 0 in budgets:
            keep(0, spec.build(seed=s))
        if budgets[-1] > 0:
            fit(spec, (inputs, targets), seed=s, config=config, on_epoch_end=keep)
        tables.append(np.stack(snaps))
        losses.append(final[0])
        position_only.append(loss_mu)
    return ScratchRuns(seeds=seeds, epochs=tuple(budgets), tables=np.stack(tables), final_loss=np.array(losses),
                       position_only=np.array(position_only))


@dataclass(frozen=True)
class MeanSpearmanTest:
    """Result of :func:`mean_spearman_test`: ``statistic`` (mean rho over tables); ``per_table`` (S,); ``null``
    (B,), every table's rows relabelled by its own permutation; the one-sided ``p_value``."""
    statistic: float
    per_table: np.ndarray
    null: np.ndarray
    p_value: float

    def quantile(self, level: float = 0.95) -> float:
        """The ``level`` quantile of the null."""
        return float(np.quantile(self.null, level))

    def power(self, effect: float, spread: float, *, alpha: float = 0.05) -> float:
        """Power of the test when the tables' rho has mean ``effect`` and between-seed sd ``spread`` (> 0): the
        normal approximation ``1 - Phi((q - effect) sqrt(S) / spread)``, ``q`` the null's ``1 - alpha`` quantile."""
        if not spread > 0:
            raise ValueError(f"spread must be > 0, got {spread!r}")
        q = self.quantile(1 - alpha)
        return float(stats.norm.sf((q - effect) * np.sqrt(len(self.per_table)) / spread))


def mean_spearman_test(tables: ArrayLike, *, rng: int | np.random.Generator,
                       n_permutations: int = 1999) -> MeanSpearmanTest:
    """Are the tables, on average, more monotone than the same vectors in random positional orders (each replicate
    relabels every (n, d) table's rows by its own permutation)?

    Examples
    --------
    >>> mean_spearman_test(np.arange(8.0)[None, :, None], rng=0, n_permutations=99).p_value  # a monotone table
    0.01
    """
    tables = np.asarray(tables, dtype=float)
    if tables.ndim == 2:
        tables = tables[None]
    if tables.ndim != 3:
        raise ValueError(f"tables must be (S, n, d) or (n, d), got shape {tables.shape}")
    rng, B = check_rng(rng), check_positive_int(n_permutations, "n_permutations")
    full, i, j, lag = _pair_ranks(tables)
    per_table = pearson_rows(full[:, i, j], lag)
    null = np.zeros(B)
    chunk = max(1, 4_000_000 // i.size)
    for full_s in full:
        perms = np.argsort(rng.random((B, tables.shape[1])), axis=1)
        for c in range(0, B, chunk):
            pc = perms[c : c + chunk]
            null[c : c + chunk] += pearson_rows(full_s[pc[:, i], pc[:, j]], lag)
    null /= len(tables)
    stat = float(per_table.mean())
    return MeanSpearmanTest(statistic=stat, per_table=per_table, null=null, p_value=permutation_p_value(stat, null))


def design_runs(design) -> dict | ScratchRuns:
    """The per-seed results a design file (``ch08_trend``; ``ch08_exploratory``: the runs whole) fixes, for JSON."""
    runs = scratch_runs(imdb_windows(4000, 32, rng=0), seeds=design.seeds, n_windows=1000, epochs=(0, 1, 2, 4, 8))
    if design.fields.get("status") == "exploratory":  # every table, read back by Design.read(ScratchRuns)
        return runs
    relabel = np.random.default_rng(0).permutation(32)
    return {"epochs": list(runs.epochs), "spearman": runs.spearman.tolist(), "slopes": runs.slopes().tolist(),
            "slopes_relabelled": runs.slopes(relabel=relabel).tolist(),
            "final_loss": runs.final_loss.tolist(), "position_only": runs.position_only.tolist()}


if __name__ == "__main__":  # pragma: no cover - the design's command
    from .designs import main
    main(design_runs)
