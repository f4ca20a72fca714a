"""One chapter's experiment each (notebooks import them, the library never does); public: Chapter 6's
:func:`parallel_analysis`, the sinusoid section's :func:`sinusoid_alignment` and :func:`reference_subspaces`."""

from __future__ import annotations

from .parametrisation import parallel_analysis
from .sinusoid import reference_subspaces, sinusoid_alignment

__all__ = ["parallel_analysis", "sinusoid_alignment", "reference_subspaces"]
