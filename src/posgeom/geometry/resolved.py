"""The resolved estimand: Hellinger geometry at a stated vocabulary resolution and an equal number of texts."""
from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from .._validation import check_distributions, check_positive_int
from ..corpus.incidence import SequenceIncidence, check_incidence
from ._crossfit import squared_from_gram

__all__ = ["Resolution", "choose_resolution", "resolved_estimand"]

_MAX_REDRAWS = 200  # redraws of a split whose half holds fewer than m* texts at a position (rare: choose_resolution)


@dataclass(frozen=True)
class Resolution:
    """The resolved estimand's parameters: ``K`` own-cell ``tokens`` (the others pooled into "other") and ``m*``.

    Attributes
    ----------
    tokens : tuple of int
    texts_per_position : int
        ``m*``: every position is seen through exactly this many texts per half of a split.
    vocab_size : int

    Examples
    --------
    >>> Resolution(tokens=(3, 1), texts_per_position=50, vocab_size=10).n_cells
    3
    """
    tokens: tuple
    texts_per_position: int
    vocab_size: int

    def __post_init__(self):
        tokens = tuple(int(t) for t in self.tokens)
        object.__setattr__(self, "tokens", tokens)
        check_positive_int(self.texts_per_position, "texts_per_position")
        check_positive_int(self.vocab_size, "vocab_size")
        if len(set(tokens)) != len(tokens):
            raise ValueError("Resolution.tokens must be distinct token ids")
        if tokens and (min(tokens) < 0 or max(tokens) >= self.vocab_size):
            raise ValueError(f"Resolution.tokens must lie in [0, vocab_size={self.vocab_size})")

    @property
    def n_cells(self) -> int:
        """``K + 1``: the kept tokens and the "other" cell."""
        return len(self.tokens) + 1

    def cell_of_token(self) -> np.ndarray:
        """The cell of every token id: ``0 .. K-1`` for the kept tokens in order, ``K`` for the others.

        Returns
        -------
        (vocab_size,) int32 ndarray

        Examples
        --------
        >>> Resolution(tokens=(2,), texts_per_position=5, vocab_size=4).cell_of_token()
        array([1, 1, 0, 1], dtype=int32)
        """
        cell = np.full(self.vocab_size, len(self.tokens), dtype=np.int32)
        cell[np.asarray(self.tokens, dtype=np.int64)] = np.arange(len(self.tokens), dtype=np.int32)
        return cell

    def describe(self) -> str:
        """The estimand in words, as every table and report states it.

        Returns
        -------
        str

        Examples
        --------
        >>> Resolution(tokens=(0,), texts_per_position=9, vocab_size=3).describe()
        'K = 1 most frequent token + other, m* = 9 texts per position and half'
        """
        return (f"K = {len(self.tokens)} most frequent token{'s' * (len(self.tokens) != 1)} + other, "
                f"m* = {self.texts_per_position:,} texts per position and half")


def choose_resolution(incidence: SequenceIncidence, *, fraction: float = 1.0, min_expected: float = 5.0,
                      texts_per_position: int | None = None, n_tokens: int | None = None) -> Resolution:
    """The stated rule that picks the resolved estimand's parameters from a corpus.

    With ``r`` the texts reaching the least-reached position in the planned (sub)sample, ``m* = floor(r/2 - 2
    sqrt(r))``, 3 bootstrap (4 split) SDs of a half's count below its mean; ``K`` counts the tokens whose
    corpus-wide frequency ``f`` has ``m* f >= min_expected``, ranked on the whole incidence (ties by id).

    Parameters
    ----------
    incidence : SequenceIncidence
    fraction : float, default 1.0
        Plan for a subsample of this share of the texts (``1/8`` for a ladder down to an eighth).
    min_expected : float, default 5.0
    texts_per_position, n_tokens : int, optional (``m*`` and ``K`` given instead of the rule)

    Returns
    -------
    Resolution

    Examples
    --------
    >>> choose_resolution(SequenceIncidence.from_sequences([[0, 1]] * 40, 2, 2)).texts_per_position
    7
    """
    check_incidence(incidence, "incidence")
    if not 0 < float(fraction) <= 1:
        raise ValueError(f"fraction must lie in (0, 1], got {fraction}")
    if not float(min_expected) > 0:
        raise ValueError(f"min_expected must be positive, got {min_expected}")
    reach = incidence.sequences_per_position().astype(np.int64)
    if texts_per_position is None:
        i = int(np.argmin(reach))
        r = float(reach[i]) * float(fraction)
        m_star = int(np.floor(r / 2 - 2 * np.sqrt(r)))
        if m_star < 2:
            raise ValueError(
                f"position {i} is reached by {reach[i]} texts ({r:.0f} at fraction {fraction}): too few for two "
                "halves with an equal number of texts per position. Use fewer positions (a smaller n_positions), "
                "count padding, or a larger fraction")
    else:
        m_star = check_positive_int(texts_per_position, "texts_per_position")
    totals = np.bincount(incidence.tokens, weights=incidence.cell_counts(), minlength=incidence.vocab_size)
    order = np.lexsort((np.arange(totals.size), -totals))
    if n_tokens is None:
        freq = totals / totals.sum()
        K = int(np.sum(m_star * freq >= float(min_expected)))
    else:
        K = check_positive_int(n_tokens, "n_tokens", minimum=0) if n_tokens else 0
        K = min(K, int(np.count_nonzero(totals)))
    return Resolution(tokens=tuple(order[:K].tolist()), texts_per_position=m_star, vocab_size=incidence.vocab_size)


