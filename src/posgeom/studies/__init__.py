"""One chapter's experiment each; notebooks import it, the library never does.

* :mod:`~posgeom.studies.necessity_analysis` -- Chapter 3's training runs and their analysis
* :mod:`~posgeom.studies.separation_seeds` -- Chapter 4's seeded separation experiment
* :mod:`~posgeom.studies.sinusoid` -- Chapter 5b: the sinusoid against the MDS subspace
* :mod:`~posgeom.studies.parametrisation`, :mod:`~posgeom.studies.rank_design` -- Chapter 6
* :mod:`~posgeom.studies.monotone_seeds` -- Chapter 8
* :mod:`~posgeom.studies.dose_response` -- Chapter 9
* :mod:`~posgeom.studies.ntk_rates` -- the NTK appendix
"""

from __future__ import annotations

from .parametrisation import parallel_analysis
from .sinusoid import reference_subspaces, sinusoid_alignment

__all__ = [
    "parallel_analysis",
    "sinusoid_alignment",
    "reference_subspaces",
]
