"""Code that exists for one chapter's experiment: tasks, condition diagnostics, masked-LM data, from-scratch training
and the stress-vs-accuracy drivers. Notebooks import it; the library never does.
"""
from __future__ import annotations

from .conditions import (
    NonDegeneracy,
    NonStationarity,
    OrderSensitivity,
    label_flip_rate,
    multiset_bound,
    non_degeneracy,
    non_stationarity,
    order_sensitivity,
    sequence_bound,
)
from .masked_lm import (
    MaskedLMData,
    TrainingSnapshots,
    masked_lm_data,
    train_with_snapshots,
)
from .necessity import (
    probe_data,
    train_model,
)
from .parametrisation import (
    ParallelAnalysis,
    parallel_analysis,
)
from .scratch import (
    ScratchPositions,
    scratch_position_embeddings,
)
from .separation import (
    SeparationSweep,
    TiedRun,
    order_mixture_task,
    pair_distributions,
    separation_sweep,
    train_from_tied,
    transposition_task,
)
from .sinusoid import (
    SinusoidAlignment,
    random_centred_subspaces,
    sinusoid_alignment,
)
from .stress_accuracy import (
    EXTRAPOLATING_SCHEMES,
    SchemeRun,
    centre_task,
    corpus_distances,
    permute_rows,
    plateau_reached,
    scaled_mds_encoding,
    scheme_stress,
    train_and_evaluate,
)
from .tasks import (
    TaskData,
    TokenizedDataset,
    Vocabulary,
    distance_task,
    multiset_label,
    multiset_task,
    order_task,
    position_task,
    tokenize_dataset,
)

__all__ = [
    "TaskData",
    "order_task",
    "distance_task",
    "position_task",
    "multiset_label",
    "multiset_task",
    "TokenizedDataset",
    "tokenize_dataset",
    "Vocabulary",
    "NonStationarity",
    "non_stationarity",
    "multiset_bound",
    "sequence_bound",
    "OrderSensitivity",
    "order_sensitivity",
    "label_flip_rate",
    "NonDegeneracy",
    "non_degeneracy",
    "MaskedLMData",
    "masked_lm_data",
    "TrainingSnapshots",
    "train_with_snapshots",
    "train_model",
    "probe_data",
    "ParallelAnalysis",
    "parallel_analysis",
    "ScratchPositions",
    "scratch_position_embeddings",
    "pair_distributions",
    "transposition_task",
    "order_mixture_task",
    "TiedRun",
    "train_from_tied",
    "SeparationSweep",
    "separation_sweep",
    "SinusoidAlignment",
    "random_centred_subspaces",
    "sinusoid_alignment",
    "EXTRAPOLATING_SCHEMES",
    "corpus_distances",
    "scheme_stress",
    "SchemeRun",
    "train_and_evaluate",
    "scaled_mds_encoding",
    "permute_rows",
    "plateau_reached",
    "centre_task",
]
