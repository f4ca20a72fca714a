"""The forward pass of ``S`` stacked ``TransformerClassifier`` members with a member axis in front, for
``fit_ensemble``: what ``TransformerClassifier.forward`` computes per member, up to the order of floating-point sums.
"""

from __future__ import annotations

import math

import torch
from torch.nn import functional as F

from ._schemes import AbsolutePosition, LowRankPosition


def _linear(x, params, name):
    """``x @ W^T + b`` per member: ``x`` (S, ..., in) -> (S, ..., out)."""
    w, b = params[f"{name}.weight"], params[f"{name}.bias"]
    S, out = w.shape[0], w.shape[1]
    flat = x.reshape(S, -1, x.shape[-1])
    return torch.baddbmm(b[:, None, :], flat, w.transpose(1, 2)).view(*x.shape[:-1], out)


def _layer_norm(x, params, name):
    """LayerNorm per member; the identity when the model has no LayerNorm ``name`` (no such parameters)."""
    if f"{name}.weight" not in params:
        return x
    w, b = params[f"{name}.weight"], params[f"{name}.bias"]
    shape = (w.shape[0],) + (1,) * (x.ndim - 2) + (w.shape[1],)
    return F.layer_norm(x, (x.shape[-1],)) * w.view(shape) + b.view(shape)


def _encoding(model, params, buffers):
    """The stacked absolute encodings (S, n, d), or None."""
    scheme = model.positional
    if not isinstance(scheme, AbsolutePosition):
        return None
    if isinstance(scheme, LowRankPosition):
        return torch.bmm(params["positional.A"], params["positional.B"])
    if "positional.weight" in params:
        return params["positional.weight"]
    return buffers["positional.P"]


def batched_logits(model, params: dict, buffers: dict, ids: torch.Tensor, padding_mask, *, pooled: bool):
    """Logits of every member: (S, B, n_classes) pooled, (S, B, L, n_classes) per token."""
    S, B, L = ids.shape
    d, H = model.d_model, model.n_heads
    dh = d // H
    table = params["token_embedding.weight"]  # (S, V, d)
    offset = torch.arange(S, device=ids.device).view(S, 1, 1) * table.shape[1]
    h = F.embedding(ids + offset, table.reshape(-1, d))  # (S, B, L, d)
    P = _encoding(model, params, buffers)
    if P is not None:
        model.positional.check_length(L)
        h = h + P[:, None, :L].to(h.dtype)
    scheme = model.positional
    bias = scheme.bias(L, dtype=h.dtype, device=h.device)
    blocked = None
    if model.causal or padding_mask is not None:
        blocked = torch.zeros(L, L, dtype=torch.bool, device=h.device)
        if model.causal:
            blocked = torch.triu(torch.ones_like(blocked), diagonal=1)
        blocked = blocked.expand(S, B, 1, L, L)
        if padding_mask is not None:
            blocked = blocked | padding_mask[:, :, None, None, :]
        empty = blocked.all(dim=-1, keepdim=True)
    for i in range(model.n_layers):
        pre = f"blocks.{i}"
        x = _layer_norm(h, params, f"{pre}.ln1")
        q, k, v = _linear(x, params, f"{pre}.attn.qkv").view(S, B, L, 3, H, dh).permute(3, 0, 1, 4, 2, 5).unbind(0)
        q, k = scheme.rotate(q, k)
        logits = q @ k.transpose(-1, -2) / math.sqrt(dh)  # (S, B, H, L, L)
        if bias is not None:
            logits = logits + bias
        if blocked is None:
            weights = torch.softmax(logits, dim=-1)
        else:
            logits = logits.masked_fill(blocked, float("-inf"))
            weights = torch.softmax(logits.masked_fill(empty, 0.0), dim=-1).masked_fill(empty, 0.0)
        att = (weights @ v).transpose(2, 3).reshape(S, B, L, d)
        h = h + _linear(att, params, f"{pre}.attn.out")
        x = _layer_norm(h, params, f"{pre}.ln2")
        h = h + _linear(F.gelu(_linear(x, params, f"{pre}.mlp.0")), params, f"{pre}.mlp.2")
    h = _layer_norm(h, params, "ln_final")
    if not pooled:
        return _linear(h, params, "head")
    if padding_mask is None:
        return _linear(h.mean(dim=2), params, "head")
    keep = (~padding_mask).to(h.dtype)[..., None]
    return _linear((h * keep).sum(dim=2) / keep.sum(dim=2), params, "head")


def member_losses(logits, y, ignore_index: int):
    """Mean cross-entropy of each member over its non-ignored targets: (S,)."""
    S, C = logits.shape[0], logits.shape[-1]
    target = y.reshape(S, -1)
    per = F.cross_entropy(logits.reshape(-1, C), target.reshape(-1), ignore_index=ignore_index, reduction="none")
    keep = (target != ignore_index).to(per.dtype)
    return per.view(S, -1).sum(dim=1) / keep.sum(dim=1)
