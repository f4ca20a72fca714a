"""Small Transformers in torch, the only library layer that imports torch (seeding: ``posgeom.nn.training``).

* :class:`ModelSpec`, :class:`TrainConfig`: what is trained and how; :func:`fit` (one seed), :func:`fit_ensemble`
  (many at once); :class:`TransformerClassifier`, :func:`seed_everything`, :func:`predict`;
* :mod:`~posgeom.nn.tasks`: the synthetic tasks; :mod:`~posgeom.nn.conditions`: Theorem 4's conditions on data;
  :mod:`~posgeom.nn.ntk`: the NTK appendix's infinite-width predictions.
"""

from __future__ import annotations

# ``X as X``: result types, importable from here and documented (book/api.md) but not public names (__all__)
from ._fit import FitResult as FitResult
from ._fit import fit
from .conditions import NonDegeneracy as NonDegeneracy
from .conditions import NonStationarity as NonStationarity
from .conditions import OrderSensitivity as OrderSensitivity
from .conditions import multiset_bound, non_degeneracy, non_stationarity, order_sensitivity, sequence_bound
from .ensemble import fit_ensemble
from .models import TransformerClassifier
from .ntk import kernel_regime_distances, output_trajectory
from .spec import ModelSpec, TrainConfig
from .tasks import TaskData as TaskData
from .tasks import centre_task, order_task, pair_distributions, probe_data, transposition_task
from .training import TrainingHistory as TrainingHistory
from .training import predict, seed_everything

__all__ = [
    "ModelSpec", "TrainConfig", "fit", "fit_ensemble", "TransformerClassifier", "seed_everything", "predict",
    "output_trajectory", "kernel_regime_distances", "order_task", "centre_task", "probe_data", "pair_distributions",
    "transposition_task", "multiset_bound", "sequence_bound", "order_sensitivity", "non_stationarity",
    "non_degeneracy",
]
