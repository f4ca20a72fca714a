"""posgeom: the geometry of positional encodings.

The package follows the book's path:

* corpus statistics: :mod:`posgeom.statistics` (counts, ``mu_i``), :mod:`posgeom.synthetic` (corpora with known
  ``mu_i``);
* geometry: :mod:`posgeom.geometry` (Hellinger, Fisher-Rao), :mod:`posgeom.mds` (classical MDS, Algorithm 1);
* encodings: :mod:`posgeom.encodings`;
* stress: :mod:`posgeom.stress`.

Real corpora, tokenisation, pretrained models and small Transformers live in their own modules and are imported
on demand (they need ``transformers``/``torch``).
"""

from .encodings import sinusoidal_encoding, sinusoidal_frequencies
from .geometry import (
    bhattacharyya_coefficients,
    fisher_rao_distances,
    hellinger_distances,
    lag_profile,
    shift_equivariance_defect,
    toeplitz_part,
)
from .mds import ClassicalMDS, classical_mds, double_centered_gram, numerical_rank
from .statistics import merge_counts, position_counts, position_distributions
from .stress import optimal_scale, pairwise_distances, stress, stress_of_distances
from .synthetic import REGIMES, synthetic_corpus, synthetic_distributions

__version__ = "0.1.0"

__all__ = [
    "REGIMES",
    "ClassicalMDS",
    "bhattacharyya_coefficients",
    "classical_mds",
    "double_centered_gram",
    "fisher_rao_distances",
    "hellinger_distances",
    "lag_profile",
    "merge_counts",
    "shift_equivariance_defect",
    "toeplitz_part",
    "numerical_rank",
    "optimal_scale",
    "pairwise_distances",
    "position_counts",
    "position_distributions",
    "sinusoidal_encoding",
    "sinusoidal_frequencies",
    "stress",
    "stress_of_distances",
    "synthetic_corpus",
    "synthetic_distributions",
]
