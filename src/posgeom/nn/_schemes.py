"""The positional schemes of :class:`~posgeom.nn.TransformerClassifier`, one ``nn.Module`` each, built by
:func:`make_positional` from a name of ``posgeom.encodings._schemes.SCHEMES``.

A scheme acts through one of three hooks of :class:`PositionalScheme` (the others are the identity):

* ``embed`` -- absolute schemes add ``p_i`` to the token embedding at position ``i`` (``"sinusoidal"``,
  ``"learned"``, ``"fixed"``, ``"low_rank"``); ``encoding_matrix`` returns ``P`` (n_positions x d_model);
* ``rotate`` -- RoPE rotates queries and keys by position-dependent angles (``"rope"``);
* ``bias`` -- ALiBi adds ``-m_h |i - j|`` to the attention logits of head ``h`` (``"alibi"``).

``"none"`` uses no hook (Theorem 1). Positions are ``0..L-1`` with ``L <= n_positions`` for every scheme.
Frequencies (sinusoidal, RoPE) are those of ``posgeom.encodings._relative.sinusoidal_frequencies`` (RoPE: per-head
width, pairs ``(2k, 2k+1)``, the layout of the sinusoidal encoding); ALiBi slopes are those of Press et al. (2022).
"""

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
    """Base class: the three hooks through which a scheme acts, all the identity here.

    Every scheme takes these three sizes first; its own options (``base``, ``init_std``, ``encoding``, ``rank``)
    are keyword-only.
    """

    name = "base"

    def __init__(self, n_positions: int, d_model: int, n_heads: int):
        super().__init__()
        self.n_positions = check_positive_int(n_positions, "n_positions")
        self.d_model, self.n_heads = check_heads(d_model, n_heads)

    def check_length(self, length: int) -> int:
        """Return ``length`` after checking that it fits the position table (``length <= n_positions``)."""
        if length > self.n_positions:
            raise ValueError(
                f"input has {length} positions but the {self.name!r} scheme was built for n_positions="
                f"{self.n_positions}; truncate the input or build the model with a larger n_positions"
            )
        return length

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        """Token embeddings ``x`` (batch, L, d) plus ``P[:L]`` for absolute schemes; ``x`` itself here."""
        return x

    def rotate(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Queries and keys (batch, heads, L, d_head), rotated by RoPE; unchanged here."""
        return q, k

    def bias(self, length: int, *, dtype: torch.dtype, device: torch.device | str | None = None) -> torch.Tensor | None:
        """Additive attention bias (heads, L, L) of ALiBi; ``None`` here."""
        return None

    def encoding_matrix(self) -> torch.Tensor | None:
        """The absolute encoding ``P`` (n_positions x d_model), or ``None`` for schemes that add no vector."""
        return None

    def extra_repr(self) -> str:
        return f"n_positions={self.n_positions}, d_model={self.d_model}, n_heads={self.n_heads}"


class NoPosition(PositionalScheme):
    """No positional signal at all (the setting of Theorem 1); sizes as in :class:`PositionalScheme`."""

    name = "none"


class AbsolutePosition(PositionalScheme):
    """Base of the additive schemes: ``x_i <- x_i + p_i`` with ``P`` from :meth:`encoding_matrix`."""

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        length = self.check_length(x.shape[-2])
        return x + self.encoding_matrix()[:length].to(x.dtype)


class _BufferPosition(AbsolutePosition):
    """An absolute scheme whose table is a fixed float32 buffer ``P``."""

    def _store(self, P) -> None:
        """Keep the table ``P`` as a float32 buffer (saved with the model, not trained)."""
        self.register_buffer("P", torch.tensor(P, dtype=torch.float32))

    def encoding_matrix(self) -> torch.Tensor:
        return self.P


class SinusoidalPosition(_BufferPosition):
    """The fixed sinusoidal encoding of Vaswani et al. (2017); ``base`` (default 10000) is its wavelength base."""

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
    """A learned ``P = A @ B`` of rank ``rank`` (``A`` n x r, ``B`` r x d), ``1 <= r <= min(n_positions, d_model)``.

    The factors are initialised ``N(0, (0.02 / sqrt(r))^(1/2))`` entrywise, so the entries of ``P`` have standard
    deviation ``0.02`` as in :class:`LearnedPosition`.
    """

    name = "low_rank"

    def __init__(self, n_positions: int, d_model: int, n_heads: int, *, rank: int):
        super().__init__(n_positions, d_model, n_heads)
        check_scheme(self.name, rank=rank, encoding=None)
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
    """Rotary position embedding (RoPE, Su et al. 2024) on queries and keys; the per-head width must be even.

    Pair ``(2k, 2k+1)`` at position ``i`` is rotated by the angle ``i theta_k``, ``theta_k = base^(-2k/d_head)``
    (``base`` default 10000), so ``<R_i q, R_j k> = <q, R_{j-i} k>`` depends on ``i - j`` only.
    """

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
        """Rotate the pairs of coordinates of ``x`` (..., L, d) by their position's angles."""
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
    """Attention with linear biases (ALiBi, Press et al. 2022): logit ``(i, j)`` of head ``h`` gets ``-m_h |i - j|``."""

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
    """The scheme called ``name`` (default ``base`` and ``init_std``); ``rank`` is required by ``"low_rank"`` and
    ``encoding`` by ``"fixed"``, each rejected by every other scheme.
    """
    check_scheme(name, rank=rank, encoding=encoding)
    options = {"low_rank": {"rank": rank}, "fixed": {"encoding": encoding}}.get(name, {})
    return _CLASSES[name](n_positions, d_model, n_heads, **options)
