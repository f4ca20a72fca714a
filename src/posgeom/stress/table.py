"""The stress table: how well the encodings in use reproduce a corpus's positional geometry.

One table compares many encodings against one target distance matrix ``D`` (e.g. Hellinger distances between the
positional distributions ``mu_i`` of a corpus under a stated counting convention). Each row is a
:class:`Candidate`: a name, a description, and a rule that turns ``D`` into the distance ``E`` the encoding induces
between positions. Most candidates ignore ``D`` (sinusoidal, RoPE, ALiBi, T5, learned); the MDS candidates are
*fitted* to ``D``.

Columns (see :mod:`posgeom.stress` for the definitions):

* **raw stress** ``sum_{i<j} (E_ij - D_ij)^2 / sum_{i<j} D_ij^2``, the paper's definition, which depends on the
  scale of ``E`` (and so on conventions such as ALiBi's slope or the width ``d``);
* **scale-optimal stress** ``min_a stress(a E)``, in ``[0, 1]``: the shape of ``E`` only;
* **bootstrap intervals** for both, when the data behind ``D`` are given: whole *sequences* are resampled with
  replacement, ``D`` is recomputed, candidates that depend on ``D`` (MDS) are *refitted* on every resample, and
  every row is evaluated on the *same* resamples (one Hellinger matrix per resample for the whole table). Fixed
  encodings (including a model trained from scratch) are not retrained: their interval describes the sampling
  noise of the corpus statistics only. The Monte Carlo error of every interval end is stored with it.

**Which estimator of D.** Every table states it (``StressTable.estimator``, and in every output format):

* ``"corrected"`` (the default): the cross-fitted, bias-corrected Hellinger distances of
  :func:`posgeom.geometry.corrected_distances`, with intervals from :func:`posgeom.geometry.bootstrap_corrected`
  (*centred* percentile intervals: the point estimate plus the quantiles of the replicates' deviations from their
  mean, so an interval contains its own estimate).
* ``"plugin"``: the plug-in distances of the empirical ``mu_i`` (:func:`posgeom.geometry.plugin_distances`),
  biased upward by sampling noise (the split-half noise floor), with intervals from
  :func:`posgeom.geometry.bootstrap_statistic`. Its replicates are shifted away from the estimate (a resample
  repeats sequences, so has more plug-in noise), and a percentile interval can then exclude its own estimate.

Conventions of :func:`standard_candidates` (the book's table), each also stated in the row's description:

* **sinusoidal**: :func:`posgeom.sinusoidal_encoding` of width ``d`` (the model's width).
* **RoPE**: the distance between the rotated copies of one unit-block vector in every head,
  ``sqrt(n_heads) * rope_distances(n, d_head)`` (:func:`posgeom.encodings.rope_distances`, head width
  ``d_head = d / n_heads``): all heads together rotate ``d / 2`` blocks, as many as the sinusoidal encoding of width
  ``d`` has, so the two share their scale and differ only in the frequency grid (``d_head / 2`` frequencies, each
  used by ``n_heads`` heads, against ``d / 2``). One head alone is ``1 / sqrt(n_heads)`` of this, a scale that only
  raw stress sees.
* **ALiBi**: the heads' linear biases ``-m_h |i - j|`` (slopes of Press et al. for ``n_heads`` heads,
  :func:`posgeom.encodings.alibi_slopes`), read as the distance between the concatenated one-dimensional
  configurations ``x_i = (m_1 i, ..., m_h i)``: ``||m||_2 |i - j|``. Rank 1; its scale-optimal stress does not
  depend on the slopes at all.
* **T5 buckets**: :func:`posgeom.encodings.t5_bucket_distances` (32 buckets, maximum distance 128, bidirectional).
* **learned (pretrained)**: rows ``offset .. offset + n - 1`` of a pretrained model's position embeddings
  (:func:`posgeom.data.learned_position_embeddings`). ``offset`` maps the corpus's position ``i`` to the
  model's position ``i + offset``: 0 when ``mu_0`` counts ``[CLS]`` (BERT's position 0), 1 when only word pieces are
  counted (the first word piece sits at BERT's position 1).
* **learned (from scratch)**: an encoding matrix supplied by the caller (e.g. the position table of a small
  Transformer trained here), with the same ``offset`` rule.
* **constant (no order)**: ``E_ij = 1`` for every ``i != j``, a reference row: the stress of an encoding that
  separates every position equally and carries no order at all (a random high-dimensional table is close to it).
  Its scale-optimal stress is ``1 - (sum D)^2 / (N sum D^2)`` over the ``N`` pairs: small when ``D`` is nearly
  constant off the diagonal, e.g. when sampling noise dominates it.
* **MDS**: classical MDS of ``D`` (Algorithm 1) at full rank (the positive part of ``B``) and at ranks
  ``1, 2, 3``. Placing the configuration in ``R^d`` by an orthonormal map (:func:`posgeom.encodings.mds_encoding`)
  keeps every distance, so the row is computed from the configuration itself.

:func:`shift_invariant_decomposition` explains the table: the exact split of a shift-invariant encoding's
scale-optimal stress into the corpus's departure from shift-equivariance and the mismatch of lag profiles. The
"learned (from scratch)" row takes a table trained by :func:`posgeom.studies.scratch_position_embeddings`.
"""

from __future__ import annotations

