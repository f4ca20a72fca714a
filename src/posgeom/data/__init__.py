"""Input and output only: corpora, tokenising, pretrained tables (the numpy core never imports it).

=================================  ====================================================
``Corpus``                         texts, labels and ids of one split; ``source_groups``: their sentences
``load_sst2``                      SST-2 (GLUE version)
``load_imdb``                      IMDB reviews
``CountingConvention``             what ``mu_i`` counts
``load_tokenizer``                 the book's WordPiece tokenizer
``corpus_position_counts``         (position, token) counts of a corpus, streamed
``TokenizedCorpus``                a corpus tokenised once, for every convention; ``kept``: text of each row
``tokenize_corpus``                a TokenizedCorpus from texts
``cached_tokenized_corpus``        a TokenizedCorpus of a loaded corpus, cached on disk
``learned_position_embeddings``    the learned position table of a pretrained model
=================================  ====================================================
"""
from __future__ import annotations

# ``X as X``: result types, importable from here and documented (book/api.md) but not public names (__all__)
from .datasets import Corpus as Corpus
from .datasets import load_imdb, load_sst2
from .pretrained import learned_position_embeddings
from .text import CountingConvention, cached_tokenized_corpus, corpus_position_counts, load_tokenizer, tokenize_corpus
from .text import TokenizedCorpus as TokenizedCorpus

__all__ = ["load_sst2", "load_imdb", "CountingConvention", "load_tokenizer", "corpus_position_counts",
           "tokenize_corpus", "cached_tokenized_corpus", "learned_position_embeddings"]
