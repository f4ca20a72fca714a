"""`make bench`: every benchmark of the project in one run, as a table of ratios with targets, saved as JSON.

Each benchmark module exposes ``run() -> list[dict]`` with the keys ``benchmark``, ``measured``, ``baseline``,
``unit``, ``ratio`` (measured against a baseline measured in the same run, or against a budget) and ``target`` /
``met``. Timings depend on the machine and its load; the load average is printed with them.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODULES = ["bench_counting", "bench_geometry", "bench_corpus", "bench_chapters", "bench_corrected", "bench_resolved",
           "bench_ensemble", "bench_check"]
# Module -> the function that gives its rows (default ``run``). The corrected bootstrap is benchmarked on the real
# IMDB corpus (n = 256, [CLS]/[SEP] counted, 1,000 resamples: <= 60 s and <= 4 GB, ratio against the plug-in
# bootstrap of the same size); ``bench_corrected.run`` is its synthetic, data-free twin.
ENTRY = {"bench_corrected": "run_imdb"}


def _verdict(met) -> str:
    return "-" if met is None else ("met" if met else "NOT met")


def _normalise(row: dict) -> dict:
    """Rows written as (posgeom_s, baseline_s, ratio) times become the common schema; others pass through."""
    if "measured" in row:
        return row
    nan = float("nan")
    target = row.get("target")
    return {
        **row,
        "benchmark": f"{row['benchmark']} n={row['n']}: {row.get('posgeom', '')} vs {row.get('baseline', '')}",
        "measured": row["posgeom_s"],
        "baseline": row["baseline_s"] if row.get("baseline_s") is not None else nan,
        "unit": "s (ratio = baseline / posgeom)",
        "ratio": row["ratio"] if row.get("ratio") is not None else nan,
        "target": f">= {target:g}x" if target else "no target at this size",
        "met": row.get("met"),
    }


def main() -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    rows, failures = [], []
    for name in MODULES:
        t0 = time.perf_counter()
        # Each benchmark runs in a fresh process, so peak-memory readings are its own.
        entry = ENTRY.get(name, "run")
        code = f"import json, {name}; print('ROWS=' + json.dumps({name}.{entry}(), default=float))"
        proc = subprocess.run([sys.executable, "-c", code], cwd=HERE, capture_output=True, text=True)
        lines = proc.stdout.splitlines()
        sys.stdout.write("".join(line + "\n" for line in lines if not line.startswith("ROWS=")))
        found = [line[5:] for line in lines if line.startswith("ROWS=")]
        if proc.returncode or not found:
            failures.append(f"{name}: exit {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]}")
            continue
        new = json.loads(found[-1])
        new = [_normalise(row) | {"module": name} for row in new]
        rows.extend(new)
        print(f"[{name}: {time.perf_counter() - t0:.0f} s]")
    width = max((len(r["benchmark"]) for r in rows), default=20)
    print(f"\n{'benchmark':<{width}}  {'measured':>14}  {'baseline':>14}  {'ratio':>9}  target")
    for r in rows:
        print(f"{r['benchmark']:<{width}}  {r['measured']:>14.4g}  {r['baseline']:>14.4g}  {r['ratio']:>9.3g}  "
              f"{r['target']} [{_verdict(r['met'])}] ({r['unit']})")
    out = HERE / "results.json"
    out.write_text(json.dumps({"load_average": os.getloadavg(), "rows": rows, "failures": failures}, indent=2,
                              default=float))
    print(f"\nwritten {out}")
    for f in failures:
        print(f"FAILED {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
