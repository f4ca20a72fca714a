"""Tests of design ch07_net_null: Chapter 7's net rule on a lengths-only corpus against its own lengths-only control
(net 0 by construction). The null holds by construction, the stored runs reproduce bit for bit, and the counting
rule can fail: against a control that differs by construction (edges shuffled away) it ranks."""

import numpy as np
import pytest

from posgeom.geometry import flat_corpus
from posgeom.geometry.ladder import contiguous_tokens
from posgeom.stress.calibration import REAL_PAIRS, lengths_only_corpus, net_null_rates, net_null_verdicts
from posgeom.stress.resolution import ResolutionVerdicts
from posgeom.studies.designs import Design

CORPUS = ("n_positions", "vocab_size", "n_texts", "median_words", "sigma_words", "exponent")
RULE = ("n_resolutions", "n_resamples", "n_splits")


@pytest.fixture(scope="module")
def design():
    return Design.load("ch07_net_null")


def test_the_corpus_and_its_control_are_two_shuffles_of_the_same_texts():
    kw = dict(n_positions=8, vocab_size=50, n_texts=400, median_words=3, sigma_words=1.0, exponent=1.0)
    inc = lengths_only_corpus(0, **kw)
    control = flat_corpus(inc, rng=1, keep_edges=True)
    tokens, starts = contiguous_tokens(inc), np.cumsum(inc.lengths) - inc.lengths
    ends = starts + inc.lengths - 1
    assert np.all(tokens[starts] == 0) and inc.lengths.min() >= 3 and inc.lengths.max() == 8
    assert np.all(tokens[ends[inc.lengths < 8]] == 1)  # [SEP] closes every text that is not cut
    inner = np.ones(tokens.size, bool)
    inner[starts] = inner[ends] = False
    assert not np.isin(tokens[inner], (0, 1)).any()  # the edge ids sit at the edges only
    other = contiguous_tokens(control)  # same lengths, same edges, same multiset of words: exchangeable
    assert np.array_equal(control.lengths, inc.lengths) and np.array_equal(other[~inner], tokens[~inner])
    assert np.array_equal(np.sort(other[inner]), np.sort(tokens[inner])) and not np.array_equal(other, tokens)


def test_net_null_rates_count_full_rankings_family_wise_and_bound_exactly():
    none = ["undetermined"] * 3  # the runs' ResolutionVerdicts.verdict per pair: one ranked, one by K, none
    runs = [{"verdicts": {"net": ["undetermined", "ALiBi > RoPE", "undetermined"],
                          "corpus": ["ALiBi < sinusoidal"] * 3}},
            {"verdicts": {"net": ["depends on resolution (lower at K=2, undetermined from K=8)"] + none[1:],
                          "corpus": none}},
            {"verdicts": {"net": none, "corpus": none}}]
    r = net_null_rates(runs)
    assert r["false ranking"][:3] == (1, 3, 1 / 3) and r["ALiBi vs sinusoidal"][:3] == (0, 3, 0.0)
    assert r["ranked at some K"][:3] == (2, 3, 2 / 3) and r["corpus ranked"][:3] == (1, 3, 1 / 3)
    zero = net_null_rates([runs[2]] * 200)
    assert zero["false ranking"][3] == pytest.approx(1 - 0.05 ** (1 / 200))


def test_the_rule_ranks_a_net_that_differs_by_construction(design):
    """Negative control: a control with [CLS]/[SEP] shuffled away differs from the corpus by construction."""
    kw = {k: design[k] for k in CORPUS + RULE} | {"n_texts": 24000}
    run = net_null_verdicts(1, control_edges=False, **kw)
    assert net_null_rates([run])["false ranking"][0] == 1 and run["verdicts"]["net"][0] == "ALiBi < sinusoidal"


def test_stored_runs_are_the_designs_meet_its_criterion_and_reproduce_bit_for_bit(design):
    runs = design.results()["runs"]  # raises if made under another design or seeds
    rate = net_null_rates(runs)["false ranking"]
    assert rate[1] == design["n_seeds"] == len(runs) and rate[2] <= design["alpha"]
    kw = {k: design[k] for k in CORPUS + RULE}
    assert net_null_verdicts(design.seeds[0], **kw) == runs[0]
    for run in runs:  # every stored net verdict is ResolutionVerdicts.verdict of the stored net intervals at 95%
        v = ResolutionVerdicts(REAL_PAIRS, tuple(run["n_tokens"]), np.array(run["mass_kept"]), None,
                               {"net": np.array(run["net"])}, 0.95)
        assert [v.verdict(a, b, which="net") for a, b in REAL_PAIRS] == run["verdicts"]["net"]
