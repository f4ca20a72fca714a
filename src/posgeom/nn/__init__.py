"""Small Transformers in torch; the only library layer that imports torch.

* ``scheme``, ``absolute``, ``positional`` -- the positional schemes (:func:`make_positional`);
* ``models`` -- :class:`TransformerClassifier`;
* ``spec``, ``fit``, ``ensemble`` -- the one training entry point: :func:`fit` (one seed) and :func:`fit_ensemble`
  (many seeds in one batched model) train a :class:`ModelSpec` with a :class:`TrainConfig`, returning
  :class:`FitResult`;
* ``training`` -- the loop under :func:`fit` (:func:`train_classifier`), evaluation, :func:`seed_everything`;
* ``ntk`` -- the masked-slot model of the appendix.
"""
from __future__ import annotations

from .ensemble import fit_ensemble
from .fit import FitResult, fit
from .models import (
    SelfAttention,
    TransformerBlock,
    TransformerClassifier,
)
from .ntk import (
    LOSSES,
    init_masked_slot,
    kernel_regime_distances,
    masked_slot_logits,
    masked_slot_loss,
    ntk_blocks,
    output_trajectory,
    train_masked_slot,
)
from .positional import (
    SCHEMES,
    AbsolutePosition,
    ALiBiPosition,
    FixedPosition,
    LearnedPosition,
    LowRankPosition,
    NoPosition,
    PositionalScheme,
    RotaryPosition,
    SinusoidalPosition,
    make_positional,
)
from .spec import ModelSpec, TrainConfig
from .training import (
    IGNORE_INDEX,
    TrainingHistory,
    accuracy,
    evaluate_loss,
    predict,
    seed_everything,
    train_classifier,
)

__all__ = [
    "ModelSpec",
    "TrainConfig",
    "FitResult",
    "fit",
    "fit_ensemble",
    "SCHEMES",
    "PositionalScheme",
    "NoPosition",
    "AbsolutePosition",
    "SinusoidalPosition",
    "LearnedPosition",
    "FixedPosition",
    "LowRankPosition",
    "RotaryPosition",
    "ALiBiPosition",
    "make_positional",
    "SelfAttention",
    "TransformerBlock",
    "TransformerClassifier",
    "IGNORE_INDEX",
    "seed_everything",
    "TrainingHistory",
    "train_classifier",
    "predict",
    "evaluate_loss",
    "accuracy",
    "LOSSES",
    "init_masked_slot",
    "masked_slot_logits",
    "masked_slot_loss",
    "train_masked_slot",
    "ntk_blocks",
    "output_trajectory",
    "kernel_regime_distances",
]