def resolved_estimand(mu: ArrayLike, resolution: Resolution) -> np.ndarray:
    """The resolved estimand ``theta_ij = ||alpha(mu_i) - alpha(mu_j)||^2 / 2``, exactly, from known distributions.

    ``alpha_k(mu) = E sqrt(X_k / m*)``, ``X_k ~ Binomial(m*, mu^K_k)``, ``mu^K`` the distribution coarsened to the
    kept tokens and "other": exactly 0 for equal distributions, fixed by the ``Resolution`` alone.

    Parameters
    ----------
    mu : (n, V) array
    resolution : Resolution

    Returns
    -------
    (n, n) ndarray

    Examples
    --------
    >>> resolved_estimand(np.eye(2), Resolution(tokens=(0,), texts_per_position=10, vocab_size=2))[0, 1]
    np.float64(1.0)
    """
    P = check_distributions(mu, "mu")
    P = P.toarray() if hasattr(P, "toarray") else np.asarray(P, dtype=np.float64)
    if P.shape[1] != resolution.vocab_size:
        raise ValueError(f"mu has {P.shape[1]} columns, the resolution's vocabulary {resolution.vocab_size}")
    coarse = np.zeros((P.shape[0], resolution.n_cells))
    np.add.at(coarse.T, resolution.cell_of_token(), P.T)
    m = resolution.texts_per_position
    x = np.arange(m + 1)
    alpha = np.zeros_like(coarse)
    for i in range(coarse.shape[0]):
        alpha[i] = stats.binom.pmf(x[:, None], m, np.clip(coarse[i], 0.0, 1.0)[None, :]).T @ np.sqrt(x / m)
    sq = np.einsum("ij,ij->i", alpha, alpha)
    theta = 0.5 * (sq[:, None] + sq[None, :]) - alpha @ alpha.T
    np.fill_diagonal(theta, 0.0)
    return np.maximum(theta, 0.0)


@numba.njit(cache=True, nogil=True)
def _group_roots(grid, ends, prefix, draws, m_star, n_cells, spread):  # pragma: no cover (compiled)
    """Per position, the mean over disjoint groups of ``m_star`` draws of the square-root frequencies."""
    n = grid.shape[1]
    reach = np.zeros(n, np.int64)
    if prefix:  # every text reaches positions 0 .. ends - 1: reach[i] counts the ends above i
        ending = np.zeros(n + 1, np.int64)
        for t in range(draws.size):
            ending[ends[draws[t]]] += 1
        above = 0
        for i in range(n - 1, -1, -1):
            above += ending[i + 1]
            reach[i] = above
    else:
        for t in range(draws.size):
            s = draws[t]
            for i in range(ends[s]):
                if grid[s, i] >= 0:
                    reach[i] += 1
    groups = reach // m_star
    if groups.min() < 1:
        return np.zeros((0, n_cells))
    first = np.cumsum(groups) - groups  # position i's groups are rows first[i] .. first[i] + groups[i] - 1
    counts = np.zeros((first[-1] + groups[-1]) * n_cells, np.int32)  # rows of n_cells counts, flat
    at = first * n_cells  # where position i's current group starts in counts
    quota = groups * m_star  # texts position i still takes (later ones are left out)
    slot = np.zeros(n, np.int64)  # spread: position i's next group; else texts already in its current group
    for t in range(draws.size):
        row = grid[draws[t]]
        for i in range(ends[draws[t]]):
            c = row[i]
            if c < 0 or quota[i] == 0:
                continue
            quota[i] -= 1
            if spread:  # the r-th text reaching i joins group r mod groups[i]
                counts[at[i] + slot[i] * n_cells + c] += 1
                slot[i] = slot[i] + 1 if slot[i] + 1 < groups[i] else 0
            else:  # consecutive runs of m_star texts
                counts[at[i] + c] += 1
                slot[i] += 1
                if slot[i] == m_star:
                    slot[i] = 0
                    at[i] += n_cells
    out = np.zeros((n, n_cells))
    for i in range(n):
        for j in range(first[i] * n_cells, (first[i] + groups[i]) * n_cells):
            if counts[j]:
                out[i, j % n_cells] += np.sqrt(counts[j] / m_star)
        out[i] /= groups[i]
    return out


