"""The rows of a stress table: encodings and the distances they induce between positions.

* :class:`Candidate`: one row (a name, its conventions, and the rule ``D -> E``).
* :func:`mds_candidate`: classical MDS of the target itself (refitted per resample).
* :func:`standard_candidates`: the book's rows (sinusoidal, RoPE, ALiBi, T5, learned, constant, MDS).
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_distance_matrix, check_matrix, check_positive_int
from ..encodings._relative import alibi_slopes
from ..encodings._schemes import induced_distances
from ..encodings.absolute import sinusoidal_encoding
from ..geometry.euclidean import pairwise_distances
from ..geometry.mds import classical_mds

__all__ = ["Candidate", "mds_candidate", "standard_candidates"]

# Within one table evaluation (one target D), the MDS rows share one eigendecomposition of B.
MDS_CACHE: contextvars.ContextVar = contextvars.ContextVar("posgeom_mds_cache", default=None)


@dataclass(frozen=True)
class Candidate:
    """One row of a stress table: an encoding and how it induces distances between positions.

    Attributes
    ----------
    name, description : str
        Row label, unique within a table; the conventions behind the row, printed in the table.
    distances : callable
        ``distances(D) -> E``, the (n x n) induced distances; fixed encodings ignore ``D``.
    fitted : bool
        True if ``E`` depends on ``D``; such rows are refitted on every bootstrap resample.

    Examples
    --------
    >>> Candidate("constant", "E_ij = 1", lambda D: 1 - np.eye(3)).distances(None)[0]
    array([0., 1., 1.])
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


def fixed_distances(name: str, E: ArrayLike, *, description: str = "") -> Candidate:
    """A row (``fitted=False``) from its induced distance matrix ``E`` (validated, read-only)."""
    E = check_distance_matrix(E, f"{name}: E")
    E.setflags(write=False)
    return Candidate(name, description, lambda D: E, fitted=False)


def fixed_encoding(name: str, P, description: str = "") -> Candidate:
    """A row from an absolute encoding ``P`` (n x d, rows = positions): ``E_ij = ||p_i - p_j||``."""
    P = check_matrix(P, f"{name}: P", min_rows=2)
    return fixed_distances(name, pairwise_distances(P), description=description)


def mds_candidate(*, rank: int | None = None, name: str | None = None, tol: float | None = None) -> Candidate:
    """Classical MDS of the target itself (Algorithm 1), refitted on every bootstrap resample.

    Parameters
    ----------
    rank, name, tol : int, str, float, optional
        MDS dimensions (``None``: the positive part of ``B``); the row label (default ``"MDS full rank"`` or
        ``"MDS rank <r>"``); the eigenvalue tolerance of ``classical_mds``.

    Returns
    -------
    Candidate

    Examples
    --------
    >>> mds_candidate(rank=1).distances(np.abs(np.subtract.outer(np.arange(3.0), np.arange(3.0))))[0].round(6)
    array([0., 1., 2.])
    """
    if rank is not None:
        rank = check_positive_int(rank, "rank")
    label = name or ("MDS full rank" if rank is None else f"MDS rank {rank}")
    what = "positive part of B (numerical rank)" if rank is None else f"top {rank} eigenpair(s) of B"
    description = f"classical MDS of D, {what}; fitted to D"
    def distances(D):
        cache = MDS_CACHE.get()
        if cache is None:  # outside a table evaluation
            return pairwise_distances(classical_mds(D, rank=rank, tol=tol).embedding)
        key = ("mds", tol)
        if key not in cache:  # one eigendecomposition of B per target D, shared by every MDS row
            cache[key] = classical_mds(D, rank=None, tol=tol)
        fit = cache[key]
        if rank is not None and rank > fit.rank:
            return pairwise_distances(classical_mds(D, rank=rank, tol=tol).embedding)  # raises the documented error
        r = fit.rank if rank is None else rank
        return pairwise_distances(fit.eigenvectors[:, :r] * np.sqrt(fit.eigenvalues[:r]))
    return Candidate(label, description, distances, fitted=True)


