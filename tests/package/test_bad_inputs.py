"""The bad-input catalogue: each case feeds one kind of bad input to the public API (or the command line) and asserts
the exception type and that the message names the problem. No case may end in a silent NaN."""

from __future__ import annotations

import numpy as np
import pytest

import posgeom as pg
from posgeom import encodings

SQUARE = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])


def _models():
    return pytest.importorskip("posgeom.nn")


CASES = [
    # --- corpus statistics -------------------------------------------------------------------------------------
    ("empty corpus", lambda: pg.position_counts([], 4, 10), ValueError, "empty"),
    ("n_positions <= 0", lambda: pg.position_counts([[1]], 0, 10), ValueError, "n_positions"),
    ("n_positions not an integer", lambda: pg.position_counts([[1]], 2.5, 10), TypeError, "n_positions"),
    ("token id >= V", lambda: pg.position_counts([[1, 10]], 4, 10), ValueError, "outside the vocabulary"),
    ("negative token id", lambda: pg.position_counts(np.array([[1, -2]]), 4, 10), ValueError, "outside the vocabulary"),
    ("float token ids", lambda: pg.position_counts([[0.5]], 4, 10), TypeError, "integers"),
    ("position with no data", lambda: pg.position_distributions(pg.position_counts([[1]], 3, 4)), ValueError,
     "no observations"),
    ("NaN counts", lambda: pg.position_distributions(np.array([[1.0, np.nan]])), ValueError, "NaN"),
    ("negative counts", lambda: pg.position_distributions(np.array([[1.0, -1.0]])), ValueError, "non-negative"),
    # --- geometry ----------------------------------------------------------------------------------------------
    ("rows not summing to 1", lambda: pg.hellinger_distances(np.array([[0.5, 0.6], [0.5, 0.5]])), ValueError,
     "sum to 1"),
    ("infinite probabilities", lambda: pg.fisher_rao_distances(np.array([[np.inf, 0.0]])), ValueError, "infinite"),
    ("1-D distributions", lambda: pg.hellinger_distances(np.array([0.5, 0.5])), ValueError, "2-D"),
    ("non-symmetric D", lambda: pg.classical_mds(np.array([[0, 1], [2, 0]])), ValueError, "not symmetric"),
    ("negative D", lambda: pg.classical_mds(-SQUARE), ValueError, "negative"),
    ("non-square D", lambda: pg.classical_mds(np.zeros((2, 3))), ValueError, "square"),
    ("non-zero diagonal", lambda: pg.classical_mds(SQUARE + np.eye(3)), ValueError, "zero diagonal"),
    ("rank larger than n", lambda: pg.classical_mds(SQUARE, rank=5), ValueError, "larger than the number"),
    ("rank above numerical rank", lambda: pg.classical_mds(SQUARE, rank=2), ValueError, "numerical rank"),
    ("zero distances: stress undefined", lambda: pg.stress_of_encoding(np.eye(3), np.zeros((3, 3))), ValueError,
     "undefined"),
    ("encoding/D size mismatch", lambda: pg.stress_of_encoding(np.eye(4), SQUARE), ValueError, "same n positions"),
    ("unknown stress scale", lambda: pg.stress_of_encoding(np.eye(3), SQUARE, scale="log"), ValueError,
     "scale must be one of"),
    ("NaN in encoding", lambda: pg.stress_of_encoding(np.full((3, 2), np.nan), SQUARE), ValueError, "NaN"),
    # --- encodings ---------------------------------------------------------------------------------------------
    ("odd width", lambda: pg.sinusoidal_encoding(8, 7), ValueError, "even"),
    ("base <= 1", lambda: pg.sinusoidal_encoding(8, 8, base=1.0), ValueError, "base"),
    ("MDS width below rank", lambda: encodings.mds_encoding(SQUARE, 0, rng=0), (ValueError, TypeError), "d"),
    ("low rank larger than possible", lambda: encodings.low_rank_factors(np.eye(3), 5), ValueError, "r"),
    ("unknown synthetic regime", lambda: pg.synthetic_corpus(2, 4, 10, rng=0, regime="wavy"), ValueError, "regime"),
    # --- models ------------------------------------------------------------------------------------------------
    ("unknown positional scheme",
     lambda: _models().TransformerClassifier(10, 8, 16, 2, 1, positional="fourier"), ValueError, "fourier"),
    ("sequence longer than the position table",
     lambda: _models().TransformerClassifier(10, 8, 16, 2, 1)(
         __import__("torch").zeros(1, 9, dtype=__import__("torch").long)),
     ValueError, "8"),
    ("NaN initial table scale",
     lambda: __import__("posgeom.nn._schemes", fromlist=["LearnedPosition"]).LearnedPosition(
         8, 4, 2, init_std=float("nan")), TypeError, "init_std must be a finite real"),
    # --- inference ---------------------------------------------------------------------------------------------
    ("NaN seed SD in a power calculation", lambda: pg.inference.tost_power(float("nan"), 5, 0.1), TypeError,
     "sd must be a finite real"),
    ("unknown alternative", lambda: pg.inference.t_test_power(0.5, 5, alternative="less"), ValueError,
     "alternative must be"),
    # --- the report -------------------------------------------------------------------------------------------
    ("an estimator of the report that is not one",
     lambda: __import__("posgeom.report.pipeline", fromlist=["ReportSettings"]).ReportSettings("sst2",
                                                                                               estimator="resolved"),
     TypeError, "estimator object"),
]


