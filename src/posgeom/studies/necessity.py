"""Training for the chapter on Theorem 1 (necessity): one model per positional scheme and attention mask.

The chapter compares schemes with everything else equal (data, seed, optimiser) and needs the trained *model*
(to compare its logits on a sequence and its permutation), so :func:`train_model` returns the module itself.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int

__all__ = [
    "train_model",
]


def train_model(X, y, *, positional: str, seed: int, causal: bool = False, n_classes: int = 2,
                d_model: int = 32, n_heads: int = 2, n_layers: int = 1, epochs: int = 12, lr: float = 3e-3,
                batch_size: int = 64, vocab_size: int | None = None, **model_kwargs):
    """Build a :class:`posgeom.nn.TransformerClassifier` after ``seed_everything(seed)`` and train it.

    Training is :func:`posgeom.nn.train_classifier` (AdamW, constant learning rate, mini-batch order seeded by
    ``seed``), so the same call gives the same model.

    Parameters
    ----------
    X : (N, L) int array
        Token ids.
    y : (N,) or (N, L) int array
        Sequence labels (pooled output) or token labels (per-token output).
    positional : str
        The positional scheme (see :data:`posgeom.models.SCHEMES`).
    seed : int
        Seeds the parameters and the mini-batch order.
    causal : bool, default False
        Decoder (causal) attention.
    n_classes : int, default 2
    d_model, n_heads, n_layers : int
        Width 32, two heads, one layer by default.
    epochs, lr, batch_size
        Passed to :func:`posgeom.nn.train_classifier`.
    vocab_size : int, optional
        Default ``max id + 1``.
    **model_kwargs
        Further arguments of the model (``rank`` of ``"low_rank"``, ``encoding`` of ``"fixed"``).

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
    from ..nn import TransformerClassifier, seed_everything, train_classifier

    X = np.asarray(X)
    if X.ndim != 2 or not np.issubdtype(X.dtype, np.integer):
        raise ValueError(f"X must be a 2-D integer array of token ids, got shape {X.shape}, dtype {X.dtype}")
    V = int(X.max()) + 1 if vocab_size is None else check_positive_int(vocab_size, "vocab_size")
    seed_everything(seed)
    model = TransformerClassifier(V, X.shape[1], d_model, n_heads, n_layers, positional=positional, causal=causal,
                                  n_classes=n_classes, **model_kwargs)
    train_classifier(model, X, y, epochs=epochs, lr=lr, seed=seed, batch_size=batch_size)
    return model.eval()
