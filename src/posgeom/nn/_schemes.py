"""The positional schemes of ``TransformerClassifier`` (:func:`make_positional`), each acting through one hook of
:class:`PositionalScheme`: ``embed`` adds ``p_i`` (absolute schemes), ``rotate`` turns queries and keys (RoPE),
``bias`` adds ``-m_h |i - j|`` to head ``h``'s logits (ALiBi); positions are ``0..L-1``, ``L <= n_positions``."""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from .._validation import check_positive_int, check_real
from ..encodings._relative import alibi_slopes, sinusoidal_frequencies
from ..encodings.absolute import sinusoidal_encoding
from ._checks import check_heads, check_scheme, check_table


class PositionalScheme(nn.Module):
    """Base class: the three hooks, all the identity here; a scheme's own options are keyword-only."""
    name = "base"

    def __init__(self, n_positions: int, d_model: int, n_heads: int):
        super().__init__()
        self.n_positions = check_positive_int(n_positions, "n_positions")
        self.d_model, self.n_heads = check_heads(d_model, n_heads)

    def check_length(self, length: int) -> int:
        """``length`` after checking ``length <= n_positions``."""
        if length > self.n_positions:
            raise ValueError(f"input has {length} positions but the {self.name!r} scheme was built for n_positions="
                             f"{self.n_positions}; truncate the input or build the model with a larger n_positions")
        return length

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        """Token embeddings ``x`` (batch, L, d), plus ``P[:L]`` for absolute schemes."""
        return x

    def rotate(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Queries and keys (batch, heads, L, d_head), rotated by RoPE."""
        return q, k

    def bias(self, length: int, *, dtype: torch.dtype, device: torch.device | str | None = None) -> torch.Tensor | None:
        """Additive attention bias (heads, L, L) of ALiBi, or ``None``."""
        return None

    def encoding_matrix(self) -> torch.Tensor | None:
        """The absolute encoding ``P`` (n_positions x d_model), or ``None``."""
        return None

    def extra_repr(self) -> str:
        return f"n_positions={self.n_positions}, d_model={self.d_model}, n_heads={self.n_heads}"


class NoPosition(PositionalScheme):
    """No positional signal at all (Theorem 1)."""
    name = "none"


class AbsolutePosition(PositionalScheme):
    """Base of the additive schemes: ``x_i <- x_i + p_i``."""

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        length = self.check_length(x.shape[-2])
        return x + self.encoding_matrix()[:length].to(x.dtype)


class _BufferPosition(AbsolutePosition):
    """An absolute scheme whose table is a fixed float32 buffer ``P``."""

    def _store(self, P) -> None:
        """Keep ``P`` as a float32 buffer (saved, not trained)."""
        self.register_buffer("P", torch.tensor(P, dtype=torch.float32))

    def encoding_matrix(self) -> torch.Tensor:
        return self.P


class SinusoidalPosition(_BufferPosition):
    """The fixed sinusoidal encoding of Vaswani et al. (2017), wavelength base ``base``."""
    name = "sinusoidal"

    def __init__(self, n_positions: int, d_model: int, n_heads: int, *, base: float = 10000.0):
        super().__init__(n_positions, d_model, n_heads)
        self._store(sinusoidal_encoding(self.n_positions, self.d_model, base=base))


class FixedPosition(_BufferPosition):
    """A given, frozen ``encoding`` (n_positions x d_model array or tensor), e.g. an MDS encoding."""
    name = "fixed"

    def __init__(self, n_positions: int, d_model: int, n_heads: int, *, encoding: np.ndarray | torch.Tensor):
        super().__init__(n_positions, d_model, n_heads)
        check_scheme(self.name, rank=None, encoding=encoding)
        self._store(check_table(encoding, "encoding", self.n_positions, self.d_model))


class LearnedPosition(AbsolutePosition):
    """A learned table ``P`` initialised ``N(0, init_std^2)`` (default 0.02); ``init_std=0`` ties every position."""
    name = "learned"

    def __init__(self, n_positions: int, d_model: int, n_heads: int, *, init_std: float = 0.02):
        super().__init__(n_positions, d_model, n_heads)
        init_std = check_real(init_std, "init_std", strict=False)
        self.weight = nn.Parameter(torch.randn(self.n_positions, self.d_model) * init_std)

    def encoding_matrix(self) -> torch.Tensor:
        return self.weight


class LowRankPosition(AbsolutePosition):
    """A learned ``P = A @ B`` of rank ``r``, factors initialised so that ``P``'s entries have SD 0.02."""
    name = "low_rank"

    def __init__(self, n_positions: int, d_model: int, n_heads: int, *, rank: int):
        super().__init__(n_positions, d_model, n_heads)
        check_scheme(self.name, rank=rank, encoding=None)
        self.rank = check_positive_int(rank, "rank")
        if self.rank > min(self.n_positions, self.d_model):
            raise ValueError(f"rank={self.rank} exceeds min(n_positions, d_model)={min(self.n_positions, self.d_model)}"
                             "; a larger rank adds parameters without adding expressiveness")
        std = math.sqrt(0.02 / math.sqrt(self.rank))
        self.A = nn.Parameter(torch.randn(self.n_positions, self.rank) * std)
        self.B = nn.Parameter(torch.randn(self.rank, self.d_model) * std)

    def encoding_matrix(self) -> torch.Tensor:
        return self.A @ self.B


class RotaryPosition(PositionalScheme):
    """RoPE (Su et al. 2024): pair ``(2k, 2k+1)`` at position ``i`` rotated by ``i base^(-2k/d_head)``."""
    name = "rope"

    def __init__(self, n_positions: int, d_model: int, n_heads: int, *, base: float = 10000.0):
        super().__init__(n_positions, d_model, n_heads)
        d_head = self.d_model // self.n_heads
        if d_head % 2:
            raise ValueError(f"RoPE needs an even per-head width, got d_model/n_heads = {d_head}")
        angles = np.arange(self.n_positions)[:, None] * sinusoidal_frequencies(d_head, base=base)[None, :]
        self.register_buffer("cos", torch.tensor(np.cos(angles), dtype=torch.float32))
        self.register_buffer("sin", torch.tensor(np.sin(angles), dtype=torch.float32))

    def _rotate_one(self, x: torch.Tensor) -> torch.Tensor:
        """Rotate the coordinate pairs of ``x`` (..., L, d) by their position's angles."""
        length = self.check_length(x.shape[-2])
        cos, sin = self.cos[:length].to(x.dtype), self.sin[:length].to(x.dtype)
        even, odd = x[..., 0::2], x[..., 1::2]
        out = torch.empty_like(x)
        out[..., 0::2] = even * cos - odd * sin
        out[..., 1::2] = even * sin + odd * cos
        return out

    def rotate(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self._rotate_one(q), self._rotate_one(k)


class ALiBiPosition(PositionalScheme):
    """ALiBi (Press et al. 2022): logit ``(i, j)`` of head ``h`` gets ``-m_h |i - j|``."""
    name = "alibi"

    def __init__(self, n_positions: int, d_model: int, n_heads: int):
        super().__init__(n_positions, d_model, n_heads)
        self.register_buffer("slopes", torch.tensor(alibi_slopes(self.n_heads), dtype=torch.float32))
        pos = torch.arange(self.n_positions, dtype=torch.float32)
        self.register_buffer("distance", (pos[:, None] - pos[None, :]).abs())

    def bias(self, length: int, *, dtype: torch.dtype, device: torch.device | str | None = None) -> torch.Tensor:
        length = self.check_length(length)
        b = -self.slopes[:, None, None] * self.distance[None, :length, :length]
        return b.to(dtype=dtype, device=device)


_CLASSES = {cls.name: cls for cls in (NoPosition, SinusoidalPosition, LearnedPosition, RotaryPosition,
                                      ALiBiPosition, FixedPosition, LowRankPosition)}


def make_positional(name: str, n_positions: int, d_model: int, n_heads: int, *, rank: int | None = None,
                    encoding: np.ndarray | torch.Tensor | None = None) -> PositionalScheme:
    """The scheme called ``name``, with ``rank`` (``"low_rank"`` only) or ``encoding`` (``"fixed"`` only)."""
    check_scheme(name, rank=rank, encoding=encoding)
    options = {"low_rank": {"rank": rank}, "fixed": {"encoding": encoding}}.get(name, {})
    return _CLASSES[name](n_positions, d_model, n_heads, **options)
