"""Position tables learned from scratch, for the "learned (from scratch)" row of Chapter 7's stress tables.

:func:`scratch_position_embeddings` trains a small Transformer with a learned position table on a labelled corpus
(through :func:`posgeom.nn.fit`, the one training entry point) and returns the table before and after
training, with the training history.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_positive_int
from ..corpus.counts import pad_sequences
from ..nn.training import TrainingHistory

__all__ = [
    "ScratchPositions",
    "scratch_position_embeddings",
]


@dataclass(frozen=True)
class ScratchPositions:
    """Position table of a small Transformer trained from scratch (see :func:`scratch_position_embeddings`).

    Attributes
    ----------
    initial, trained : (n, d_model) arrays
        The learned position table before and after training.
    history : posgeom.nn.TrainingHistory
        What :func:`posgeom.nn.fit` did (loss per epoch, final loss).
    train_accuracy : float
        Accuracy on the training subset after training.
    n_train, steps : int
        Sequences trained on, optimiser steps taken.

    Examples
    --------
    >>> res = ScratchPositions(np.zeros((4, 2)), np.ones((4, 2)), {"loss": [0.7], "final_loss": 0.7}, 0.5, 8, 1)
    >>> float(np.linalg.norm(res.trained - res.initial))
    2.8284271247461903
    """

    initial: np.ndarray
    trained: np.ndarray
    history: TrainingHistory
    train_accuracy: float
    n_train: int
    steps: int


def scratch_position_embeddings(
    sequences,
    labels,
    n_positions: int,
    *,
    pad_id: int,
    vocab_size: int,
    seed: int,
    d_model: int = 32,
    n_heads: int = 2,
    n_layers: int = 1,
    epochs: int = 2,
    batch_size: int = 32,
    lr: float = 3e-3,
) -> ScratchPositions:
    """Train a small :class:`posgeom.nn.TransformerClassifier` with learned positions; return its table.

    The model (pre-LN encoder, ``positional="learned"``, position table initialised ``N(0, 0.02^2)``, mean-pooled
    classification head) reads the sequences right-padded with ``pad_id`` to ``n_positions`` (pads are masked out
    of attention and pooling, so positions that no training sequence reaches keep their initial vectors) and is
    trained on the labels with :func:`posgeom.nn.fit` (AdamW, constant ``lr``, cross-entropy, initialised after
    :func:`posgeom.nn.seed_everything` ``(seed)``, one thread): same inputs and seed, same table.

    Parameters
    ----------
    sequences : list of 1-D int arrays
        Token ids as the model should see them (e.g. ``TokenizedCorpus.sequences(convention)`` rows), each of
        length ``1..n_positions``.
    labels : (m,) int array
        Class labels.
    n_positions : int
        Number of positions ``n >= 2`` of the model (and of the table).
    pad_id : int
        The id the sequences are padded with (masked, so its embedding never matters).
    vocab_size : int
        Size of the embedding table; every id must lie in ``[0, vocab_size)``.
    seed : int
        Seeds the parameters and the mini-batch order.
    d_model, n_heads, n_layers, epochs, batch_size, lr
        Architecture and optimisation (defaults: width 32, 2 heads, 1 layer, 2 epochs, batches of 32, lr 3e-3).

    Returns
    -------
    ScratchPositions

    Raises
    ------
    ValueError
        If ``n_positions < 2``, ``pad_id < 0``, ``vocab_size < 1``, a sequence is longer than ``n_positions`` or
        there is not one label per sequence.
    TypeError
        If ``n_positions``, ``pad_id`` or ``vocab_size`` is not an integer.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> seqs = [rng.integers(1, 20, size=int(k)) for k in rng.integers(2, 7, size=32)]
    >>> res = scratch_position_embeddings(seqs, np.arange(32) % 2, 8, pad_id=0, vocab_size=20, seed=0,
    ...                                   d_model=8, epochs=1)
    >>> res.trained.shape, res.steps, bool(np.any(res.trained != res.initial))
    ((8, 8), 1, True)
    """
    from ..nn import ModelSpec, TrainConfig, fit

    n = check_positive_int(n_positions, "n_positions", minimum=2)
    pad_id = check_positive_int(pad_id, "pad_id", minimum=0)
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    X, mask = pad_sequences(sequences, n, pad_id=pad_id)
    y = np.asarray(labels)
    if y.shape != (len(X),):
        raise ValueError(f"labels must have shape ({len(X)},) (one per sequence), got {y.shape}")
    spec = ModelSpec(vocab_size=vocab_size, n_positions=n, d_model=d_model, n_heads=n_heads, n_layers=n_layers,
                     positional="learned", n_classes=int(y.max()) + 1)
    initial = spec.build(seed=seed).positional_encoding().detach().double().numpy().copy()
    config = TrainConfig(epochs=epochs, lr=lr, batch_size=batch_size, threads=1)
    res = fit(spec, (X, y, mask), seed=seed, config=config)
    return ScratchPositions(initial=initial, trained=res.encoding, history=res.history,
                            train_accuracy=res.train_accuracy, n_train=len(X), steps=config.steps(len(X)))
