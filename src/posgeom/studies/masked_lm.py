"""Masked-language-model data and training snapshots for Chapter 8's from-scratch monotonicity experiment.

:func:`masked_lm_data` turns token sequences into a masked-LM task over the ``n_kept`` most frequent tokens;
:func:`train_with_snapshots` trains a small Transformer on it and keeps the position table at several training
budgets, so that the chapter can test whether monotonicity strengthens with training.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._validation import check_positive_int, check_rng

__all__ = [
    "MaskedLMData",
    "masked_lm_data",
    "TrainingSnapshots",
    "train_with_snapshots",
]


@dataclass(frozen=True)
class MaskedLMData:
    """Masked-language-model training data over a compact vocabulary.

    Attributes
    ----------
    inputs : (N, L) int64 array
        Compact token ids, with the masked slots replaced by ``mask_id``.
    targets : (N, L) int64 array
        The original compact id at masked slots, ``-100`` (ignored by the loss) elsewhere.
    vocabulary : (K,) int64 array
        The original ids kept: compact id ``c < K`` stands for ``vocabulary[c]``; ``K`` is the shared id of every
        other token (``unk_id``) and ``K + 1`` is ``mask_id``.
    unk_id : int
        ``K``: the compact id shared by every token outside ``vocabulary``.
    mask_id : int
        ``K + 1``: the compact id that replaces a masked slot in ``inputs``.

    Examples
    --------
    >>> data = MaskedLMData(inputs=np.array([[0, 3, 1]]), targets=np.array([[-100, 2, -100]]),
    ...                     vocabulary=np.array([7, 9]), unk_id=2, mask_id=3)
    >>> data.n_classes, data.vocab_size
    (3, 4)
    """

    inputs: np.ndarray
    targets: np.ndarray
    vocabulary: np.ndarray
    unk_id: int
    mask_id: int

    @property
    def n_classes(self) -> int:
        """Number of output classes, ``K + 1`` (kept tokens and ``unk_id``; ``mask_id`` is never a target)."""
        return int(self.vocabulary.size + 1)

    @property
    def vocab_size(self) -> int:
        """Number of input ids, ``K + 2`` (kept tokens, ``unk_id``, ``mask_id``)."""
        return int(self.vocabulary.size + 2)


def masked_lm_data(sequences, *, n_kept: int, rng, mask_rate: float = 0.15,
                   protect=(0, -1)) -> MaskedLMData:
    """Static masked-language-model data: a compact vocabulary and one random mask per sequence.

    Parameters
    ----------
    sequences : (N, L) int array
        Token ids of equal-length sequences (e.g. ``[CLS] w_1 ... w_{L-2} [SEP]`` windows).
    n_kept : int
        ``K``: the ``K`` most frequent ids in ``sequences`` keep their own compact id (ties broken by the smaller
        id); every other id maps to ``unk_id = K``. This keeps the output layer small. If fewer than ``K`` distinct
        ids occur, all are kept and ``K`` is their number.
    rng : int or numpy.random.Generator
        Seed of the masks.
    mask_rate : float, default 0.15
        Probability that a slot is masked (independently per slot), as in BERT; masked slots are replaced by
        ``mask_id`` (BERT's 80/10/10 replacement rule is not used).
    protect : tuple of int, default (0, -1)
        Positions that are never masked (by default the ``[CLS]`` and ``[SEP]`` slots).

    Returns
    -------
    MaskedLMData
        ``inputs`` and ``targets`` of the shape of ``sequences``, with the kept ``vocabulary`` and the special ids.

    Raises
    ------
    ValueError
        ``sequences`` not of shape (N, L) with ``N >= 1`` and ``L >= 2``, a negative id, ``n_kept < 1``, a negative
        seed or ``mask_rate`` outside (0, 1).
    TypeError
        Non-integer token ids, ``n_kept`` or ``rng``.

    Examples
    --------
    >>> X = np.array([[101, 5, 7, 5, 102], [101, 7, 9, 5, 102], [101, 5, 5, 8, 102]])
    >>> data = masked_lm_data(X, n_kept=3, rng=0, mask_rate=0.5)
    >>> data.vocabulary.tolist(), data.unk_id, data.mask_id, data.n_classes
    ([5, 101, 102], 3, 4, 4)
    >>> bool(np.all(data.targets[:, [0, -1]] == -100))  # [CLS] and [SEP] are never masked
    True
    >>> bool(np.all((data.inputs == data.mask_id) == (data.targets != -100)))
    True
    """
    X = np.asarray(sequences)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 2:
        raise ValueError(f"sequences must be an (N, L) array with N >= 1 and L >= 2, got shape {X.shape}")
    if not np.issubdtype(X.dtype, np.integer):
        raise TypeError(f"sequences must hold integer token ids, got dtype {X.dtype}")
    if X.min() < 0:
        raise ValueError("token ids must be >= 0")
    K = check_positive_int(n_kept, "n_kept")
    rng = check_rng(rng)
    if not isinstance(mask_rate, numbers.Real) or not 0 < mask_rate < 1:
        raise ValueError(f"mask_rate must lie strictly between 0 and 1, got {mask_rate!r}")
    ids, counts = np.unique(X, return_counts=True)
    order = np.lexsort((ids, -counts))
    kept = ids[order[:K]].astype(np.int64)
    K = kept.size  # fewer distinct ids than n_kept: keep them all
    lookup = np.full(int(X.max()) + 1, K, dtype=np.int64)
    lookup[kept] = np.arange(kept.size)
    compact = lookup[X]
    mask = rng.random(X.shape) < mask_rate
    for p in protect:
        mask[:, p] = False
    inputs = np.where(mask, K + 1, compact)
    targets = np.where(mask, compact, -100)
    return MaskedLMData(inputs=inputs, targets=targets, vocabulary=kept, unk_id=K, mask_id=K + 1)


@dataclass(frozen=True)
class TrainingSnapshots:
    """Result of :func:`train_with_snapshots`.

    Attributes
    ----------
    epochs : tuple of int
        The budgets (cumulative epochs) at which a snapshot was taken, increasing.
    encodings : list of (n, d) arrays
        The model's absolute position encoding at each budget (``encodings[0]`` may be the initialisation when
        budget 0 is requested).
    losses : (B,) array
        Mean training loss on all the data (eval mode) at each budget.
    steps : (B,) int array
        Optimiser steps taken by each budget.

    Examples
    --------
    >>> snaps = TrainingSnapshots(epochs=(0, 2), encodings=[np.zeros((4, 8)), np.ones((4, 8))],
    ...                           losses=np.array([1.8, 1.2]), steps=np.array([0, 6]))
    >>> snaps.epochs, len(snaps.encodings), snaps.steps.tolist()
    ((0, 2), 2, [0, 6])
    """

    epochs: tuple
    encodings: list
    losses: np.ndarray
    steps: np.ndarray


def train_with_snapshots(model, inputs, targets, *, epochs, lr: float, seed: int,
                         batch_size: int = 32) -> TrainingSnapshots:
    """Train a token-level classifier (e.g. a masked LM) in one run, saving the position table at several budgets.

    One AdamW optimiser (constant ``lr``) and one seeded mini-batch order run for ``max(epochs)`` epochs; after
    every epoch listed in ``epochs`` (cumulative, ``0`` = before training) the model's
    :meth:`positional_encoding` and its training loss (eval mode, :func:`posgeom.nn.evaluate_loss`) are stored.
    So the budgets are points on *one* training trajectory, not separate runs.

    Parameters
    ----------
    model : posgeom.nn.TransformerClassifier
        With a learned absolute positional scheme, called with ``pooled=False``.
    inputs : (N, L) int array
        Input token ids (e.g. :attr:`MaskedLMData.inputs`).
    targets : (N, L) int array
        Token labels, ``-100`` where no prediction is scored.
    epochs : sequence of int >= 0
        Distinct budgets, in any order.
    lr : float
        Constant AdamW learning rate, finite and ``> 0``.
    seed : int
        Seed of the mini-batch order (seed the initialisation yourself, with :func:`posgeom.nn.seed_everything`).
    batch_size : int, default 32
        Sequences per optimiser step.

    Returns
    -------
    TrainingSnapshots
        One snapshot per budget, in increasing order.

    Raises
    ------
    ValueError
        Empty or repeated budgets, a non-positive ``lr`` or ``batch_size``, mismatched ``inputs`` and ``targets``, or
        a model without an absolute position encoding.
    FloatingPointError
        If the training loss becomes non-finite.

    Examples
    --------
    >>> from posgeom.nn import TransformerClassifier, seed_everything
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 6, size=(16, 8)); Y = np.where(rng.random((16, 8)) < 0.2, X, -100)
    >>> seed_everything(0)
    >>> model = TransformerClassifier(6, 8, 8, n_heads=2, n_layers=1, positional="learned", n_classes=6)
    >>> snaps = train_with_snapshots(model, X, Y, epochs=(0, 1, 2), lr=1e-2, seed=0, batch_size=8)
    >>> snaps.epochs, [P.shape for P in snaps.encodings], snaps.steps.tolist()
    ((0, 1, 2), [(8, 8), (8, 8), (8, 8)], [0, 2, 4])
    """
    import torch

    from ..nn.training import evaluate_loss, train_classifier

    budgets = sorted({check_positive_int(int(e), "each budget", minimum=0) for e in epochs})
    if not budgets:
        raise ValueError("epochs is empty")
    if len(budgets) != len(tuple(epochs)):
        raise ValueError(f"budgets must be distinct, got {tuple(epochs)}")
    seed = check_positive_int(seed, "seed", minimum=0)
    batch_size = check_positive_int(batch_size, "batch_size")
    if not isinstance(lr, numbers.Real) or not np.isfinite(lr) or lr <= 0:
        raise ValueError(f"lr must be a finite number > 0, got {lr!r}")
    X = torch.as_tensor(np.asarray(inputs), dtype=torch.long)
    Y = torch.as_tensor(np.asarray(targets), dtype=torch.long)
    if X.shape != Y.shape or X.ndim != 2:
        raise ValueError(f"inputs and targets must be (N, L) of the same shape, got {tuple(X.shape)}, {tuple(Y.shape)}")
    n = X.shape[0]
    steps_per_epoch = (n + batch_size - 1) // batch_size
    encodings, losses, steps = [], [], []

    def snapshot(epoch, model):
        P = model.positional_encoding()
        if P is None:
            raise ValueError("the model has no absolute position encoding to snapshot")
        if epoch in budgets:
            encodings.append(P.detach().cpu().numpy().astype(np.float64).copy())
            losses.append(evaluate_loss(model, X, Y))
            steps.append(epoch * steps_per_epoch)

    snapshot(0, model)
    if budgets[-1] > 0:  # the one training loop of the book, with a snapshot after each budget
        train_classifier(model, X, Y, epochs=budgets[-1], lr=lr, seed=seed, batch_size=batch_size,
                         on_epoch_end=snapshot)
    return TrainingSnapshots(epochs=tuple(budgets), encodings=encodings, losses=np.array(losses),
                             steps=np.array(steps, dtype=np.int64))
