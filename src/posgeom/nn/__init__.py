"""Small Transformers in torch; the only library layer that imports torch. Seed ``s`` means: parameters
initialised after ``seed_everything(s)``, mini-batch order from a generator seeded with ``s``.

* :class:`ModelSpec`, :class:`TrainConfig` -- what is trained (architecture, start of the position table) and how;
* :func:`fit` -- the one training entry point (one seed), returning a :class:`FitResult`;
* :func:`fit_ensemble` -- many seeds at once in one batched model, behind the same interface;
* :class:`TransformerClassifier` -- the model, its positional scheme named by a string (``posgeom.encodings.SCHEMES``);
* :func:`seed_everything`, :class:`TrainingHistory`, :func:`predict`,
  :func:`evaluate_loss` -- the deterministic loop under :func:`fit` and evaluation;
* :class:`MaskedSlot`, :func:`init_masked_slot`, :func:`train_masked_slot`, :func:`ntk_blocks`,
  :func:`output_trajectory`, :func:`kernel_regime_distances` -- the masked-slot model of the NTK appendix.
"""

from __future__ import annotations

# ``X as X``: result types, importable from here and documented (book/api.md) but not public names (__all__)
from ._fit import FitResult as FitResult
from ._fit import fit
from .ensemble import fit_ensemble
from .models import TransformerClassifier
from .ntk import (
    MaskedSlot as MaskedSlot,
)
from .ntk import (
    init_masked_slot,
    kernel_regime_distances,
    ntk_blocks,
    output_trajectory,
    train_masked_slot,
)
from .spec import ModelSpec, TrainConfig
from .training import (
    TrainingHistory as TrainingHistory,
)
from .training import (
    evaluate_loss,
    predict,
    seed_everything,
)

__all__ = [
    "ModelSpec",
    "TrainConfig",
    "fit",
    "fit_ensemble",
    "TransformerClassifier",
    "seed_everything",
    "predict",
    "evaluate_loss",
    "init_masked_slot",
    "train_masked_slot",
    "ntk_blocks",
    "output_trajectory",
    "kernel_regime_distances",
]
