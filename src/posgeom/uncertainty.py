"""The sampling noise of Hellinger estimates: split-half noise floors and bootstrap confidence intervals.

The plug-in Hellinger distance between two *empirical* distributions is biased upward: two independent samples of
the same ``mu`` are not at distance 0. For a distribution with ``K`` atoms and samples of sizes ``m_1``, ``m_2``, the
delta method gives ``E[d_H^2] ~ (K - 1) / 8 * (1/m_1 + 1/m_2)``, and Zipfian vocabularies (many atoms seen once)
make it larger. Two tools make this noise measurable on any corpus:

* :func:`split_half_distances`: split the sequences at random into two halves and measure, for every position
  ``i``, the distance between the two halves' ``mu_i``: the **noise floor** at half the sample size. (By the formula
  above the floor of the full sample is about ``1/sqrt(2)`` of it in distance terms; the split-half value is the
  conservative, directly measured one.)
* :func:`bootstrap_statistic` (and :func:`bootstrap_distances`, :func:`bootstrap_stress`): resample *sequences* with
  replacement and recompute the statistic, giving percentile confidence intervals. Resampling whole sequences keeps
  the dependence between the positions of one sequence.

Efficiency: the corpus is tokenised once into a :class:`SequenceIncidence` (which cell ``(position, token)`` each
token of each sequence falls in). A resample is a vector of per-sequence multiplicities ``w`` (multinomial, drawn as
``bincount`` of ``m`` uniform draws); its counts are ``np.bincount(cell, weights=repeat(w, lengths))``: one pass
over the tokens, no re-tokenisation.

Inputs: every function takes either a :class:`SequenceIncidence` (e.g. from :func:`posgeom.text.corpus_incidence`
for real text) or token id sequences (a 2-D int array such as :func:`posgeom.synthetic_corpus`, or a list of 1-D
arrays) together with ``n_positions``, ``vocab_size`` and optionally ``pad_id``, with the counting conventions of
:func:`posgeom.position_counts`.

Seeds: every random function requires ``seed``; the same seed gives the same numbers.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._io import atomic_open
from ._validation import check_distance_matrix, check_matrix, check_positive_int
from .geometry import hellinger_distances, hellinger_from_products
from .statistics import _check_arguments, flat_tokens
from .stress import pairwise_distances, stress_of_distances

# Up to this many (position, token) cells, sequence incidences index cells with a bincount instead of a sort.
_DENSE_KEY_CELLS = 1 << 25

__all__ = [
    "SequenceIncidence",
    "BootstrapResult",
    "split_half_distances",
    "bootstrap_statistic",
    "bootstrap_distances",
    "bootstrap_stress",
]


class SequenceIncidence:
    """Which (position, token) cell every counted token of every sequence falls in.

    Equivalent to a sparse ``m x (n V)`` 0/1 matrix with one row per sequence, stored compactly: ``indptr`` (the
    token range of each sequence), ``cell`` (for each token, an index into ``cells``) and ``cells`` (the sorted flat
    keys ``position * V + token`` that occur). Sequences that contribute no token (empty after the convention) are
    left out: they carry no information about any ``mu_i``.

    Build it with :meth:`from_sequences` (token ids) or :func:`posgeom.text.corpus_incidence` (text).
    """

    def __init__(self, indptr, cell, cells, n_positions: int, vocab_size: int):
        self.n_positions = check_positive_int(n_positions, "n_positions")
        self.vocab_size = check_positive_int(vocab_size, "vocab_size")
        self.indptr = np.asarray(indptr, dtype=np.int64)
        self.cell = np.asarray(cell, dtype=np.int32 if len(cells) < 2**31 else np.int64)
        self.cells = np.asarray(cells, dtype=np.int64)
        if self.indptr.ndim != 1 or self.indptr.size < 2 or self.indptr[0] != 0 or self.indptr[-1] != self.cell.size:
            raise ValueError("indptr must start at 0, end at len(cell) and hold at least one sequence")
        if np.any(np.diff(self.indptr) <= 0):
            raise ValueError("every sequence of an incidence must hold at least one token")
        if self.cells.size and (np.any(np.diff(self.cells) <= 0) or self.cells[0] < 0
                                or self.cells[-1] >= self.n_positions * self.vocab_size):
            raise ValueError("cells must be strictly increasing keys in [0, n_positions * vocab_size)")
        if self.cell.size and (self.cell.min() < 0 or self.cell.max() >= self.cells.size):
            raise ValueError("cell indices must lie in [0, len(cells))")
        self.positions, self.tokens = np.divmod(self.cells, self.vocab_size)
        # Dense column index over the tokens that occur anywhere (distances ignore never-seen tokens).
        self.used_tokens, self.columns = np.unique(self.tokens, return_inverse=True)
        self._lengths = np.diff(self.indptr)

    # -- construction ---------------------------------------------------------------------------------------
    @classmethod
    def from_sequences(cls, sequences, n_positions: int, vocab_size: int, *, pad_id: int | None = None):
        """Build the incidence of token id sequences, with the conventions of :func:`posgeom.position_counts`.

        Parameters
        ----------
        sequences : 2-D int array or iterable of 1-D int arrays
        n_positions : int
            Tokens at positions ``>= n`` are truncated away.
        vocab_size : int
        pad_id : int, optional
            If given, sequences shorter than ``n`` are padded with ``pad_id`` and the pads are counted.
        """
        n, V, _ = _check_arguments(n_positions, vocab_size, pad_id)
        positions, ids = flat_tokens(sequences, n, V, pad_id=pad_id)
        if ids.size == 0:
            raise ValueError("the sequences hold no token within the first n_positions positions")
        starts = np.flatnonzero(positions == 0)  # every non-empty sequence starts at position 0
        indptr = np.append(starts, ids.size)
        keys = positions * V + ids
        if n * V <= _DENSE_KEY_CELLS:  # O(N): a bincount and a lookup table instead of sorting every token
            seen = np.bincount(keys, minlength=n * V) > 0
            cells = np.flatnonzero(seen)
            lookup = np.cumsum(seen) - 1
            cell = lookup[keys]
        else:
            cells, cell = np.unique(keys, return_inverse=True)
        return cls(indptr, cell.ravel(), cells, n, V)

    @classmethod
    def concatenate(cls, parts):
        """Stack the sequences of several incidences (same ``n_positions`` and ``vocab_size``)."""
        parts = list(parts)
        if not parts:
            raise ValueError("nothing to concatenate")
        n, V = parts[0].n_positions, parts[0].vocab_size
        if any(p.n_positions != n or p.vocab_size != V for p in parts):
            raise ValueError("all parts must have the same n_positions and vocab_size")
        cells = np.unique(np.concatenate([p.cells for p in parts]))
        cell = np.concatenate([np.searchsorted(cells, p.cells)[p.cell] for p in parts])
        lengths = np.concatenate([np.diff(p.indptr) for p in parts])
        indptr = np.concatenate(([0], np.cumsum(lengths)))
        return cls(indptr, cell, cells, n, V)

    # -- persistence ----------------------------------------------------------------------------------------
    def save(self, path) -> None:
        """Write to an ``.npz`` file atomically (temporary file + ``os.replace``)."""
        with atomic_open(path) as fh:
            np.savez(fh, indptr=self.indptr, cell=self.cell, cells=self.cells,
                     shape=np.array([self.n_positions, self.vocab_size]))

    @classmethod
    def load(cls, path):
        """Read an incidence written by :meth:`save` (plain arrays; ``allow_pickle=False``)."""
        with np.load(path, allow_pickle=False) as z:
            n, V = (int(x) for x in z["shape"])
            return cls(z["indptr"], z["cell"], z["cells"], n, V)

    # -- statistics -----------------------------------------------------------------------------------------
    @property
    def n_sequences(self) -> int:
        """Number of (non-empty) sequences ``m``."""
        return int(self._lengths.size)

    @property
    def lengths(self) -> np.ndarray:
        """Tokens counted per sequence (after truncation/padding)."""
        return self._lengths

    def __repr__(self) -> str:
        return (f"SequenceIncidence({self.n_sequences} sequences, {self.cell.size} tokens, n_positions="
                f"{self.n_positions}, vocab_size={self.vocab_size}, {self.cells.size} distinct cells)")

    def _check_weights(self, weights):
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (self.n_sequences,):
            raise ValueError(f"weights must have shape ({self.n_sequences},) (one per sequence), got {w.shape}")
        if not np.all(np.isfinite(w)) or w.min() < 0:
            raise ValueError("weights must be finite and non-negative")
        return w

    def cell_counts(self, weights=None) -> np.ndarray:
        """Counts per cell (aligned with ``cells``); sequence ``s`` counts ``weights[s]`` times (default 1)."""
        if weights is None:
            return np.bincount(self.cell, minlength=self.cells.size).astype(np.int64)
        w = self._check_weights(weights)
        return np.bincount(self.cell, weights=np.repeat(w, self._lengths), minlength=self.cells.size)

    def counts(self, weights=None) -> sp.csr_matrix:
        """The (n, V) position counts (as :func:`posgeom.position_counts` would give), optionally weighted."""
        c = self.cell_counts(weights)
        keep = c > 0
        return sp.csr_matrix((c[keep], (self.positions[keep], self.tokens[keep])),
                             shape=(self.n_positions, self.vocab_size))

    def sequences_per_position(self, weights=None) -> np.ndarray:
        """How many sequences enter each position (weighted): the sample size behind each ``mu_i``."""
        return np.bincount(self.positions, weights=self.cell_counts(weights), minlength=self.n_positions)

    def sqrt_distributions(self, weights=None) -> np.ndarray:
        """Dense ``sqrt(mu_i)`` over the tokens that occur (n x U), for the given sequence weights.

        Raises a ValueError naming the first position that receives no observation.
        """
        c = self.cell_counts(weights).astype(np.float64)
        totals = np.bincount(self.positions, weights=c, minlength=self.n_positions)
        empty = np.flatnonzero(totals <= 0)
        if empty.size:
            raise ValueError(
                f"position {int(empty[0])} receives no observation ({empty.size} empty position(s)); mu_i is "
                "undefined there. Use fewer positions (or count padding) so that every position has enough sequences"
            )
        S = np.zeros((self.n_positions, self.used_tokens.size))
        S[self.positions, self.columns] = np.sqrt(c / totals[self.positions])
        return S

    def hellinger(self, weights=None) -> np.ndarray:
        """Hellinger distances between the positions' ``mu_i`` (via :func:`posgeom.hellinger_distances`).

        Computed with single-threaded BLAS, as in the resampling loops, so that an estimate computed here and the
        same estimate inside :func:`bootstrap_statistic` agree to the last bit.
        """
        S = self.sqrt_distributions(weights)
        with _single_threaded_blas():
            return hellinger_distances(S * S)


def _as_incidence(data, n_positions, vocab_size, pad_id) -> SequenceIncidence:
    if isinstance(data, SequenceIncidence):
        if n_positions is not None or vocab_size is not None or pad_id is not None:
            raise TypeError("n_positions, vocab_size and pad_id are fixed by the SequenceIncidence; do not pass them")
        return data
    if n_positions is None or vocab_size is None:
        raise TypeError(
            "token id sequences need n_positions= and vocab_size= (or pass a SequenceIncidence, e.g. from "
            "posgeom.text.corpus_incidence)"
        )
    return SequenceIncidence.from_sequences(data, n_positions, vocab_size, pad_id=pad_id)


@contextlib.contextmanager
def _single_threaded_blas():
    """Run BLAS on one thread: the many small products of a resampling loop gain nothing from threads (on shared
    machines multi-threaded OpenBLAS can be 10-100x slower on them), and one thread makes the sums bit-reproducible
    whatever the core count."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def _check_seed(seed) -> int:
    return check_positive_int(seed, "seed", minimum=0)


