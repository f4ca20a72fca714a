"""Stress of an encoding against the positional geometry (raw and scale-optimal), SMACOF, the stress-against-rank
curve, the stress table with its bootstrap intervals.
"""
from __future__ import annotations

from .core import (
    optimal_scale,
    stress_of_distances,
    stress,
)
from .smacof import (
    SmacofResult,
    smacof_encoding,
)
from .rank_curve import (
    strain,
    RankCurve,
    stress_by_rank,
)
from .table import (
    Candidate,
    fixed_distances,
    fixed_encoding,
    mds_candidate,
    standard_candidates,
    StressRow,
    StressTable,
    stress_table,
    ShiftInvariantStress,
    shift_invariant_decomposition,
)
from .bootstrap import (
    bootstrap_stress,
)

__all__ = [
    "optimal_scale",
    "stress_of_distances",
    "stress",
    "SmacofResult",
    "smacof_encoding",
    "strain",
    "RankCurve",
    "stress_by_rank",
    "Candidate",
    "fixed_distances",
    "fixed_encoding",
    "mds_candidate",
    "standard_candidates",
    "StressRow",
    "StressTable",
    "stress_table",
    "ShiftInvariantStress",
    "shift_invariant_decomposition",
    "bootstrap_stress",
]
