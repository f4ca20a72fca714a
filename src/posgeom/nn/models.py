"""Small Transformers whose positional scheme is a parameter.

* :class:`TransformerClassifier` -- a small pre-LayerNorm Transformer (or one without layer normalisation) with a
  classification head (pooled or per token), its positional scheme named by a string.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from .._validation import check_positive_int
from ._checks import check_heads
from ._schemes import PositionalScheme, make_positional

__all__ = [
    "TransformerClassifier",
]


class _SelfAttention(nn.Module):
    """Multi-head self-attention with a pluggable positional scheme (``d_model`` divisible by ``n_heads``)."""

    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        self.d_model, self.n_heads = check_heads(d_model, n_heads)
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def attention_weights(
        self, x: torch.Tensor, positional: PositionalScheme, *, causal: bool, padding_mask: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return ``(weights, v)``: attention weights (batch, heads, L, L) and values (batch, heads, L, d_head)."""
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
        return weights, v

    def forward(self, x: torch.Tensor, positional: PositionalScheme, *, causal: bool = False,
                padding_mask: torch.Tensor | None = None) -> torch.Tensor:
        """Attention output ``Out(weights @ v)`` of shape (batch, L, d_model)."""
        weights, v = self.attention_weights(x, positional, causal=causal, padding_mask=padding_mask)
        b, _, length, _ = weights.shape
        return self.out((weights @ v).transpose(1, 2).reshape(b, length, self.d_model))


class _Block(nn.Module):
    """Pre-LN block: ``h + Attention(LN(h))``, then ``h + MLP(LN(h))`` (width ``4 d``; no layer_norm: LN = identity)."""

    def __init__(self, d_model: int, n_heads: int, layer_norm: bool = True):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model) if layer_norm else nn.Identity()
        self.attn = _SelfAttention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model) if layer_norm else nn.Identity()
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, h: torch.Tensor, positional: PositionalScheme, *, causal: bool = False,
                padding_mask: torch.Tensor | None = None) -> torch.Tensor:
        """One block on hidden states ``h`` (batch, L, d_model): ``h + Attention(LN(h))``, then ``+ MLP(LN(.))``;
        the other arguments as in :meth:`_SelfAttention.forward`.
        """
        h = h + self.attn(self.ln1(h), positional, causal=causal, padding_mask=padding_mask)
        return h + self.mlp(self.ln2(h))


