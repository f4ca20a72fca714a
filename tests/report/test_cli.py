"""The command line: a real run on a small corpus checked against the package's numbers, and bad arguments."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from posgeom.geometry._crossfit import plugin_distances
from posgeom.inference import decide
from posgeom.report.cli import main

DOCS = [
    "the cat sat on the mat",
    "a dog barked at the moon all night long",
    "nothing ever happens here , or so they say",
    "it was the best of times , it was the worst of times",
    "call me ishmael",
    "all happy families are alike ; each unhappy family is unhappy in its own way",
]


def _tiny_reviews() -> list[str]:
    """The 2,000 toy reviews shipped in data/tiny_reviews.txt."""
    return (Path(__file__).resolve().parents[2] / "data" / "tiny_reviews.txt").read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "docs.txt"
    path.write_text("\n".join(DOCS) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def report(corpus_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    assert main(["report", str(corpus_file), "--positions", "8", "--out", str(out), "--no-progress",
                 "--estimator", "plug-in"]) == 0
    return out


@pytest.fixture(scope="module")
def reviews_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("reviews") / "reviews.txt"
    path.write_text("\n".join(_tiny_reviews()[:400]) + "\n", encoding="utf-8")
    return path


def _incidence(texts, n):
    from posgeom.data import CountingConvention, load_tokenizer, tokenize_corpus

    return tokenize_corpus(texts, load_tokenizer(), max_pieces=n).incidence(CountingConvention(n))


def test_resolved_is_the_default_and_its_estimand_stated(reviews_file, tmp_path, capsys):
    from posgeom.geometry import Resolved

    assert main(["report", str(reviews_file), "--positions", "6", "--out", str(tmp_path), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    inc = _incidence(reviews_file.read_text(encoding="utf-8").splitlines(), 6)
    est = Resolved().distances(inc, rng=0)
    np.testing.assert_allclose(np.load(tmp_path / "distances.npy"), est.distances, atol=1e-12)
    assert est.estimand == f"resolved d_H^2: {Resolved().resolution_for(inc).describe()}"
    header = (tmp_path / "stress_table.md").read_text(encoding="utf-8").splitlines()
    assert "resolved estimator" in header[0]
    assert header[2] == "Positions: n = 6 (--positions)."
    assert header[4] == f"Distances: resolved Hellinger estimate; estimand: {est.estimand}."
    summary = json.loads((tmp_path / "report.json").read_text())
    assert summary["estimator"] == "resolved" and summary["settings"]["estimator"].startswith("Resolved(")
    assert summary["estimand"] == est.estimand
    assert summary["sample_texts"] is None and summary["n_texts"] == 400
    # the resolved estimand carries no upward floor; the line says so, and what the noise of D does to stress
    assert summary["noise_floor"]["share"] is None and summary["noise_floor"]["warning"] is None
    assert "Noise floor: not measured (the estimand is 0" in printed and "noise in D raises it" in printed


def test_resolved_bootstrap_gives_the_stress_tables_intervals(reviews_file, tmp_path):
    from posgeom.geometry import Resolved
    from posgeom.stress import standard_candidates, stress_table

    assert main(["report", str(reviews_file), "--positions", "6", "--bootstrap", "20", "--out", str(tmp_path),
                 "--no-progress"]) == 0
    rows = list(csv.DictReader(open(tmp_path / "stress_table.csv", encoding="utf-8")))
    inc = _incidence(reviews_file.read_text(encoding="utf-8").splitlines(), 6)
    est = Resolved(resolution=Resolved().resolution_for(inc))
    candidates = standard_candidates(6, d_model=384, n_heads=12)
    table = stress_table(None, candidates, data=inc, rng=0, n_resamples=20, estimator=est)
    by_name = {r["encoding"]: r for r in rows}
    for row in table:
        if row.name in by_name:
            assert float(by_name[row.name]["optimal_ci_low"]) == pytest.approx(row.optimal_ci[0], abs=1e-9)
    assert "Estimand: resolved d_H^2" in (tmp_path / "stress_table.md").read_text(encoding="utf-8")


def test_cross_fitted_option_is_stated(reviews_file, tmp_path, capsys):
    from posgeom.geometry._crossfit import corrected_distances

    assert main(["report", str(reviews_file), "--positions", "6", "--out", str(tmp_path), "--no-progress",
                 "--estimator", "cross-fitted"]) == 0
    printed = capsys.readouterr().out
    inc = _incidence(reviews_file.read_text(encoding="utf-8").splitlines(), 6)
    est = corrected_distances(inc, rng=0, n_splits=20)
    np.testing.assert_allclose(np.load(tmp_path / "distances.npy"), est.distances, atol=1e-12)
    markdown = (tmp_path / "stress_table.md").read_text(encoding="utf-8")
    assert "cross-fitted estimator" in markdown.splitlines()[0] and "cross-fitted Hellinger estimate" in markdown
    summary = json.loads((tmp_path / "report.json").read_text())
    assert summary["estimator"] == "cross-fitted" and summary["settings"]["estimator"].startswith("CrossFitted(")
    assert summary["estimand"].startswith("||E sqrt(mu_half_i)") and summary["estimand"] in markdown
    assert summary["noise_floor"]["share"] is None and "the estimand is 0" in printed  # no upward floor in D


def test_plugin_report_states_its_floor_share(reviews_file, tmp_path, capsys):
    """The plug-in estimand carries the split-half floor: its share (median floor over median distance) is
    printed next to the table and written."""
    from posgeom.geometry._crossfit import corrected_distances

    assert main(["report", str(reviews_file), "--positions", "6", "--out", str(tmp_path), "--no-progress",
                 "--estimator", "plug-in"]) == 0
    printed = capsys.readouterr().out
    inc = _incidence(reviews_file.read_text(encoding="utf-8").splitlines(), 6)
    floors = corrected_distances(inc, rng=0, n_splits=20).floors
    iu = np.triu_indices(6, 1)
    share = np.median(floors) / np.median(plugin_distances(inc)[iu])
    summary = json.loads((tmp_path / "report.json").read_text())
    assert summary["noise_floor"]["share"] == pytest.approx(share, rel=1e-12)
    line = f"floor share {share:.2f}"
    assert line in printed and line in (tmp_path / "stress_table.md").read_text(encoding="utf-8")


def test_plugin_option_is_stated(report):
    markdown = (report / "stress_table.md").read_text(encoding="utf-8")
    assert "plug-in estimator" in markdown.splitlines()[0] and "plug-in Hellinger estimate" in markdown
    summary = json.loads((report / "report.json").read_text())
    assert summary["estimator"] == "plug-in" and summary["estimand"] in markdown


def test_settings_take_an_estimator_object():
    from posgeom.geometry import PlugIn, Resolved
    from posgeom.report.pipeline import ReportSettings

    assert isinstance(ReportSettings("sst2").estimator, Resolved)
    assert ReportSettings("sst2", estimator=PlugIn()).estimator.label == "plug-in"
    with pytest.raises(TypeError, match="estimator object"):
        ReportSettings("sst2", estimator="plug-in")


@pytest.mark.slow
def test_sample_texts_draws_a_seeded_subset(reviews_file, tmp_path):
    from posgeom.geometry import Resolved

    argv = ["report", str(reviews_file), "--positions", "6", "--no-progress", "--sample-texts", "200", "--seed", "1"]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    texts = reviews_file.read_text(encoding="utf-8").splitlines()
    keep = np.sort(np.random.default_rng(1).choice(len(texts), size=200, replace=False))
    est = Resolved().distances(_incidence([texts[i] for i in keep], 6), rng=1)
    np.testing.assert_allclose(np.load(tmp_path / "a" / "distances.npy"), est.distances, atol=1e-12)
    summary = json.loads((tmp_path / "a" / "report.json").read_text())
    assert summary["sample_texts"] == summary["settings"]["sample_texts"] == summary["n_texts"] == 200
    assert summary["estimand"] == est.estimand
    # same seed, same subset, same distances
    assert main([*argv, "--out", str(tmp_path / "b")]) == 0
    np.testing.assert_array_equal(np.load(tmp_path / "a" / "distances.npy"), np.load(tmp_path / "b" / "distances.npy"))


@pytest.mark.parametrize(
    "value, fragment",
    [("2", "at least 4"), ("0", "at least 4"), ("1000", "exceeds the 400 texts")],
)
def test_bad_sample_texts_exit_2_with_a_message(reviews_file, tmp_path, capsys, value, fragment):
    code = main(["report", str(reviews_file), "--positions", "6", "--out", str(tmp_path), "--no-progress",
                 "--sample-texts", value])
    assert code == 2
    assert fragment in capsys.readouterr().err


def test_warning_when_the_floor_dominates(tmp_path, capsys):
    # 12 documents drawn from one distribution at every position: no positional signal, only noise
    rng = np.random.default_rng(0)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
    path = tmp_path / "noise.txt"
    path.write_text("\n".join(" ".join(rng.choice(words, 6)) for _ in range(12)) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["report", str(path), "--positions", "6", "--out", str(out), "--no-progress",
                 "--estimator", "plug-in", "--no-special-tokens"]) == 0
    captured = capsys.readouterr()
    assert "warning" in captured.err and "exceeds half the median distance" in captured.err
    assert "Warning:" in (out / "stress_table.md").read_text(encoding="utf-8")
    assert json.loads((out / "report.json").read_text())["noise_floor"]["share"] > 0.5


def test_unknown_estimator_exits_2_naming_the_choices(corpus_file, tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["report", str(corpus_file), "--out", str(tmp_path), "--no-progress", "--estimator", "jackknife"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "jackknife" in err and "'resolved', 'cross-fitted', 'plug-in'" in err


@pytest.fixture(scope="module")
def dask_cluster():
    """One local Dask cluster (two worker processes) for the module, passed to ``--scheduler`` by its address.

    Starting a cluster costs seconds, so the tests below share this one; ``--scheduler local`` (the CLI starts and
    stops its own cluster) is exercised by :func:`test_scheduler_with_the_plugin_estimator` and the error cases.
    """
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:  # any free port: 8787 stays free for the CLI's
        yield cluster.scheduler_address


@pytest.fixture(scope="module")
def review_shards(tmp_path_factory):
    """480 toy reviews in four shards (.txt and .jsonl), read in sorted order: a, b, c, d."""
    texts = _tiny_reviews()[:480]
    folder = tmp_path_factory.mktemp("review_shards")
    (folder / "a.txt").write_text("\n".join(texts[:150]) + "\n", encoding="utf-8")
    (folder / "b.jsonl").write_text("\n".join(json.dumps({"text": t}) for t in texts[150:260]) + "\n",
                                    encoding="utf-8")
    (folder / "c.txt").write_text("\n".join(texts[260:400]) + "\n", encoding="utf-8")
    (folder / "d.jsonl").write_text("\n".join(json.dumps({"text": t}) for t in texts[400:]) + "\n",
                                    encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "extra",
    [
        [],  # the resolved estimator (default)
        ["--estimator", "cross-fitted", "--seed", "3"],
        ["--estimator", "plug-in", "--bootstrap", "5", "--seed", "1"],
        ["--limit", "400", "--sample-texts", "300", "--seed", "2"],
    ],
    ids=["resolved", "cross-fitted", "plug-in-bootstrap", "limit-sample"],
)
@pytest.mark.slow
def test_scheduler_gives_the_same_report(review_shards, dask_cluster, tmp_path, extra):
    """One machine or a cluster, one answer: the same files, bit for bit, with and without --scheduler."""
    argv = ["report", str(review_shards), "--positions", "6", "--no-progress", *extra]
    assert main([*argv, "--out", str(tmp_path / "one")]) == 0
    assert main([*argv, "--out", str(tmp_path / "dask"), "--scheduler", dask_cluster]) == 0
    one, dask = tmp_path / "one", tmp_path / "dask"
    assert np.array_equal(np.load(one / "distances.npy"), np.load(dask / "distances.npy"))
    for name in ("stress_table.csv", "stress_table.md"):
        assert (one / name).read_bytes() == (dask / name).read_bytes(), name
    summary_one = json.loads((one / "report.json").read_text())
    summary_dask = json.loads((dask / "report.json").read_text())
    assert summary_dask["settings"].pop("scheduler") == dask_cluster
    assert summary_one["settings"].pop("scheduler") is None
    assert summary_one == summary_dask
    expected_texts = 300 if "--sample-texts" in extra else 480
    assert summary_dask["n_texts"] == expected_texts
    if "--bootstrap" in extra:  # the intervals too: the bootstrap resamples the same sequences
        rows = list(csv.DictReader((dask / "stress_table.csv").open()))
        assert all(r["n_resamples"] == "5" and float(r["raw_ci_low"]) <= float(r["raw_ci_high"]) for r in rows)


def test_scheduler_needs_shards_on_disk(tmp_path, capsys):
    assert main(["report", "sst2", "--out", str(tmp_path), "--no-progress", "--scheduler", "local"]) == 2
    assert "shards on disk" in capsys.readouterr().err


@pytest.mark.slow
def test_scheduler_with_the_plugin_estimator(corpus_file, tmp_path):
    pytest.importorskip("dask.distributed")
    from posgeom.data import CountingConvention, load_tokenizer, tokenize_corpus

    assert main(["report", str(corpus_file), "--positions", "8", "--out", str(tmp_path), "--no-progress",
                 "--scheduler", "local", "--estimator", "plug-in"]) == 0
    tokens = tokenize_corpus(DOCS, load_tokenizer(), max_pieces=8)
    D = plugin_distances(tokens.incidence(CountingConvention(8)))
    np.testing.assert_allclose(np.load(tmp_path / "distances.npy"), D, atol=1e-12)
    summary = json.loads((tmp_path / "report.json").read_text())
    assert summary["estimator"] == "plug-in" and summary["splits"].startswith("PlugIn()")


def test_report_writes_every_file(report):
    for name in ("stress_table.csv", "stress_table.md", "distances.png", "mds_spectrum.png", "stress_vs_rank.png",
                 "distances.npy", "report.json"):
        assert (report / name).stat().st_size > 0, name
    settings = json.loads((report / "report.json").read_text())["settings"]
    assert settings["n_positions"] == 8 and settings["special_tokens"] is True


def test_report_numbers_match_the_package(report, corpus_file):
    from posgeom import sinusoidal_encoding, stress_of_encoding
    from posgeom.data import CountingConvention, load_tokenizer, tokenize_corpus

    tokens = tokenize_corpus(DOCS, load_tokenizer(), max_pieces=8)
    D = plugin_distances(tokens.incidence(CountingConvention(8)))
    np.testing.assert_allclose(np.load(report / "distances.npy"), D, atol=1e-12)
    rows = {r["encoding"]: r for r in csv.DictReader((report / "stress_table.csv").open())}
    P = sinusoidal_encoding(8, 384)
    assert float(rows["sinusoidal"]["raw_stress"]) == pytest.approx(stress_of_encoding(P, D), rel=1e-9)
    optimal = stress_of_encoding(P, D, scale="optimal")
    assert float(rows["sinusoidal"]["optimal_stress"]) == pytest.approx(optimal, rel=1e-9)
    assert float(rows["MDS full rank"]["raw_stress"]) < 1e-20


@pytest.mark.slow
def test_help_of_the_installed_command():
    exe = Path(sys.executable).with_name("posgeom")
    if not exe.exists():
        exe = shutil.which("posgeom") or pytest.fail("the posgeom command is not installed (pip install -e .)")
    result = subprocess.run([exe, "report", "--help"], capture_output=True, text=True, check=False)
    assert result.returncode == 0
    for option in ("--positions", "--no-special-tokens", "--count-padding", "--truncation", "--bootstrap", "--out",
                   "--scheduler", "--model", "--estimator", "--sample-texts", "resolved", "--ladder"):
        assert option in result.stdout


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["report", "sst2"], "--out"),                                          # missing required option
        (["report", "sst2", "--out", "x", "--truncation", "middle"], "truncation"),  # not a choice
        (["report", "sst2", "--out", "x", "--positions", "many"], "positions"),  # not an integer
    ],
)
def test_argument_errors_exit_2(argv, fragment, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert fragment in capsys.readouterr().err


@pytest.mark.parametrize(
    "extra, fragment",
    [
        (["--positions", "600"], "learned positions"),
        (["--positions", "1"], "n_positions"),
        (["--min-length", "20", "--positions", "8"], "min_length"),
        pytest.param(["--positions", "30", "--scheduler", "local", "--estimator", "cross-fitted"],
                     "cross-fitted estimator cannot estimate this corpus", marks=pytest.mark.slow),  # Dask; 6 docs
        (["--positions", "8"], "resolved estimator cannot estimate this corpus"),  # 6 documents
        pytest.param(["--sample-texts", "7", "--scheduler", "local"], "exceeds the 6 texts",
                     marks=pytest.mark.slow),  # Dask; as without --scheduler
    ],
)
def test_unusable_settings_exit_2_with_a_message(corpus_file, tmp_path, capsys, extra, fragment):
    code = main(["report", str(corpus_file), "--out", str(tmp_path), "--no-progress", *extra])
    assert code == 2
    assert fragment in capsys.readouterr().err


def test_unreadable_corpus_exits_2(tmp_path, capsys):
    assert main(["report", str(tmp_path / "missing" / "*.txt"), "--out", str(tmp_path), "--no-progress"]) == 2
    assert "no shard files" in capsys.readouterr().err


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "report" in capsys.readouterr().out


@pytest.mark.slow
def test_module_entry_point():
    result = subprocess.run([sys.executable, "-m", "posgeom.report.cli", "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and "posgeom" in result.stdout


# --- the subsampling ladder (--ladder) -------------------------------------------------------------------------------

COLOURS = ["red", "blue", "green"]


def _colour_texts(m, *, flat, rng=0):
    """``m`` texts of 8 colour words: the word at position i drawn from a law that moves with i (or one law: flat)."""
    gen = np.random.default_rng(rng)
    texts = []
    for _ in range(m):
        words = []
        for i in range(8):
            p = np.array([1.0, 1.0, 1.0]) if flat else np.array([1.0 + 3 * i, 4.0, 1.0 + 3 * (7 - i)])
            words.append(COLOURS[gen.choice(3, p=p / p.sum())])
        texts.append(" ".join(words))
    return texts


@pytest.fixture(scope="module")
def colour_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("colours") / "colours.txt"
    path.write_text("\n".join(_colour_texts(800, flat=False)) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def colour_ladder(colour_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("colour_ladder")
    assert main(["report", str(colour_file), "--positions", "6", "--ladder", "30", "--bootstrap", "30", "--out",
                 str(out), "--no-progress"]) == 0
    return out


def test_ladder_states_one_estimand_for_every_rung(colour_file, colour_ladder):
    from posgeom.geometry import Resolved

    inc = _incidence(colour_file.read_text(encoding="utf-8").splitlines(), 6)
    est = Resolved().fixed(inc, fraction=1 / 8)  # the resolution an eighth of the texts affords, fixed on all
    summary = json.loads((colour_ladder / "report.json").read_text())
    ladder = summary["ladder"]
    assert ladder["fractions"] == [1.0, 0.5, 0.25, 0.125] and ladder["n_texts"] == [800, 400, 200, 100]
    assert summary["estimand"] == ladder["estimand"] == est.describe_estimand()
    assert summary["settings"]["ladder"] == 30 and ladder["n_resamples"] == 30
    point = Resolved(resolution=est.resolution).distances(inc, rng=0)
    np.testing.assert_allclose(np.load(colour_ladder / "distances.npy"), point.distances, atol=1e-12)
    # the top rung is the report's table: same estimate, same resamples, same intervals
    for record, row in zip(summary["table"], ladder["rows"]):
        assert record["encoding"] == row["encoding"]
        assert row["optimal_stress"][0] == pytest.approx(record["optimal_stress"], abs=1e-12)
        assert row["lower"][0] == pytest.approx(record["optimal_ci_low"], abs=1e-12)
    markdown = (colour_ladder / "stress_table.md").read_text(encoding="utf-8")
    assert "## Subsampling ladder" in markdown and est.describe_estimand() in markdown
    assert (colour_ladder / "ladder.png").stat().st_size > 0


def test_ladder_verdicts_follow_the_rule(colour_file, colour_ladder):
    from posgeom.data import learned_position_embeddings
    from posgeom.geometry import Resolved
    from posgeom.stress import standard_candidates, stress_table

    ladder = json.loads((colour_ladder / "report.json").read_text())["ladder"]
    assert ladder["geometry"] is True and ladder["pairs"] == 15
    for v in ladder["verdicts"]:
        signs = set(v["signs"])
        ranked = len(signs) == 1 and "?" not in signs
        assert (v["verdict"] != "undetermined") == ranked, v
        if ranked:
            assert v["verdict"] == f"{v['a']} {signs.pop()} {v['b']}"
    assert ladder["ranked"] == sum(v["verdict"] != "undetermined" for v in ladder["verdicts"]) > 0
    # the top rung's paired interval is the stress table's own contrast (centred, same resamples)
    inc = _incidence(colour_file.read_text(encoding="utf-8").splitlines(), 6)
    est = Resolved(resolution=Resolved().fixed(inc, fraction=1 / 8).resolution)
    table_positions = learned_position_embeddings(model="all-MiniLM-L6-v2")
    rows = standard_candidates(6, d_model=384, n_heads=12, pretrained=table_positions)
    table = stress_table(None, rows, data=inc, rng=0, n_resamples=30, estimator=est)
    for v in ladder["verdicts"]:
        c = table.contrast(v["a"], v["b"])
        assert v["contrast"][0] == pytest.approx([c.estimate, c.lower, c.upper], abs=1e-12)
        assert (v["signs"][0] != "?") == decide(c).ranked


def test_without_ladder_rankings_are_not_tested(report):
    assert "Rankings of the encodings: not tested" in (report / "stress_table.md").read_text(encoding="utf-8")
    assert json.loads((report / "report.json").read_text())["ladder"] is None


@pytest.mark.parametrize(
    "extra, fragment",
    [(["--ladder", "1"], "at least 2 bootstrap resamples"),
     (["--positions", "6", "--ladder"], "at an eighth of the texts")],  # 6 documents
)
def test_unusable_ladders_exit_2(corpus_file, tmp_path, capsys, extra, fragment):
    assert main(["report", str(corpus_file), "--out", str(tmp_path), "--no-progress", *extra]) == 2
    assert fragment in capsys.readouterr().err


@pytest.mark.slow
def test_scheduler_gives_the_same_ladder(dask_cluster, tmp_path):
    texts = _colour_texts(800, flat=False)
    shards = tmp_path / "shards"
    shards.mkdir()
    (shards / "a.txt").write_text("\n".join(texts[:500]) + "\n", encoding="utf-8")
    (shards / "b.jsonl").write_text("\n".join(json.dumps({"text": t}) for t in texts[500:]) + "\n", encoding="utf-8")
    argv = ["report", str(shards), "--positions", "6", "--no-progress", "--ladder", "20", "--seed", "4"]
    assert main([*argv, "--out", str(tmp_path / "one")]) == 0
    assert main([*argv, "--out", str(tmp_path / "dask"), "--scheduler", dask_cluster]) == 0
    assert (tmp_path / "one" / "stress_table.md").read_bytes() == (tmp_path / "dask" / "stress_table.md").read_bytes()
    one, dask = (json.loads((tmp_path / d / "report.json").read_text()) for d in ("one", "dask"))
    assert one["ladder"] == dask["ladder"] and one["ladder"]["pairs"] == 15


def test_positions_are_chosen_from_a_short_text_corpus(reviews_file, tmp_path, capsys):
    """Without --positions the report picks the most positions (at most 64) that half of the texts reach, and
    says so, instead of failing at 64 on short texts."""
    assert main(["report", str(reviews_file), "--out", str(tmp_path), "--no-progress"]) == 0
    summary = json.loads((tmp_path / "report.json").read_text())
    n = summary["settings"]["n_positions"]
    lengths = np.array([len(t) for t in _tokens(reviews_file)]) + 2  # [CLS] and [SEP] counted
    assert 2 <= n < 64 and np.mean(lengths >= n) >= 0.5 and np.mean(lengths >= n + 1) < 0.5
    assert f"n = {n}, chosen from the corpus" in summary["positions"]
    assert summary["positions"] in capsys.readouterr().out


def _tokens(path):
    from posgeom.data import load_tokenizer, tokenize_corpus

    tokens = tokenize_corpus(path.read_text(encoding="utf-8").splitlines(), load_tokenizer(), max_pieces=64)
    return [tokens.ids[a:b] for a, b in zip(tokens.indptr[:-1], tokens.indptr[1:])]


def test_the_report_never_branches_on_an_estimator_name():
    """The report takes the estimator object: no comparison with, and no dict keyed by, an estimator's name."""
    import ast

    import posgeom.report as report

    names = {"resolved", "cross-fitted", "plug-in", "corrected", "plugin"}
    found = []
    for path in Path(report.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                parts = [node.left, *node.comparators]
                found += [path.name for p in parts if isinstance(p, ast.Constant) and p.value in names]
            if isinstance(node, ast.Dict):
                found += [path.name for k in node.keys if isinstance(k, ast.Constant) and k.value in names]
    assert not found, found


@pytest.mark.slow
def test_groups_keep_nested_phrases_together(tmp_path, capsys):
    """400 sentences of 8 colour words, each with its first 7 and 6 words as texts of their own (SST-2's nesting):
    in a window of 6 positions a sentence's three texts are identical, so resampling texts treats one draw as three
    and its intervals are too narrow (about 1/sqrt(3) of the grouped ones). ``--groups`` resamples sentences; without
    it the report says that it treats texts as independent."""
    sentences = _colour_texts(400, flat=False, rng=1)
    texts = [" ".join(s.split()[:k]) for s in sentences for k in (8, 7, 6)]
    corpus, labels = tmp_path / "nested.txt", tmp_path / "groups.txt"
    corpus.write_text("\n".join(texts) + "\n", encoding="utf-8")
    labels.write_text("\n".join(str(g) for g in range(400) for _ in range(3)) + "\n", encoding="utf-8")
    widths = {}
    for unit, extra in (("texts", []), ("groups", ["--groups", str(labels)])):
        out = tmp_path / unit
        assert main(["report", str(corpus), "--positions", "6", "--ladder", "40", "--out", str(out),
                     "--no-progress", *extra]) == 0
        summary = json.loads((out / "report.json").read_text())
        assert summary["unit"] == summary["ladder"]["unit"].replace(" (independent)", ", treated as independent "
                                                                    "(pass --groups to keep related texts together)") \
            if unit == "texts" else "400 groups of 1,200 texts" in summary["unit"]
        printed = capsys.readouterr().out
        assert f"Resampling unit: {summary['unit']}" in printed
        header = next(line for line in printed.splitlines() if line.startswith("pair "))
        assert header.split() == ["pair", "verdict", "all", "1/2", "1/4", "1/8"]  # the verdicts, as a table
        top = summary["ladder"]["mean_squared_distance"][0]
        widths[unit] = top[2] - top[1]
    assert widths["groups"] > 1.3 * widths["texts"], widths
    labels.write_text("0\n1\n", encoding="utf-8")
    assert main(["report", str(corpus), "--positions", "6", "--groups", str(labels), "--out", str(tmp_path / "x")]) == 2
    assert "2 labels for 1200 documents" in capsys.readouterr().err


def _nested(tmp_path, folder=False):
    """The nested corpus above (400 sentences, each with its first 7 and 6 words) and its sentence labels."""
    sentences = _colour_texts(400, flat=False, rng=1)
    texts = [" ".join(s.split()[:k]) for s in sentences for k in (8, 7, 6)]
    corpus, labels = tmp_path / ("shards" if folder else "nested.txt"), tmp_path / "groups.txt"
    if folder:  # two shards, read in sorted order: the labels follow the documents across them
        corpus.mkdir()
        (corpus / "a.txt").write_text("\n".join(texts[:600]) + "\n", encoding="utf-8")
        (corpus / "b.txt").write_text("\n".join(texts[600:]) + "\n", encoding="utf-8")
    else:
        corpus.write_text("\n".join(texts) + "\n", encoding="utf-8")
    # zero-padded: the labels sort as the sentences do, so group u is sentence u
    labels.write_text("\n".join(f"{g:03d}" for g in range(400) for _ in range(3)) + "\n", encoding="utf-8")
    return corpus, labels


def test_groups_with_the_bootstrap(tmp_path):
    """Known truth: in a window of 6 positions a sentence's three texts are identical, so with the plug-in estimator
    (no splits) resampling the 400 sentences of the nested corpus as groups is resampling the 400 sentences alone:
    the same intervals, to rounding. Resampling its 1,200 texts treats one draw as three (about 1/sqrt(3) as wide)."""
    corpus, labels = _nested(tmp_path)
    alone = tmp_path / "alone.txt"
    alone.write_text("\n".join(corpus.read_text(encoding="utf-8").splitlines()[::3]) + "\n", encoding="utf-8")
    widths = {}
    for unit, path, extra in (("sentences", alone, []), ("texts", corpus, []),
                              ("groups", corpus, ["--groups", str(labels)])):
        out = tmp_path / unit
        assert main(["report", str(path), "--positions", "6", "--bootstrap", "40", "--estimator", "plug-in",
                     "--out", str(out), "--no-progress", *extra]) == 0
        summary = json.loads((out / "report.json").read_text())
        assert ("400 groups of 1,200 texts" in summary["unit"]) == (unit == "groups")
        widths[unit] = np.array([r["optimal_ci_high"] - r["optimal_ci_low"] for r in summary["table"]])
    assert np.allclose(widths["groups"], widths["sentences"], rtol=1e-9, atol=1e-12), widths
    assert np.median(widths["texts"] / widths["groups"]) < 0.8, widths


@pytest.mark.slow
def test_groups_with_the_scheduler(dask_cluster, tmp_path, capsys):
    """--groups on shards tokenised on Dask: the same report, bit for bit, as on one machine (labels follow the
    documents in the order the shards are read), and a wrong number of labels is refused."""
    corpus, labels = _nested(tmp_path, folder=True)
    argv = ["report", str(corpus), "--positions", "6", "--bootstrap", "5", "--groups", str(labels), "--no-progress"]
    assert main([*argv, "--out", str(tmp_path / "one")]) == 0
    assert main([*argv, "--out", str(tmp_path / "dask"), "--scheduler", dask_cluster]) == 0
    for name in ("stress_table.csv", "stress_table.md"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes(), name
    assert "400 groups of 1,200 texts" in json.loads((tmp_path / "dask" / "report.json").read_text())["unit"]
    labels.write_text("0\n1\n", encoding="utf-8")
    assert main([*argv, "--out", str(tmp_path / "x"), "--scheduler", dask_cluster]) == 2
    assert "2 labels for 1200 documents" in capsys.readouterr().err
