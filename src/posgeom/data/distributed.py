"""Positional counts of a sharded corpus on Dask (``dask.distributed``).

Counting is a sum over documents, so it scales out: each task reads one shard, tokenises it and counts it with
:func:`posgeom.data.corpus_position_counts`; the partial counts are merged exactly with
:func:`posgeom.merge_counts`. The result is identical, to the last count, to one pass over the same documents
(:func:`sharded_position_counts` with ``scheduler="local-process"``), whatever the number of workers.

Dask is an optional dependency: ``pip install 'posgeom[dask]'``.
"""

from __future__ import annotations

import functools
import os

import scipy.sparse as sp

from ..corpus.counts import merge_counts
from .shards import read_shard, shard_paths

__all__ = [
    "sharded_position_counts",
]


@functools.lru_cache(maxsize=4)
def _tokenizer(model: str):
    from .text import load_tokenizer

    return load_tokenizer(model)


def _count_shard(path, convention, model: str, text_field: str, batch_size: int) -> sp.csr_matrix:
    from .text import corpus_position_counts

    docs = read_shard(path, text_field=text_field)
    tokenizer = _tokenizer(model)
    if not docs:
        return sp.csr_matrix((convention.n_positions, len(tokenizer)), dtype="int64")
    return corpus_position_counts(docs, tokenizer, convention, batch_size=batch_size)


def sharded_position_counts(
    source: str | os.PathLike,
    convention,
    *,
    model: str = "all-MiniLM-L6-v2",
    scheduler: str | None = None,
    n_workers: int = 2,
    text_field: str = "text",
    batch_size: int = 1024,
) -> sp.csr_matrix:
    """Positional counts of every document in a sharded corpus, computed shard by shard and merged.

    Parameters
    ----------
    source : folder, file or glob
        The shards (see :mod:`posgeom.shards` for the formats).
    convention : posgeom.data.CountingConvention
        What is counted (special tokens, padding, truncation, which sequences); applied identically on every shard.
    model : str, default "all-MiniLM-L6-v2"
        Tokenizer name or path, loaded once per worker process.
    scheduler : str, optional
        ``None``: start a local Dask cluster with ``n_workers`` single-threaded worker processes for this call.
        An address such as ``"tcp://10.0.0.5:8786"``: use that running cluster (its workers need ``posgeom``).
        ``"local-process"``: no Dask at all, one pass in this process (the reference result).
    n_workers : int, default 2
        Workers of the local cluster (ignored with an address).
    text_field : str, default "text"
        Field (JSONL) or column (Parquet) holding the documents.
    batch_size : int, default 1024
        Texts per tokenizer call.

    Returns
    -------
    (n, V) CSR int64 matrix
        Exactly the counts of one pass over the concatenated shards.

    Raises
    ------
    FileNotFoundError
        ``source`` holds no shard.
    ImportError
        Dask is needed (any ``scheduler`` but ``"local-process"``) and not installed.

    Examples
    --------
    ``"local-process"`` gives the reference result without Dask; the other schedulers give the same counts.

    >>> import tempfile
    >>> from pathlib import Path
    >>> from posgeom.data import CountingConvention
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "a.txt").write_text("a good film\\nbad\\n", encoding="utf-8")
    ...     _ = (Path(tmp) / "b.txt").write_text("fine\\n", encoding="utf-8")
    ...     counts = sharded_position_counts(tmp, CountingConvention(4), scheduler="local-process")
    >>> counts.shape, counts.sum(axis=1).A.ravel()
    ((4, 30522), array([3, 3, 3, 1]))
    """
    paths = [str(p) for p in shard_paths(source)]
    task = functools.partial(
        _count_shard, convention=convention, model=model, text_field=text_field, batch_size=batch_size
    )
    if scheduler == "local-process":
        return merge_counts(task(p) for p in paths)
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - depends on the extra
        raise ImportError("distributed counting needs Dask: pip install 'posgeom[dask]'") from exc
    if scheduler is None:
        with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            with Client(cluster) as client:
                return _run(client, task, paths)
    with Client(scheduler) as client:
        return _run(client, task, paths)


def _run(client, task, paths) -> sp.csr_matrix:
    futures = client.map(task, paths)
    return merge_counts(client.gather(futures))
