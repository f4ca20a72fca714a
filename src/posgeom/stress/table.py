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
  replacement (:func:`posgeom.geometry.bootstrap_statistic`), ``D`` is recomputed, candidates that depend on
  ``D`` (MDS) are *refitted* on every resample, and every row is evaluated on the *same* resamples (one Hellinger
  matrix per resample for the whole table). Fixed encodings (including a model trained from scratch) are not
  retrained: their interval describes the sampling noise of the corpus statistics only.

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
from ..geometry.estimators import plugin_distances
from ..geometry.euclidean import pairwise_distances
from ..geometry.mds import classical_mds
from .core import optimal_scale, stress_of_distances

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
        return pairwise_distances(classical_mds(D, rank, tol=tol).embedding)

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
        Bootstrap estimate of the bias, mean of the replicates minus the estimate (``None`` without a bootstrap).
        Resampling with replacement repeats sequences, which adds plug-in noise to every Hellinger distance, so a
        bias that is large against the interval's width means the percentile interval is shifted: prefer
        ``interval="basic"`` then.
    fitted : bool
        Whether the row was fitted to ``D`` (and refitted per resample).

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

    def as_dict(self) -> dict:
        """A flat, JSON-ready dict (``None`` where there is no interval).

        Returns
        -------
        dict
            Keys ``encoding``, ``description``, ``raw_stress``, ``raw_ci_low``, ``raw_ci_high``,
            ``optimal_stress``, ``optimal_ci_low``, ``optimal_ci_high``, ``optimal_scale``, ``raw_bias``,
            ``optimal_bias``, ``fitted``.

        Examples
        --------
        >>> d = StressRow("line", "ruler", raw=0.25, optimal=0.0, scale=0.5, raw_ci=(0.2, 0.3)).as_dict()
        >>> d["encoding"], d["raw_ci_low"], d["optimal_ci_low"]
        ('line', 0.2, None)
        """
        lo_r, hi_r = self.raw_ci if self.raw_ci is not None else (None, None)
        lo_o, hi_o = self.optimal_ci if self.optimal_ci is not None else (None, None)
        return {
            "encoding": self.name, "description": self.description, "raw_stress": self.raw,
            "raw_ci_low": lo_r, "raw_ci_high": hi_r, "optimal_stress": self.optimal, "optimal_ci_low": lo_o,
            "optimal_ci_high": hi_o, "optimal_scale": self.scale, "raw_bias": self.raw_bias,
            "optimal_bias": self.optimal_bias, "fitted": self.fitted,
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

    Examples
    --------
    >>> D = np.abs(np.subtract.outer(np.arange(4.0), np.arange(4.0)))
    >>> table = stress_table(D, [fixed_encoding("line x2", 2 * np.arange(4.0)[:, None]), mds_candidate(1)])
    >>> len(table), table.names, table["line x2"].raw
    (2, ['line x2', 'MDS rank 1'], 1.0)
    """

    rows: tuple
    n_positions: int
    n_boot: int = 0
    confidence: float | None = None
    interval: str | None = None
    seed: int | None = None
    title: str = ""
    _index: dict = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "_index", {r.name: r for r in self.rows})

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
            The keys of :meth:`StressRow.as_dict` plus ``table``, ``n_positions``, ``n_boot``, ``confidence``,
            ``interval`` and ``seed``.

        Examples
        --------
        >>> D = np.abs(np.subtract.outer(np.arange(3.0), np.arange(3.0)))
        >>> records = stress_table(D, [mds_candidate(1)], title="toy").to_records()
        >>> records[0]["table"], records[0]["encoding"], records[0]["n_boot"]
        ('toy', 'MDS rank 1', 0)
        """
        meta = {"table": self.title, "n_positions": self.n_positions, "n_boot": self.n_boot,
                "confidence": self.confidence, "interval": self.interval, "seed": self.seed}
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
        (1, 18)
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
        ['table', 'n_positions', 'n_boot']
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
            The Markdown text (title, table, and a line on the intervals when bootstrapped).

        Raises
        ------
        ValueError, TypeError
            If ``digits`` is not a positive integer.

        Examples
        --------
        >>> D = np.abs(np.subtract.outer(np.arange(3.0), np.arange(3.0)))
        >>> print(stress_table(D, [fixed_encoding("double", [[0.0], [2.0], [4.0]])]).to_markdown(descriptions=False))
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
        lines += ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * len(head)) + "|"]

        def interval(c):
            return "-" if c is None else f"[{_fmt(c[0], digits)}, {_fmt(c[1], digits)}]"

        for r in self.rows:
            cells = [r.name] + ([r.description.replace("|", "\\|")] if descriptions else []) + [
                _fmt(r.raw, digits), interval(r.raw_ci), _fmt(r.optimal, digits), interval(r.optimal_ci)]
            lines.append("| " + " | ".join(cells) + " |")
        if self.n_boot:
            lines += ["", f"Intervals: {self.interval} bootstrap over sequences, {self.n_boot} resamples, "
                          f"seed {self.seed}; fitted rows refitted per resample."]
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:  # Jupyter renders the table
        return self.to_markdown()


