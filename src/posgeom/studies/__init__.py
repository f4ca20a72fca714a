"""One chapter's experiment each (notebooks import it, the library never does); public: Chapter 6's signal rank of
``B`` (:func:`~posgeom.studies.parametrisation.parallel_analysis`), Chapter 5b's sinusoid against the MDS subspace
(:func:`~posgeom.studies.sinusoid.sinusoid_alignment`) and its random and step-function centred subspaces
(:func:`~posgeom.studies.sinusoid.reference_subspaces`)."""

from __future__ import annotations

from .parametrisation import parallel_analysis
from .sinusoid import reference_subspaces, sinusoid_alignment

__all__ = ["parallel_analysis", "sinusoid_alignment", "reference_subspaces"]
