"""Input and output only: corpora, tokenising, pretrained tables, shards (the numpy core never imports it).

=================================  ====================================================
``Corpus``                         texts, labels and ids of one split
``load_sst2``                      SST-2 (GLUE version)
``load_imdb``                      IMDB reviews
``CountingConvention``             what ``mu_i`` counts
``load_tokenizer``                 the book's WordPiece tokenizer
``iter_token_sequences``           the counted id sequences of a corpus, in batches
``corpus_position_counts``         (position, token) counts of a corpus, streamed
``TokenizedCorpus``                a corpus tokenised once, for every convention
``tokenize_corpus``                a TokenizedCorpus from texts
``cached_tokenized_corpus``        a TokenizedCorpus of a loaded corpus, cached on disk
``resolve_model``                  a model name, folder or hub id, offline first
``learned_position_embeddings``    the learned position table of a pretrained model
``shard_paths``                    the shard files of a folder, file or glob
``read_shard``                     the documents of one shard
``sharded_tokenized_corpus``       a TokenizedCorpus of many shards, tokenised on Dask
=================================  ====================================================
"""

from __future__ import annotations

# ``X as X``: result types, importable from here and documented (book/api.md) but not public names (__all__)
from .datasets import (
    Corpus as Corpus,
)
from .datasets import (
    load_imdb,
    load_sst2,
)
from .distributed import sharded_tokenized_corpus
from .pretrained import (
    learned_position_embeddings,
    resolve_model,
)
from .shards import (
    read_shard,
    shard_paths,
)
from .text import (
    CountingConvention,
    cached_tokenized_corpus,
    corpus_position_counts,
    iter_token_sequences,
    load_tokenizer,
    tokenize_corpus,
)
from .text import (
    TokenizedCorpus as TokenizedCorpus,
)

__all__ = [
    "load_sst2",
    "load_imdb",
    "CountingConvention",
    "load_tokenizer",
    "iter_token_sequences",
    "corpus_position_counts",
    "tokenize_corpus",
    "cached_tokenized_corpus",
    "resolve_model",
    "learned_position_embeddings",
    "shard_paths",
    "read_shard",
    "sharded_tokenized_corpus",
]