@pytest.mark.parametrize("name, call, exc, fragment", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_rejected_clearly(name, call, exc, fragment):
    with pytest.raises(exc) as info:
        call()
    assert fragment.lower() in str(info.value).lower(), f"{name}: message {str(info.value)!r} lacks {fragment!r}"


def test_catalogue_is_large():
    assert len({c[0] for c in CASES}) == len(CASES) >= 20


# --- data files, environment and models -------------------------------------------------------------------------


def test_wrong_posgeom_data_folder(monkeypatch, tmp_path):
    datasets = pytest.importorskip("posgeom.data.datasets")
    monkeypatch.setenv("POSGEOM_DATA", str(tmp_path / "does-not-exist"))
    with pytest.raises((FileNotFoundError, ValueError)) as info:
        datasets.load_sst2("dev")
    assert "POSGEOM_DATA" in str(info.value)


def test_missing_file_in_mirror(monkeypatch, tmp_path):
    datasets = pytest.importorskip("posgeom.data.datasets")
    monkeypatch.setenv("POSGEOM_DATA", str(tmp_path))
    with pytest.raises(FileNotFoundError) as info:
        datasets.load_imdb("test")
    assert "aclImdb" in str(info.value)


@pytest.mark.parametrize("split", ["", "validation", None])
def test_unknown_split(split):
    datasets = pytest.importorskip("posgeom.data.datasets")
    with pytest.raises((ValueError, TypeError)) as info:
        datasets.load_sst2(split)
    assert "split" in str(info.value)


def test_position_table_shorter_than_n():
    models = _models()
    with pytest.raises(ValueError):
        models.TransformerClassifier(10, 4, 16, 2, 1, positional="fixed", encoding=np.zeros((3, 16)))


# --- archives that try to escape their folder -------------------------------------------------------------------
def _tar_gz(path, members):
    import io
    import tarfile

    with tarfile.open(path, "w:gz") as tf:
        for name, data, kind in members:
            info = tarfile.TarInfo(name)
            if kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, "../../etc/passwd"
                tf.addfile(info)
            else:
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))


@pytest.mark.parametrize(
    "member, kind",
    [("aclImdb/../../evil.txt", "file"), ("/tmp/evil.txt", "file"), ("aclImdb/train/pos/0_9.txt", "symlink")],
)
def test_imdb_archive_with_escaping_member_is_refused(tmp_path, member, kind):
    datasets = pytest.importorskip("posgeom.data.datasets")
    archive = tmp_path / "inner" / "aclImdb_v1.tar.gz"
    archive.parent.mkdir()
    _tar_gz(archive, [("aclImdb/train/neg/0_1.txt", b"bad film", "file"), (member, b"pwned", kind)])
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with pytest.raises(ValueError, match="unsafe member"):
        datasets._parse_imdb(archive, datasets.find_source("imdb"))
    assert sorted(p.name for p in tmp_path.rglob("*")) == before, "nothing may be written anywhere"


def test_sst2_archive_with_escaping_member_is_refused(tmp_path):
    import zipfile

    datasets = pytest.importorskip("posgeom.data.datasets")
    archive = tmp_path / "SST-2.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("SST-2/train.tsv", "sentence\tlabel\ngood\t1\n")
        zf.writestr("SST-2/dev.tsv", "sentence\tlabel\nbad\t0\n")
        zf.writestr("../../evil.tsv", "pwned")
    with pytest.raises(ValueError, match="unsafe member"):
        datasets._parse_sst2(archive, datasets.find_source("sst2"))


# --- the command line ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make_corpus, fragment",
    [
        (lambda d: d / "empty-folder", "no shard files"),
        (lambda d: (d / "binary.txt").write_bytes(b"\xff\xfe\x00bad") and d / "binary.txt", "not UTF-8"),
        (lambda d: (d / "blank.txt").write_text("\n\n") and d / "blank.txt", "no documents"),
    ],
    ids=["no shards", "not UTF-8", "only blank lines"],
)
def test_cli_rejects_unusable_corpora(tmp_path, capsys, make_corpus, fragment):
    from posgeom.report.cli import main

    (tmp_path / "empty-folder").mkdir()
    corpus = make_corpus(tmp_path)
    assert main(["report", str(corpus), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    assert fragment in capsys.readouterr().err
