"""posgeom: the geometry of positional encodings.

The subpackages follow the book's path; each layer imports only the layers before it:

==================  =====================================================================================
``corpus``          counts and positional distributions ``mu_i``, sequence incidences, synthetic corpora
``geometry``        Hellinger and Fisher-Rao distances, their estimators and noise, classical MDS, shift analysis
``encodings``       sinusoidal, MDS and low-rank encodings; RoPE, ALiBi, T5 and the distance each induces
``stress``          raw and scale-optimal stress, SMACOF, the stress-against-rank curve, the stress table
``nn``              small Transformers in torch (the only library layer that imports torch)
``data``            input/output only: SST-2 and IMDB, tokenising conventions, shards, pretrained tables
``studies``         one chapter's experiment each; notebooks import it, the library never does
``report``          the ``posgeom report`` command and its pipeline (the top: it imports the others)
==================  =====================================================================================

Beside them: :mod:`posgeom.plotting`, :mod:`posgeom.glue`. ``import posgeom as pg`` gives the numpy core
(``pg.hellinger_distances``, ``pg.classical_mds``, ``pg.stress_of_encoding``, ...) without importing torch.
Randomness: a numpy function that draws takes ``rng`` (an int seed or a ``numpy.random.Generator``), keyword-only
and required (never ``None``: no result depends on the clock); ``seed`` appears only at the torch boundary.
"""

from .corpus import REGIMES, position_counts, position_distributions, synthetic_corpus, synthetic_distributions
from .encodings import low_rank_factors, mds_encoding, sinusoidal_encoding
from .geometry import (
    classical_mds,
    fisher_rao_distances,
    hellinger_distances,
    pairwise_distances,
    shift_equivariance_defect,
)
from .stress import optimal_scale, stress_by_rank, stress_of_distances, stress_of_encoding

try:  # one version, read from the installed package's metadata (pyproject.toml)
    from importlib.metadata import version as _version

    __version__ = _version("posgeom")
except Exception:  # pragma: no cover - a source tree that is not installed
    __version__ = "0+unknown"

__all__ = [
    "REGIMES", "classical_mds", "fisher_rao_distances", "hellinger_distances", "low_rank_factors", "mds_encoding",
    "optimal_scale", "pairwise_distances", "position_counts", "position_distributions", "shift_equivariance_defect",
    "sinusoidal_encoding", "stress_of_encoding", "stress_by_rank", "stress_of_distances", "synthetic_corpus",
    "synthetic_distributions",
]
