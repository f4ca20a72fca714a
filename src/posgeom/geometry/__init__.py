"""The geometry of positional distributions: Hellinger and Fisher-Rao distances, classical MDS (Algorithm 1),
shift-equivariance and Toeplitz structure, and the sampling noise of the estimates.
"""
from __future__ import annotations

from ._crossfit import CorrectedDistances as CorrectedDistances

# ``X as X``: result types, importable from here and documented (book/api.md) but not public names (__all__)
from .bias import expected_plugin_squared_distance
from .estimators import CrossFitted, PlugIn, Resolved
from .euclidean import pairwise_distances
from .hellinger import fisher_rao_distances, hellinger_distances
from .ladder import Ladder as Ladder
from .ladder import flat_corpus, stability_ladder, subsample
from .mds import ClassicalMDS as ClassicalMDS
from .mds import classical_mds
from .polynomial import BestPolynomial
from .profile import LagStatistics, ladder_sign, pad_texts
from .resolved import Resolution, choose_resolution, resolved_estimand
from .shift import (
    fourier_alignment,
    fourier_basis,
    shift_equivariance_defect,
    shift_equivariant_distributions,
    subspace_alignment,
)
from .sweep import ResolutionSweep as ResolutionSweep
from .sweep import resolution_sweep

__all__ = ["PlugIn", "CrossFitted", "Resolved", "BestPolynomial", "Resolution", "choose_resolution",
           "resolved_estimand", "resolution_sweep", "flat_corpus", "subsample", "stability_ladder",
           "hellinger_distances", "fisher_rao_distances", "pairwise_distances", "expected_plugin_squared_distance",
           "classical_mds", "LagStatistics", "ladder_sign", "pad_texts", "shift_equivariance_defect",
           "shift_equivariant_distributions", "fourier_basis", "subspace_alignment", "fourier_alignment"]
