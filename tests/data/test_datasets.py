"""Tests of posgeom.data.datasets and ._archives: the mirror route, and the download route against a local server."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import http.server
import io
import os
import tarfile
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from posgeom.data import datasets, load_imdb, load_sst2
from posgeom.data._archives import SOURCES

MIRROR = Path(os.environ.get("POSGEOM_DATA") or Path(__file__).resolve().parents[3] / "shared" / "data")
has_mirror = pytest.mark.skipif(
    not (MIRROR / "SST-2.zip").is_file(), reason="corpus mirror not available (set POSGEOM_DATA)"
)


@pytest.fixture(scope="module")
def mirror_cache(tmp_path_factory):
    """A private cache folder shared by the mirror tests of this module (IMDB is parsed once)."""
    return tmp_path_factory.mktemp("posgeom-cache")


@pytest.fixture
def use_mirror(monkeypatch, mirror_cache):
    monkeypatch.setenv("POSGEOM_DATA", str(MIRROR))
    monkeypatch.setenv("POSGEOM_CACHE", str(mirror_cache))


# ------------------------------------------------------------------------------------------------------------------
# Mirror route, real files


@has_mirror
def test_sst2_counts_and_known_lines(use_mirror):
    train, dev = load_sst2("train"), load_sst2("dev")
    assert len(train) == 67349 and len(dev) == 872
    assert train.texts[0] == "hide new secretions from the parental units"
    assert train.labels[0] == 0 and train.labels[2] == 1
    assert dev.texts[0] == "one long string of cliches ."
    assert train.labels.dtype == np.int64 and set(np.unique(train.labels)) == {0, 1}
    assert len(train.ids) == len(set(train.ids)) == len(train)
    assert all(t == t.strip() and t for t in dev.texts)


@pytest.mark.slow
@has_mirror
def test_imdb_counts_order_and_known_lines(use_mirror):
    train = load_imdb("train")
    test = load_imdb("test")
    for c in (train, test):
        assert len(c) == 25000 and int(c.labels.sum()) == 12500
        # documented order: negatives then positives, each by increasing numeric id
        assert np.all(np.diff(c.labels) >= 0)
    assert train.ids[0] == "train/neg/0_3" and train.texts[0].startswith("Story of a man who has unnatural feelings")
    assert test.ids[0] == "test/neg/0_2" and test.texts[0].startswith("Once again Mr. Costner")
    assert train.ids[12500] == "train/pos/0_9"
    assert any("<br />" in t for t in train.texts[:200])
    sub = train.sample(1000, rng=0)
    assert len(sub) == 1000 and int(sub.labels.sum()) == 500 and sub.ids == train.sample(1000, rng=0).ids
    assert sub.ids != train.sample(1000, rng=1).ids and sub.texts[0] in train.texts
    spaced = load_imdb("train", html_breaks="space")
    assert not any("<br" in t for t in spaced.texts[:200]) and len(spaced) == 25000


@has_mirror
def test_parsed_cache_is_reused_and_rebuilt_when_damaged(use_mirror, mirror_cache):
    first = load_sst2("dev")
    entries = list((mirror_cache / "parsed").glob("sst2-*.json"))
    assert len(entries) == 1
    entries[0].write_text("{not json")
    again = load_sst2("dev")
    assert again.texts == first.texts and np.array_equal(again.labels, first.labels)
    assert not list((mirror_cache / "parsed").glob("*.tmp"))


# ------------------------------------------------------------------------------------------------------------------
# Bad input


def test_split_errors(monkeypatch, tmp_path):
    monkeypatch.setenv("POSGEOM_DATA", str(tmp_path))
    with pytest.raises(ValueError, match="empty string"):
        load_sst2("")
    with pytest.raises(ValueError, match=r"\('train', 'dev'\)"):
        load_sst2("test")
    with pytest.raises(ValueError, match=r"\('train', 'test'\)"):
        load_imdb("validation")
    with pytest.raises(TypeError, match="split must be a string"):
        load_sst2(0)
    with pytest.raises(ValueError, match="html_breaks"):
        load_imdb("train", html_breaks="strip")


def test_missing_folder_and_file(monkeypatch, tmp_path):
    monkeypatch.setenv("POSGEOM_DATA", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="not an existing folder.*unset it"):
        load_sst2("dev")
    monkeypatch.setenv("POSGEOM_DATA", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="aclImdb_v1_labeled.tar.gz"):
        load_imdb("train")
    monkeypatch.setenv("POSGEOM_DATA", "  ")
    with pytest.raises(ValueError, match="set but empty"):
        load_sst2("dev")


def test_wrong_mirror_hash(monkeypatch, tmp_path):
    (tmp_path / "SST-2.zip").write_bytes(b"not the mirror")
    monkeypatch.setenv("POSGEOM_DATA", str(tmp_path))
    with pytest.raises(ValueError, match="SST-2.zip has sha256 .* corrupted, truncated or not the mirror"):
        load_sst2("dev")
    # data_dir= overrides the environment variable
    monkeypatch.setenv("POSGEOM_DATA", str(tmp_path / "nowhere"))
    with pytest.raises(ValueError, match="has sha256"):
        load_sst2("dev", data_dir=tmp_path)


# ------------------------------------------------------------------------------------------------------------------
# Download route, against a tiny archive served on 127.0.0.1


def _tiny_sst2() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("SST-2/train.tsv", "sentence\tlabel\ngreat fun \t1\ndull , dull \t0\nit 's \"fine\" \t1\n")
        zf.writestr("SST-2/dev.tsv", "sentence\tlabel\nnot bad .\t1\n")
        zf.writestr("SST-2/test.tsv", "index\tsentence\n0\tunlabelled\n")
    return buf.getvalue()


def _tiny_imdb() -> bytes:
    buf = io.BytesIO()
    files = {
        "aclImdb/README": "readme",
        "aclImdb/train/pos/10_9.txt": "Ten.<br /><br />Loved it.",
        "aclImdb/train/pos/2_8.txt": "Two, good.",
        "aclImdb/train/neg/0_1.txt": "Awful.",
        "aclImdb/train/unsup/0_0.txt": "unlabelled, ignored",
        "aclImdb/train/labeledBow.feat": "0:1",
        "aclImdb/test/neg/1_2.txt": "Bad.",
        "aclImdb/test/pos/0_10.txt": "Caf\u00e9 classic.",
    }
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, text in files.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass


@pytest.fixture
def server(tmp_path, monkeypatch):
    """Serve tmp_path/www on 127.0.0.1 (random port) and point the loader's cache to tmp_path/cache."""
    www = tmp_path / "www"
    www.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(www))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    monkeypatch.delenv("POSGEOM_DATA", raising=False)
    monkeypatch.setenv("POSGEOM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    try:
        yield www, f"http://127.0.0.1:{httpd.server_address[1]}", tmp_path / "cache"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def _publish(monkeypatch, www, base, name, payload: bytes, *, sha256: str | None = None, served_name=None):
    served_name = served_name or SOURCES[name].filename
    (www / served_name).write_bytes(payload)
    digest = sha256 or hashlib.sha256(payload).hexdigest()
    monkeypatch.setitem(
        SOURCES, name, dataclasses.replace(SOURCES[name], url=f"{base}/{served_name}", sha256=digest)
    )


def test_download_route_parses_and_caches(server, monkeypatch):
    www, base, cache = server
    _publish(monkeypatch, www, base, "sst2", _tiny_sst2())
    _publish(monkeypatch, www, base, "imdb", _tiny_imdb())
    train = load_sst2("train")
    assert train.texts == ["great fun", "dull , dull", 'it \'s "fine"']
    assert train.labels.tolist() == [1, 0, 1]
    assert (cache / "downloads" / "SST-2.zip").is_file()
    imdb = load_imdb("train")
    assert imdb.ids == ["train/neg/0_1", "train/pos/2_8", "train/pos/10_9"]  # numeric, not lexical, id order
    assert imdb.labels.tolist() == [0, 1, 1]
    assert load_imdb("test").texts == ["Bad.", "Caf\u00e9 classic."]
    assert load_imdb("train", html_breaks="space").texts[2] == "Ten.  Loved it."
    # Once downloaded, the server is not needed any more.
    for f in www.iterdir():
        f.unlink()
    assert load_sst2("dev").texts == ["not bad ."]


def test_download_with_wrong_hash_leaves_nothing(server, monkeypatch):
    www, base, cache = server
    _publish(monkeypatch, www, base, "sst2", _tiny_sst2(), sha256="0" * 64)
    with pytest.raises(OSError, match="could not download .*Nothing was kept"):
        load_sst2("train")
    assert not cache.exists() or not any(p.is_file() for p in cache.rglob("*"))


def test_download_missing_file_leaves_nothing(server, monkeypatch):
    www, base, cache = server
    monkeypatch.setitem(SOURCES, "sst2", dataclasses.replace(SOURCES["sst2"], url=f"{base}/absent.zip"))
    with pytest.raises(OSError, match="absent.zip"):
        load_sst2("dev")
    assert not cache.exists() or not any(p.is_file() for p in cache.rglob("*"))


@pytest.mark.parametrize("name", ["sst2", "imdb"])
def test_corrupted_archive_with_matching_hash(server, monkeypatch, name):
    """A damaged archive whose hash was (wrongly) published: a clear parse error naming the file, no parsed cache."""
    www, base, cache = server
    payload = _tiny_sst2() if name == "sst2" else _tiny_imdb()
    _publish(monkeypatch, www, base, name, payload[: len(payload) // 2])
    loader = load_sst2 if name == "sst2" else load_imdb
    message = rf"cannot read the archive .*{SOURCES[name].filename}.*truncated or corrupted"
    with pytest.raises(ValueError, match=message):
        loader("train")
    assert not (cache / "parsed").exists() or not list((cache / "parsed").iterdir())


def test_wrong_archive_content(server, monkeypatch):
    www, base, _ = server
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("other/train.tsv", "x\ty\n")
    _publish(monkeypatch, www, base, "sst2", buf.getvalue())
    with pytest.raises(ValueError, match="no member 'SST-2/train.tsv'"):
        load_sst2("train")


def test_cache_dir_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("POSGEOM_CACHE", str(tmp_path))
    assert datasets.cache_dir() == tmp_path
    monkeypatch.delenv("POSGEOM_CACHE")
    assert "posgeom" in str(datasets.cache_dir())
