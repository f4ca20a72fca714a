"""The ladder of ``posgeom report --ladder``: the rule behind its verdicts, and a flat corpus that ranks nothing."""

from __future__ import annotations

import numpy as np
import pytest

from posgeom.corpus import SequenceIncidence
from posgeom.geometry import Resolved
from posgeom.report.ladder import ladder_line as ladder_line
from posgeom.report.ladder import ladder_markdown as ladder_markdown
from posgeom.report.ladder import report_ladder
from posgeom.stress.candidates import fixed_distances

N = 8


def _rows():
    lag = np.abs(np.subtract.outer(np.arange(N, dtype=float), np.arange(N, dtype=float)))
    return [fixed_distances("line", lag), fixed_distances("sqrt line", np.sqrt(lag)),
            fixed_distances("constant", 1 - np.eye(N))]


def _texts(m, *, flat, rng):
    """``m`` texts of ``N`` tokens over 4 symbols: position i's law moves with i, or is one law (flat)."""
    gen = np.random.default_rng(rng)
    p = np.ones((N, 4)) if flat else np.array([[1.0 + 3 * i, 3.0, 3.0, 1.0 + 3 * (N - 1 - i)] for i in range(N)])
    p /= p.sum(axis=1, keepdims=True)
    X = np.stack([gen.choice(4, size=m, p=p[i]) for i in range(N)], axis=1)
    return SequenceIncidence.from_sequences(X, N, 4)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_flat_corpus_ranks_nothing(seed):
    inc = _texts(1600, flat=True, rng=seed)
    summary = report_ladder(_rows(), inc, Resolved().fixed(inc, fraction=1 / 8), rng=seed, n_resamples=50)
    assert summary["geometry"] is False and summary["ranked"] == 0
    assert all(v["verdict"] == "undetermined" for v in summary["verdicts"])
    assert "**no**" in ladder_markdown(summary) and "0 of 3" in ladder_line(summary)


def test_a_corpus_with_a_geometry_is_ranked_by_the_rule():
    inc = _texts(1600, flat=False, rng=0)
    summary = report_ladder(_rows(), inc, Resolved().fixed(inc, fraction=1 / 8), rng=0, n_resamples=50)
    assert summary["geometry"] is True and summary["ranked"] >= 1
    for v in summary["verdicts"]:
        signs = set(v["signs"])
        ranked = len(signs) == 1 and "?" not in signs
        assert (v["verdict"] != "undetermined") == ranked
        # every interval is centred: it contains the paired estimate on every rung
        assert all(lo <= est <= hi for est, lo, hi in v["contrast"])
    # the line is a better fit to a law that moves linearly with the position than no order at all
    assert next(v for v in summary["verdicts"] if v["b"] == "constant" and v["a"] == "line")["verdict"] == \
        "line < constant"


def test_stored_flat_null_meets_its_criterion():
    """Design ch10_null (fixed before its runs): the report's rule ranks at most 5% of 200 flat corpora, where any
    ranking is false; the stored runs belong to the design as committed (hash and seeds)."""
    from posgeom.studies.designs import Design

    runs = Design.load("ch10_null").results()["runs"]
    ranked = sum(any(v != "undetermined" for v in r["verdicts"] or ()) for r in runs)
    assert len(runs) == 200 and ranked / len(runs) <= 0.05, ranked


@pytest.mark.slow
def test_stored_flat_null_reproduces_bit_for_bit():
    """Five of the stored seeds re-run: the same verdicts, the same corpora stopped."""
    from posgeom.studies.designs import Design
    from posgeom.studies.report_null import flat_verdicts

    design = Design.load("ch10_null")
    kw = {k: design[k] for k in ("n_positions", "vocab_size", "n_texts", "n_resamples")}
    stored = dict(zip(design.seeds, design.results()["runs"]))
    for seed in list(design.seeds)[:: len(stored) // 5]:
        assert flat_verdicts(seed, **kw) == stored[seed], seed


def test_noise_floor_summary():
    """The floor's share of the median distance, a warning above one half, and the reason when not measured."""
    from posgeom.report.floor import noise_floor_summary

    D = np.array([[0, 0.4, 0.5], [0.4, 0, 0.3], [0.5, 0.3, 0]])
    summary = noise_floor_summary(D, np.array([0.1, 0.1, 0.3]))
    assert summary.share == pytest.approx(0.25) and summary.warning is None
    assert noise_floor_summary(D, np.array([0.3, 0.3, 0.3])).warning is not None
    assert noise_floor_summary(D, None, reason="not needed").line.startswith("Noise floor: not measured (not needed).")
