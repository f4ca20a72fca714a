"""``sharded_tokenized_corpus``: a sharded corpus tokenised on Dask (``pip install 'posgeom[dask]'``), equal to
one pass whatever the number of workers."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from .text import TokenizedCorpus

import functools
import os

import numpy as np

from ._shards import read_shard, shard_paths

__all__ = ["sharded_tokenized_corpus"]


@functools.lru_cache(maxsize=4)
def _tokenizer(model: str):
    from .conventions import load_tokenizer
    return load_tokenizer(name=model)


def _count_documents(path, text_field: str) -> int:
    return len(read_shard(path, text_field=text_field))


def _tokenize_shard(path, keep, *, max_pieces: int, model: str, text_field: str, batch_size: int):
    """The TokenizedCorpus of a shard's documents (only those at the indices ``keep``, if given)."""
    from .text import tokenize_corpus
    docs = read_shard(path, text_field=text_field)
    if keep is not None:
        docs = [docs[i] for i in keep]
    if not docs:
        return None
    return tokenize_corpus(docs, _tokenizer(model), max_pieces=max_pieces, batch_size=batch_size)


def _concatenate(parts):
    """One TokenizedCorpus holding the texts of ``parts`` in order (``None`` parts, i.e. empty shards, skipped)."""
    from .text import TokenizedCorpus
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    first = parts[0]
    lengths = np.concatenate([p.lengths for p in parts])
    return TokenizedCorpus(np.concatenate(([0], np.cumsum(lengths))), np.concatenate([p.ids for p in parts]),
                           max_pieces=first.max_pieces, vocab_size=first.vocab_size, cls_id=first.cls_id,
                           sep_id=first.sep_id, pad_id=first.pad_id)


def sharded_tokenized_corpus(source: str | os.PathLike, max_pieces: int, *, model: str = "all-MiniLM-L6-v2",
                             scheduler: str | None = None, n_workers: int = 2, text_field: str = "text",
                             select: Callable[[int], Sequence[int]] | None = None,
                             batch_size: int = 1024) -> TokenizedCorpus:
    """The tokenised documents of a sharded corpus, tokenised shard by shard (on Dask) and concatenated in order."""
    from .._validation import check_positive_int
    max_pieces = check_positive_int(max_pieces, "max_pieces")
    paths = [str(p) for p in shard_paths(source)]
    tokenize = functools.partial(_tokenize_shard, max_pieces=max_pieces, model=model, text_field=text_field,
                                 batch_size=batch_size)
    count = functools.partial(_count_documents, text_field=text_field)
    if scheduler == "local-process":
        tokens = _tokenize(paths, select, lambda f, *args: [f(*a) for a in zip(*args)], tokenize, count)
    else:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as exc:  # pragma: no cover - depends on the extra
            raise ImportError("distributed tokenising needs Dask: pip install 'posgeom[dask]'") from exc
        if scheduler is None:
            with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                              dashboard_address=None) as cluster, Client(cluster) as client:
                tokens = _tokenize(paths, select, _dask_map(client), tokenize, count)
        else:
            with Client(scheduler) as client:
                tokens = _tokenize(paths, select, _dask_map(client), tokenize, count)
    if tokens is None:
        raise ValueError(f"the corpus {str(source)!r} has no documents (empty files?)")
    return tokens


def _dask_map(client):
    def run(function, *iterables):
        # pure=False: a shard file may change between two calls on one long-lived cluster
        return client.gather(client.map(function, *iterables, pure=False))
    return run


def _tokenize(paths, select, run, tokenize, count):
    """Tokenise every shard with ``run`` (a map), keeping the documents of ``select``; concatenate in path order."""
    if select is None:
        return _concatenate(run(tokenize, paths, [None] * len(paths)))
    n_docs = run(count, paths)
    if not sum(n_docs):
        return None
    offsets = np.concatenate(([0], np.cumsum(n_docs)))  # the corpus-wide indices select(total), split by shard
    chosen = np.asarray(select(int(offsets[-1])), dtype=np.int64)
    if chosen.size and (np.any(np.diff(chosen) <= 0) or chosen[0] < 0 or chosen[-1] >= offsets[-1]):
        raise ValueError("select must return strictly increasing document indices within the corpus")
    bounds = np.searchsorted(chosen, offsets)
    keep = [chosen[a:b] - start for a, b, start in zip(bounds[:-1], bounds[1:], offsets[:-1])]
    if not any(k.size for k in keep):
        raise ValueError("select keeps no document of the corpus")
    jobs = [(p, k) for p, k in zip(paths, keep) if k.size]  # shards without a selected document are not read again
    return _concatenate(run(tokenize, [p for p, _ in jobs], [k for _, k in jobs]))
