"""Benchmark: bootstrap of the corrected (cross-fitted) Hellinger estimator at IMDB size.

Corpus (synthetic, realistic in the dimensions that set the cost): 25,000 sequences, n = 256 positions, a
bert-base-uncased-sized vocabulary (V = 30,522). Token frequencies follow a Zipf law (``p_v ~ 1/(rank + 2.7)^1.1``)
reweighted smoothly with position (``exp(0.8 sin(2 pi (phi_v + i f_v / n)))``) and by one of 8 latent topics per
sequence (``exp(N(0,1))`` per token and topic), so that tokens of one sequence depend on each other, as in real text.
Lengths are log-normal around 230 tokens and truncated at 256 (about 40% of the sequences reach position 255), so
the last positions have fewer observations, as with truncated reviews. Everything is seeded.

Measured in the same run, with the whole (n x n) matrix as the statistic:

* ``CrossFitted().bootstrap(inc, rng=0, n_resamples=N)`` (one split per resample, plus the 20-split point
  estimate);
* ``PlugIn().bootstrap(inc, rng=0, n_resamples=N)``: the plug-in bootstrap.

Printed: wall seconds, CPU seconds, peak traced memory (``tracemalloc``, numpy buffers included) of each, and the
ratio plug-in / corrected time. Target: 1,000 corrected resamples within 60 s on 2 cores. Wall times depend on the
machine's load (printed before and after): on a shared machine, the CPU seconds tell the cost.

Run: ``.venv/bin/python benchmarks/bench_corrected.py [--n-resamples 1000] [--n-jobs 2] [--plugin-boot N] [--imdb]``.
``run()`` returns the rows for ``benchmarks/run.py`` (keys ``benchmark``, ``measured``, ``baseline``, ``unit``,
``ratio``, ``target``, ``met``).

**On the real corpus** (``--imdb``, and :func:`run_imdb`, the row ``benchmarks/run.py`` reports): IMDB train (25,000
reviews) tokenised with bert-base-uncased, ``CountingConvention(256)`` (``[CLS]``/``[SEP]`` counted, truncated as
the model truncates), 1,000 corrected resamples (one thread: the engine runs its resamples in order).
Targets: at most 60 s wall and at most 4 GB peak
memory (the larger of the traced numpy/Python peak and the process's peak resident set), printed with the ratio
against the plug-in bootstrap of the same size (1,000 resamples of ``PlugIn().bootstrap``). Needs the data
(``POSGEOM_DATA``); without it the row says so and is marked not met.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import tracemalloc

import numpy as np

from posgeom.corpus import SequenceIncidence
from posgeom.geometry import CrossFitted, PlugIn

N_SEQUENCES, N_POSITIONS, VOCAB, N_TOPICS = 25_000, 256, 30_522, 8
N_RESAMPLES, BUDGET_S = 1000, 60.0
BUDGET_GIB = 4.0


def zipf_topic_corpus(m: int = N_SEQUENCES, n: int = N_POSITIONS, vocab: int = VOCAB, *, n_topics: int = N_TOPICS,
                      seed: int = 0) -> list[np.ndarray]:
    """Token id sequences (ragged) with Zipfian, position- and topic-dependent frequencies (see the module doc)."""
    rng = np.random.default_rng(seed)
    log_p = -1.1 * np.log(rng.permutation(vocab) + 2.7)
    phase, freq = rng.random(vocab), 2.0 * rng.random(vocab)
    boost = rng.normal(0.0, 1.0, size=(n_topics, vocab))
    topic = rng.integers(0, n_topics, m)
    lengths = np.clip(np.round(np.exp(rng.normal(np.log(230.0), 0.6, m))), 16, n).astype(np.int64)
    X = np.empty((m, n), dtype=np.int32)
    members = [np.flatnonzero(topic == t) for t in range(n_topics)]
    for i in range(n):
        base = log_p + 0.8 * np.sin(2 * np.pi * (phase + i * freq / n))
        for t, rows in enumerate(members):
            logits = base + boost[t]
            cdf = np.cumsum(np.exp(logits - logits.max()))
            X[rows, i] = np.minimum(np.searchsorted(cdf, rng.random(rows.size) * cdf[-1], side="right"), vocab - 1)
    return [X[s, : lengths[s]] for s in range(m)]


def build_incidence(seed: int = 0) -> SequenceIncidence:
    return SequenceIncidence.from_sequences(zipf_topic_corpus(seed=seed), N_POSITIONS, VOCAB)


def _measure(fn):
    tracemalloc.start()
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, wall, cpu, peak / 2**20


def run(n_resamples: int = N_RESAMPLES, *, n_jobs: int = 2, plugin_boot: int | None = None,
        seed: int = 0) -> list[dict]:
    """Time both bootstraps; one row (corrected against plug-in, per 1,000 resamples)."""
    inc = build_incidence(seed)
    plugin_boot = n_resamples if plugin_boot is None else plugin_boot
    load_before = os.getloadavg()[0]
    res, wall_c, cpu_c, mem_c = _measure(lambda: CrossFitted().bootstrap(inc, rng=seed, n_resamples=n_resamples))
    plug, wall_p, cpu_p, mem_p = _measure(
        lambda: PlugIn().bootstrap(inc, rng=seed, n_resamples=plugin_boot))
    load_after = os.getloadavg()[0]
    per_1000_c, per_1000_p = wall_c * 1000 / n_resamples, wall_p * 1000 / plugin_boot
    iu = np.triu_indices(N_POSITIONS, 1)
    note = (f"{inc.n_sequences} sequences, {inc.cell.size} tokens, {inc.cells.size} cells, n={N_POSITIONS}, "
            f"V={VOCAB}; corrected: {n_resamples} resamples, {wall_c:.1f} s wall, {cpu_c:.1f} s CPU, "
            f"peak {mem_c:.0f} MiB, "
            f"n_jobs={n_jobs}; plug-in: {plugin_boot} resamples, {wall_p:.1f} s wall, {cpu_p:.1f} s CPU, peak "
            f"{mem_p:.0f} MiB; median interval width corrected {np.median((res.upper - res.lower)[iu]):.4f}, "
            f"plug-in {np.median((plug.upper - plug.lower)[iu]):.4f}; "
            f"fraction clipped {res.point.fraction_clipped:.3f}; "
            f"largest endpoint MC error {max(res.lower_mc_error.max(), res.upper_mc_error.max()):.4f}; "
            f"load {load_before:.1f} -> {load_after:.1f}")
    return [{
        "benchmark": f"CrossFitted().bootstrap x1000, IMDB-sized ({N_SEQUENCES} x {N_POSITIONS}, V={VOCAB}) vs plug-in "
                     "PlugIn().bootstrap",
        "measured": per_1000_c, "baseline": per_1000_p, "unit": "s per 1000 resamples (ratio = plug-in / corrected)",
        "ratio": per_1000_p / per_1000_c, "target": f"<= {BUDGET_S:.0f} s per 1000 on 2 cores",
        "met": bool(per_1000_c <= BUDGET_S), "note": note,
        "corrected_s": wall_c, "corrected_cpu_s": cpu_c, "corrected_peak_mib": mem_c,
        "plugin_s": wall_p, "plugin_cpu_s": cpu_p, "plugin_peak_mib": mem_p, "n_resamples": n_resamples,
        "plugin_boot": plugin_boot, "n_jobs": n_jobs,
    }]


def _peak_rss_mib() -> float:
    """Peak resident set of this process so far (MiB; ru_maxrss is KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def imdb_incidence(n_positions: int = N_POSITIONS) -> SequenceIncidence:
    """IMDB train, bert-base-uncased word pieces, ``[CLS]``/``[SEP]`` counted, truncated at ``n_positions``."""
    from posgeom.data import CountingConvention, cached_tokenized_corpus, load_imdb

    return cached_tokenized_corpus(load_imdb("train"), max_pieces=512).incidence(CountingConvention(n_positions))


def run_imdb(n_resamples: int = N_RESAMPLES, *, n_jobs: int = 2, plugin_boot: int | None = None,
             seed: int = 0) -> list[dict]:
    """The corrected bootstrap on the real IMDB corpus against its targets (60 s, 4 GB) and the plug-in bootstrap."""
    plugin_boot = n_resamples if plugin_boot is None else plugin_boot
    name = (f"CrossFitted().bootstrap x{n_resamples}, IMDB train (n={N_POSITIONS}, [CLS]/[SEP] counted) vs plug-in "
            f"PlugIn().bootstrap x{plugin_boot}")
    try:
        inc = imdb_incidence()
    except Exception as exc:  # no data here: say so, do not fail the whole run
        return [{"benchmark": name, "measured": float("nan"), "baseline": float("nan"), "unit": "s",
                 "ratio": float("nan"), "target": f"<= {BUDGET_S:.0f} s and <= {BUDGET_GIB:g} GB", "met": False,
                 "note": f"IMDB not available ({type(exc).__name__}: {exc}); set POSGEOM_DATA"}]
    load_before = os.getloadavg()[0]
    res, wall_c, cpu_c, mem_c = _measure(lambda: CrossFitted().bootstrap(inc, rng=seed, n_resamples=n_resamples))
    rss_c = _peak_rss_mib()
    plug, wall_p, cpu_p, mem_p = _measure(
        lambda: PlugIn().bootstrap(inc, rng=seed, n_resamples=plugin_boot))
    load_after = os.getloadavg()[0]
    peak_gib = max(mem_c, rss_c) / 1024
    per_run_p = wall_p * n_resamples / plugin_boot  # the plug-in time for the same number of resamples
    met = bool(wall_c <= BUDGET_S and peak_gib <= BUDGET_GIB)
    iu = np.triu_indices(N_POSITIONS, 1)
    note = (f"{inc.n_sequences} reviews, {inc.cell.size} tokens, n={N_POSITIONS}; corrected: {n_resamples} resamples, "
            f"{wall_c:.1f} s wall, {cpu_c:.1f} s CPU, peak traced {mem_c:.0f} MiB, peak RSS {rss_c:.0f} MiB, "
            f"n_jobs={n_jobs}; plug-in: {plugin_boot} resamples, {wall_p:.1f} s wall, {cpu_p:.1f} s CPU, peak traced "
            f"{mem_p:.0f} MiB; median interval width corrected {np.median((res.upper - res.lower)[iu]):.4f}, "
            f"plug-in {np.median((plug.upper - plug.lower)[iu]):.4f}; fraction clipped "
            f"{res.point.fraction_clipped:.3f}; largest endpoint MC error "
            f"{max(res.lower_mc_error.max(), res.upper_mc_error.max()):.4f}; load {load_before:.1f} -> "
            f"{load_after:.1f}")
    return [{
        "benchmark": name, "measured": wall_c, "baseline": per_run_p,
        "unit": f"s for {n_resamples} resamples (ratio = plug-in / corrected)", "ratio": per_run_p / wall_c,
        "target": f"<= {BUDGET_S:.0f} s and <= {BUDGET_GIB:g} GB on 2 cores", "met": met, "note": note,
        "corrected_s": wall_c, "corrected_cpu_s": cpu_c, "corrected_peak_mib": mem_c, "corrected_rss_mib": rss_c,
        "peak_gib": peak_gib, "plugin_s": wall_p, "plugin_cpu_s": cpu_p, "plugin_peak_mib": mem_p,
        "n_resamples": n_resamples, "plugin_boot": plugin_boot, "n_jobs": n_jobs,
    }]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-resamples", type=int, default=N_RESAMPLES)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--plugin-boot", type=int, default=None,
                        help="resamples of the plug-in baseline (default: --n-resamples); times are reported per 1000")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--imdb", action="store_true", help="the real IMDB corpus (targets 60 s and 4 GB)")
    args = parser.parse_args(argv)
    print(f"machine: {os.cpu_count()} CPU(s), load average {os.getloadavg()[0]:.2f} (1 min) before the run")
    bench = run_imdb if args.imdb else run
    (row,) = bench(args.n_resamples, n_jobs=args.n_jobs, plugin_boot=args.plugin_boot, seed=args.seed)
    if not np.isfinite(row["measured"]):
        print(row["note"])
        return 1
    print(f"corrected bootstrap: {row['corrected_s']:.1f} s wall ({row['corrected_cpu_s']:.1f} s CPU) for "
          f"{row['n_resamples']} resamples, peak {row['corrected_peak_mib']:.0f} MiB")
    print(f"plug-in bootstrap:   {row['plugin_s']:.1f} s wall ({row['plugin_cpu_s']:.1f} s CPU) for "
          f"{row['plugin_boot']} resamples, peak {row['plugin_peak_mib']:.0f} MiB")
    print(f"{row['unit']}: corrected {row['measured']:.1f} s, plug-in {row['baseline']:.1f} s, ratio plug-in / "
          f"corrected {row['ratio']:.2f}; target {row['target']}: {'met' if row['met'] else 'NOT met'}")
    print(row["note"])
    return 0 if row["met"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
