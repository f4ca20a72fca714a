"""Small Transformers in torch; the only library layer that imports torch. Seed ``s`` means: parameters
initialised after ``seed_everything(s)``, mini-batch order from a generator seeded with ``s``.

* :class:`ModelSpec`, :class:`TrainConfig` -- what is trained and how; :func:`fit` trains one seed,
  :func:`fit_ensemble` many at once, each returning :class:`FitResult`;
* :class:`TransformerClassifier`, :func:`seed_everything`, :func:`predict` -- the model, seeding, prediction;
* :mod:`~posgeom.nn.tasks` -- the synthetic tasks: :func:`order_task`, :func:`centre_task`, :func:`probe_data`,
  :func:`transposition_task`, :func:`pair_distributions`;
* :mod:`~posgeom.nn.conditions` -- Theorem 4's conditions on data: :func:`non_stationarity`, :func:`multiset_bound`,
  :func:`sequence_bound`, :func:`order_sensitivity`, :func:`non_degeneracy`;
* :func:`output_trajectory`, :func:`kernel_regime_distances` -- the NTK appendix's infinite-width predictions.
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
