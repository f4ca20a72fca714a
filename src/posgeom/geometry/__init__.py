"""The geometry of positional distributions: Hellinger and Fisher-Rao distances, classical MDS (Algorithm 1),
shift-equivariance and Toeplitz structure, and the sampling noise of the estimates.
"""
from __future__ import annotations

# ``X as X``: result types, importable from here and documented (book/api.md) but not public names (__all__)
from .bias import (
    expected_plugin_squared_distance,
)
from .crossfit import (
    CorrectedDistances as CorrectedDistances,
)
from .crossfit import (
    corrected_distances,
    plugin_distances,
)
from .estimation import (
    ESTIMATORS,
    CrossFitted,
    PlugIn,
    Resolved,
)
from .estimators import (
    bootstrap_corrected,
)
from .euclidean import (
    pairwise_distances,
)
from .hellinger import (
    fisher_rao_distances,
    hellinger_distances,
)
from .ladder import (
    Ladder,
    flat_corpus,
    stability_ladder,
    subsample,
    verdict,
)
from .mds import (
    ClassicalMDS as ClassicalMDS,
)
from .mds import (
    classical_mds,
    double_centered_gram,
)
from .noise import (
    bootstrap_statistic,
)
from .polynomial import (
    BestPolynomial,
)
from .profile import (
    LagStatistics,
    ladder_sign,
    pad_texts,
)
from .resolved import (
    Resolution,
    choose_resolution,
    resolved_estimand,
)
from .shift import (
    fourier_alignment,
    fourier_basis,
    lag_profile,
    shift_equivariance_defect,
    shift_equivariant_distributions,
    subspace_alignment,
)

__all__ = [
    "PlugIn",
    "CrossFitted",
    "Resolved",
    "ESTIMATORS",
    "BestPolynomial",
    "Resolution",
    "choose_resolution",
    "resolved_estimand",
    "flat_corpus",
    "subsample",
    "Ladder",
    "stability_ladder",
    "verdict",
    "hellinger_distances",
    "fisher_rao_distances",
    "pairwise_distances",
    "expected_plugin_squared_distance",
    "plugin_distances",
    "corrected_distances",
    "bootstrap_corrected",
    "bootstrap_statistic",
    "double_centered_gram",
    "classical_mds",
    "LagStatistics",
    "ladder_sign",
    "pad_texts",
    "lag_profile",
    "shift_equivariance_defect",
    "shift_equivariant_distributions",
    "fourier_basis",
    "subspace_alignment",
    "fourier_alignment",
]
