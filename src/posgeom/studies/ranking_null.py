"""Chapter 7: the false-ranking rate of the stress ranking rule on corpora where the compared stresses are equal.

* :func:`null_corpus` -- texts drawn from reversal-symmetric distributions (``mu_i = mu_{n-1-i}``)
* :func:`null_rankings` -- on one corpus: the rule's verdicts on three tables against their reversals (equal stress
  by construction), and on the real pairs in two disjoint random halves (contradictions)
* :func:`null_rates` -- from the stored verdicts: the false-ranking and contradiction rates, with exact bounds
* ``python -m posgeom.studies.ranking_null DESIGN OUT`` -- the design's seeds, stored as JSON
"""

from __future__ import annotations

import sys

import numpy as np

from ..corpus import SequenceIncidence
from ..corpus.synthetic import sample_sequences, synthetic_distributions
from ..stress import standard_candidates, stress_ladder
from ..stress.candidates import fixed_encoding

__all__: list[str] = []  # run by its command; read back through posgeom.studies.designs.Design.results
REAL_PAIRS = (("ALiBi", "sinusoidal"), ("ALiBi", "RoPE"), ("sinusoidal", "RoPE"))


def null_corpus(seed: int, *, n_positions: int, vocab_size: int, n_texts: int) -> np.ndarray:
    """``n_texts`` texts (rows) of ``n_positions`` tokens from ``(mu + mu[::-1]) / 2`` of a smooth synthetic ``mu``.

    >>> null_corpus(1, n_positions=6, vocab_size=10, n_texts=50).shape
    (50, 6)
    """
    rng = np.random.default_rng([seed, 0])
    mu = synthetic_distributions(n_positions, vocab_size, rng=rng, regime="smooth")
    mu = (mu + mu[::-1]) / 2  # reversal-symmetric: the true D satisfies D[::-1, ::-1] = D
    return sample_sequences(mu, n_texts, rng=rng)


def _verdicts(rows, texts, pairs, *, rng, n_resamples, fractions) -> list[str]:
    lad = stress_ladder(rows, texts, rng=rng, n_resamples=n_resamples, fractions=fractions)
    return [lad.verdict(a, b) for a, b in pairs]


def null_rankings(seed: int, *, n_positions: int, vocab_size: int, n_texts: int, n_tables: int, width: int,
                  n_resamples: int, fractions) -> dict:
    """The chapter's rule (:meth:`posgeom.stress.StressLadder.verdict`) on one null corpus of ``seed``.

    ``null``: the verdict of each of ``n_tables`` random Gaussian tables (``n x width``) against its reversal
    ``P[::-1]``; since ``stress*(J E J; D) = stress*(E; J D J) = stress*(E; D)`` for the reversal ``J`` on a
    reversal-symmetric ``D``, every ranking is false. ``halves``: the verdicts of :data:`REAL_PAIRS` on two disjoint
    random halves of the same texts (a contradiction is one half ranking ``a < b`` and the other ``a > b``).

    >>> r = null_rankings(1, n_positions=6, vocab_size=10, n_texts=400, n_tables=1, width=4, n_resamples=10,
    ...                   fractions=(1.0, 0.5))
    >>> len(r["null"]), len(r["halves"]), len(r["halves"][0])
    (1, 2, 3)
    """
    seqs = null_corpus(seed, n_positions=n_positions, vocab_size=vocab_size, n_texts=n_texts)
    texts = SequenceIncidence.from_sequences(seqs, n_positions, vocab_size)
    rng = np.random.default_rng([seed, 1])
    rows, pairs = [], []
    for t in range(n_tables):
        P = rng.standard_normal((n_positions, width))
        rows += [fixed_encoding(f"P{t}", P), fixed_encoding(f"P{t} reversed", P[::-1])]
        pairs.append((f"P{t}", f"P{t} reversed"))
    real = [c for c in standard_candidates(n_positions, mds_ranks=()) if c.name in {"sinusoidal", "RoPE", "ALiBi"}]
    kw = dict(n_resamples=n_resamples, fractions=fractions)
    null = _verdicts(rows, texts, pairs, rng=np.random.default_rng([seed, 2]), **kw)
    half = rng.permutation(texts.n_sequences) < texts.n_sequences // 2
    halves = []
    for k, h in enumerate((half, ~half)):
        sub = SequenceIncidence.from_sequences(seqs[h], n_positions, vocab_size)
        halves.append(_verdicts(real, sub, REAL_PAIRS, rng=np.random.default_rng([seed, 3 + k]), **kw))
    return {"null": null, "halves": halves}


def null_rates(runs: list[dict], *, confidence: float = 0.95) -> dict:
    """Per outcome, ``(count, corpora, share, upper)``: ``upper`` the exact (Clopper-Pearson) one-sided bound.

    ``"false ranking"``: corpora whose null pairs are ranked at all (family-wise); ``"contradiction"``: corpora whose
    halves rank a real pair in opposite directions; ``"real pair ranked"``: halves ranking ALiBi against sinusoidal.

    >>> null_rates([{"null": ["undetermined"], "halves": [["a < b"], ["a > b"]]}])["contradiction"][:3]
    (1, 1, 1.0)
    """
    from scipy.stats import beta

    def rate(hits: list[bool]) -> tuple:
        k, n = int(sum(hits)), len(hits)
        return k, n, k / n, 1.0 if k == n else float(beta.ppf(confidence, k + 1, n - k))

    return {
        "false ranking": rate([any(v != "undetermined" for v in r["null"]) for r in runs]),
        "contradiction": rate([any({a, b} == {a.replace("<", ">"), a.replace(">", "<")} and a != b
                                   for a, b in zip(*r["halves"])) for r in runs]),
        "real pair ranked": rate([h[0] != "undetermined" for r in runs for h in r["halves"]]),
    }


def main(argv: list[str]) -> None:
    """``python -m posgeom.studies.ranking_null DESIGN OUT``: run every seed of the design and store the verdicts."""
    from .designs import Design

    design, out = Design.load(argv[0]), argv[1]
    kw = {k: design[k] for k in ("n_positions", "vocab_size", "n_texts", "n_tables", "width", "n_resamples")}
    runs = [null_rankings(s, fractions=tuple(design["fractions"]), **kw) for s in design.seeds]
    design.store(out, runs=runs)


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