import contextvars
import copy
import csv
import io
import math
import numbers
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_confidence, check_distance_matrix, check_matrix, check_positive_int, check_rng
from ..encodings.absolute import sinusoidal_encoding
from ..encodings.relative import alibi_slopes
from ..encodings.schemes import induced_distances
from ..geometry.estimators import _distances_from_squared, plugin_distances
from ..geometry.euclidean import pairwise_distances
from ..geometry.mds import classical_mds

__all__ = [
    "Candidate",
    "fixed_distances",
    "fixed_encoding",
    "mds_candidate",
    "standard_candidates",
    "StressRow",
    "StressTable",
    "stress_table",
    "ShiftInvariantStress",
    "shift_invariant_decomposition",
]


_INTERVALS = ("percentile", "basic")
# Within one table evaluation (one target D), the MDS rows share one eigendecomposition of B.
_MDS_CACHE: contextvars.ContextVar = contextvars.ContextVar("posgeom_mds_cache", default=None)
ESTIMATORS = ("resolved", "corrected", "plugin")
_ESTIMATOR_LABELS = {"resolved": "resolved (fixed vocabulary resolution, equal reach)",
                     "corrected": "corrected (cross-fitted)", "plugin": "plug-in"}


def _check_estimator(estimator) -> str:
    if estimator not in ESTIMATORS:
        raise ValueError(
            f"estimator must be one of {ESTIMATORS} or posgeom.geometry.Resolved() (the estimator of the Hellinger "
            f"distances D): 'corrected' for "
            f"the cross-fitted, bias-corrected distances, 'plugin' for the plug-in ones; got {estimator!r}"
        )
    return estimator


@dataclass(frozen=True)
class Candidate:
    """One row of a stress table: an encoding and how it induces distances between positions.

    Attributes
    ----------
    name : str
        Short row label, unique within a table (e.g. ``"sinusoidal"``, ``"MDS rank 1"``).
    description : str
        The conventions behind the row (width, slopes, model, offset, ...), printed in the table.
    distances : callable
        ``distances(D) -> E``: the (n x n) distance matrix the encoding induces, given the target ``D``. Fixed
        encodings ignore ``D``; fitted ones (MDS) compute ``E`` from it.
    fitted : bool
        True if ``E`` depends on ``D``; such rows are refitted on every bootstrap resample.

    Raises
    ------
    ValueError
        An empty name.
    TypeError
        A non-string description, a non-callable ``distances`` or a non-bool ``fitted``.

    Examples
    --------
    >>> c = Candidate("ruler", "E_ij = |i - j|", lambda D: np.abs(np.subtract.outer(np.arange(3.0), np.arange(3.0))))
    >>> c.name, c.fitted, c.distances(None)[0]
    ('ruler', False, array([0., 1., 2.]))
    """

    name: str
    description: str
    distances: Callable[[np.ndarray], np.ndarray]
    fitted: bool = False

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"a candidate needs a non-empty name, got {self.name!r}")
        if not isinstance(self.description, str):
            raise TypeError(f"description must be a string, got {type(self.description).__name__}")
        if not callable(self.distances):
            raise TypeError("distances must be a callable D -> E (the induced (n x n) distance matrix)")
        if not isinstance(self.fitted, bool):
            raise TypeError(f"fitted must be True or False, got {self.fitted!r}")


def fixed_distances(name: str, E, description: str = "") -> Candidate:
    """A candidate given by its induced distance matrix ``E`` (n x n), e.g. a relative scheme's.

    Parameters
    ----------
    name : str
        Row label.
    E : (n, n) array_like
        The induced distances (validated, stored read-only); the row ignores the target ``D``.
    description : str, default ""
        Conventions behind the row.

    Returns
    -------
    Candidate
        A row with ``fitted=False``.

    Raises
    ------
    ValueError
        ``E`` is not a valid distance matrix, or an empty name.

    Examples
    --------
    >>> from posgeom.encodings import alibi_distances
    >>> c = fixed_distances("ALiBi", alibi_distances(3), "slope 1")
    >>> c.distances(None)[0], c.fitted
    (array([0., 1., 2.]), False)
    """
    E = check_distance_matrix(E, f"{name}: E")
    E.setflags(write=False)
    return Candidate(name, description, lambda D: E, fitted=False)


def fixed_encoding(name: str, P, description: str = "") -> Candidate:
    """A candidate given by an absolute encoding ``P`` (n x d, rows = positions); ``E_ij = ||p_i - p_j||``.

    Parameters
    ----------
    name : str
        Row label.
    P : (n, d) array_like
        The encoding, rows are positions (``n >= 2``).
    description : str, default ""
        Conventions behind the row.

    Returns
    -------
    Candidate
        A row with ``fitted=False`` whose distances are the Euclidean row distances of ``P``.

    Raises
    ------
    ValueError
        ``P`` is not a finite 2-D array with at least 2 rows, or an empty name.

    Examples
    --------
    >>> fixed_encoding("line", [[0.0], [3.0]]).distances(None)
    array([[0., 3.],
           [3., 0.]])
    """
    P = check_matrix(P, f"{name}: P", min_rows=2)
    return fixed_distances(name, pairwise_distances(P), description)


