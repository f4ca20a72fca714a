"""Stress of an encoding against the positional geometry of a corpus.

* :mod:`~posgeom.stress.core`: raw and scale-optimal stress; :mod:`~posgeom.stress.rank_curve`: against rank.
* :mod:`~posgeom.stress.candidates`, :mod:`~posgeom.stress.table`, :mod:`~posgeom.stress.results`: the stress
  table (its rows, its evaluation, its result); :mod:`~posgeom.stress.ladder`: the table on each rung.
* :mod:`~posgeom.stress.resolution`: paired stress differences across resolutions ``K``, net of a control.
* :mod:`~posgeom.stress.split_half`: the out-of-sample test of MDS (fit on half A, score on half B).
* :mod:`~posgeom.stress.shift_invariant`: the exact decomposition of a shift-invariant encoding's stress.
"""
from __future__ import annotations

# ``X as X``: result types, importable from here and documented (book/api.md) but not public names (__all__)
from .candidates import Candidate, mds_candidate, standard_candidates
from .core import optimal_scale, stress_of_distances, stress_of_encoding
from .ladder import StressLadder as StressLadder
from .ladder import stress_ladder
from .rank_curve import stress_by_rank
from .resolution import ResolutionVerdicts as ResolutionVerdicts
from .results import StressTable as StressTable
from .shift_invariant import shift_invariant_decomposition
from .split_half import split_half_stress
from .table import stress_table

__all__ = [
    "optimal_scale", "stress_of_distances", "stress_of_encoding", "stress_by_rank", "Candidate", "mds_candidate",
    "standard_candidates", "stress_table", "shift_invariant_decomposition", "stress_ladder", "split_half_stress",
]
