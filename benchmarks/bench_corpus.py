"""Benchmark: tokenise + count all of IMDB train at n = 512 (issue 3).

Prints, in one run:

* wall time of ``posgeom.text.corpus_position_counts`` on the 25,000 IMDB training reviews, n = 512, BERT
  conventions ([CLS]/[SEP] counted, truncation as the model sees it, no padding) -- target <= 30 s on 2 cores;
* peak resident memory of the process (``ru_maxrss``, which includes the Python/transformers baseline and the
  corpus text) -- target <= 2 GB;
* the speed-up against a naive loop on a slice: one ``tokenizer(text)`` call per review and a Python ``dict``
  increment per token, checked to give identical counts.

Run: ``POSGEOM_DATA=../shared/data .venv/bin/python benchmarks/bench_corpus.py [--slice 1000] [--n 512]``.
Not a timed test: numbers depend on the machine and its load (printed alongside). On a shared machine the wall
time can exceed the process CPU time, which is printed too: CPU time / wall time shows how much of the two cores
the run actually got.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from collections import defaultdict

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


from posgeom.datasets import load_imdb  # noqa: E402
from posgeom.text import CountingConvention, corpus_position_counts, load_tokenizer  # noqa: E402


def naive_counts(texts, tokenizer, n):
    """The per-token Python loop: one tokenizer call per text, one dict update per token."""
    table = defaultdict(int)
    for text in texts:
        ids = tokenizer(text, truncation=True, max_length=n)["input_ids"]
        for position, token in enumerate(ids):
            table[(position, token)] += 1
    return table


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=512, help="n_positions (default 512)")
    parser.add_argument("--slice", type=int, default=1000, help="reviews in the naive-loop comparison")
    parser.add_argument("--batch-size", type=int, default=1024)
    args = parser.parse_args(argv)

    print(f"machine: {os.cpu_count()} CPU(s), load average {os.getloadavg()[0]:.2f} (1 min) before the run")
    t0 = time.perf_counter()
    corpus = load_imdb("train")
    t_load = time.perf_counter() - t0
    tokenizer = load_tokenizer()
    t_tok = time.perf_counter() - t0 - t_load
    print(f"load IMDB train ({len(corpus)} reviews): {t_load:.2f} s; load tokenizer: {t_tok:.2f} s")

    convention = CountingConvention(args.n)
    t0, c0 = time.perf_counter(), time.process_time()
    counts = corpus_position_counts(corpus.texts, tokenizer, convention, batch_size=args.batch_size)
    t_full, c_full = time.perf_counter() - t0, time.process_time() - c0
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB
    n_tokens = int(counts.sum())
    print(f"tokenise+count, all IMDB train, {convention.describe()}: {t_full:.2f} s "
          f"wall, {c_full:.2f} s CPU ({n_tokens / t_full / 1e6:.2f} M tokens/s, {n_tokens} tokens)  "
          f"[target <= 30 s] {'OK' if t_full <= 30 else 'OVER TARGET'}")
    print(f"peak RSS of the process: {peak_rss / 2**30:.2f} GB  [target <= 2 GB] "
          f"{'OK' if peak_rss <= 2 * 2**30 else 'OVER TARGET'}")

    texts = corpus.texts[: args.slice]
    t0 = time.perf_counter()
    table = naive_counts(texts, tokenizer, args.n)
    t_naive = time.perf_counter() - t0
    t0 = time.perf_counter()
    fast = corpus_position_counts(texts, tokenizer, convention, batch_size=args.batch_size)
    t_fast = time.perf_counter() - t0
    coo = fast.tocoo()
    same = len(table) == coo.nnz and all(table[(int(i), int(v))] == c for i, v, c in zip(coo.row, coo.col, coo.data))
    print(f"slice of {len(texts)} reviews: naive loop {t_naive:.2f} s, posgeom {t_fast:.2f} s, "
          f"speed-up x{t_naive / t_fast:.1f}; identical counts: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