def mds_candidate(rank: int | None = None, *, name: str | None = None, tol: float | None = None) -> Candidate:
    """Classical MDS of the target itself (Algorithm 1), at ``rank`` dimensions (``None``: full positive part).

    The row is refitted on every bootstrap resample, so its interval includes the fitting noise.

    Parameters
    ----------
    rank : int, optional
        MDS dimensions; ``None`` keeps the positive part of ``B``.
    name : str, optional
        Row label; default ``"MDS full rank"`` or ``"MDS rank <r>"``.
    tol : float, optional
        Eigenvalue tolerance of :func:`posgeom.classical_mds`.

    Returns
    -------
    Candidate
        A row with ``fitted=True``.

    Raises
    ------
    ValueError, TypeError
        If ``rank`` is not a positive integer.

    Examples
    --------
    >>> D = np.abs(np.subtract.outer(np.arange(4.0), np.arange(4.0)))
    >>> c = mds_candidate(1)
    >>> c.name, c.fitted, np.allclose(c.distances(D), D)
    ('MDS rank 1', True, True)
    """
    if rank is not None:
        rank = check_positive_int(rank, "rank")
    label = name or ("MDS full rank" if rank is None else f"MDS rank {rank}")
    what = "positive part of B (numerical rank)" if rank is None else f"top {rank} eigenpair(s) of B"
    description = f"classical MDS of D, {what}; fitted to D"

    def distances(D):
        cache = _MDS_CACHE.get()
        if cache is None:  # outside a table evaluation
            return pairwise_distances(classical_mds(D, rank, tol=tol).embedding)
        key = ("mds", tol)
        if key not in cache:  # one eigendecomposition of B per target D, shared by every MDS row
            cache[key] = classical_mds(D, None, tol=tol)
        fit = cache[key]
        if rank is not None and rank > fit.rank:
            return pairwise_distances(classical_mds(D, rank, tol=tol).embedding)  # raises the documented error
        r = fit.rank if rank is None else rank
        return pairwise_distances(fit.eigenvectors[:, :r] * np.sqrt(fit.eigenvalues[:r]))

    return Candidate(label, description, distances, fitted=True)


def _slice_rows(P, offset: int, n: int, what: str) -> np.ndarray:
    P = check_matrix(P, what, min_rows=2)
    offset = check_positive_int(offset, "offset", minimum=0)
    if offset + n > P.shape[0]:
        raise ValueError(
            f"{what} has {P.shape[0]} positions but rows {offset}..{offset + n - 1} are needed (n={n}, "
            f"offset={offset}); use n <= {P.shape[0] - offset}"
        )
    return P[offset:offset + n]


def standard_candidates(
    n: int,
    *,
    d: int = 384,
    n_heads: int = 12,
    model: str | os.PathLike | None = None,
    pretrained=None,
    scratch=None,
    offset: int = 0,
    mds_ranks: Sequence[int] = (1, 2, 3),
    t5: bool = True,
    constant: bool = True,
    base: float = 10000.0,
) -> list[Candidate]:
    """The book's rows, in the book's order (see the module docstring for every convention).

    sinusoidal, RoPE, ALiBi, T5 buckets (if ``t5``), learned (pretrained, if ``model`` or ``pretrained``), learned
    (from scratch, if ``scratch``), constant (if ``constant``), MDS full rank, MDS at each rank of ``mds_ranks``.

    Parameters
    ----------
    n : int
        Number of positions (``>= 2``).
    d : int, default 384
        Model width of the sinusoidal encoding (all-MiniLM-L6-v2: 384; bert-base-uncased: 768). Even.
    n_heads : int, default 12
        Attention heads: sets RoPE's head width ``d / n_heads`` (must be even) and ALiBi's slopes. Both models
        above have 12.
    model : str, path or None, default None
        Name of the pretrained model, used as the label of the "learned (pretrained)" row; requires ``pretrained``.
    pretrained : (max_positions, d') array, optional
        The pretrained position embeddings (e.g. ``posgeom.data.learned_position_embeddings(model)``); the stress
        layer never loads files itself.
    scratch : (max_positions, d') array, optional
        Position embeddings of a model trained from scratch.
    offset : int, default 0
        Corpus position ``i`` is the model's position ``i + offset`` (learned rows only; the other schemes are
        shift-invariant).
    mds_ranks : sequence of int, default (1, 2, 3)
        Truncated MDS rows (besides full rank).
    t5 : bool, default True
        Include the T5 bucket row.
    constant : bool, default True
        Include the reference row "constant (no order)".
    base : float, default 10000.0
        Frequency base of sinusoidal and RoPE.

    Returns
    -------
    list of Candidate
        The rows, in the book's order.

    Raises
    ------
    ValueError
        ``d`` not divisible by ``n_heads`` or an odd head width, ``model`` without ``pretrained``, or a learned table
        with too few rows for ``offset + n``.
    TypeError
        Non-bool ``t5`` or ``constant``, or non-integer sizes.

    Examples
    --------
    >>> [c.name for c in standard_candidates(8, d=16, n_heads=2, mds_ranks=(1,))]
    ['sinusoidal', 'RoPE', 'ALiBi', 'T5 buckets', 'constant (no order)', 'MDS full rank', 'MDS rank 1']
    """
    n = check_positive_int(n, "n", minimum=2)
    d = check_positive_int(d, "d")
    n_heads = check_positive_int(n_heads, "n_heads")
    offset = check_positive_int(offset, "offset", minimum=0)
    if d % n_heads:
        raise ValueError(f"d={d} must be divisible by n_heads={n_heads}")
    d_head = d // n_heads
    if d_head % 2:
        raise ValueError(f"RoPE needs an even head width, but d / n_heads = {d_head}; change d or n_heads")
    for flag, value in (("t5", t5), ("constant", constant)):
        if not isinstance(value, bool):
            raise TypeError(f"{flag} must be True or False, got {value!r}")
    ranks = [check_positive_int(r, "each MDS rank") for r in mds_ranks]

    m = float(np.linalg.norm(alibi_slopes(n_heads)))
    rows = [
        fixed_encoding("sinusoidal", sinusoidal_encoding(n, d, base), f"Vaswani et al., d={d}, base={base:g}"),
        fixed_distances("RoPE", induced_distances("rope", n, d_model=d, n_heads=n_heads, base=base),
                        f"{n_heads} heads of d_head={d_head}, unit blocks, base={base:g}"),
        fixed_distances("ALiBi", induced_distances("alibi", n, d_model=d, n_heads=n_heads),
                        f"||m|| |i-j|, {n_heads} heads' slopes (||m||={m:.3g}); rank 1"),
    ]
    if t5:
        rows.append(fixed_distances("T5 buckets", induced_distances("t5", n, d_model=d, n_heads=n_heads),
                                    "bucket(|i-j|), 32 buckets, max distance 128"))
    off = f", model positions {offset}..{offset + n - 1}"
    if pretrained is not None or model is not None:
        label = str(model) if model is not None else "given"
        if pretrained is None:
            raise ValueError(f"model={model!r} names the pretrained row but no table was given; pass "
                             f"pretrained=posgeom.data.learned_position_embeddings({model!r})")
        P = _slice_rows(pretrained, offset, n, "pretrained position embeddings")
        rows.append(fixed_encoding("learned (pretrained)", P, f"{label}, d={P.shape[1]}{off}"))
    if scratch is not None:
        P = _slice_rows(scratch, offset, n, "from-scratch position embeddings")
        rows.append(fixed_encoding("learned (from scratch)", P, f"trained here, d={P.shape[1]}{off}"))
    if constant:
        E = np.ones((n, n)) - np.eye(n)
        rows.append(fixed_distances("constant (no order)", E, "E_ij = 1 for i != j; reference"))
    rows.append(mds_candidate(None))
    rows.extend(mds_candidate(r) for r in ranks)
    return rows


