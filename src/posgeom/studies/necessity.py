"""Training and data for the chapter on Theorem 1 (necessity): one model per positional scheme and attention mask.

The chapter compares schemes with everything else equal (data, seed, optimiser) and needs the trained *model*
(to compare its logits on a sequence and its permutation), so :func:`train_model` returns the module itself.
:func:`probe_data` builds the absolute-position probe of the chapter's scope section: random sequences that start
with a beginning-of-sequence token, every token labelled with its own position.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int, check_rng

__all__ = [
    "train_model",
    "probe_data",
]


def train_model(X, y, *, positional: str, seed: int, causal: bool = False, n_classes: int = 2,
                d_model: int = 32, n_heads: int = 2, n_layers: int = 1, epochs: int = 12, lr: float = 3e-3,
                batch_size: int = 64, vocab_size: int | None = None, rank: int | None = None, encoding=None):
    """Train a :class:`posgeom.nn.TransformerClassifier` with :func:`posgeom.nn.fit` and return it.

    AdamW, constant learning rate, parameters initialised after ``seed_everything(seed)`` and mini-batch order seeded
    by ``seed``, so the same call gives the same model.

    Parameters
    ----------
    X : (N, L) int array
        Token ids.
    y : (N,) or (N, L) int array
        Sequence labels (pooled output) or token labels (per-token output).
    positional : str
        The positional scheme (see :data:`posgeom.nn.SCHEMES`).
    seed : int
        Seeds the parameters and the mini-batch order.
    causal : bool, default False
        Decoder (causal) attention.
    n_classes : int, default 2
        Number of output classes (per sequence, or per token when ``y`` is ``(N, L)``).
    d_model, n_heads, n_layers : int
        Width 32, two heads, one layer by default.
    epochs, lr, batch_size
        The :class:`posgeom.nn.TrainConfig` (12 epochs, lr 3e-3, batches of 64 by default).
    vocab_size : int, optional
        Default ``max id + 1``.
    rank : int, optional
        The rank of ``"low_rank"``.
    encoding : (L, d_model) array, optional
        The frozen matrix of ``"fixed"``.

    Returns
    -------
    posgeom.nn.TransformerClassifier
        The trained model, in eval mode.

    Raises
    ------
    ValueError
        If ``X`` is not a 2-D integer array.

    Examples
    --------
    >>> from posgeom.studies import order_task
    >>> data = order_task(20, 6, 6, rng=0, regime="uniform")
    >>> model = train_model(data.X, data.y, positional="learned", seed=0, epochs=1)
    >>> model.positional_encoding().shape
    torch.Size([6, 32])
    """
    from ..nn import ModelSpec, TrainConfig, fit

    X = np.asarray(X)
    if X.ndim != 2 or not np.issubdtype(X.dtype, np.integer):
        raise ValueError(f"X must be a 2-D integer array of token ids, got shape {X.shape}, dtype {X.dtype}")
    V = int(X.max()) + 1 if vocab_size is None else check_positive_int(vocab_size, "vocab_size")
    spec = ModelSpec(vocab_size=V, n_positions=X.shape[1], d_model=d_model, n_heads=n_heads, n_layers=n_layers,
                     positional=positional, causal=causal, n_classes=n_classes, rank=rank, encoding=encoding)
    return fit(spec, (X, y), seed=seed, config=TrainConfig(epochs=epochs, lr=lr, batch_size=batch_size)).model


def probe_data(n_sequences: int, length: int, *, bos: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """The absolute-position probe: sequences ``[BOS, x_1, ..., x_{L-1}]``, every token labelled by its position.

    Position 0 holds the beginning-of-sequence token ``bos``; positions ``1..L-1`` hold ids drawn uniformly and
    independently from ``0..bos-1``. The per-token label of position ``i`` is ``i``, so a model with ``L`` output
    classes per token must recover each token's absolute position. Given a token and the multiset of its sequence,
    all arrangements of the non-initial tokens are equally likely, so a model that sees nothing else (a
    bidirectional model without positions) is right on at most ``2 / L`` of the tokens on average (the ``BOS``
    token always, a non-initial token with probability ``1 / (L - 1)``).

    Parameters
    ----------
    n_sequences : int
        Number of sequences ``N >= 1``.
    length : int
        Sequence length ``L >= 2`` (and number of classes).
    bos : int
        The beginning-of-sequence id, ``>= 1``; the other tokens are ``0..bos-1``, so the vocabulary has ``bos + 1``
        ids.
    rng : int or numpy.random.Generator
        Randomness of the tokens; pass one generator to draw a training and a test set in turn.

    Returns
    -------
    X : (N, L) int64 array
        Token ids, ``bos`` in column 0.
    y : (N, L) int64 array
        Per-token labels: ``y[k, i] = i``.

    Raises
    ------
    ValueError
        If ``n_sequences < 1``, ``length < 2`` or ``bos < 1``.
    TypeError
        If an argument is not an integer, or ``rng`` is neither a seed nor a generator.

    Examples
    --------
    >>> X, y = probe_data(3, 5, bos=4, rng=0)
    >>> X.shape, X[:, 0].tolist(), bool(X[:, 1:].max() < 4)
    ((3, 5), [4, 4, 4], True)
    >>> y[0].tolist()
    [0, 1, 2, 3, 4]
    """
    N = check_positive_int(n_sequences, "n_sequences")
    L = check_positive_int(length, "length", minimum=2)
    bos = check_positive_int(bos, "bos")
    rng = check_rng(rng)
    X = np.concatenate([np.full((N, 1), bos), rng.integers(0, bos, size=(N, L - 1))], axis=1).astype(np.int64)
    return X, np.tile(np.arange(L, dtype=np.int64), (N, 1))
