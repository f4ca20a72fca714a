"""The stress table: how well the encodings in use reproduce a corpus's positional geometry.

One table compares many encodings against one target distance matrix ``D`` (e.g. Hellinger distances between the
positional distributions ``mu_i`` of a corpus under a stated counting convention). Each row is a
:class:`Candidate`: a name, a description, and a rule that turns ``D`` into the distance ``E`` the encoding induces
between positions. Most candidates ignore ``D`` (sinusoidal, RoPE, ALiBi, T5, learned); the MDS candidates are
*fitted* to ``D``.

Columns (see :mod:`posgeom.stress` for the definitions):

* **raw stress** ``sum_{i<j} (E_ij - D_ij)^2 / sum_{i<j} D_ij^2``, the paper's definition, which depends on the
  scale of ``E`` (and so on conventions such as ALiBi's slope or the width ``d``);
* **scale-optimal stress** ``min_a stress(a E)``, in ``[0, 1]``: the shape of ``E`` only;
* **bootstrap intervals** for both, when the data behind ``D`` are given: whole *sequences* are resampled with
  replacement (:func:`posgeom.geometry.bootstrap_statistic`), ``D`` is recomputed, candidates that depend on
  ``D`` (MDS) are *refitted* on every resample, and every row is evaluated on the *same* resamples (one Hellinger
  matrix per resample for the whole table). Fixed encodings (including a model trained from scratch) are not
  retrained: their interval describes the sampling noise of the corpus statistics only.

Conventions of :func:`standard_candidates` (the book's table), each also stated in the row's description:

* **sinusoidal**: :func:`posgeom.sinusoidal_encoding` of width ``d`` (the model's width).
* **RoPE**: the distance between the rotated copies of one unit-block vector in every head,
  ``sqrt(n_heads) * rope_distances(n, d_head)`` (:func:`posgeom.encodings.rope_distances`, head width
  ``d_head = d / n_heads``): all heads together rotate ``d / 2`` blocks, as many as the sinusoidal encoding of width
  ``d`` has, so the two share their scale and differ only in the frequency grid (``d_head / 2`` frequencies, each
  used by ``n_heads`` heads, against ``d / 2``). One head alone is ``1 / sqrt(n_heads)`` of this, a scale that only
  raw stress sees.
* **ALiBi**: the heads' linear biases ``-m_h |i - j|`` (slopes of Press et al. for ``n_heads`` heads,
  :func:`posgeom.encodings.alibi_slopes`), read as the distance between the concatenated one-dimensional
  configurations ``x_i = (m_1 i, ..., m_h i)``: ``||m||_2 |i - j|``. Rank 1; its scale-optimal stress does not
  depend on the slopes at all.
* **T5 buckets**: :func:`posgeom.encodings.t5_bucket_distances` (32 buckets, maximum distance 128, bidirectional).
* **learned (pretrained)**: rows ``offset .. offset + n - 1`` of a pretrained model's position embeddings
  (:func:`posgeom.data.learned_position_embeddings`). ``offset`` maps the corpus's position ``i`` to the
  model's position ``i + offset``: 0 when ``mu_0`` counts ``[CLS]`` (BERT's position 0), 1 when only word pieces are
  counted (the first word piece sits at BERT's position 1).
* **learned (from scratch)**: an encoding matrix supplied by the caller (e.g. the position table of a small
  Transformer trained here), with the same ``offset`` rule.
* **constant (no order)**: ``E_ij = 1`` for every ``i != j``, a reference row: the stress of an encoding that
  separates every position equally and carries no order at all (a random high-dimensional table is close to it).
  Its scale-optimal stress is ``1 - (sum D)^2 / (N sum D^2)`` over the ``N`` pairs: small when ``D`` is nearly
  constant off the diagonal, e.g. when sampling noise dominates it.
* **MDS**: classical MDS of ``D`` (Algorithm 1) at full rank (the positive part of ``B``) and at ranks
  ``1, 2, 3``. Placing the configuration in ``R^d`` by an orthonormal map (:func:`posgeom.encodings.mds_encoding`)
  keeps every distance, so the row is computed from the configuration itself.

Two helpers explain and complete the table: :func:`shift_invariant_decomposition` (the exact split of a
shift-invariant encoding's scale-optimal stress into the corpus's departure from shift-equivariance and the mismatch
of lag profiles) and :func:`scratch_position_embeddings` (the position table of a small Transformer trained here,
for the "learned (from scratch)" row).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import check_positive_int
from ..corpus.counts import pad_sequences

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
    history : dict
        :func:`posgeom.nn.train_classifier`'s history (``"loss"`` per epoch, ``"final_loss"``).
    train_accuracy : float
        Accuracy on the training subset after training.
    n_train, steps : int
        Sequences trained on, optimiser steps taken.
    """

    initial: np.ndarray
    trained: np.ndarray
    history: dict
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
    trained on the labels with :func:`posgeom.nn.train_classifier` (AdamW, constant ``lr``, cross-entropy),
    after :func:`posgeom.nn.seed_everything` ``(seed, threads=1)``: same inputs and seed, same table.

    Parameters
    ----------
    sequences : list of 1-D int arrays
        Token ids as the model should see them (e.g. ``TokenizedCorpus.sequences(convention)`` rows), each of
        length ``1..n_positions``.
    labels : (m,) int array
        Class labels.
    n_positions : int
    pad_id, vocab_size : int
    seed : int
    d_model, n_heads, n_layers, epochs, batch_size, lr
        Architecture and optimisation (defaults: width 32, 2 heads, 1 layer, 2 epochs, batches of 32, lr 3e-3).

    Returns
    -------
    ScratchPositions
    """
    import torch

    from ..nn.models import TransformerClassifier
    from ..nn.training import accuracy, seed_everything, train_classifier

    n = check_positive_int(n_positions, "n_positions", minimum=2)
    pad_id = check_positive_int(pad_id, "pad_id", minimum=0)
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    X, mask = pad_sequences(sequences, n, pad_id=pad_id)
    y = np.asarray(labels)
    if y.shape != (len(X),):
        raise ValueError(f"labels must have shape ({len(X)},) (one per sequence), got {y.shape}")
    seed_everything(seed, threads=1)
    model = TransformerClassifier(vocab_size, n, d_model, n_heads, n_layers, positional="learned",
                                  n_classes=int(y.max()) + 1)
    initial = model.positional_encoding().detach().double().numpy().copy()
    history = train_classifier(model, X, y, epochs=epochs, lr=lr, seed=seed, batch_size=batch_size,
                               padding_mask=torch.as_tensor(mask))
    trained = model.positional_encoding().detach().double().numpy().copy()
    acc = accuracy(model, X, y, padding_mask=torch.as_tensor(mask))
    steps = int(epochs) * int(math.ceil(len(X) / batch_size))
    return ScratchPositions(initial=initial, trained=trained, history=history, train_accuracy=acc,
                            n_train=len(X), steps=steps)
