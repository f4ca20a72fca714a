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
    masked_lm_data,
)
from .scratch import (
    ScratchPositions,
    scratch_position_embeddings,
)
from .stress_accuracy import (
    EXTRAPOLATING_SCHEMES,
    RankCorrelationTest,
    SchemeRun,
    corpus_distances,
    length_extrapolation,
    scheme_stress,
    stress_accuracy_correlation,
    train_and_evaluate,
)
from .tasks import (
    TaskData,
    TokenizedDataset,
    Vocabulary,
    distance_task,
    order_task,
    position_task,
    tokenize_dataset,
)

__all__ = [
    "TaskData",
    "order_task",
    "distance_task",
    "position_task",
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
    "ScratchPositions",
    "scratch_position_embeddings",
    "EXTRAPOLATING_SCHEMES",
    "corpus_distances",
    "scheme_stress",
    "SchemeRun",
    "train_and_evaluate",
    "length_extrapolation",
    "RankCorrelationTest",
    "stress_accuracy_correlation",
]