class EqualReach:
    """Sequence-major table of cells: ``grid[s, i]`` is the cell of text ``s`` at position ``i`` (-1: unreached)."""
    def __init__(self, inc: SequenceIncidence, resolution: Resolution):
        if resolution.vocab_size != inc.vocab_size:
            raise ValueError(f"the resolution indexes a vocabulary of {resolution.vocab_size} tokens, the corpus "
                             f"{inc.vocab_size}; fix the resolution on this corpus (choose_resolution)")
        n, m = inc.n_positions, inc.n_sequences
        self.n, self.m, self.C = n, m, resolution.n_cells
        self.m_star = resolution.texts_per_position
        position = inc.positions.astype(np.int32)[inc.cell]  # per token, through the (fewer) distinct cells
        cell_dtype = np.int16 if self.C < 2**15 else np.int32
        grid = np.full(m * n, -1, dtype=cell_dtype)
        grid[np.repeat(np.arange(0, m * n, n), inc.lengths) + position] = (
            resolution.cell_of_token()[inc.tokens].astype(cell_dtype)[inc.cell])
        grid = grid.reshape(m, n)
        if np.count_nonzero(grid >= 0) != inc.cell.size:
            raise ValueError("a sequence holds two tokens at one position; the resolved estimator needs one token "
                             "per sequence and position")
        self.grid = grid
        # one past each text's last reached position: the loops over a text's positions stop there
        self.ends = np.maximum.reduceat(position + 1, inc.indptr[:-1]).astype(np.int64)
        self.prefix = bool(np.array_equal(self.ends, inc.lengths))  # no text skips a position before its end
        self.reach = np.count_nonzero(grid >= 0, axis=0)
        self.least = int(np.argmin(self.reach))
        if self.reach[self.least] < 2 * self.m_star:
            raise ValueError(
                f"position {self.least} is reached by {self.reach[self.least]} texts, fewer than two halves of "
                f"texts_per_position={self.m_star}; fix the resolution on this corpus (or on a fraction that "
                "plans for it: choose_resolution(..., fraction=...)), or use fewer positions")

    def half(self, draws, *, spread=False):
        """``a_i`` of one half (mean over groups of ``m*`` texts); ``None`` if a position has fewer than ``m*``."""
        draws = np.ascontiguousarray(draws, dtype=np.int64)
        a = _group_roots(self.grid, self.ends, self.prefix, draws, self.m_star, self.C, spread)
        return None if a.shape[0] == 0 else a

    def split(self, texts_a, texts_b, *, spread=False):
        """``Q`` from the halves' texts; ``None`` if a position has fewer than ``m*`` texts in a half."""
        a = self.half(texts_a, spread=spread)
        if a is None:
            return None
        b = self.half(texts_b, spread=spread)
        return None if b is None else squared_from_gram(a @ b.T)


def resolved_splits(engine: EqualReach, units, drawn, *, rng, n_splits: int) -> np.ndarray:
    """``n_splits`` cross-fitted, equal-reach estimates of the resolved ``d_H^2`` from the units ``drawn``.

    A split halves the shuffled units; in each half the texts reaching position ``i`` are cut into ``g_i = floor(r_i
    / m*)`` disjoint groups of ``m*`` (remainder left out), so ``E[a_i] = alpha(mu_i)`` exactly; a split short of
    ``m*`` texts is redrawn. With groups of texts, the r-th text reaching ``i`` joins group ``r mod g_i``, so a unit's
    texts fall in different groups of ``m*`` (independent draws, as the estimand assumes).
    """
    eng = engine
    out = np.empty((n_splits, eng.n, eng.n))
    spread = units.grouped
    k = redraws = 0
    while k < n_splits:
        Q = eng.split(*units.shuffled_halves(drawn, rng), spread=spread)
        if Q is None:
            redraws += 1
            if redraws > _MAX_REDRAWS:
                raise ValueError(
                    f"position {eng.least} could not be seen through {eng.m_star} texts in both halves in "
                    f"{_MAX_REDRAWS} random splits; fix the resolution on this corpus with a smaller fraction "
                    "(choose_resolution(..., fraction=...)) or use fewer positions")
            continue
        out[k] = Q
        k += 1
    return out
