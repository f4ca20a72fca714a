"""Stress of an encoding against the positional geometry (raw and scale-optimal), SMACOF, the stress-against-rank
curve, the stress table with its bootstrap intervals.
"""
from __future__ import annotations

from .core import (
    optimal_scale,
    stress_of_encoding,
    stress_of_distances,
)
from .rank_curve import (
    RankCurve,
    strain,
    stress_by_rank,
)
from .smacof import (
    SmacofResult,
    smacof_encoding,
)
from .table import (
    Candidate,
    ShiftInvariantStress,
    StressRow,
    StressTable,
    fixed_distances,
    fixed_encoding,
    mds_candidate,
    shift_invariant_decomposition,
    standard_candidates,
    stress_table,
)

__all__ = [
    "optimal_scale",
    "stress_of_distances",
    "stress_of_encoding",
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
]
