"""Small Transformers in torch: positional modules, models, the one training entry point, and the NTK model of the
appendix. The only library layer that imports torch.
"""
from __future__ import annotations

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
