"""The ranking rule on a null of equal stress (Chapter 7, design ``ch07_null``, run by ``studies.ranking_null``)."""

from __future__ import annotations

import numpy as np

from ..corpus import SequenceIncidence
from ..corpus.synthetic import sample_sequences, synthetic_distributions
from .candidates import fixed_encoding, standard_candidates
from .ladder import stress_ladder

REAL_PAIRS = (("ALiBi", "sinusoidal"), ("ALiBi", "RoPE"), ("sinusoidal", "RoPE"))


def null_rankings(seed: int, *, n_positions: int, vocab_size: int, n_texts: int, n_tables: int, width: int,
                  n_resamples: int, fractions) -> dict:
    """Verdicts of ``StressLadder.verdict`` on texts from ``(mu + mu[::-1]) / 2`` (a smooth synthetic ``mu``).

    ``null``: ``n_tables`` Gaussian tables against ``P[::-1]``, equal in truth since ``stress*(J E J; D) =
    stress*(E; D)`` for a reversal-symmetric ``D``; ``halves``: ``REAL_PAIRS`` on two disjoint random halves. Draws
    from ``default_rng([seed, k])``.
    """
    rng = np.random.default_rng([seed, 0])
    mu = synthetic_distributions(n_positions, vocab_size, rng=rng, regime="smooth")
    seqs = sample_sequences((mu + mu[::-1]) / 2, n_texts, rng=rng)
    rng = np.random.default_rng([seed, 1])
    tables = [rng.standard_normal((n_positions, width)) for _ in range(n_tables)]
    rows = [fixed_encoding(f"P{t}{s}", P[::k]) for t, P in enumerate(tables) for s, k in (("", 1), (" reversed", -1))]
    real = [c for c in standard_candidates(n_positions, mds_ranks=()) if c.name in {"sinusoidal", "RoPE", "ALiBi"}]
    half = rng.permutation(n_texts) < n_texts // 2
    def verdicts(rows, keep, pairs, k):
        texts = SequenceIncidence.from_sequences(seqs[keep], n_positions, vocab_size)
        lad = stress_ladder(rows, texts, rng=np.random.default_rng([seed, k]), n_resamples=n_resamples,
                            fractions=fractions)
        return [lad.verdict(a, b) for a, b in pairs]
    null = verdicts(rows, slice(None), [(f"P{t}", f"P{t} reversed") for t in range(n_tables)], 2)
    return {"null": null, "halves": [verdicts(real, h, REAL_PAIRS, 3 + k) for k, h in enumerate((half, ~half))]}


def null_rates(runs: list[dict], *, confidence: float = 0.95) -> dict:
    """``(count, corpora, share, upper)`` per outcome, ``upper`` the exact (Clopper-Pearson) one-sided bound.

    ``"false ranking"``: any null pair ranked; ``"contradiction"``: halves ranking a pair in opposite directions;
    ``"real pair ranked"``: halves ranking ALiBi against sinusoidal.
    """
    from scipy.stats import beta
    def rate(hits):
        k, n = int(sum(hits)), len(hits)
        return k, n, k / n, 1.0 if k == n else float(beta.ppf(confidence, k + 1, n - k))
    flip = {"<": ">", ">": "<"}
    return {"false ranking": rate([any(v != "undetermined" for v in r["null"]) for r in runs]),
            "contradiction": rate([any(a != "undetermined" and b == "".join(flip.get(ch, ch) for ch in a)
                                       for a, b in zip(*r["halves"])) for r in runs]),
            "real pair ranked": rate([h[0] != "undetermined" for r in runs for h in r["halves"]])}

