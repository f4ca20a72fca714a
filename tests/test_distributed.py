"""Sharded counting on a real local Dask cluster equals one pass over the same documents."""

import json

import numpy as np
import pytest

from posgeom.data import (
    CountingConvention,
    corpus_position_counts,
    load_tokenizer,
    read_shard,
    shard_paths,
)

DOCS = [
    "the film is a triumph of style over substance",
    "i did not like it",
    "an unexpectedly moving story , with a great cast and a terrible ending",
    "bad",
    "two hours i will never get back",
    "a quiet , careful , beautiful film",
    "worth seeing twice",
]


@pytest.fixture(scope="module")
def shard_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shards")
    (folder / "a.txt").write_text("\n".join(DOCS[:3]) + "\n\n", encoding="utf-8")
    (folder / "b.jsonl").write_text("\n".join(json.dumps({"text": d, "id": i}) for i, d in enumerate(DOCS[3:5])))
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    pq.write_table(pa.table({"text": DOCS[5:]}), folder / "c.parquet")
    return folder


def test_shards_are_read_in_sorted_order(shard_folder):
    docs = [d for p in shard_paths(shard_folder) for d in read_shard(p)]
    assert docs == DOCS


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        yield c


@pytest.mark.parametrize(
    "convention", [CountingConvention(12), CountingConvention(8, special_tokens=False, count_padding=True)]
)
def test_local_cluster_equals_one_pass(shard_folder, cluster, convention):
    from posgeom.data import sharded_position_counts

    one_pass = corpus_position_counts(DOCS, load_tokenizer(), convention)
    reference = sharded_position_counts(shard_folder, convention, scheduler="local-process")
    distributed = sharded_position_counts(str(shard_folder / "*"), convention, scheduler=cluster.scheduler_address)
    assert (reference != one_pass).nnz == 0
    assert (distributed != one_pass).nnz == 0
    assert distributed.dtype == np.int64 and distributed.sum() > 0


def test_bad_sources(tmp_path):
    with pytest.raises(FileNotFoundError, match="no shard files"):
        shard_paths(tmp_path / "nothing-*.txt")
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"body": "no text field"}\n')
    with pytest.raises(ValueError, match="x.jsonl:1"):
        read_shard(bad)
