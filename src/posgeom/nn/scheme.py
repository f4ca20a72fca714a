"""The base of the positional schemes: :class:`PositionalScheme` (three hooks, all the identity) and
:class:`NoPosition` (no positional signal). The schemes themselves are in :mod:`posgeom.nn.absolute` (additive
tables) and :mod:`posgeom.nn.positional` (RoPE, ALiBi, and :func:`~posgeom.nn.make_positional`).
"""

from __future__ import annotations

import torch
from torch import nn

from .._validation import check_positive_int

__all__ = [
    "PositionalScheme",
    "NoPosition",
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
        >>> from posgeom.nn import SinusoidalPosition
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
        >>> from posgeom.nn import RotaryPosition
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
        >>> from posgeom.nn import ALiBiPosition
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
        >>> from posgeom.nn import RotaryPosition, SinusoidalPosition
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
