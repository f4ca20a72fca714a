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

import numpy as np
import torch

from ..encodings.absolute import sinusoidal_frequencies
from ..encodings.relative import alibi_slopes
from ..encodings.schemes import SCHEMES
from .absolute import AbsolutePosition, FixedPosition, LearnedPosition, LowRankPosition, SinusoidalPosition
from .scheme import NoPosition, PositionalScheme

__all__ = [
    "RotaryPosition",
    "ALiBiPosition",
    "make_positional",
]
# also importable from here, documented where they are defined (scheme, absolute, encodings.schemes)
_REEXPORTED = (SCHEMES, PositionalScheme, NoPosition, AbsolutePosition, SinusoidalPosition, LearnedPosition,
               FixedPosition, LowRankPosition)


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
