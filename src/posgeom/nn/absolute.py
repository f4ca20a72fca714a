"""The additive (absolute) positional schemes: ``x_i <- x_i + p_i`` with ``P`` a fixed sinusoid
(:class:`SinusoidalPosition`), a learned table (:class:`LearnedPosition`), a given frozen matrix
(:class:`FixedPosition`) or a learned low-rank product (:class:`LowRankPosition`).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .._validation import check_matrix, check_positive_int
from ..encodings.absolute import sinusoidal_encoding
from .scheme import PositionalScheme

__all__ = [
    "AbsolutePosition",
    "SinusoidalPosition",
    "LearnedPosition",
    "FixedPosition",
    "LowRankPosition",
]


class AbsolutePosition(PositionalScheme):
    """Base of the additive schemes: ``x_i <- x_i + p_i`` with ``P`` given by :meth:`encoding_matrix`.

    Subclasses define :meth:`encoding_matrix`; instantiate one of them (e.g. :class:`SinusoidalPosition`).

    Parameters
    ----------
    n_positions : int
        Size of the position table: inputs may have at most this many positions.
    d_model : int
        Model width ``d`` (divisible by ``n_heads``).
    n_heads : int
        Number of attention heads.

    Examples
    --------
    >>> from posgeom.nn import RotaryPosition
    >>> issubclass(LearnedPosition, AbsolutePosition), issubclass(RotaryPosition, AbsolutePosition)
    (True, False)
    """

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        length = self.check_length(x.shape[-2])
        return x + self.encoding_matrix()[:length].to(x.dtype)


class SinusoidalPosition(AbsolutePosition):
    """The fixed sinusoidal encoding of Vaswani et al. (2017), from :func:`posgeom.sinusoidal_encoding`.

    Parameters
    ----------
    n_positions : int
        Size of the position table: inputs may have at most this many positions.
    d_model : int
        Model width ``d`` (divisible by ``n_heads``).
    n_heads : int
        Number of attention heads.
    base : float, default 10000.0
        Wavelength base of the frequencies.

    Examples
    --------
    >>> scheme = SinusoidalPosition(8, 4, 2)
    >>> scheme.encoding_matrix().shape, scheme.encoding_matrix().requires_grad
    (torch.Size([8, 4]), False)
    """

    name = "sinusoidal"

    def __init__(self, n_positions: int, d_model: int, n_heads: int, *, base: float = 10000.0):
        super().__init__(n_positions, d_model, n_heads)
        P = sinusoidal_encoding(self.n_positions, self.d_model, base)
        self.register_buffer("P", torch.tensor(P, dtype=torch.float32))

    def encoding_matrix(self) -> torch.Tensor:
        return self.P


class LearnedPosition(AbsolutePosition):
    """A learned table ``P`` (n x d), initialised ``N(0, init_std^2)``; ``init_std=0`` ties all positions at 0.

    Parameters
    ----------
    n_positions : int
        Size of the position table: inputs may have at most this many positions.
    d_model : int
        Model width ``d`` (divisible by ``n_heads``).
    n_heads : int
        Number of attention heads.
    init_std : float, default 0.02
        Standard deviation of the initial entries (the BERT convention). With ``0`` every ``p_i`` starts equal, so any
        separation between positions is produced by training (used for Theorem 4).

    Raises
    ------
    ValueError
        A negative or non-finite ``init_std``.

    Examples
    --------
    >>> _ = torch.manual_seed(0)
    >>> scheme = LearnedPosition(8, 4, 2)
    >>> scheme.encoding_matrix().shape, scheme.encoding_matrix().requires_grad
    (torch.Size([8, 4]), True)
    >>> float(LearnedPosition(8, 4, 2, init_std=0.0).encoding_matrix().detach().abs().max())
    0.0
    """

    name = "learned"

    def __init__(self, n_positions: int, d_model: int, n_heads: int, *, init_std: float = 0.02):
        super().__init__(n_positions, d_model, n_heads)
        init_std = float(init_std)
        if not math.isfinite(init_std) or init_std < 0:
            raise ValueError(f"init_std must be a finite number >= 0, got {init_std}")
        self.weight = nn.Parameter(torch.randn(self.n_positions, self.d_model) * init_std)

    def encoding_matrix(self) -> torch.Tensor:
        return self.weight


class FixedPosition(AbsolutePosition):
    """A given, frozen encoding matrix (e.g. an MDS encoding), of shape (n_positions, d_model).

    Parameters
    ----------
    n_positions : int
        Size of the position table: inputs may have at most this many positions.
    d_model : int
        Model width ``d`` (divisible by ``n_heads``).
    n_heads : int
        Number of attention heads.
    encoding : (n_positions, d_model) array or tensor
        The encoding, rows are positions (keyword-only, required); stored as a float32 buffer.

    Raises
    ------
    ValueError
        A missing encoding or one of the wrong shape.

    Examples
    --------
    >>> import numpy as np
    >>> scheme = FixedPosition(3, 2, 1, encoding=np.arange(6.0).reshape(3, 2))
    >>> scheme.encoding_matrix()
    tensor([[0., 1.],
            [2., 3.],
            [4., 5.]])
    """

    name = "fixed"

    def __init__(self, n_positions: int, d_model: int, n_heads: int, *, encoding):
        super().__init__(n_positions, d_model, n_heads)
        if encoding is None:
            raise ValueError("the 'fixed' scheme needs encoding=<(n_positions, d_model) matrix>, got None")
        P = check_matrix(encoding.detach().cpu().numpy() if torch.is_tensor(encoding) else encoding, "encoding")
        if P.shape != (self.n_positions, self.d_model):
            raise ValueError(
                f"encoding must have shape (n_positions, d_model) = ({self.n_positions}, {self.d_model}), got "
                f"{P.shape}; embed an r-dimensional encoding into R^d first (e.g. pad with zero columns)"
            )
        self.register_buffer("P", torch.tensor(P, dtype=torch.float32))

    def encoding_matrix(self) -> torch.Tensor:
        return self.P


class LowRankPosition(AbsolutePosition):
    """A learned low-rank encoding ``P = A @ B`` with ``A`` (n x r) and ``B`` (r x d): ``r (n + d)`` parameters.

    ``A`` and ``B`` are initialised ``N(0, init_std)`` entrywise with ``init_std = (0.02 / sqrt(r))^(1/2)``, so that
    the entries of ``P`` have standard deviation ``0.02`` as in :class:`LearnedPosition`.

    Parameters
    ----------
    n_positions : int
        Size of the position table: inputs may have at most this many positions.
    d_model : int
        Model width ``d`` (divisible by ``n_heads``).
    n_heads : int
        Number of attention heads.
    rank : int
        The ``r`` of ``P = A @ B`` (keyword-only, required), ``1 <= r <= min(n_positions, d_model)``.

    Raises
    ------
    ValueError
        A missing rank or one above ``min(n_positions, d_model)``.

    Examples
    --------
    >>> _ = torch.manual_seed(0)
    >>> scheme = LowRankPosition(16, 8, 2, rank=2)
    >>> scheme.A.shape, scheme.B.shape, int(torch.linalg.matrix_rank(scheme.encoding_matrix().detach()))
    (torch.Size([16, 2]), torch.Size([2, 8]), 2)
    """

    name = "low_rank"

    def __init__(self, n_positions: int, d_model: int, n_heads: int, *, rank: int):
        super().__init__(n_positions, d_model, n_heads)
        if rank is None:
            raise ValueError("the 'low_rank' scheme needs rank=<int between 1 and min(n_positions, d_model)>")
        self.rank = check_positive_int(rank, "rank")
        if self.rank > min(self.n_positions, self.d_model):
            raise ValueError(
                f"rank={self.rank} exceeds min(n_positions, d_model)={min(self.n_positions, self.d_model)}; "
                "a larger rank adds parameters without adding expressiveness"
            )
        std = math.sqrt(0.02 / math.sqrt(self.rank))
        self.A = nn.Parameter(torch.randn(self.n_positions, self.rank) * std)
        self.B = nn.Parameter(torch.randn(self.rank, self.d_model) * std)

    def encoding_matrix(self) -> torch.Tensor:
        return self.A @ self.B