def _evaluate(candidates, D) -> np.ndarray:
    """``[raw_1, optimal_1, scale_1, raw_2, ...]`` for every candidate against ``D``."""
    n = D.shape[0]
    out = np.empty(3 * len(candidates))
    for k, c in enumerate(candidates):
        E = np.asarray(c.distances(D), dtype=float)
        if E.shape != (n, n):
            raise ValueError(
                f"candidate {c.name!r} induces distances of shape {E.shape}, but D describes n={n} positions; "
                "build the candidates for the same n"
            )
        out[3 * k] = stress_of_distances(E, D, scale="raw")
        out[3 * k + 1] = stress_of_distances(E, D, scale="optimal")
        out[3 * k + 2] = optimal_scale(E, D)
    return out


def stress_table(
    D,
    candidates: Sequence[Candidate],
    *,
    data=None,
    rng=None,
    n_boot: int = 200,
    confidence: float = 0.95,
    interval: str = "percentile",
    title: str = "",
) -> StressTable:
    """Raw and scale-optimal stress of every candidate against ``D``, with bootstrap intervals if data are given.

    Parameters
    ----------
    D : (n, n) array or None
        Target distances. ``None``: the Hellinger distances of ``data`` (``plugin_distances(data)``).
    candidates : sequence of Candidate
        The rows (e.g. :func:`standard_candidates`); names must be unique.
    data : posgeom.corpus.SequenceIncidence, optional
        The sequences behind ``D`` (e.g. ``TokenizedCorpus.incidence(convention)``). If given, every row gets a
        bootstrap interval for raw *and* scale-optimal stress, and ``D`` must be ``plugin_distances(data)`` (checked:
        a mismatch raises a ValueError).
    rng : int or numpy.random.Generator, optional
        Randomness of the resampling; required with ``data``. An int is stored on the table as its ``seed``.
    n_boot : int, default 200
        Resamples (``>= 2``). Each costs one Hellinger matrix plus one refit of every fitted row.
    confidence : float, default 0.95
        Coverage of the intervals.
    interval : {"percentile", "basic"}, default "percentile"
        ``"percentile"``: quantiles of the replicates. ``"basic"``: ``(2 s - upper, 2 s - lower)``, which corrects
        for a shift of the replicates away from the estimate ``s`` (see
        :attr:`posgeom.inference.BootstrapResult.basic_interval`); basic intervals are clipped at 0.
    title : str, optional
        Stored on the table (corpus, convention, ``n``).

    Returns
    -------
    StressTable
        One :class:`StressRow` per candidate with raw stress, scale-optimal stress, the optimal scale and, with
        ``data``, intervals and bias estimates.

    Raises
    ------
    ValueError
        No candidates, repeated names, unknown ``interval``, neither ``D`` nor ``data``, a ``D`` that is not the
        Hellinger matrix of ``data``, a candidate for a different ``n``, or a bootstrap without ``rng``.
    TypeError
        Non-Candidate rows, a non-string title, or ``data`` that is not a ``SequenceIncidence``.

    Examples
    --------
    >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
    >>> from posgeom.encodings import sinusoidal_encoding
    >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(200, 5, 12, rng=0), 5, 12)
    >>> table = stress_table(None, [fixed_encoding("sin", sinusoidal_encoding(5, 8)), mds_candidate(2)],
    ...                      data=inc, rng=0, n_boot=10)
    >>> table.n_boot, table.seed, table["MDS rank 2"].optimal_ci is not None
    (10, 0, True)
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
    if interval not in _INTERVALS:
        raise ValueError(f"interval must be one of {_INTERVALS}, got {interval!r}")
    if not isinstance(title, str):
        raise TypeError(f"title must be a string, got {type(title).__name__}")
    if D is None:
        if data is None:
            raise ValueError("pass the target distances D, or data (a SequenceIncidence) to compute them from")
        D = plugin_distances(data)
    D = check_distance_matrix(D)
    n = D.shape[0]
    point = _evaluate(candidates, D)
    lower = upper = bias = seed = None
    if data is not None:
        from ..corpus.incidence import SequenceIncidence
        from ..geometry.noise import bootstrap_statistic

        if not isinstance(data, SequenceIncidence):
            raise TypeError(
                f"data must be a posgeom.corpus.SequenceIncidence, got {type(data).__name__}; build one with "
                "SequenceIncidence.from_sequences or TokenizedCorpus.incidence"
            )
        if data.n_positions != n:
            raise ValueError(f"data has n_positions={data.n_positions} but D describes n={n} positions")
        if rng is None:
            raise ValueError("a bootstrap needs an explicit rng (an int seed or a Generator: same seed, same "
                             "intervals)")
        seed = int(rng) if isinstance(rng, numbers.Integral) else None
        rng = check_rng(rng)
        n_boot = check_positive_int(n_boot, "n_boot", minimum=2)
        confidence = check_confidence(confidence)
        boot = bootstrap_statistic(data, lambda Db: _evaluate(candidates, Db), rng=rng, n_boot=n_boot,
                                   confidence=float(confidence))
        if not np.allclose(boot.estimate, point, rtol=1e-9, atol=1e-12):
            raise ValueError(
                "D is not the Hellinger matrix of data: the table's point values differ from data's; pass D=None "
                "to compute D from data, or the incidence D was computed from"
            )
        bias = np.asarray(boot.bias)
        if interval == "percentile":
            lower, upper = boot.lower, boot.upper
        else:
            lower, upper = boot.basic_interval
            lower, upper = np.maximum(lower, 0.0), np.maximum(upper, 0.0)
    else:
        n_boot = 0
    rows = []
    for j, c in enumerate(candidates):
        raw, opt, a = (float(v) for v in point[3 * j:3 * j + 3])
        if not all(math.isfinite(v) for v in (raw, opt, a)):  # pragma: no cover - stress is finite for valid input
            raise ValueError(f"candidate {c.name!r} gives a non-finite stress")
        raw_ci = opt_ci = raw_bias = opt_bias = None
        if lower is not None:
            raw_ci = (float(lower[3 * j]), float(upper[3 * j]))
            opt_ci = (float(lower[3 * j + 1]), float(upper[3 * j + 1]))
            raw_bias, opt_bias = float(bias[3 * j]), float(bias[3 * j + 1])
        rows.append(StressRow(c.name, c.description, raw, opt, a, raw_ci, opt_ci, c.fitted, raw_bias, opt_bias))
    return StressTable(
        rows=tuple(rows), n_positions=n, n_boot=n_boot, confidence=float(confidence) if n_boot else None,
        interval=interval if n_boot else None, seed=seed if n_boot else None, title=title,
    )


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
