"""One chapter's experiment each; notebooks import it, the library never does.

* :mod:`~posgeom.studies.tasks` -- the synthetic labelled tasks (Chapters 3, 4, 9)
* :mod:`~posgeom.studies.conditions` -- the three conditions of Theorem 4 as diagnostics (Chapters 3, 4)
* :mod:`~posgeom.studies.necessity_analysis` -- Chapter 3's training runs and their analysis
* :mod:`~posgeom.studies.separation_seeds` -- Chapter 4's seeded separation experiment
* :mod:`~posgeom.studies.sinusoid` -- Chapter 5b: the sinusoid against the MDS subspace
* :mod:`~posgeom.studies.parametrisation`, :mod:`~posgeom.studies.rank_design` -- Chapter 6
* :mod:`~posgeom.studies.monotone_seeds` -- Chapter 8
* :mod:`~posgeom.studies.dose_response` -- Chapter 9
* :mod:`~posgeom.studies.ntk_rates` -- the NTK appendix
"""

from __future__ import annotations

from .conditions import multiset_bound, non_degeneracy, non_stationarity, order_sensitivity, sequence_bound
from .dose_response import permute_rows
from .parametrisation import parallel_analysis
from .sinusoid import random_centred_subspaces, sinusoid_alignment
from .tasks import centre_task, order_task, pair_distributions, probe_data, transposition_task

__all__ = [
    "order_task",
    "centre_task",
    "probe_data",
    "pair_distributions",
    "transposition_task",
    "multiset_bound",
    "sequence_bound",
    "order_sensitivity",
    "non_stationarity",
    "non_degeneracy",
    "parallel_analysis",
    "sinusoid_alignment",
    "random_centred_subspaces",
    "permute_rows",
]
