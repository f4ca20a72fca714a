"""Positional schemes for the book's small Transformers, one ``nn.Module`` per scheme.

A positional scheme can act at exactly one of three places of a Transformer, and every scheme here implements the
same three hooks (the ones it does not use are the identity):

* :meth:`PositionalScheme.embed` -- *absolute* schemes add a vector ``p_i`` to the token embedding at position ``i``
  (``"sinusoidal"``, ``"learned"``, ``"fixed"``, ``"low_rank"``); the matrix ``P`` (n x d) is available from
  :meth:`PositionalScheme.encoding_matrix`;
* :meth:`PositionalScheme.rotate` -- *rotary* schemes rotate queries and keys by position-dependent angles
  (``"rope"``), so that ``<R_i q, R_j k>`` depends on ``i - j`` only;
* :meth:`PositionalScheme.bias` -- *bias* schemes add ``b_h(i, j)`` to the attention logits of head ``h``
  (``"alibi"``: ``-m_h |i - j|``).

``"none"`` uses no hook: the model sees no positional signal at all (Theorem 1).

**Conventions.**

* Positions are ``0..L-1`` for an input of length ``L``; ``L`` must not exceed ``n_positions`` (the size of the
  scheme's table), for every scheme, so that all models of an experiment see the same range of positions.
* Frequencies (sinusoidal, RoPE) are ``theta_k = base^(-2k/d)`` from :func:`posgeom.sinusoidal_frequencies`; for
  RoPE ``d`` is the per-head width and the rotated pairs are the coordinates ``(2k, 2k+1)``, matching the layout of
  :func:`posgeom.sinusoidal_encoding` (``sin`` in column ``2k``, ``cos`` in column ``2k+1``).
* ALiBi slopes are those of Press et al. (2022) (:func:`alibi_slopes`); the bias is symmetric, ``-m|i - j|``, so it
  also applies to bidirectional attention (with a causal mask only ``j <= i`` is used, as in the original).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from .._validation import check_matrix, check_positive_int
from ..encodings.absolute import sinusoidal_encoding, sinusoidal_frequencies
from ..encodings.relative import alibi_slopes
from ..encodings.schemes import SCHEMES

__all__ = [
    "SCHEMES",
    "PositionalScheme",
    "NoPosition",
    "AbsolutePosition",
    "SinusoidalPosition",
    "LearnedPosition",
    "FixedPosition",
    "LowRankPosition",
    "RotaryPosition",
    "ALiBiPosition",
    "make_positional",
]




class PositionalScheme(nn.Module):
    """Base class: the three hooks through which a scheme acts, all the identity here.

    Parameters
    ----------
    n_positions : int
        Size of the position table: inputs may have at most this many positions.
    d_model : int
        Model width ``d``.
    n_heads : int
        Number of attention heads (the per-head width is ``d_model // n_heads``).

    Raises
    ------
    ValueError
        ``d_model`` not divisible by ``n_heads``, or non-positive sizes.

    Examples
    --------
    >>> scheme = PositionalScheme(8, 4, 2)
    >>> scheme
    PositionalScheme(n_positions=8, d_model=4, n_heads=2)
    >>> x = torch.ones(1, 3, 4)
    >>> torch.equal(scheme.embed(x), x), scheme.bias(3, dtype=torch.float32), scheme.encoding_matrix()
    (True, None, None)
    """

    name = "base"

    def __init__(self, n_positions: int, d_model: int, n_heads: int):
        super().__init__()
        self.n_positions = check_positive_int(n_positions, "n_positions")
        self.d_model = check_positive_int(d_model, "d_model")
        self.n_heads = check_positive_int(n_heads, "n_heads")
        if self.d_model % self.n_heads:
            raise ValueError(
                f"d_model={self.d_model} must be divisible by n_heads={self.n_heads}; change one of them"
            )

    def check_length(self, length: int) -> int:
        """Return ``length`` after checking that it fits the position table.

        Parameters
        ----------
        length : int
            Number of positions ``L`` of an input.

        Returns
        -------
        int
            ``length`` unchanged.

        Raises
        ------
        ValueError
            If ``length > n_positions``.

        Examples
        --------
        >>> PositionalScheme(8, 4, 2).check_length(5)
        5
        """
        if length > self.n_positions:
            raise ValueError(
                f"input has {length} positions but the {self.name!r} scheme was built for n_positions="
                f"{self.n_positions}; truncate the input or build the model with a larger n_positions"
            )
        return length

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        """Add the absolute encoding to token embeddings ``x`` (batch, L, d). Identity here.

        Parameters
        ----------
        x : torch.Tensor of shape (batch, L, d)
            Token embeddings, ``L <= n_positions``.

        Returns
        -------
        torch.Tensor of shape (batch, L, d)
            ``x + P[:L]`` for absolute schemes, ``x`` itself otherwise.

        Raises
        ------
        ValueError
            If ``L > n_positions`` (absolute schemes).

        Examples
        --------
        >>> scheme = SinusoidalPosition(4, 2, 1)
        >>> scheme.embed(torch.zeros(1, 2, 2))
        tensor([[[0.0000, 1.0000],
                 [0.8415, 0.5403]]])
        """
        return x

    def rotate(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Rotate queries and keys (batch, heads, L, d_head). Identity here.

        Parameters
        ----------
        q, k : torch.Tensor of shape (batch, heads, L, d_head)
            Queries and keys, ``L <= n_positions``.

        Returns
        -------
        tuple of torch.Tensor
            The rotated ``(q, k)`` for RoPE (pair ``(2k, 2k+1)`` at position ``i`` by the angle ``i theta_k``), the
            inputs themselves otherwise.

        Raises
        ------
        ValueError
            If ``L > n_positions`` (RoPE).

        Examples
        --------
        >>> rope = RotaryPosition(4, 2, 1)
        >>> q = torch.tensor([[[[1.0, 0.0], [1.0, 0.0]]]])
        >>> rope.rotate(q, q)[0]
        tensor([[[[1.0000, 0.0000],
                  [0.5403, 0.8415]]]])
        """
        return q, k

    def bias(self, length: int, *, dtype: torch.dtype, device=None) -> torch.Tensor | None:
        """Additive attention bias (heads, L, L), or ``None`` for no bias (here).

        Parameters
        ----------
        length : int
            Number of positions ``L <= n_positions``.
        dtype : torch.dtype
            Dtype of the bias (that of the attention logits).
        device : torch.device or str, optional
            Device of the bias.

        Returns
        -------
        torch.Tensor of shape (heads, L, L) or None
            ALiBi: ``-m_h |i - j|``; ``None`` for schemes without a bias.

        Raises
        ------
        ValueError
            If ``length > n_positions`` (ALiBi).

        Examples
        --------
        >>> ALiBiPosition(4, 4, 1).bias(3, dtype=torch.float32)
        tensor([[[-0.0000, -0.0039, -0.0078],
                 [-0.0039, -0.0000, -0.0039],
                 [-0.0078, -0.0039, -0.0000]]])
        """
        return None

    def encoding_matrix(self) -> torch.Tensor | None:
        """The absolute encoding ``P`` (n_positions x d), or ``None`` for schemes that add no vector.

        Returns
        -------
        torch.Tensor of shape (n_positions, d_model) or None
            A buffer (sinusoidal, fixed), a parameter (learned) or ``A @ B`` (low rank); ``None`` for ``"none"``,
            ``"rope"`` and ``"alibi"``.

        Examples
        --------
        >>> SinusoidalPosition(16, 8, 2).encoding_matrix().shape
        torch.Size([16, 8])
        >>> RotaryPosition(16, 8, 2).encoding_matrix() is None
        True
        """
        return None

    def extra_repr(self) -> str:
        """The constructor arguments shown in the module's ``repr``.

        Returns
        -------
        str
            ``"n_positions=..., d_model=..., n_heads=..."``.

        Examples
        --------
        >>> NoPosition(8, 4, 2).extra_repr()
        'n_positions=8, d_model=4, n_heads=2'
        """
        return f"n_positions={self.n_positions}, d_model={self.d_model}, n_heads={self.n_heads}"


class NoPosition(PositionalScheme):
    """No positional signal at all (the setting of Theorem 1).

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
    >>> scheme = NoPosition(8, 4, 2)
    >>> scheme.name, scheme.encoding_matrix() is None
    ('none', True)
    """

    name = "none"


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


class RotaryPosition(PositionalScheme):
    """Rotary position embedding (RoPE, Su et al. 2024) on queries and keys.

    Pair ``(2k, 2k+1)`` of a per-head vector at position ``i`` is rotated by the angle ``i theta_k``,
    ``theta_k = base^(-2k/d_head)``: ``(x, y) -> (x cos - y sin, x sin + y cos)``. Since rotations compose,
    ``<R_i q, R_j k> = <q, R_{j-i} k>`` depends on positions through ``i - j`` only.

    Parameters
    ----------
    n_positions : int
        Size of the position table: inputs may have at most this many positions.
    d_model : int
        Model width ``d`` (divisible by ``n_heads``).
    n_heads : int
        Number of attention heads.
    base : float, default 10000.0
        Wavelength base of the frequencies (per-head width ``d_model // n_heads``, which must be even).

    Raises
    ------
    ValueError
        An odd per-head width.

    Examples
    --------
    >>> rope = RotaryPosition(8, 4, 1)
    >>> q = torch.randn(1, 1, 5, 4, generator=torch.Generator().manual_seed(0))
    >>> rq, rk = rope.rotate(q, q)
    >>> torch.allclose(rq.norm(dim=-1), q.norm(dim=-1))  # rotations keep norms
    True
    """

    name = "rope"

    def __init__(self, n_positions: int, d_model: int, n_heads: int, *, base: float = 10000.0):
        super().__init__(n_positions, d_model, n_heads)
        d_head = self.d_model // self.n_heads
        if d_head % 2:
            raise ValueError(f"RoPE needs an even per-head width, got d_model/n_heads = {d_head}")
        angles = np.arange(self.n_positions)[:, None] * sinusoidal_frequencies(d_head, base)[None, :]
        self.register_buffer("cos", torch.tensor(np.cos(angles), dtype=torch.float32))
        self.register_buffer("sin", torch.tensor(np.sin(angles), dtype=torch.float32))

    def _rotate_one(self, x: torch.Tensor) -> torch.Tensor:
        length = self.check_length(x.shape[-2])
        cos, sin = self.cos[:length].to(x.dtype), self.sin[:length].to(x.dtype)
        even, odd = x[..., 0::2], x[..., 1::2]
        out = torch.empty_like(x)
        out[..., 0::2] = even * cos - odd * sin
        out[..., 1::2] = even * sin + odd * cos
        return out

    def rotate(self, q, k):
        return self._rotate_one(q), self._rotate_one(k)


class ALiBiPosition(PositionalScheme):
    """Attention with linear biases (ALiBi, Press et al. 2022): logit ``(i, j)`` of head ``h`` gets ``-m_h |i - j|``.

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
    >>> alibi = ALiBiPosition(8, 8, 2)
    >>> alibi.slopes, alibi.bias(4, dtype=torch.float32).shape
    (tensor([0.0625, 0.0039]), torch.Size([2, 4, 4]))
    """

    name = "alibi"

    def __init__(self, n_positions: int, d_model: int, n_heads: int):
        super().__init__(n_positions, d_model, n_heads)
        self.register_buffer("slopes", torch.tensor(alibi_slopes(self.n_heads), dtype=torch.float32))
        pos = torch.arange(self.n_positions, dtype=torch.float32)
        self.register_buffer("distance", (pos[:, None] - pos[None, :]).abs())

    def bias(self, length: int, *, dtype: torch.dtype, device=None) -> torch.Tensor:
        length = self.check_length(length)
        b = -self.slopes[:, None, None] * self.distance[None, :length, :length]
        return b.to(dtype=dtype, device=device)


_CLASSES = {
    "none": NoPosition,
    "sinusoidal": SinusoidalPosition,
    "learned": LearnedPosition,
    "rope": RotaryPosition,
    "alibi": ALiBiPosition,
    "fixed": FixedPosition,
    "low_rank": LowRankPosition,
}


def make_positional(
    name: str, n_positions: int, d_model: int, n_heads: int, *, rank: int | None = None, encoding=None
) -> PositionalScheme:
    """Build the positional scheme called ``name`` (one of :data:`SCHEMES`).

    Parameters
    ----------
    name : {"none", "sinusoidal", "learned", "rope", "alibi", "fixed", "low_rank"}
        The scheme.
    n_positions, d_model, n_heads : int
        Size of the position table, model width, number of heads.
    rank : int, optional
        Required for ``"low_rank"`` (the ``r`` of ``P = A @ B``), rejected otherwise.
    encoding : (n_positions, d_model) array or tensor, optional
        Required for ``"fixed"``, rejected otherwise.

    Returns
    -------
    PositionalScheme
        The module of the scheme (with default ``base`` and ``init_std``).

    Raises
    ------
    TypeError
        ``name`` is not a string.
    ValueError
        Unknown ``name``, or ``rank``/``encoding`` given to a scheme that does not use it (or missing where needed).

    Examples
    --------
    >>> make_positional("rope", 16, 8, 2)
    RotaryPosition(n_positions=16, d_model=8, n_heads=2)
    >>> make_positional("low_rank", 16, 8, 2, rank=2).rank
    2
    """
    if not isinstance(name, str):
        raise TypeError(f"positional must be a scheme name (str), got {type(name).__name__}")
    if name not in _CLASSES:
        raise ValueError(f"unknown positional scheme {name!r}; choose one of {SCHEMES}")
    if rank is not None and name != "low_rank":
        raise ValueError(f"rank is only used by the 'low_rank' scheme, not {name!r}; drop rank=")
    if encoding is not None and name != "fixed":
        raise ValueError(f"encoding is only used by the 'fixed' scheme, not {name!r}; drop encoding=")
    if name == "low_rank":
        return LowRankPosition(n_positions, d_model, n_heads, rank=rank)
    if name == "fixed":
        return FixedPosition(n_positions, d_model, n_heads, encoding=encoding)
    return _CLASSES[name](n_positions, d_model, n_heads)
