"""The geometry of positional distributions: Hellinger and Fisher-Rao distances, classical MDS (Algorithm 1),
shift-equivariance and Toeplitz structure, and the sampling noise of the estimates.
"""
from __future__ import annotations

from .bias import (
    expected_plugin_squared_distance,
    expected_sqrt_frequencies,
)
from .estimation import (
    ESTIMATORS,
    CrossFitted,
    DistanceEstimate,
    PlugIn,
    Resolved,
    as_estimator,
)
from .estimators import (
    CorrectedDistances,
    EstimatorErrors,
    bootstrap_corrected,
    corrected_distances,
    estimator_errors,
    plugin_distances,
)
from .euclidean import (
    pairwise_distances,
)
from .hellinger import (
    bhattacharyya_coefficients,
    fisher_rao_distances,
    hellinger_distances,
    hellinger_from_products,
)
from .ladder import (
    Ladder,
    flat_corpus,
    stability_ladder,
    subsample,
    verdict,
)
from .mds import (
    ClassicalMDS,
    classical_mds,
    double_centered_gram,
    eigenvector_signs,
    numerical_rank,
)
from .noise import (
    bootstrap_statistic,
    split_half_distances,
)
from .polynomial import (
    BestPolynomial,
    sqrt_estimates,
)
from .resolved import (
    Resolution,
    choose_resolution,
    resolved_estimand,
    resolved_splits,
)
from .shift import (
    fourier_alignment,
    fourier_basis,
    lag_profile,
    shift_equivariance_defect,
    shift_equivariant_distributions,
    subspace_alignment,
    toeplitz_part,
)

__all__ = [
    "DistanceEstimate",
    "PlugIn",
    "CrossFitted",
    "Resolved",
    "ESTIMATORS",
    "as_estimator",
    "BestPolynomial",
    "sqrt_estimates",
    "Resolution",
    "choose_resolution",
    "resolved_estimand",
    "resolved_splits",
    "flat_corpus",
    "subsample",
    "Ladder",
    "stability_ladder",
    "verdict",
    "bhattacharyya_coefficients",
    "hellinger_distances",
    "hellinger_from_products",
    "fisher_rao_distances",
    "pairwise_distances",
    "expected_sqrt_frequencies",
    "expected_plugin_squared_distance",
    "plugin_distances",
    "CorrectedDistances",
    "corrected_distances",
    "bootstrap_corrected",
    "EstimatorErrors",
    "estimator_errors",
    "split_half_distances",
    "bootstrap_statistic",
    "eigenvector_signs",
    "ClassicalMDS",
    "double_centered_gram",
    "numerical_rank",
    "classical_mds",
    "lag_profile",
    "toeplitz_part",
    "shift_equivariance_defect",
    "shift_equivariant_distributions",
    "fourier_basis",
    "subspace_alignment",
    "fourier_alignment",
]
