"""The geometry of positional distributions: Hellinger and Fisher-Rao distances, classical MDS (Algorithm 1),
shift-equivariance and Toeplitz structure, and the sampling noise of the estimates.
"""
from __future__ import annotations

from .hellinger import (
    bhattacharyya_coefficients,
    hellinger_distances,
    hellinger_from_products,
    fisher_rao_distances,
)
from .euclidean import (
    pairwise_distances,
)
from .estimators import (
    plugin_distances,
)
from .noise import (
    split_half_distances,
    bootstrap_statistic,
    bootstrap_distances,
)
from .mds import (
    ClassicalMDS,
    double_centered_gram,
    numerical_rank,
    classical_mds,
)
from .shift import (
    lag_profile,
    toeplitz_part,
    shift_equivariance_defect,
    shift_equivariant_distributions,
    fourier_basis,
    subspace_alignment,
    fourier_alignment,
)

__all__ = [
    "bhattacharyya_coefficients",
    "hellinger_distances",
    "hellinger_from_products",
    "fisher_rao_distances",
    "pairwise_distances",
    "plugin_distances",
    "split_half_distances",
    "bootstrap_statistic",
    "bootstrap_distances",
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