def _slice_rows(P, offset: int, n: int, what: str) -> np.ndarray:
    """Rows ``offset .. offset + n - 1`` of a learned table, or an error saying how many it has."""
    P = check_matrix(P, what, min_rows=2)
    if offset + n > P.shape[0]:
        raise ValueError(f"{what} has {P.shape[0]} positions but rows {offset}..{offset + n - 1} are needed (n={n}, "
                         f"offset={offset}); use n <= {P.shape[0] - offset}")
    return P[offset:offset + n]


def standard_candidates(n_positions: int, *, d_model: int = 384, n_heads: int = 12,
                        model: str | os.PathLike | None = None, pretrained: ArrayLike | None = None,
                        scratch: ArrayLike | None = None, offset: int = 0, mds_ranks: Sequence[int] = (1, 2, 3),
                        t5: bool = True, constant: bool = True, base: float = 10000.0) -> list[Candidate]:
    """The book's rows, in its order: sinusoidal, RoPE, ALiBi, T5 buckets, learned (pretrained, from scratch),
    constant (``E_ij = 1``, a reference), MDS full rank, MDS at each of ``mds_ranks``; relative schemes by their
    induced distances.

    Parameters
    ----------
    n_positions, d_model, n_heads : int
        ``n >= 2``; the model width (all-MiniLM-L6-v2: 384); heads (RoPE's even head width ``d / n_heads``, ALiBi).
    model : str, path or None
        Label of the "learned (pretrained)" row; requires ``pretrained``.
    pretrained, scratch : (max_positions, d') arrays, optional
        Pretrained (``posgeom.data.learned_position_embeddings(model=model)``), from-scratch position embeddings.
    offset : int, default 0
        Corpus position ``i`` is the model's ``i + offset``: 0 when ``mu_0`` counts ``[CLS]``, 1 for word pieces only.
    mds_ranks, t5, constant, base : sequence of int, bool, bool, float
        Truncated MDS rows (besides full rank); whether to include the T5 and constant rows; the frequency base.

    Returns
    -------
    list of Candidate

    Examples
    --------
    >>> [c.name for c in standard_candidates(8, d_model=16, n_heads=2, mds_ranks=(1,))]
    ['sinusoidal', 'RoPE', 'ALiBi', 'T5 buckets', 'constant (no order)', 'MDS full rank', 'MDS rank 1']
    """
    n = check_positive_int(n_positions, "n_positions", minimum=2)
    d = check_positive_int(d_model, "d_model")
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
        fixed_encoding("sinusoidal", sinusoidal_encoding(n, d, base=base), f"Vaswani et al., d={d}, base={base:g}"),
        fixed_distances("RoPE", induced_distances("rope", n, d_model=d, n_heads=n_heads, base=base),
                        description=f"{n_heads} heads of d_head={d_head}, unit blocks, base={base:g}"),
        fixed_distances("ALiBi", induced_distances("alibi", n, d_model=d, n_heads=n_heads),
                        description=f"||m|| |i-j|, {n_heads} heads' slopes (||m||={m:.3g}); rank 1"),
    ]
    if t5:
        rows.append(fixed_distances("T5 buckets", induced_distances("t5", n, d_model=d, n_heads=n_heads),
                                    description="bucket(|i-j|), 32 buckets, max distance 128"))
    off = f", model positions {offset}..{offset + n - 1}"
    if pretrained is not None or model is not None:
        label = str(model) if model is not None else "given"
        if pretrained is None:
            raise ValueError(f"model={model!r} names the pretrained row but no table was given; pass "
                             f"pretrained=posgeom.data.learned_position_embeddings(model={model!r})")
        P = _slice_rows(pretrained, offset, n, "pretrained position embeddings")
        rows.append(fixed_encoding("learned (pretrained)", P, f"{label}, d={P.shape[1]}{off}"))
    if scratch is not None:
        P = _slice_rows(scratch, offset, n, "from-scratch position embeddings")
        rows.append(fixed_encoding("learned (from scratch)", P, f"trained here, d={P.shape[1]}{off}"))
    if constant:
        E = np.ones((n, n)) - np.eye(n)
        rows.append(fixed_distances("constant (no order)", E, description="E_ij = 1 for i != j; reference"))
    rows.append(mds_candidate(rank=None))
    rows.extend(mds_candidate(rank=r) for r in ranks)
    return rows
