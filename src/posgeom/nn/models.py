"""* :class:`TransformerClassifier`: a small Transformer with a classification head and a named positional scheme."""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from .._validation import check_positive_int
from ._checks import check_heads
from ._schemes import PositionalScheme, make_positional

__all__ = ["TransformerClassifier"]


class _SelfAttention(nn.Module):
    """Multi-head self-attention with a pluggable positional scheme."""

    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        self.d_model, self.n_heads = check_heads(d_model, n_heads)
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor, positional: PositionalScheme, *, causal: bool = False,
                padding_mask: torch.Tensor | None = None) -> torch.Tensor:
        """Attention output (batch, L, d_model)."""
        b, length, _ = x.shape
        q, k, v = self.qkv(x).view(b, length, 3, self.n_heads, self.d_head).permute(2, 0, 3, 1, 4)
        q, k = positional.rotate(q, k)
        logits = q @ k.transpose(-1, -2) / math.sqrt(self.d_head)
        bias = positional.bias(length, dtype=logits.dtype, device=logits.device)
        if bias is not None:
            logits = logits + bias
        blocked = torch.zeros(length, length, dtype=torch.bool, device=x.device)
        if causal:
            blocked = torch.triu(torch.ones_like(blocked), diagonal=1)
        blocked = blocked.expand(b, 1, length, length)
        if padding_mask is not None:
            blocked = blocked | padding_mask[:, None, None, :]
        logits = logits.masked_fill(blocked, float("-inf"))
        empty = blocked.all(dim=-1, keepdim=True)
        weights = torch.softmax(logits.masked_fill(empty, 0.0), dim=-1).masked_fill(empty, 0.0)
        return self.out((weights @ v).transpose(1, 2).reshape(b, length, self.d_model))


class _Block(nn.Module):
    """Pre-LN block: ``h + Attention(LN(h))``, then ``h + MLP(LN(h))``."""

    def __init__(self, d_model: int, n_heads: int, layer_norm: bool = True):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model) if layer_norm else nn.Identity()
        self.attn = _SelfAttention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model) if layer_norm else nn.Identity()
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, h: torch.Tensor, positional: PositionalScheme, *, causal: bool = False,
                padding_mask: torch.Tensor | None = None) -> torch.Tensor:
        """One block on hidden states ``h`` (batch, L, d_model)."""
        h = h + self.attn(self.ln1(h), positional, causal=causal, padding_mask=padding_mask)
        return h + self.mlp(self.ln2(h))


