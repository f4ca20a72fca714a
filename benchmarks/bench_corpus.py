"""Benchmark: tokenise + count all of IMDB train at n = 512 (issue 3).

Prints, in one run (and :func:`run` returns as rows for ``benchmarks/run.py``):

* wall time of ``posgeom.data.corpus_position_counts`` on the 25,000 IMDB training reviews, n = 512, BERT
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


from posgeom.data import (  # noqa: E402
    CountingConvention,
    corpus_position_counts,
    load_imdb,  # noqa: E402
    load_tokenizer,
)


def naive_counts(texts, tokenizer, n):
    """The per-token Python loop: one tokenizer call per text, one dict update per token."""
    table = defaultdict(int)
    for text in texts:
        ids = tokenizer(text, truncation=True, max_length=n)["input_ids"]
        for position, token in enumerate(ids):
            table[(position, token)] += 1
    return table


def measure(n: int = 512, slice_size: int = 1000, batch_size: int = 1024) -> dict:
    """All measurements of this benchmark (seconds, bytes, booleans), printed by :func:`main`."""
    from posgeom import classical_mds, hellinger_distances, position_distributions

    out = {"load_average": os.getloadavg()[0]}
    t0 = time.perf_counter()
    corpus = load_imdb("train")
    tokenizer = load_tokenizer()
    out["load_s"] = time.perf_counter() - t0
    convention = CountingConvention(n)
    t0, c0 = time.perf_counter(), time.process_time()
    counts = corpus_position_counts(corpus.texts, tokenizer, convention, batch_size=batch_size)
    out["count_s"], out["count_cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
    t1 = time.perf_counter()
    D = hellinger_distances(position_distributions(counts))
    classical_mds(D)
    out["geometry_s"] = time.perf_counter() - t1
    out["end_to_end_s"] = time.perf_counter() - t0
    out["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB
    out["n_tokens"] = int(counts.sum())
    out["convention"] = convention.describe()

    texts = corpus.texts[:slice_size]
    t0 = time.perf_counter()
    table = naive_counts(texts, tokenizer, n)
    out["naive_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    fast = corpus_position_counts(texts, tokenizer, convention, batch_size=batch_size)
    out["fast_slice_s"] = time.perf_counter() - t0
    coo = fast.tocoo()
    out["identical"] = len(table) == coo.nnz and all(
        table[(int(i), int(v))] == c for i, v, c in zip(coo.row, coo.col, coo.data)
    )
    out["slice"] = len(texts)
    return out


def run() -> list[dict]:
    m = measure()
    if not m["identical"]:
        raise AssertionError("the naive loop and posgeom give different counts")
    return [
        {"benchmark": f"IMDB train end to end (tokenise+count+Hellinger+MDS), {m['convention']}",
         "measured": m["end_to_end_s"], "baseline": 30.0, "unit": "s", "ratio": m["end_to_end_s"] / 30.0,
         "target": "<= 30 s", "met": m["end_to_end_s"] <= 30.0},
        {"benchmark": "IMDB train end to end: peak memory of the process", "measured": m["peak_rss_bytes"] / 2**30,
         "baseline": 2.0, "unit": "GB", "ratio": m["peak_rss_bytes"] / 2**31, "target": "<= 2 GB",
         "met": m["peak_rss_bytes"] <= 2**31},
        {"benchmark": f"tokenise+count of {m['slice']} reviews vs naive per-token loop",
         "measured": m["fast_slice_s"], "baseline": m["naive_s"], "unit": "s",
         "ratio": m["naive_s"] / m["fast_slice_s"],
         "target": "faster than naive (ratio > 1)", "met": m["naive_s"] > m["fast_slice_s"]},
    ]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=512, help="n_positions (default 512)")
    parser.add_argument("--slice", type=int, default=1000, help="reviews in the naive-loop comparison")
    parser.add_argument("--batch-size", type=int, default=1024)
    args = parser.parse_args(argv)
    m = measure(args.n, args.slice, args.batch_size)
    print(f"machine: {os.cpu_count()} CPU(s), load average {m['load_average']:.2f} (1 min) before the run")
    print(f"load IMDB train and tokenizer: {m['load_s']:.2f} s")
    print(f"tokenise+count, all IMDB train, {m['convention']}: {m['count_s']:.2f} s wall, {m['count_cpu_s']:.2f} s "
          f"CPU ({m['n_tokens'] / m['count_s'] / 1e6:.2f} M tokens/s); Hellinger+MDS {m['geometry_s']:.2f} s; "
          f"end to end {m['end_to_end_s']:.2f} s [target <= 30 s] {'OK' if m['end_to_end_s'] <= 30 else 'OVER TARGET'}")
    print(f"peak RSS of the process: {m['peak_rss_bytes'] / 2**30:.2f} GB  [target <= 2 GB] "
          f"{'OK' if m['peak_rss_bytes'] <= 2**31 else 'OVER TARGET'}")
    print(f"slice of {m['slice']} reviews: naive loop {m['naive_s']:.2f} s, posgeom {m['fast_slice_s']:.2f} s, "
          f"speed-up x{m['naive_s'] / m['fast_slice_s']:.1f}; identical counts: {m['identical']}")
    return 0 if m["identical"] else 1


if __name__ == "__main__":
    sys.exit(main())