class TransformerClassifier(nn.Module):
    """A small Transformer encoder (or, with ``causal=True``, decoder) with a classification head.

    Pre-LayerNorm (or, with ``layer_norm=False``, no layer normalisation at all), no dropout (forward passes are
    deterministic); one multi-head self-attention serves every scheme,
    which acts where it belongs (absolute schemes add ``p_i`` to the token embedding, RoPE rotates queries and keys
    in every layer, ALiBi biases the logits of every layer)::

        h = embed(tokens)                  # token embedding, + p_i for absolute schemes
        for each layer:
            h = h + Attention(LN(h))       # softmax(q k^T / sqrt(d_head) + bias + mask) v
            h = h + MLP(LN(h))             # Linear(d, 4d) -> GELU -> Linear(4d, d)
        logits = head(mean of LN(h) over non-padding tokens)    # or head(LN(h)_i) per token

    With ``layer_norm=False`` every ``LN`` above is the identity and the model has no LayerNorm parameters: the
    cross-entropy then sees the scale of every weight, so a weight penalty has well-posed, well-conditioned
    stationary points (a LayerNorm makes the loss blind to the scale of the weights that feed it).

    A query that can attend to nothing (a padding query under a causal mask with left padding) gets an attention
    output of 0, never NaN.

    Parameters
    ----------
    vocab_size : int
        Number of token ids; inputs are int tensors with values in ``[0, vocab_size)``.
    n_positions : int
        Largest input length ``L`` (size of the position table of every scheme).
    d_model : int
        Width ``d`` (divisible by ``n_heads``; for ``"rope"``, ``d_model / n_heads`` must be even; for
        ``"sinusoidal"``, ``d_model`` must be even).
    n_heads, n_layers : int
        Heads per attention layer and number of blocks.
    positional : str, default "learned"
        The positional scheme, one of ``"none"``, ``"sinusoidal"``, ``"learned"``, ``"rope"``, ``"alibi"``,
        ``"fixed"``, ``"low_rank"``.
    causal : bool, default False
        Causal (decoder) attention: position ``i`` attends to ``j <= i`` only.
    rank : int, optional
        The rank ``r`` of ``"low_rank"`` (required for it, rejected otherwise).
    encoding : (n_positions, d_model) array, optional
        The frozen matrix of ``"fixed"`` (required for it, rejected otherwise).
    n_classes : int, default 2
        Number of output logits.
    layer_norm : bool, default True
        Pre-LayerNorm blocks and a final LayerNorm; with False, none (no ``ln1``, ``ln2``, ``ln_final`` parameters).

    Raises
    ------
    TypeError
        ``causal`` or ``layer_norm`` not a bool, or a size that is not an integer.
    ValueError
        Non-positive sizes, ``d_model`` not divisible by ``n_heads``, or a scheme's argument error.

    Attributes
    ----------
    positional : torch.nn.Module
        The module of the scheme named ``positional``: it adds ``p_i`` to the token embeddings, rotates queries and
        keys, or biases the attention logits; :meth:`positional_encoding` returns its table ``P``.

    Examples
    --------
    >>> import torch
    >>> model = TransformerClassifier(10, 8, 16, 2, 1, positional="rope")
    >>> model(torch.zeros(3, 8, dtype=torch.long)).shape
    torch.Size([3, 2])
    """

    def __init__(
        self,
        vocab_size: int,
        n_positions: int,
        d_model: int,
        n_heads: int,
        n_layers: int,
        *,
        positional: str = "learned",
        causal: bool = False,
        rank: int | None = None,
        encoding: np.ndarray | torch.Tensor | None = None,
        n_classes: int = 2,
        layer_norm: bool = True,
    ):
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

    @property
    def scheme(self) -> str:
        """The name of the positional scheme."""
        return self.positional.name

    def positional_encoding(self) -> torch.Tensor | None:
        """``P`` (n_positions x d_model) for absolute schemes (a view of the parameter), ``None`` otherwise.

        Returns
        -------
        torch.Tensor of shape (n_positions, d_model) or None
            The encoding matrix of the scheme (the scheme's table; a view of the parameter for learned tables).

        Examples
        --------
        >>> TransformerClassifier(10, 8, 16, 2, 1).positional_encoding().shape
        torch.Size([8, 16])
        """
        return self.positional.encoding_matrix()

    def _check_inputs(self, ids, padding_mask):
        """Checks ``ids`` (N, L) integer ids within the vocabulary and window, and a matching bool ``padding_mask``."""
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

    def _hidden(self, ids, padding_mask):
        """The last block's token representations (N, L, d)."""
        h = self.positional.embed(self.token_embedding(ids))
        for block in self.blocks:
            h = block(h, self.positional, causal=self.causal, padding_mask=padding_mask)
        return self.ln_final(h)

    def _output(self, ids, padding_mask, pooled):
        """The forward pass after the input checks."""
        h = self._hidden(ids, padding_mask)
        if not pooled:
            return self.head(h)
        if padding_mask is None:
            return self.head(h.mean(dim=1))
        keep = (~padding_mask).to(h.dtype)[..., None]
        return self.head((h * keep).sum(dim=1) / keep.sum(dim=1))

    def forward(
        self, ids: torch.Tensor, *, padding_mask: torch.Tensor | None = None, pooled: bool = True
    ) -> torch.Tensor:
        """Logits: pooled (batch, n_classes) by default, per token (batch, L, n_classes) with ``pooled=False``.

        The pooled output is the head applied to the mean of the final hidden states over non-padding tokens.

        Parameters
        ----------
        ids : torch.Tensor of shape (batch, L), integer
            Token ids in ``[0, vocab_size)``, ``1 <= L <= n_positions``.
        padding_mask : torch.Tensor of shape (batch, L), bool, optional
            True at padding tokens (not attended to, left out of the mean).
        pooled : bool, default True
            Pooled logits, or one row of logits per token.

        Returns
        -------
        torch.Tensor
            Shape (batch, n_classes) when pooled, (batch, L, n_classes) otherwise.

        Raises
        ------
        TypeError
            Non-tensor or non-integer ids, or a non-bool mask.
        ValueError
            Wrong shapes, ids outside the vocabulary, ``L > n_positions``, or a padding-only sequence.

        Examples
        --------
        >>> _ = torch.manual_seed(0)
        >>> model = TransformerClassifier(10, 8, 16, 2, 1, n_classes=3)
        >>> ids = torch.tensor([[1, 2, 0], [4, 0, 0]])
        >>> mask = ids == 0
        >>> model(ids, padding_mask=mask).shape, model(ids, pooled=False).shape
        (torch.Size([2, 3]), torch.Size([2, 3, 3]))
        """
        self._check_inputs(ids, padding_mask)
        return self._output(ids.long(), padding_mask, pooled)
