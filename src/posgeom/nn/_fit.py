"""The one training entry point: :func:`fit` (one seed) and its result :class:`FitResult`."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from .._validation import check_positive_int
from ._checks import IGNORE_INDEX
from .spec import ModelSpec, TrainConfig
from .training import TrainingHistory, _accuracy, _as_tensors, _train_classifier

__all__ = ["fit"]


def _unpack(data):
    """``(X, y, padding_mask)`` tensors from a TaskData-like object or a tuple."""
    if isinstance(data, (tuple, list)):
        if len(data) not in (2, 3):
            raise ValueError(f"data as a tuple must be (X, y) or (X, y, padding_mask), got {len(data)} items")
        X, y, mask = (*data, None)[:3]
    elif hasattr(data, "X") and hasattr(data, "y"):
        X, y, mask = data.X, data.y, getattr(data, "padding_mask", None)
    else:
        raise TypeError(f"data must have attributes X, y (e.g. a TaskData) or be a tuple (X, y[, padding_mask]), "
                        f"got {type(data).__name__}")
    X, y, mask = _as_tensors(X, y, mask)
    if y is None:
        raise ValueError("data needs labels y")
    return X, y, mask


def check_inputs(spec, data, config):
    """``(X, y, padding_mask)`` of ``data`` checked against ``spec`` and ``config``."""
    if not isinstance(spec, ModelSpec):
        raise TypeError(f"spec must be a ModelSpec, got {type(spec).__name__}")
    if not isinstance(config, TrainConfig):
        raise TypeError(f"config must be a TrainConfig, got {type(config).__name__}")
    X, y, mask = _unpack(data)
    labels = y[y != IGNORE_INDEX]
    if labels.numel() and (int(labels.min()) < 0 or int(labels.max()) >= spec.n_classes):
        raise ValueError(f"labels must lie in [0, n_classes={spec.n_classes}) (or be -100 to ignore a token), got "
                         f"range [{int(labels.min())}, {int(labels.max())}]")
    if X.shape[1] > spec.n_positions:
        raise ValueError(f"data has {X.shape[1]} positions but spec.n_positions={spec.n_positions}")
    return X, y, mask


def _check_seed(seed) -> int:
    """One integer seed ``>= 0`` (several seeds: fit_ensemble)."""
    if not isinstance(seed, numbers.Integral) and hasattr(seed, "__iter__"):
        raise TypeError("seed must be one integer; train several seeds at once with posgeom.nn.fit_ensemble")
    return check_positive_int(seed, "seed", minimum=0)


@dataclass(frozen=True, kw_only=True)
class FitResult:
    """One trained model and what its training did (from :func:`posgeom.nn.fit` or :func:`posgeom.nn.fit_ensemble`).

    Attributes
    ----------
    model, history : posgeom.nn.TransformerClassifier, posgeom.nn.TrainingHistory
        The trained model (eval mode) and its training.
    train_accuracy : float

    Examples
    --------
    >>> res = fit(ModelSpec(vocab_size=3, n_positions=2, d_model=8), ([[1, 2], [2, 1]], [0, 1]), seed=0,
    ...           config=TrainConfig(epochs=2, lr=1e-2))
    >>> res.seed, res.encoding.shape
    (0, (2, 8))
    """
    model: nn.Module
    history: TrainingHistory
    train_accuracy: float

    @property
    def seed(self) -> int:
        """The seed of the run."""
        return self.history.seed

    @property
    def encoding(self) -> np.ndarray | None:
        """The trained absolute position table ``P`` (n_positions x d_model, float64), or None for other schemes."""
        P = self.model.positional_encoding()
        return None if P is None else P.detach().cpu().numpy().astype(np.float64)

    def accuracy(self, data: object) -> float:
        """Accuracy of the model on ``data`` (per sequence, or per non-ignored token).

        Parameters
        ----------
        data : TaskData-like or tuple, as in ``fit``

        Returns
        -------
        float

        Examples
        --------
        >>> res = fit(ModelSpec(vocab_size=3, n_positions=2, d_model=4), ([[1, 2], [2, 1]], [0, 1]), seed=0,
        ...           config=TrainConfig(epochs=1, lr=1e-3))
        >>> 0.0 <= res.accuracy(([[2, 1]], [1])) <= 1.0
        True
        """
        X, y, mask = _unpack(data)
        return _accuracy(self.model, X, y, padding_mask=mask)


def fit(spec: ModelSpec, data: object, *, seed: int, config: TrainConfig,
        on_epoch_end: Callable[[int, nn.Module], bool | None] | None = None) -> FitResult:
    """Train the model ``spec`` describes on ``data`` with seed ``seed``: the book's one training entry point.

    Parameters
    ----------
    spec : ModelSpec
    data : TaskData-like or tuple ``(X, y[, padding_mask])``
        ``X`` (N, L) token ids; ``y`` labels (N,) per sequence, or (N, L) per token with ``-100`` ignored.
    seed : int >= 0
        Of ``spec.build`` and of the mini-batch order: same arguments, same numbers.
    config : TrainConfig
    on_epoch_end : callable, optional
        ``on_epoch_end(epoch, model)`` after every epoch; returning ``True`` stops training.

    Returns
    -------
    FitResult

    Examples
    --------
    >>> X = np.array([[1, 2], [2, 1], [1, 1], [2, 2]] * 4)
    >>> fit(ModelSpec(vocab_size=3, n_positions=2, d_model=8), (X, X[:, 1] - 1), seed=0,
    ...     config=TrainConfig(epochs=30, lr=1e-2, batch_size=8)).train_accuracy
    1.0
    """
    X, y, mask = check_inputs(spec, data, config)
    seed = _check_seed(seed)
    if on_epoch_end is not None and not callable(on_epoch_end):
        raise TypeError(f"on_epoch_end must be callable(epoch, model) or None, got {type(on_epoch_end).__name__}")
    torch.set_num_threads(config.threads)
    model = spec.build(seed=seed)
    history = _train_classifier(model, X, y, epochs=config.epochs, lr=config.lr, seed=seed,
                               batch_size=config.batch(X.shape[0]), weight_decay=config.weight_decay,
                               padding_mask=mask, schedule=config.schedule, on_epoch_end=on_epoch_end)
    return FitResult(model=model.eval(), history=history, train_accuracy=_accuracy(model, X, y, padding_mask=mask))