class TransformerClassifier(nn.Module):
    """A small Transformer encoder (or, with ``causal=True``, decoder) with a classification head.

    Pre-LayerNorm, no dropout; absolute schemes add ``p_i`` to the token embedding, RoPE rotates queries and keys and
    ALiBi biases the logits in every layer; a query that can attend to nothing gets an output of 0, never NaN::

        h = embed(tokens)                  # token embedding, + p_i for absolute schemes
        for each layer:
            h = h + Attention(LN(h))       # softmax(q k^T / sqrt(d_head) + bias + mask) v
            h = h + MLP(LN(h))             # Linear(d, 4d) -> GELU -> Linear(4d, d)
        logits = head(mean of LN(h) over non-padding tokens)    # or head(LN(h)_i) per token

    Parameters
    ----------
    vocab_size, n_positions, d_model, n_heads, n_layers : int
        Token ids; the largest input length; the width (divisible by ``n_heads``, even per head for RoPE); blocks.
    positional : str, default "learned"
        One of ``"none"``, ``"sinusoidal"``, ``"learned"``, ``"rope"``, ``"alibi"``, ``"fixed"``, ``"low_rank"``.
    causal, n_classes : bool, int (position ``i`` attends to ``j <= i`` only; output classes)
    rank, encoding : int, (n_positions, d_model) array, optional
        The rank of ``"low_rank"``, the frozen matrix of ``"fixed"`` (each required there, rejected elsewhere).
    layer_norm : bool, default True
        With False every ``LN`` is the identity (a weight penalty then has well-posed stationary points).

    Examples
    --------
    >>> model = TransformerClassifier(10, 8, 16, 2, 1, positional="rope")
    >>> model(torch.zeros(3, 8, dtype=torch.long)).shape
    torch.Size([3, 2])
    """

    def __init__(self, vocab_size: int, n_positions: int, d_model: int, n_heads: int, n_layers: int, *,
                 positional: str = "learned", causal: bool = False, rank: int | None = None,
                 encoding: np.ndarray | torch.Tensor | None = None, n_classes: int = 2, layer_norm: bool = True):
        super().__init__()
        self.vocab_size = check_positive_int(vocab_size, "vocab_size")
        self.n_positions = check_positive_int(n_positions, "n_positions")
        self.d_model, self.n_heads = check_heads(d_model, n_heads)
        self.n_layers = check_positive_int(n_layers, "n_layers")
        self.n_classes = check_positive_int(n_classes, "n_classes")
        if not isinstance(causal, bool):
            raise TypeError(f"causal must be True or False, got {causal!r}")
        self.causal = causal
        if not isinstance(layer_norm, bool):
            raise TypeError(f"layer_norm must be True or False, got {layer_norm!r}")
        self.layer_norm = layer_norm
        self.positional = make_positional(positional, n_positions, d_model, n_heads, rank=rank, encoding=encoding)
        self.token_embedding = nn.Embedding(self.vocab_size, self.d_model)
        self.blocks = nn.ModuleList(_Block(self.d_model, self.n_heads, layer_norm) for _ in range(self.n_layers))
        self.ln_final = nn.LayerNorm(self.d_model) if layer_norm else nn.Identity()
        self.head = nn.Linear(self.d_model, self.n_classes)

    def positional_encoding(self) -> torch.Tensor | None:
        """``P`` (n_positions x d_model) for absolute schemes (a view of a learned table), ``None`` otherwise.

        Returns
        -------
        torch.Tensor or None

        Examples
        --------
        >>> TransformerClassifier(10, 8, 16, 2, 1).positional_encoding().shape
        torch.Size([8, 16])
        """
        return self.positional.encoding_matrix()

    def _check_inputs(self, ids, padding_mask):
        """Check ``ids`` (N, L) and a matching bool ``padding_mask``."""
        if not torch.is_tensor(ids):
            raise TypeError(f"ids must be a torch tensor of token ids, got {type(ids).__name__}")
        if ids.dtype not in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8):
            raise TypeError(f"ids must be an integer tensor, got dtype {ids.dtype}; use ids.long()")
        if ids.ndim != 2:
            raise ValueError(f"ids must have shape (batch, length), got {tuple(ids.shape)}; use ids[None] for one")
        if ids.shape[1] == 0:
            raise ValueError("ids has length 0: pass at least one token per sequence")
        if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= self.vocab_size):
            raise ValueError(f"token ids must lie in [0, {self.vocab_size}), got range "
                             f"[{int(ids.min())}, {int(ids.max())}]")
        self.positional.check_length(ids.shape[1])
        if padding_mask is not None:
            if not torch.is_tensor(padding_mask) or padding_mask.dtype != torch.bool:
                raise TypeError("padding_mask must be a bool tensor (True at padding tokens)")
            if padding_mask.shape != ids.shape:
                raise ValueError(f"padding_mask must have the shape of ids {tuple(ids.shape)}, "
                                 f"got {tuple(padding_mask.shape)}")
            if bool(padding_mask.all(dim=1).any()):
                raise ValueError("a sequence is padding only: every sequence needs at least one real token")

    def _output(self, ids, padding_mask, pooled):
        """The forward pass after the input checks."""
        h = self.positional.embed(self.token_embedding(ids))
        for block in self.blocks:
            h = block(h, self.positional, causal=self.causal, padding_mask=padding_mask)
        h = self.ln_final(h)
        if not pooled:
            return self.head(h)
        if padding_mask is None:
            return self.head(h.mean(dim=1))
        keep = (~padding_mask).to(h.dtype)[..., None]
        return self.head((h * keep).sum(dim=1) / keep.sum(dim=1))

    def forward(self, ids: torch.Tensor, *, padding_mask: torch.Tensor | None = None,
                pooled: bool = True) -> torch.Tensor:
        """Logits: pooled (batch, n_classes), or per token (batch, L, n_classes) with ``pooled=False``.

        Parameters
        ----------
        ids, padding_mask : (batch, L) integer and bool tensors
            Token ids; optionally True at padding tokens (not attended to, left out of the mean).
        pooled : bool, default True

        Returns
        -------
        torch.Tensor

        Examples
        --------
        >>> model = TransformerClassifier(10, 8, 16, 2, 1, n_classes=3)
        >>> ids = torch.tensor([[1, 2, 0], [4, 0, 0]])
        >>> model(ids, padding_mask=ids == 0).shape, model(ids, pooled=False).shape
        (torch.Size([2, 3]), torch.Size([2, 3, 3]))
        """
        self._check_inputs(ids, padding_mask)
        return self._output(ids.long(), padding_mask, pooled)
