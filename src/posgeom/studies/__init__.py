"""One chapter's experiment each; notebooks import it, the library never does.

* :func:`~posgeom.studies.parametrisation.parallel_analysis` -- Chapter 6: the signal rank of ``B``
* :func:`~posgeom.studies.sinusoid.sinusoid_alignment` -- Chapter 5b: the sinusoid against the MDS subspace
* :func:`~posgeom.studies.sinusoid.reference_subspaces` -- Chapter 5b: random and step-function centred subspaces
"""

from __future__ import annotations

from .parametrisation import parallel_analysis
from .sinusoid import reference_subspaces, sinusoid_alignment

__all__ = ["parallel_analysis", "sinusoid_alignment", "reference_subspaces"]
