"""Small Transformers in torch; the only library layer that imports torch. Seed ``s`` means: parameters
initialised after ``seed_everything(s)``, mini-batch order from a generator seeded with ``s``.

* :class:`ModelSpec`, :class:`TrainConfig` -- what is trained (architecture, start of the position table) and how;
* :func:`fit` -- the one training entry point (one seed), returning a :class:`FitResult`;
* :func:`fit_ensemble` -- many seeds at once in one batched model, behind the same interface;
* :class:`TransformerClassifier` -- the model, its positional scheme named by a string (``posgeom.encodings.SCHEMES``);
* :func:`seed_everything`, :func:`train_classifier`, :class:`TrainingHistory`, :func:`predict`,
  :func:`evaluate_loss` -- the deterministic loop under :func:`fit` and evaluation;
* :class:`MaskedSlot`, :func:`init_masked_slot`, :func:`train_masked_slot`, :func:`ntk_blocks`,
  :func:`output_trajectory`, :func:`kernel_regime_distances` -- the masked-slot model of the NTK appendix.
"""

from __future__ import annotations

from ._fit import FitResult, fit
from .ensemble import fit_ensemble
from .models import TransformerClassifier
from .ntk import (
    MaskedSlot,
    init_masked_slot,
    kernel_regime_distances,
    ntk_blocks,
    output_trajectory,
    train_masked_slot,
)
from .spec import ModelSpec, TrainConfig
from .training import (
    TrainingHistory,
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
    "TransformerClassifier",
    "seed_everything",
    "TrainingHistory",
    "train_classifier",
    "predict",
    "evaluate_loss",
    "MaskedSlot",
    "init_masked_slot",
    "train_masked_slot",
    "ntk_blocks",
    "output_trajectory",
    "kernel_regime_distances",
]
