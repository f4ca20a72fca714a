"""Deterministic CPU training: :func:`seed_everything`, :func:`predict`, the loop under ``fit``, its history.

Seed ``s`` means: parameters initialised after ``seed_everything(s)`` (torch's global generator), mini-batch order
from a generator seeded with ``s``; with deterministic algorithms and a fixed thread count (CPU sums depend on it),
the same seed, data and model give bit-identical runs. Labels (N,) train the pooled output, (N, L) each token's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from .._validation import check_positive_int
from ._checks import IGNORE_INDEX

__all__ = ["seed_everything", "predict"]


def seed_everything(seed: int, *, threads: int | None = 1) -> None:
    """Seed torch's global generator (parameter initialisation) and make torch deterministic (numpy is left alone).

    Parameters
    ----------
    seed : int >= 0
    threads : int or None, default 1
        Torch intra-op threads to fix (``None`` leaves them unchanged).

    Examples
    --------
    >>> seed_everything(0)
    >>> torch.randn(2)
    tensor([ 1.5410, -0.2934])
    """
    seed = check_positive_int(seed, "seed", minimum=0)
    if threads is not None:
        torch.set_num_threads(check_positive_int(threads, "threads"))
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(seed)


def _as_tensors(X, y=None, padding_mask=None):
    """``X``, ``y`` and ``padding_mask`` as long, long and bool tensors, shapes checked."""
    X = torch.as_tensor(np.asarray(X) if not torch.is_tensor(X) else X)
    if X.ndim != 2:
        raise ValueError(f"X must have shape (n_sequences, length), got {tuple(X.shape)}")
    if X.dtype.is_floating_point or X.dtype == torch.bool:
        raise TypeError(f"X must hold integer token ids, got dtype {X.dtype}")
    X = X.long()
    if y is not None:
        y = torch.as_tensor(np.asarray(y) if not torch.is_tensor(y) else y)
        if y.dtype.is_floating_point or y.dtype == torch.bool:
            raise TypeError(f"y must hold integer class labels, got dtype {y.dtype}")
        y = y.long()
        if y.ndim not in (1, 2) or y.shape[0] != X.shape[0] or (y.ndim == 2 and y.shape != X.shape):
            raise ValueError(f"y must have shape ({X.shape[0]},) (one label per sequence) or {tuple(X.shape)} (one "
                             f"per token), got {tuple(y.shape)}")
    if padding_mask is not None:
        padding_mask = torch.as_tensor(padding_mask, dtype=torch.bool)
        if padding_mask.shape != X.shape:
            raise ValueError(f"padding_mask must have shape {tuple(X.shape)}, got {tuple(padding_mask.shape)}")
    return X, y, padding_mask


def _logits(model, X, y, mask):
    """Pooled logits for (N,) labels, per-token logits for (N, L) labels."""
    per_token = y is not None and y.ndim == 2
    out = model(X, padding_mask=mask, pooled=not per_token)
    return out.reshape(-1, out.shape[-1]) if per_token else out


@dataclass(frozen=True, kw_only=True)
class TrainingHistory:
    """What a training run did.

    Attributes
    ----------
    loss : tuple of float, the mean mini-batch loss of each epoch
    final_loss : float, the loss on all the training data after training (eval mode)
    epochs, seed, stopped_early : int, int, bool
        Epochs run, the seed; whether ``on_epoch_end`` stopped training before the last epoch.

    Examples
    --------
    >>> TrainingHistory(loss=(0.7, 0.5), final_loss=0.45, epochs=2, stopped_early=False, seed=0).loss[-1]
    0.5
    """
    loss: tuple
    final_loss: float
    epochs: int
    stopped_early: bool
    seed: int


def _train_classifier(model: nn.Module, X: np.ndarray | torch.Tensor, y: np.ndarray | torch.Tensor, *, epochs: int,
                      lr: float, seed: int, batch_size: int = 64, weight_decay: float = 0.0,
                      padding_mask: np.ndarray | torch.Tensor | None = None, schedule: str = "constant",
                      on_epoch_end: Callable[[int, nn.Module], bool | None] | None = None) -> TrainingHistory:
    """Train ``model`` with AdamW on cross-entropy, batch order seeded by ``seed`` (options checked by ``fit``)."""
    epochs = check_positive_int(epochs, "epochs")
    batch_size = check_positive_int(batch_size, "batch_size")
    X, y, mask = _as_tensors(X, y, padding_mask)
    torch.use_deterministic_algorithms(True)
    generator = torch.Generator().manual_seed(seed)
    optimiser = torch.optim.AdamW(model.parameters(), lr=float(lr), weight_decay=float(weight_decay))
    loss_fn = nn.CrossEntropyLoss(ignore_index=IGNORE_INDEX)
    n = X.shape[0]
    total_steps = epochs * ((n + batch_size - 1) // batch_size)
    scheduler = (torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, T_max=total_steps)
                 if schedule == "cosine" else None)
    losses, stopped_early = [], False
    for epoch in range(1, epochs + 1):
        model.train()
        order = torch.randperm(n, generator=generator)
        total, count = 0.0, 0
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            yb = y[idx]
            target = yb.reshape(-1)
            loss = loss_fn(_logits(model, X[idx], yb, None if mask is None else mask[idx]), target)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"training loss became {loss.item()}; lower lr (now {lr})")
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            if scheduler is not None:
                scheduler.step()
            total += loss.item() * idx.numel()
            count += idx.numel()
        losses.append(total / count)
        if on_epoch_end is not None and on_epoch_end(epoch, model) is True:
            stopped_early = epoch < epochs
            break
    return TrainingHistory(loss=tuple(losses), final_loss=_evaluate_loss(model, X, y, padding_mask=mask),
                           epochs=len(losses), stopped_early=stopped_early, seed=seed)


@torch.no_grad()
def predict(model: nn.Module, X: np.ndarray | torch.Tensor, *, padding_mask: np.ndarray | torch.Tensor | None = None,
            pooled: bool = True, batch_size: int = 1024) -> torch.Tensor:
    """Logits of ``model`` on ``X`` in eval mode (left so), in batches: (N, n_classes), or (N, L, n_classes).

    Parameters
    ----------
    model : nn.Module, called as ``model(X, padding_mask=..., pooled=...)``
    X, padding_mask : (N, L) int and bool arrays or tensors (``padding_mask`` optional)
    pooled, batch_size : bool, int (pooled logits or per token; sequences per forward pass)

    Returns
    -------
    torch.Tensor

    Examples
    --------
    >>> from posgeom.nn import TransformerClassifier
    >>> predict(TransformerClassifier(5, 4, 8, 2, 1, n_classes=3), np.zeros((7, 4), dtype=int), batch_size=3).shape
    torch.Size([7, 3])
    """
    X, _, mask = _as_tensors(X, None, padding_mask)
    batch_size = check_positive_int(batch_size, "batch_size")
    model.eval()
    parts = [
        model(X[s : s + batch_size], padding_mask=None if mask is None else mask[s : s + batch_size], pooled=pooled)
        for s in range(0, X.shape[0], batch_size)
    ]
    return torch.cat(parts)


@torch.no_grad()
def _evaluate_loss(model: nn.Module, X: np.ndarray | torch.Tensor, y: np.ndarray | torch.Tensor, *,
                   padding_mask: np.ndarray | torch.Tensor | None = None) -> float:
    """Mean cross-entropy (natural log) of ``model`` on ``(X, y)`` in eval mode, ``-100`` ignored."""
    X, y, mask = _as_tensors(X, y, padding_mask)
    logits = predict(model, X, padding_mask=mask, pooled=y.ndim == 1)
    logits = logits.reshape(-1, logits.shape[-1])
    return float(nn.functional.cross_entropy(logits, y.reshape(-1), ignore_index=IGNORE_INDEX))


def _accuracy(model: nn.Module, X, y, *, padding_mask=None) -> float:
    """Fraction of correct argmax predictions, per sequence or per non-ignored token."""
    X, y, mask = _as_tensors(X, y, padding_mask)
    pred = predict(model, X, padding_mask=mask, pooled=y.ndim == 1).argmax(dim=-1)
    keep = y != IGNORE_INDEX
    if not bool(keep.any()):
        raise ValueError("every label is the ignore index -100: accuracy is undefined")
    return float((pred[keep] == y[keep]).double().mean())