@dataclass(frozen=True)
class StressRow:
    """One evaluated row of a :class:`StressTable`.

    Attributes
    ----------
    name, description : str
        Label and conventions of the candidate.
    raw : float
        The paper's (raw) stress of the induced distances against ``D``.
    optimal : float
        Scale-optimal stress ``min_a stress(a E)``.
    scale : float
        The minimising scale ``a*`` (so ``a* E`` is the best-scaled copy; 0 if ``E == 0``).
    raw_ci, optimal_ci : (float, float) or None
        Bootstrap intervals (``None`` without a bootstrap).
    raw_bias, optimal_bias : float or None
        Mean of the replicates minus the estimate (``None`` without a bootstrap). With the plug-in estimator,
        resampling with replacement repeats sequences, which adds plug-in noise to every Hellinger distance, so a
        bias that is large against the interval's width means the percentile interval is shifted: prefer
        ``interval="basic"`` then. The corrected estimator's intervals are centred and do not use it.
    fitted : bool
        Whether the row was fitted to ``D`` (and refitted per resample).
    raw_ci_mc, optimal_ci_mc : (float, float) or None
        Monte Carlo standard errors of the two interval ends (how much they would move with another seed;
        ``None`` without a bootstrap).

    Examples
    --------
    >>> row = StressRow("line", "", raw=0.25, optimal=0.0, scale=0.5)
    >>> row.raw_ci is None, row.as_dict()["optimal_stress"]
    (True, 0.0)
    """

    name: str
    description: str
    raw: float
    optimal: float
    scale: float
    raw_ci: tuple | None = None
    optimal_ci: tuple | None = None
    fitted: bool = False
    raw_bias: float | None = None
    optimal_bias: float | None = None
    raw_ci_mc: tuple | None = None
    optimal_ci_mc: tuple | None = None

    def as_dict(self) -> dict:
        """A flat, JSON-ready dict (``None`` where there is no interval).

        Returns
        -------
        dict
            Keys ``encoding``, ``description``, ``raw_stress``, ``raw_ci_low``, ``raw_ci_high``,
            ``optimal_stress``, ``optimal_ci_low``, ``optimal_ci_high``, ``optimal_scale``, ``raw_bias``,
            ``optimal_bias``, ``fitted``, and the Monte Carlo errors of the interval ends ``raw_ci_low_mc``,
            ``raw_ci_high_mc``, ``optimal_ci_low_mc``, ``optimal_ci_high_mc``.

        Examples
        --------
        >>> d = StressRow("line", "ruler", raw=0.25, optimal=0.0, scale=0.5, raw_ci=(0.2, 0.3)).as_dict()
        >>> d["encoding"], d["raw_ci_low"], d["optimal_ci_low"]
        ('line', 0.2, None)
        """
        lo_r, hi_r = self.raw_ci if self.raw_ci is not None else (None, None)
        lo_o, hi_o = self.optimal_ci if self.optimal_ci is not None else (None, None)
        mc_lo_r, mc_hi_r = self.raw_ci_mc if self.raw_ci_mc is not None else (None, None)
        mc_lo_o, mc_hi_o = self.optimal_ci_mc if self.optimal_ci_mc is not None else (None, None)
        return {
            "encoding": self.name, "description": self.description, "raw_stress": self.raw,
            "raw_ci_low": lo_r, "raw_ci_high": hi_r, "optimal_stress": self.optimal, "optimal_ci_low": lo_o,
            "optimal_ci_high": hi_o, "optimal_scale": self.scale, "raw_bias": self.raw_bias,
            "optimal_bias": self.optimal_bias, "fitted": self.fitted, "raw_ci_low_mc": mc_lo_r,
            "raw_ci_high_mc": mc_hi_r, "optimal_ci_low_mc": mc_lo_o, "optimal_ci_high_mc": mc_hi_o,
        }


