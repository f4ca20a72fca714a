"""Training 16 seeds at once (``posgeom.nn.fit_ensemble``) against the per-seed loop of ``posgeom.nn.fit`` (issue 22).

The models and data are the training chapters' own: Chapter 4 (width 16, four positions, 256 sequences, full batch,
cosine schedule, weight decay, positions tied at 0), Chapter 6 (width 16, 16 positions, 1,000 sequences, batches of
250) and Chapter 9 (width 32, 12 positions, 400 sequences, batches of 100, a frozen encoding per seed). Both sides
run with one torch thread (the reproducibility contract) and train the same seeds for the same epochs; the ratio is
the loop's time over the ensemble's (= the ensemble's throughput in seed-epochs per second over the loop's). Time is
the process's CPU time (one thread, so it is the compute the run needs; wall time on a machine shared with other jobs
mostly measures the other jobs), wall time is printed beside it. Each side is timed twice, interleaved, and the
faster kept. Target: the ratio reaches at least 90% of the batching ceiling measured in the same run (below).

What bounds the ratio: the ensemble does each member's arithmetic with the same kernels as ``fit`` (its results are
``fit``'s up to rounding), so it saves only the per-step cost that does not grow with the tokens of a step (Python,
dispatch, the optimiser's per-tensor loop, building the model), not arithmetic. The benchmark estimates that bound
in the same run (Amdahl's law): one seed trained by ``fit`` with ``b`` and with ``4b`` sequences per step (the data
tiled four times, the same number of steps) gives the time per step that grows with the tokens, ``c = (T(4b) -
T(b)) / 3``, and the rest, ``a = T(b) - c``. A batch of ``S`` seeds costs at least ``S c``, so no batching that keeps
the kernels can beat ``S T(b) / (S c)``, i.e. the ceiling ``T(b) / c = 1 + a / c``. A fixed speed-up (such as 4x)
would be met or missed by the model's size, not by the ensemble, so the target is a share of that ceiling: the
ratio over the ceiling must be at least ``TARGET_SHARE``. The estimate assumes a step's time is linear in its tokens;
the ensemble can pass it by a little, because it keeps its groups of members cache-sized and multiplies with other
kernels (``bmm`` for ``mm``).
"""

from __future__ import annotations

import dataclasses
import os
import time

import numpy as np

from posgeom.nn import ModelSpec, TrainConfig, fit, fit_ensemble, order_task, transposition_task

SEEDS = tuple(range(16))
TARGET_SHARE = 0.9  # the ratio must reach 90% of the batching ceiling measured in the same run


def cases() -> dict:
    """``{name: (specs, data, config)}`` at the chapters' sizes (fewer epochs than the chapters where long)."""
    rng = np.random.default_rng(0)
    ch4 = transposition_task(256, shift=1.0, rng=0)
    ch6 = order_task(500, 16, 12, rng=0, regime="uniform")
    ch9 = order_task(200, 12, 24, rng=0)
    fixed = [ModelSpec(vocab_size=24, n_positions=12, d_model=32, positional="fixed",
                       encoding=rng.normal(scale=0.5, size=(12, 32))) for _ in SEEDS]
    return {
        "Chapter 4 (d=16, L=4, N=256 full batch, 80 epochs)": (
            [ModelSpec(vocab_size=ch4.vocab_size, n_positions=ch4.length, d_model=16,
                       init_encoding=np.zeros((ch4.length, 16)))] * len(SEEDS),
            ch4, TrainConfig(epochs=80, lr=0.05, batch_size=None, weight_decay=0.01, schedule="cosine")),
        "Chapter 6 (d=16, L=16, N=1000, batch 250, 8 epochs)": (
            [ModelSpec(vocab_size=ch6.vocab_size, n_positions=16, d_model=16)] * len(SEEDS),
            ch6, TrainConfig(epochs=8, lr=2e-2, batch_size=250)),
        "Chapter 9 (d=32, L=12, N=400, batch 100, 8 epochs)": (
            fixed, ch9, TrainConfig(epochs=8, lr=1e-2, batch_size=100)),
    }


def _time(fn) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of ``fn()``."""
    c0, w0 = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - c0, time.perf_counter() - w0


def batching_ceiling(spec, data, config) -> float:
    """``T(b) / c``: the most a batch of seeds can gain over the loop with the loop's kernels (module docstring)."""
    X, y = np.asarray(data.X), np.asarray(data.y)
    b = config.batch(X.shape[0])
    tiled = (np.tile(X, (4, 1)), np.tile(y, (4,) + (1,) * (y.ndim - 1)))
    one = min(_time(lambda s=s: fit(spec, data, seed=s, config=config))[0] for s in SEEDS[:3])
    four = min(_time(lambda s=s: fit(spec, tiled, seed=s, config=dataclasses.replace(config, batch_size=4 * b)))[0]
               for s in SEEDS[:3])
    return one / ((four - one) / 3)


def run() -> list[dict]:
    rows = []
    for name, (specs, data, config) in cases().items():
        fit_ensemble(specs[:2], data, seeds=SEEDS[:2], config=config)  # warm-up
        loop_s, ens_s = [], []
        for _ in range(2):
            loop_s.append(_time(lambda sp=specs, d=data, c=config: [fit(m, d, seed=s, config=c)
                                                                   for m, s in zip(sp, SEEDS)]))
            ens_s.append(_time(lambda sp=specs, d=data, c=config: fit_ensemble(sp, d, seeds=SEEDS, config=c)))
        (loop, loop_wall), (ens, ens_wall) = min(loop_s), min(ens_s)
        ratio, ceiling = loop / ens, batching_ceiling(specs[0], data, config)
        print(f"{name}: CPU loop {loop:.2f} s, ensemble {ens:.2f} s, ratio {ratio:.2f}; wall {loop_wall:.2f} s and "
              f"{ens_wall:.2f} s, ratio {loop_wall / ens_wall:.2f}; batching ceiling {ceiling:.2f}x, reached "
              f"{ratio / ceiling:.0%} (load {os.getloadavg()[0]:.1f})", flush=True)
        share = ratio / ceiling
        rows.append({"benchmark": f"16 seeds, {name}: fit_ensemble vs fit loop", "measured": ens, "baseline": loop,
                     "unit": "CPU s (ratio = loop / ensemble)", "ratio": ratio, "batching_ceiling": ceiling,
                     "share_of_ceiling": share, "target": f">= {TARGET_SHARE:.0%} of the batching ceiling",
                     "met": bool(share >= TARGET_SHARE)})
    return rows

if __name__ == "__main__":
    rows = run()
    for row in rows:
        print(f"{row['benchmark']}: {row['ratio']:.2f}x of a batching ceiling {row['batching_ceiling']:.2f}x = "
              f"{row['share_of_ceiling']:.0%} (target {row['target']}): {'met' if row['met'] else 'NOT met'}")
    assert all(row["met"] for row in rows), "the ensemble reaches less than 90% of the batching ceiling"