def split_half_distances(data, *, seed: int, n_splits: int = 1, n_positions: int | None = None,
                         vocab_size: int | None = None, pad_id: int | None = None) -> np.ndarray:
    """The noise floor: distance of each position's ``mu_i`` to itself between two random halves of the sequences.

    Parameters
    ----------
    data : SequenceIncidence, or token id sequences
        With sequences, also pass ``n_positions`` and ``vocab_size`` (and ``pad_id`` to count padding).
    seed : int
        Seed of the random splits.
    n_splits : int, default 1
        Number of independent random splits.

    Returns
    -------
    (n_splits, n) float array
        ``out[k, i] = d_H(mu_i^A, mu_i^B)`` for the ``k``-th split of the ``m`` sequences into halves of sizes
        ``floor(m/2)`` and ``ceil(m/2)``. Its expectation is the plug-in bias at half the sample size; a between-
        position distance at or below it is not distinguishable from sampling noise.

    Raises
    ------
    ValueError
        A position receives no sequence in one half (too few sequences reach it): use fewer positions.
    """
    inc = _as_incidence(data, n_positions, vocab_size, pad_id)
    seed = _check_seed(seed)
    n_splits = check_positive_int(n_splits, "n_splits")
    m = inc.n_sequences
    if m < 2:
        raise ValueError("split-half needs at least 2 sequences")
    rng = np.random.default_rng(seed)
    out = np.empty((n_splits, inc.n_positions))
    for k in range(n_splits):  # row-wise products only: no BLAS matrix product here
        half = np.zeros(m)
        half[rng.permutation(m)[: m // 2]] = 1.0
        try:
            SA = inc.sqrt_distributions(half)
            SB = inc.sqrt_distributions(1.0 - half)
        except ValueError as exc:
            raise ValueError(f"split-half: {exc}") from None
        # Paired (row-wise) Hellinger distance, by the formula of posgeom.geometry
        out[k] = hellinger_from_products(np.einsum("ij,ij->i", SA, SA), np.einsum("ij,ij->i", SB, SB),
                                         np.einsum("ij,ij->i", SA, SB))
    return out


@dataclass(frozen=True)
class BootstrapResult:
    """Bootstrap replicates of a statistic and their percentile confidence interval.

    Attributes
    ----------
    estimate : float or ndarray
        The statistic on the original sample.
    samples : ndarray, shape ``(n_boot, *shape)``
        The statistic on each resample.
    confidence : float
        Coverage of the percentile interval, e.g. 0.95.
    seed : int
    """

    estimate: float | np.ndarray
    samples: np.ndarray
    confidence: float
    seed: int

    @property
    def lower(self):
        """Lower end of the percentile interval: the ``(1 - confidence)/2`` quantile of the replicates."""
        return np.quantile(self.samples, (1 - self.confidence) / 2, axis=0)

    @property
    def upper(self):
        """Upper end of the percentile interval: the ``(1 + confidence)/2`` quantile of the replicates."""
        return np.quantile(self.samples, (1 + self.confidence) / 2, axis=0)

    @property
    def basic_interval(self):
        """The basic (reverse-percentile) interval ``(2 estimate - upper, 2 estimate - lower)``.

        It corrects the percentile interval for the shift of the replicates: use it when :attr:`bias` is not small
        against :attr:`standard_error` (the plug-in Hellinger distance is biased upward, so resampling adds noise on
        top of noise and the replicates sit systematically above the estimate).
        """
        return 2 * np.asarray(self.estimate) - self.upper, 2 * np.asarray(self.estimate) - self.lower

    @property
    def standard_error(self):
        """Standard deviation of the replicates (ddof=1)."""
        return np.std(self.samples, axis=0, ddof=1)

    @property
    def bias(self):
        """Mean replicate minus estimate: the bootstrap estimate of the plug-in estimator's bias."""
        return np.mean(self.samples, axis=0) - self.estimate


def _check_confidence(confidence) -> float:
    confidence = float(confidence)
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    return confidence


def bootstrap_statistic(data, statistic, *, seed: int, n_boot: int = 200, confidence: float = 0.95,
                        n_positions: int | None = None, vocab_size: int | None = None,
                        pad_id: int | None = None, dtype=np.float64) -> BootstrapResult:
    """Bootstrap over sequences of any statistic of the Hellinger distance matrix.

    Parameters
    ----------
    data : SequenceIncidence, or token id sequences (then also ``n_positions``, ``vocab_size``, ``pad_id``)
    statistic : callable
        ``statistic(D) -> float or ndarray`` with ``D`` the (n x n) Hellinger distance matrix of a (re)sample.
    seed : int
        Seed of the resampling.
    n_boot : int, default 200
        Number of resamples.
    confidence : float, default 0.95
    dtype : numpy dtype, default float64
        Storage type of the replicates (float32 halves the memory of matrix-valued statistics).

    Returns
    -------
    BootstrapResult

    Notes
    -----
    Each resample draws ``m`` sequences uniformly with replacement (``w = bincount(integers(0, m, m))``). The cost
    of a resample is one pass over the tokens plus one Hellinger matrix (an ``n x n x U`` product over the ``U``
    tokens that occur), computed with single-threaded BLAS (faster for these products, and bit-reproducible). A resample that leaves a position without observations raises a ValueError: use fewer
    positions. Percentile intervals describe sampling variability; they are not centred on the true value when the
    estimator is biased (see :attr:`BootstrapResult.bias`).
    """
    inc = _as_incidence(data, n_positions, vocab_size, pad_id)
    seed = _check_seed(seed)
    n_boot = check_positive_int(n_boot, "n_boot", minimum=2)
    confidence = _check_confidence(confidence)
    if not callable(statistic):
        raise TypeError("statistic must be a callable D -> float or array")
    with _single_threaded_blas():
        estimate = np.asarray(statistic(inc.hellinger()), dtype=np.float64)
        rng = np.random.default_rng(seed)
        m = inc.n_sequences
        samples = np.empty((n_boot,) + estimate.shape, dtype=dtype)
        for b in range(n_boot):
            w = np.bincount(rng.integers(0, m, size=m), minlength=m)
            try:
                D = inc.hellinger(w)
            except ValueError as exc:
                raise ValueError(f"bootstrap resample {b}: {exc}") from None
            samples[b] = statistic(D)
    est = float(estimate) if estimate.ndim == 0 else estimate
    return BootstrapResult(estimate=est, samples=samples, confidence=confidence, seed=seed)


def bootstrap_distances(data, *, seed: int, n_boot: int = 200, confidence: float = 0.95,
                        n_positions: int | None = None, vocab_size: int | None = None,
                        pad_id: int | None = None, dtype=np.float32) -> BootstrapResult:
    """Bootstrap the whole (n x n) Hellinger distance matrix; percentile intervals for every entry.

    Same parameters as :func:`bootstrap_statistic`. Replicates are stored as ``float32`` by default
    (``n_boot * n^2 * 4`` bytes; 200 MB at ``n = 512``, ``n_boot = 200``): pass a reduced statistic to
    :func:`bootstrap_statistic` when memory matters.
    """
    return bootstrap_statistic(data, lambda D: D, seed=seed, n_boot=n_boot, confidence=confidence,
                               n_positions=n_positions, vocab_size=vocab_size, pad_id=pad_id, dtype=dtype)


_KINDS = ("encoding", "distances")


def _induced_distances(encoding_or_distances, kind, n):
    X = encoding_or_distances
    if kind is None:
        X = check_matrix(X, "encoding_or_distances", min_rows=2)
        kind = "encoding"
        if X.shape == (n, n):
            try:
                check_distance_matrix(X, "encoding_or_distances")
                kind = "distances"
            except ValueError:
                kind = "encoding"
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {_KINDS} or None (auto), got {kind!r}")
    if kind == "distances":
        E = check_distance_matrix(X, "distances")
    else:
        E = pairwise_distances(X)
    if E.shape != (n, n):
        raise ValueError(
            f"the encoding/distances describe {E.shape[0]} positions but the corpus statistics have n={n}; "
            "use the same number of positions"
        )
    return E


def bootstrap_stress(encoding_or_distances, data, *, seed: int, scale: str = "raw", kind: str | None = None,
                     n_boot: int = 200, confidence: float = 0.95, n_positions: int | None = None,
                     vocab_size: int | None = None, pad_id: int | None = None) -> BootstrapResult:
    """Bootstrap confidence interval for the stress of an encoding against the corpus's Hellinger distances.

    Parameters
    ----------
    encoding_or_distances : (n, d) array, (n, n) distance array, or callable
        An encoding ``P`` (rows = positions), the distances ``E`` it induces (for relative schemes), or a callable
        ``D -> P or E`` that is *refitted* on every resample (e.g. ``lambda D: classical_mds(D, rank=3).embedding``)
        so that the interval includes the fitting noise.
    data : SequenceIncidence, or token id sequences (then also ``n_positions``, ``vocab_size``, ``pad_id``)
    seed : int
    scale : {"raw", "optimal"}, default "raw"
        As in :func:`posgeom.stress_of_distances`.
    kind : {"encoding", "distances"}, optional
        How to read an array. ``None`` (auto): an ``n x n`` array that is a valid distance matrix (symmetric,
        non-negative, zero diagonal) is read as distances, anything else as an encoding.
    n_boot, confidence
        As in :func:`bootstrap_statistic`.

    Returns
    -------
    BootstrapResult with scalar samples.
    """
    inc = _as_incidence(data, n_positions, vocab_size, pad_id)
    n = inc.n_positions
    if callable(encoding_or_distances):
        fit = encoding_or_distances

        def statistic(D):
            return stress_of_distances(_induced_distances(fit(D), kind, n), D, scale=scale)
    else:
        E = _induced_distances(encoding_or_distances, kind, n)

        def statistic(D):
            return stress_of_distances(E, D, scale=scale)

    return bootstrap_statistic(inc, statistic, seed=seed, n_boot=n_boot, confidence=confidence)