def _fmt(x, digits: int) -> str:
    if x is None:
        return "-"
    x = float(x)
    if x == 0:
        return "0"
    if abs(x) < 10 ** (-digits) or abs(x) >= 10 ** (digits + 1):
        return f"{x:.{max(digits - 1, 1)}e}"
    return f"{x:.{digits}g}" if abs(x) >= 1 else f"{x:.{digits}f}"


@dataclass(frozen=True)
class StressTable:
    """Stress of several encodings against one target ``D``, with optional bootstrap intervals.

    Attributes
    ----------
    rows : tuple of StressRow
        In the order of the candidates.
    n_positions : int
        Number of positions ``n`` of the target ``D``.
    n_boot : int
        Resamples behind the intervals (0: no bootstrap).
    confidence : float or None
        Coverage of the intervals (``None`` without a bootstrap).
    interval : str or None
        ``"percentile"`` or ``"basic"`` (see :func:`stress_table`).
    seed : int or None
        The int seed of the bootstrap, if one was given.
    title : str
        Free text (e.g. corpus and counting convention), printed by :meth:`to_markdown`.
    estimator : {"resolved", "corrected", "plugin"}
        The estimator of the Hellinger distances ``D`` (see :func:`stress_table`); every output format states it.
    estimand : str
        What ``D`` estimates, in words (empty when ``D`` was passed without data).
    replicates : ndarray or None
        The bootstrap replicates of every row, shape ``(n_boot, 3 * len(rows))`` (raw stress, scale-optimal
        stress and optimal scale of each row in turn), all rows on the same resamples; ``None`` without a
        bootstrap. :meth:`contrast`, :meth:`ranked` and :meth:`equivalent` compare rows on them.
    n_splits : int or None
        Random splits of the corrected point estimate (``None`` for the plug-in estimator).
    target : (n, n) ndarray or None
        The target distances ``D`` the rows were evaluated against (read-only; for a corrected table computed from
        data, the corrected estimate itself).

    Examples
    --------
    >>> D = np.abs(np.subtract.outer(np.arange(4.0), np.arange(4.0)))
    >>> table = stress_table(D, [fixed_encoding("line x2", 2 * np.arange(4.0)[:, None]), mds_candidate(1)])
    >>> len(table), table.names, table["line x2"].raw, table.estimator
    (2, ['line x2', 'MDS rank 1'], 1.0, 'corrected')
    """

    rows: tuple
    n_positions: int
    n_boot: int = 0
    confidence: float | None = None
    interval: str | None = None
    seed: int | None = None
    title: str = ""
    estimator: str = "corrected"
    n_splits: int | None = None
    target: np.ndarray | None = field(default=None, repr=False, compare=False)
    estimand: str = ""
    replicates: np.ndarray | None = field(default=None, repr=False, compare=False)
    _index: dict = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        _check_estimator(self.estimator)
        object.__setattr__(self, "_index", {r.name: r for r in self.rows})

    @property
    def estimator_label(self) -> str:
        """The estimator of ``D`` in words: ``"corrected (cross-fitted)"`` or ``"plug-in"``.

        Returns
        -------
        str
            The label printed in every output format.

        Examples
        --------
        >>> D = np.abs(np.subtract.outer(np.arange(3.0), np.arange(3.0)))
        >>> stress_table(D, [mds_candidate(1)], estimator="plugin").estimator_label
        'plug-in'
        """
        return _ESTIMATOR_LABELS[self.estimator]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, name: str) -> StressRow:
        """The row called ``name``."""
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"no row {name!r}; rows are {list(self._index)}") from None

    @property
    def names(self) -> list:
        """The row names, in order."""
        return [r.name for r in self.rows]

    def to_records(self) -> list:
        """One dict per row (:meth:`StressRow.as_dict`) plus the table's metadata, ready for ``json.dumps``.

        Returns
        -------
        list of dict
            The keys of :meth:`StressRow.as_dict` plus ``table``, ``estimator`` (``"corrected"`` or ``"plugin"``),
            ``n_positions``, ``n_boot``, ``confidence``, ``interval``, ``seed`` and ``n_splits``.

        Examples
        --------
        >>> D = np.abs(np.subtract.outer(np.arange(3.0), np.arange(3.0)))
        >>> records = stress_table(D, [mds_candidate(1)], title="toy").to_records()
        >>> records[0]["table"], records[0]["estimator"], records[0]["encoding"], records[0]["n_boot"]
        ('toy', 'corrected', 'MDS rank 1', 0)
        """
        meta = {"table": self.title, "estimator": self.estimator, "n_positions": self.n_positions,
                "n_boot": self.n_boot, "confidence": self.confidence, "interval": self.interval, "seed": self.seed,
                "n_splits": self.n_splits}
        return [{**meta, **r.as_dict()} for r in self.rows]

    def to_frame(self):
        """A ``pandas.DataFrame`` of :meth:`to_records` (needs pandas, imported here).

        Returns
        -------
        pandas.DataFrame
            One row per candidate, columns as the keys of :meth:`to_records`.

        Raises
        ------
        ImportError
            If pandas is not installed.

        Examples
        --------
        >>> D = np.abs(np.subtract.outer(np.arange(3.0), np.arange(3.0)))
        >>> stress_table(D, [mds_candidate(1)]).to_frame().shape
        (1, 24)
        """
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover
            raise ImportError("to_frame needs pandas (`pip install pandas`); to_records/to_csv do not") from None
        return pd.DataFrame(self.to_records())

    def to_csv(self, path: str | os.PathLike | None = None) -> str:
        """The records as CSV text (header row first); also written to ``path`` if given.

        Parameters
        ----------
        path : str or os.PathLike, optional
            File to write the text to (UTF-8).

        Returns
        -------
        str
            The CSV text.

        Examples
        --------
        >>> D = np.abs(np.subtract.outer(np.arange(3.0), np.arange(3.0)))
        >>> text = stress_table(D, [mds_candidate(1)]).to_csv()
        >>> text.splitlines()[0].split(",")[:3]
        ['table', 'estimator', 'n_positions']
        """
        records = self.to_records()
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(records[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(records)
        text = buffer.getvalue()
        if path is not None:
            with open(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
        return text

    def contrast(self, a: str, b: str, *, scale: str = "optimal"):
        """The paired difference ``stress(a) - stress(b)`` with its interval, on the table's own resamples.

        Parameters
        ----------
        a, b : str
            Row names.
        scale : {"optimal", "raw"}, default "optimal"
            Scale-optimal or raw stress.

        Returns
        -------
        posgeom.inference.Interval
            The difference at the estimate and the centred percentile interval of the paired replicates (the
            estimate plus the quantiles of their deviations from their mean), at the table's confidence.

        Raises
        ------
        ValueError
            Without a bootstrap, for an unknown row or ``scale``.

        Examples
        --------
        >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
        >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(300, 6, 12, rng=0, regime="abrupt"), 6, 12)
        >>> rows = [mds_candidate(None, name="MDS"), fixed_distances("constant", 1 - np.eye(6))]
        >>> table = stress_table(None, rows, data=inc, rng=0, n_boot=50)
        >>> table.contrast("MDS", "constant").upper < 0
        True
        """
        from ..inference import Interval

        if self.replicates is None:
            raise ValueError("contrast needs a bootstrapped table (pass data= and rng= to stress_table)")
        if scale not in ("optimal", "raw"):
            raise ValueError(f"scale must be 'optimal' or 'raw', got {scale!r}")
        k = 1 if scale == "optimal" else 0
        ia, ib = (3 * self.names.index(self[x].name) + k for x in (a, b))
        diff = self.replicates[:, ia] - self.replicates[:, ib]
        est = getattr(self[a], scale) - getattr(self[b], scale)
        alpha = 1 - self.confidence
        lo, hi = np.quantile(diff - diff.mean(), [alpha / 2, 1 - alpha / 2])
        return Interval(float(est), float(est + lo), float(est + hi), float(self.confidence))

    def ranked(self, a: str, b: str, *, scale: str = "optimal") -> bool:
        """Whether the interval of ``stress(a) - stress(b)`` excludes 0 (the two rows are ordered).

        Parameters
        ----------
        a, b : str
        scale : {"optimal", "raw"}, default "optimal"

        Returns
        -------
        bool

        Examples
        --------
        >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
        >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(300, 6, 12, rng=0, regime="abrupt"), 6, 12)
        >>> rows = [mds_candidate(None, name="MDS"), fixed_distances("constant", 1 - np.eye(6))]
        >>> stress_table(None, rows, data=inc, rng=0, n_boot=50).ranked("MDS", "constant")
        True
        """
        return self.contrast(a, b, scale=scale).excludes(0.0)

    def equivalent(self, a: str, b: str, margin: float, *, scale: str = "optimal") -> bool:
        """Whether the interval of ``stress(a) - stress(b)`` lies inside ``(-margin, margin)``.

        With the table's two-sided ``confidence`` interval this is two one-sided tests, each at level
        ``(1 - confidence) / 2``. The margin must be fixed before looking at the difference.

        Parameters
        ----------
        a, b : str
        margin : float
            Positive.
        scale : {"optimal", "raw"}, default "optimal"

        Returns
        -------
        bool

        Examples
        --------
        >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
        >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(300, 6, 12, rng=0, regime="abrupt"), 6, 12)
        >>> rows = [mds_candidate(None, name="MDS"), mds_candidate(None, name="MDS again")]
        >>> stress_table(None, rows, data=inc, rng=0, n_boot=50).equivalent("MDS", "MDS again", 0.01)
        True
        """
        if not float(margin) > 0:
            raise ValueError(f"margin must be positive, got {margin}")
        c = self.contrast(a, b, scale=scale)
        return bool(-float(margin) < c.lower and c.upper < float(margin))

    def to_markdown(self, digits: int = 3, *, descriptions: bool = True) -> str:
        """A Markdown (pipe) table: raw stress, scale-optimal stress and their intervals.

        Numbers are printed with ``digits`` significant digits (scientific notation for very small or large ones).

        Parameters
        ----------
        digits : int, default 3
            Significant digits.
        descriptions : bool, default True
            Include the "conventions" column.

        Returns
        -------
        str
            The Markdown text: title, the estimator of ``D``, the table, and a line on the intervals (with the
            largest Monte Carlo error of their ends) when bootstrapped.

        Raises
        ------
        ValueError, TypeError
            If ``digits`` is not a positive integer.

        Examples
        --------
        >>> D = np.abs(np.subtract.outer(np.arange(3.0), np.arange(3.0)))
        >>> table = stress_table(D, [fixed_encoding("double", [[0.0], [2.0], [4.0]])], estimator="plugin")
        >>> print(table.to_markdown(descriptions=False))
        Estimator of D: plug-in.
        <BLANKLINE>
        | encoding | raw stress | raw CI | scale-optimal stress | scale-optimal CI |
        |---|---|---|---|---|
        | double | 1 | - | 0 | - |
        """
        digits = check_positive_int(digits, "digits")
        ci = f"{self.confidence:.0%} CI" if self.n_boot else "CI"
        head = ["encoding"] + (["conventions"] if descriptions else []) + [
            "raw stress", f"raw {ci}", "scale-optimal stress", f"scale-optimal {ci}"]
        lines = []
        if self.title:
            lines += [f"**{self.title}**", ""]
        splits = f", {self.n_splits} random splits" if self.n_splits else ""
        lines += [f"Estimator of D: {self.estimator_label}{splits}.", ""]
        if self.estimand:
            lines[-1:] = [f"Estimand: {self.estimand}.", ""]
        lines += ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * len(head)) + "|"]

        def interval(c):
            return "-" if c is None else f"[{_fmt(c[0], digits)}, {_fmt(c[1], digits)}]"

        for r in self.rows:
            cells = [r.name] + ([r.description.replace("|", "\\|")] if descriptions else []) + [
                _fmt(r.raw, digits), interval(r.raw_ci), _fmt(r.optimal, digits), interval(r.optimal_ci)]
            lines.append("| " + " | ".join(cells) + " |")
        if self.n_boot:
            mc = max((max(m) for r in self.rows for m in (r.raw_ci_mc, r.optimal_ci_mc) if m is not None),
                     default=float("nan"))
            kind = (f"centred percentile bootstrap of the {self.estimator} estimator" if self.estimator != "plugin"
                    else f"{self.interval} bootstrap of the plug-in estimator")
            lines += ["", f"Intervals: {kind} over sequences, {self.n_boot} resamples, seed {self.seed}; fitted rows "
                          f"refitted per resample; largest Monte Carlo error of an interval end "
                          f"{_fmt(mc, digits)}."]
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:  # Jupyter renders the table
        return self.to_markdown()


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
    D,
    candidates: Sequence[Candidate],
    *,
    data=None,
    rng=None,
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
      (:func:`posgeom.geometry.corrected_distances`, ``n_splits`` random splits). With ``data``, the intervals come
      from :func:`posgeom.geometry.bootstrap_corrected` with the whole table's evaluation as its statistic: every
      resample's corrected ``D`` is computed (one random split per resample), fitted rows (MDS) are refitted on it,
      and every row is evaluated on it. The intervals are *centred* percentile intervals (point estimate plus the
      quantiles of the replicates' deviations from their mean), so they contain their own point estimate; the
      Monte Carlo errors of their ends are stored (``StressRow.raw_ci_mc``, ``optimal_ci_mc``).
    * ``estimator="plugin"``: ``D`` is the plug-in estimate (:func:`posgeom.geometry.plugin_distances`), biased
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
    rng : int or numpy.random.Generator, optional
        Randomness of the resampling (and of the corrected estimator's splits); required with ``data``. An int is
        stored on the table as its ``seed``.
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
        One :class:`StressRow` per candidate with raw stress, scale-optimal stress, the optimal scale and, with
        ``data``, intervals, the Monte Carlo errors of their ends and the replicates' shift; the table records
        ``estimator``.

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
    >>> rows = [fixed_encoding("sin", sinusoidal_encoding(5, 8)), mds_candidate(2)]
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
            if rng is None:
                raise ValueError("the resolved estimate from data needs an explicit rng (an int seed or a Generator)")
            estimand = resolved.describe_estimand(data)
        elif resolved.resolution is not None:
            estimand = resolved.describe_estimand()
    if D is not None:
        D = check_distance_matrix(D)
        if data is not None and data.n_positions != D.shape[0]:
            raise ValueError(f"data has n_positions={data.n_positions} but D describes n={D.shape[0]} positions")
    lower = upper = bias = seed = lower_mc = upper_mc = None
    if data is not None:
        if rng is None:
            raise ValueError("a bootstrap needs an explicit rng (an int seed or a Generator: same seed, same "
                             "intervals)")
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
            from ..geometry.estimators import bootstrap_corrected, corrected_distances

            if D is not None:  # the bootstrap's point estimate draws its splits first from the same generator
                expected = corrected_distances(data, rng=copy.deepcopy(rng), n_splits=n_splits).distances
                if not np.allclose(D, expected, rtol=1e-9, atol=1e-12):
                    raise ValueError(
                        "D is not the corrected Hellinger estimate of data with this rng: pass D=None to compute it "
                        "from data (or corrected_distances(data, rng=<the same int seed>, n_splits=n_splits)"
                        ".distances), or estimator='plugin' for a plug-in D"
                    )
            boot = bootstrap_corrected(data, lambda Db: _evaluate(candidates, Db), rng=rng, n_boot=n_boot,
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


@dataclass(frozen=True)
class ShiftInvariantStress:
    """The exact decomposition of the scale-optimal stress of a shift-invariant encoding (see
    :func:`shift_invariant_decomposition`).

    Attributes
    ----------
    defect : float
        ``delta = ||D - T(D)||_F / ||D||_F``, the shift-equivariance defect of the target
        (:func:`posgeom.shift_equivariance_defect`).
    profile_cosine : float
        ``c``: cosine between the lag profiles ``f`` of ``D`` and ``g`` of ``E`` (:func:`posgeom.lag_profile`),
        weighted by the number of pairs ``n - k`` at lag ``k``.
    stress : float
        ``1 - (1 - delta^2) c^2``, equal to ``stress_of_distances(E, D, scale="optimal")``.

    Examples
    --------
    >>> s = ShiftInvariantStress(defect=0.1, profile_cosine=1.0, stress=0.01)
    >>> round(s.floor, 6)
    0.01
    """

    defect: float
    profile_cosine: float
    stress: float

    @property
    def floor(self) -> float:
        """``delta^2``: the scale-optimal stress that *no* shift-invariant encoding can go below.

        Returns
        -------
        float
            The squared defect.

        Examples
        --------
        >>> ShiftInvariantStress(defect=0.5, profile_cosine=0.9, stress=0.3925).floor
        0.25
        """
        return self.defect**2


def shift_invariant_decomposition(E, D, *, atol: float = 1e-9) -> ShiftInvariantStress:
    """Split the scale-optimal stress of a shift-invariant encoding into shift and shape terms.

    If ``E_ij`` depends only on ``|i - j|`` (sinusoidal, RoPE, ALiBi, T5, any relative scheme), then, with
    ``delta`` the shift-equivariance defect of ``D`` and ``c`` the pair-weighted cosine between the lag profiles of
    ``D`` and ``E``,

    ``min_a stress(a E, D) = 1 - (1 - delta^2) c^2``.

    Proof: over the pairs ``i < j``, replacing every diagonal of ``D`` by its mean (the Toeplitz part ``T``) is an
    orthogonal projection, and ``E`` lies in its range, so ``<E, D> = <E, T>``; and ``||T||^2 = (1 - delta^2)
    ||D||^2``. The closed form of :func:`posgeom.stress_of_distances` then gives the identity. Hence ``delta^2`` is
    a floor shared by all shift-invariant encodings, and above it they are ranked by how well their lag profile
    matches the corpus's (for ALiBi ``g_k = k``: how *linear* the corpus's profile is).

    Parameters
    ----------
    E : (n, n) array
        Induced distances of a shift-invariant encoding (checked: its own defect must be ``<= atol``).
    D : (n, n) array
        Target distances.
    atol : float, default 1e-9
        Largest shift-equivariance defect of ``E`` accepted as shift-invariant.

    Returns
    -------
    ShiftInvariantStress
        ``defect``, ``profile_cosine`` and the scale-optimal ``stress`` they give.

    Raises
    ------
    ValueError
        Different shapes, invalid matrices, ``E`` zero everywhere or not shift-invariant.

    Examples
    --------
    >>> from posgeom.encodings import alibi_distances
    >>> from posgeom.stress import stress_of_distances
    >>> D = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]])
    >>> parts = shift_invariant_decomposition(alibi_distances(3), D)
    >>> round(parts.stress, 6) == round(stress_of_distances(alibi_distances(3), D, scale="optimal"), 6)
    True
    """
    from ..geometry.shift import lag_profile, shift_equivariance_defect

    E = check_distance_matrix(E, "E")
    D = check_distance_matrix(D, "D")
    if E.shape != D.shape:
        raise ValueError(f"E and D must have the same shape, got {E.shape} and {D.shape}")
    if not np.any(E > 0):
        raise ValueError("E is zero everywhere: its profile has no direction (the cosine is 0/0)")
    e_defect = shift_equivariance_defect(E)
    if e_defect > atol:
        raise ValueError(
            f"E is not shift-invariant (its shift-equivariance defect is {e_defect:.2e} > atol={atol:g}); the "
            "decomposition only holds when E_ij depends on |i - j| alone"
        )
    n = D.shape[0]
    delta = shift_equivariance_defect(D)
    w = n - np.arange(1, n)
    f, g = lag_profile(D)[1:], lag_profile(E)[1:]
    c = float(np.sum(w * f * g) / np.sqrt(np.sum(w * f * f) * np.sum(w * g * g)))
    return ShiftInvariantStress(defect=delta, profile_cosine=c, stress=float(1.0 - (1.0 - delta**2) * c**2))
