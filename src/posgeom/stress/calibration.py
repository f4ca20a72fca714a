"""Chapter 7's ranking rules on nulls: ``null_rankings``, ``null_rates`` (the ladder's, design ``ch07_null``);
``lengths_only_corpus``, ``net_null_verdicts``, ``net_null_rates`` (net of the lengths-only control, ``ch07_net_null``).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..corpus import SequenceIncidence
from ..corpus.synthetic import sample_sequences, synthetic_distributions
from ..geometry import choose_resolution, flat_corpus
from .candidates import fixed_encoding, standard_candidates
from .ladder import stress_ladder
from .resolution import stress_across_resolutions

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


def false_ranking_rate(hits, *, confidence: float = 0.95) -> tuple:
    """``(count, n, share, upper)`` of per-table booleans, ``upper`` the exact (Clopper-Pearson) one-sided bound.

    Examples
    --------
    >>> false_ranking_rate([False] * 99 + [True])[:3]
    (1, 100, 0.01)
    """
    from scipy.stats import beta
    k, n = int(sum(hits)), len(hits)
    return k, n, k / n, 1.0 if k == n else float(beta.ppf(confidence, k + 1, n - k))


def null_rates(runs: list[dict], *, confidence: float = 0.95) -> dict:
    """``false_ranking_rate`` per outcome: ``"false ranking"``, any null pair ranked; ``"contradiction"``, halves
    ranking a pair in opposite directions; ``"real pair ranked"``, halves ranking ALiBi against sinusoidal."""
    flip, rate = {"<": ">", ">": "<"}, partial(false_ranking_rate, confidence=confidence)
    return {"false ranking": rate([any(v != "undetermined" for v in r["null"]) for r in runs]),
            "contradiction": rate([any(a != "undetermined" and b == "".join(flip.get(ch, ch) for ch in a)
                                       for a, b in zip(*r["halves"])) for r in runs]),
            "real pair ranked": rate([h[0] != "undetermined" for r in runs for h in r["halves"]])}


def lengths_only_corpus(seed: int, *, n_positions: int, vocab_size: int, n_texts: int, median_words: float,
                        sigma_words: float, exponent: float) -> SequenceIncidence:
    """``[CLS]`` (id 0), ``w`` words, ``[SEP]`` (id 1) per text, cut at ``n_positions`` (losing ``[SEP]``), words
    i.i.d. Zipf over ids ``2 ..``, then shuffled with the edges kept: position carries only lengths and edges.

    ``w = max(1, round(lognormal(log median_words, sigma_words)))``; draws from ``default_rng([seed, k])``, k = 0, 1.
    """
    rng = np.random.default_rng([seed, 0])
    words = np.maximum(1, np.rint(rng.lognormal(np.log(median_words), sigma_words, n_texts))).astype(int)
    lengths = np.minimum(words + 2, n_positions)
    zipf = np.arange(1, vocab_size - 1, dtype=float) ** -float(exponent)
    tokens = 2 + rng.choice(vocab_size - 2, size=int(lengths.sum()), p=zipf / zipf.sum())
    ends = np.cumsum(lengths)
    tokens[ends - lengths] = 0
    tokens[(ends - 1)[words + 2 <= n_positions]] = 1
    base = SequenceIncidence.from_contiguous(tokens, lengths, n_positions, vocab_size)
    return flat_corpus(base, rng=np.random.default_rng([seed, 1]), keep_edges=True)


def net_null_verdicts(seed: int, *, n_resolutions: int, n_resamples: int, n_splits: int, control_edges: bool = True,
                      **corpus) -> dict:
    """Chapter 7's net rule on ``lengths_only_corpus(seed, **corpus)`` against its own lengths-only control.

    The control is ``flat_corpus(corpus, keep_edges=control_edges)`` from ``default_rng([seed, 2])``: with the edges
    kept, two independent uniform shuffles of the same texts, exchangeable, so every net difference is 0 in truth
    (``control_edges=False``: a control that differs by construction). The rule is the chapter's:
    ``stress_across_resolutions`` on ``REAL_PAIRS`` at ``n_resolutions`` geometric ``K`` from the rule's for an
    eighth of the texts to the whole corpus's, bootstrap from ``default_rng([seed, 3])``. Returns ``K``, mass kept,
    the verdicts (``"net"``, ``"corpus"``, ``"control"``) per pair and the net ``(estimate, lower, upper)`` per K, pair.
    """
    texts = lengths_only_corpus(seed, **corpus)
    control = flat_corpus(texts, rng=np.random.default_rng([seed, 2]), keep_edges=control_edges)
    lo, hi = (len(choose_resolution(texts, fraction=f).tokens) for f in (0.125, 1.0))
    sweep = stress_across_resolutions(
        standard_candidates(texts.n_positions, mds_ranks=()), texts, pairs=REAL_PAIRS, control=control,
        n_tokens=np.unique(np.geomspace(lo, hi, n_resolutions).round().astype(int)),
        rng=np.random.default_rng([seed, 3]), n_resamples=n_resamples, n_splits=n_splits)
    return {"n_tokens": [int(k) for k in sweep.n_tokens], "mass_kept": [float(m) for m in sweep.mass_kept],
            "verdicts": {w: [sweep.verdict(a, b, which=w) for a, b in REAL_PAIRS]
                         for w in ("net", "corpus", "control")},
            "net": sweep.intervals["net"].tolist()}


def net_null_rates(runs: list[dict], *, confidence: float = 0.95) -> dict:
    """``false_ranking_rate`` per outcome of design ``ch07_net_null`` from the runs' ``ResolutionVerdicts.verdict``:
    ``"false ranking"``, any pair's net ``a < b`` or ``a > b``; ``"ALiBi vs sinusoidal"``, that pair's; ``"ranked at
    some K"``, any pair's net not undetermined; ``"corpus ranked"``, the corpus alone ranking ALiBi vs sinusoidal."""
    rate = partial(false_ranking_rate, confidence=confidence)
    def ranked(r, which):
        return [v in (f"{a} < {b}", f"{a} > {b}") for v, (a, b) in zip(r["verdicts"][which], REAL_PAIRS)]
    return {"false ranking": rate([any(ranked(r, "net")) for r in runs]),
            "ALiBi vs sinusoidal": rate([ranked(r, "net")[0] for r in runs]),
            "ranked at some K": rate([{*r["verdicts"]["net"]} != {"undetermined"} for r in runs]),
            "corpus ranked": rate([ranked(r, "corpus")[0] for r in runs])}
