"""What :func:`posgeom.nn.fit` trains (:class:`ModelSpec`) and how (:class:`TrainConfig`): two frozen records."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .._validation import check_positive_int, check_real
from ..encodings.absolute import low_rank_factors
from ._checks import check_heads, check_scheme, check_table
from .models import TransformerClassifier
from .training import seed_everything

__all__ = ["ModelSpec", "TrainConfig"]

#: Fields that may differ between the members of one ensemble (values, not shapes).
_PER_MEMBER = ("encoding", "init_encoding")


@dataclass(frozen=True, kw_only=True, eq=False)
class ModelSpec:
    """The architecture of a :class:`posgeom.nn.TransformerClassifier` and the start of its position table.

    Parameters
    ----------
    vocab_size, n_positions, d_model, n_heads, n_layers, positional, causal, rank, encoding, n_classes, layer_norm
        As in :class:`~posgeom.nn.TransformerClassifier` (defaults ``d_model=32``, ``n_heads=2``, ``n_layers=1``).
    init_encoding : (n_positions, d_model) array, optional
        Start of a trained table: ``"learned"`` at ``P = init_encoding``, ``"low_rank"`` at its best rank-``rank``
        approximation.

    Examples
    --------
    >>> ModelSpec(vocab_size=10, n_positions=6, d_model=8, positional="rope").build(seed=0).positional.name
    'rope'
    """
    vocab_size: int
    n_positions: int
    d_model: int = 32
    n_heads: int = 2
    n_layers: int = 1
    positional: str = "learned"
    causal: bool = False
    rank: int | None = None
    encoding: np.ndarray | None = None
    n_classes: int = 2
    init_encoding: np.ndarray | None = None
    layer_norm: bool = True

    def __post_init__(self):
        for name in ("vocab_size", "n_positions", "n_layers", "n_classes"):
            check_positive_int(getattr(self, name), name)
        check_heads(self.d_model, self.n_heads)
        check_scheme(self.positional, rank=self.rank, encoding=self.encoding)
        if not isinstance(self.causal, bool):
            raise TypeError(f"causal must be True or False, got {self.causal!r}")
        if not isinstance(self.layer_norm, bool):
            raise TypeError(f"layer_norm must be True or False, got {self.layer_norm!r}; use layer_norm=False to "
                            "build the model without layer normalisation")
        for name in _PER_MEMBER:
            if getattr(self, name) is not None:
                object.__setattr__(self, name, check_table(getattr(self, name), name, self.n_positions, self.d_model))
        if self.init_encoding is not None and self.positional not in ("learned", "low_rank"):
            raise ValueError(f"init_encoding starts a trained table ('learned', 'low_rank'), not {self.positional!r}")

    def same_architecture(self, other: ModelSpec) -> bool:
        """Whether ``other`` differs at most in the values of ``encoding`` and ``init_encoding`` (one ensemble).

        Parameters
        ----------
        other : ModelSpec

        Returns
        -------
        bool

        Examples
        --------
        >>> ModelSpec(vocab_size=5, n_positions=4).same_architecture(ModelSpec(vocab_size=5, n_positions=5))
        False
        """
        if not isinstance(other, ModelSpec):
            return False
        fields = [f for f in self.__dataclass_fields__ if f not in _PER_MEMBER]
        return all(getattr(self, f) == getattr(other, f) for f in fields) and all(
            (getattr(self, f) is None) == (getattr(other, f) is None) for f in _PER_MEMBER)

    def build(self, *, seed: int) -> TransformerClassifier:
        """The model in training mode, initialised after :func:`posgeom.nn.seed_everything` ``(seed)`` (threads kept).

        Parameters
        ----------
        seed : int

        Returns
        -------
        posgeom.nn.TransformerClassifier

        Examples
        --------
        >>> ModelSpec(vocab_size=5, n_positions=4, init_encoding=np.zeros((4, 32))).build(seed=0).training
        True
        """
        seed_everything(seed, threads=None)
        model = TransformerClassifier(self.vocab_size, self.n_positions, self.d_model, self.n_heads, self.n_layers,
                                      positional=self.positional, causal=self.causal, rank=self.rank,
                                      encoding=self.encoding, n_classes=self.n_classes, layer_norm=self.layer_norm)
        if self.init_encoding is not None:
            with torch.no_grad():
                if self.positional == "learned":
                    model.positional.weight.copy_(torch.as_tensor(self.init_encoding, dtype=torch.float32))
                else:
                    factors = low_rank_factors(self.init_encoding, self.rank)
                    model.positional.A.copy_(torch.as_tensor(factors.left, dtype=torch.float32))
                    model.positional.B.copy_(torch.as_tensor(factors.right, dtype=torch.float32))
        return model


@dataclass(frozen=True, kw_only=True)
class TrainConfig:
    """How :func:`posgeom.nn.fit` trains: AdamW on cross-entropy, mini-batches in a seeded order.

    Parameters
    ----------
    epochs, lr : int, float
        Passes over the data; the learning rate (the peak of the cosine schedule).
    batch_size, weight_decay : int or None, float
        Sequences per optimiser step (``None``: full batch); AdamW's weight decay.
    schedule : {"constant", "cosine"}, default "constant"
        Constant ``lr``, or cosine decay to 0 over all steps.
    threads : int, default 1
        Torch intra-op threads; bit-identical results need the same value across runs.

    Examples
    --------
    >>> TrainConfig(epochs=40, lr=2e-2).batch_size
    64
    """
    epochs: int
    lr: float
    batch_size: int | None = 64
    weight_decay: float = 0.0
    schedule: str = "constant"
    threads: int = 1

    def __post_init__(self):
        check_positive_int(self.epochs, "epochs")
        object.__setattr__(self, "lr", check_real(self.lr, "lr"))
        object.__setattr__(self, "weight_decay", check_real(self.weight_decay, "weight_decay", strict=False))
        if self.batch_size is not None:
            check_positive_int(self.batch_size, "batch_size")
        check_positive_int(self.threads, "threads")
        if self.schedule not in ("constant", "cosine"):
            raise ValueError(f"schedule must be 'constant' or 'cosine', got {self.schedule!r}")

    def batch(self, n_sequences: int) -> int:
        """The mini-batch size ``min(batch_size, n_sequences)`` (``n_sequences`` for full-batch training).

        Parameters
        ----------
        n_sequences : int

        Returns
        -------
        int

        Examples
        --------
        >>> TrainConfig(epochs=1, lr=0.1, batch_size=None).batch(256)
        256
        """
        n = check_positive_int(n_sequences, "n_sequences")
        return n if self.batch_size is None else min(self.batch_size, n)
