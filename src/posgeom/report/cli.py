"""The ``posgeom`` command line: ``posgeom report`` writes a stress report for a corpus and a model.

Exit codes: 0 success; 2 bad arguments or unusable input (unreadable files, bad conventions, ``n`` too large for
the model); 1 an unexpected error (a bug: please report it with the traceback that ``--debug`` prints).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..geometry.estimators import ESTIMATORS, estimator_from_name
from .ladder import LADDER_RESAMPLES as LADDER_RESAMPLES
from .pipeline import MAX_POSITIONS, ReportSettings

__all__ = ["main"]


_EXAMPLES = """examples:
  posgeom report sst2 --positions 64 --out reports/sst2
  posgeom report imdb --split test --positions 256 --limit 5000 --bootstrap 100 --out reports/imdb
  posgeom report my_corpus/ --positions 32 --no-special-tokens --out reports/mine
  posgeom report my_corpus/ --positions 32 --ladder --out reports/ladder
  posgeom report my_corpus/ --positions 32 --sample-texts 2000 --seed 1 --out reports/sample
  posgeom report 'shards/*.jsonl' --positions 128 --scheduler local --out reports/web
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="posgeom", description="The geometry of positional encodings: stress reports for any corpus and model.",
        epilog="Run 'posgeom report --help' for the report's options.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    report = sub.add_parser(
        "report",
        help="stress of the encodings in use against a corpus's positional geometry",
        description=(
            "Tokenise a corpus with the model's WordPiece tokenizer, compute the Hellinger distances between the "
            "token distributions of its positions (under the counting convention chosen below), and write the "
            "stress table (sinusoidal, RoPE, ALiBi, T5 buckets, the model's learned positions, MDS at full rank "
            "and ranks 1-3; raw and scale-optimal stress), the distance heatmap, the MDS spectrum and the "
            "stress-vs-rank plot into --out. The table is also printed. With --ladder, the table is re-estimated "
            "on 1/2, 1/4 and 1/8 of the texts, and a pair of encodings is ranked only when its order holds on "
            "every rung (else undetermined)."
        ),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    report.add_argument("corpus", help="'sst2', 'imdb', or a text file / folder / glob (.txt: one document per "
                                       "line; .jsonl/.parquet: the --text-field)")
    report.add_argument("--model", default="all-MiniLM-L6-v2",
                        help="tokenizer and learned positions: all-MiniLM-L6-v2 (offline, default), a hub name "
                             "such as bert-base-uncased, or a local directory")
    report.add_argument("--positions", "-n", type=int, default=None,
                        help=f"number of positions n (default: the most, at most {MAX_POSITIONS}, that at least half "
                             "of the texts reach; the report states it)")
    report.add_argument("--split", default="train", help="split of sst2 (train/dev) or imdb (train/test)")
    report.add_argument("--limit", type=int, help="use only the first LIMIT documents")
    report.add_argument("--sample-texts", type=int, metavar="N",
                        help="use a random subset of N texts (N >= 4; drawn with --seed after --limit, before "
                             "tokenising)")
    conv = report.add_argument_group("what mu_i counts (the counting convention)")
    conv.add_argument("--no-special-tokens", dest="special_tokens", action="store_false",
                      help="count word pieces only (default: [CLS] at position 0 and [SEP] after the last piece)")
    conv.add_argument("--count-padding", action="store_true",
                      help="pad every sequence to n with [PAD] and count the pads (default: position i counts "
                           "only the sequences that reach it)")
    conv.add_argument("--truncation", choices=["model", "cut"], default="model",
                      help="'model' keeps [SEP] at position n-1 of truncated sequences; 'cut' drops it")
    conv.add_argument("--min-length", type=int,
                      help="keep only sequences at least this long (n: only sequences filling the window)")
    report.add_argument("--bootstrap", type=int, default=0, metavar="B",
                        help="bootstrap resamples over sequences for 95%% intervals (default 0: none)")
    report.add_argument("--seed", type=int, default=0,
                        help="seed of the bootstrap, of the estimator's splits and of --sample-texts (default 0)")
    report.add_argument("--text-field", default="text", help="field/column of JSONL/Parquet shards")
    report.add_argument("--scheduler",
                        help="tokenise the shards on Dask: 'local' for a local cluster, or a scheduler address "
                             "(not with sst2/imdb); the estimator then runs in this process on the same data, so "
                             "the report is identical to the one without --scheduler")
    report.add_argument("--estimator", default="resolved", choices=tuple(ESTIMATORS),
                        help="estimator of the Hellinger distances: 'resolved' (default: cross-fitted at a stated "
                             "vocabulary resolution, every position seen through equally many texts; the report "
                             "states its estimand), 'cross-fitted' (bias-corrected, its estimand moves with the "
                             "number of texts) or 'plug-in' (biased upward by the noise floor)")
    report.add_argument("--ladder", type=int, nargs="?", const=LADDER_RESAMPLES, default=0, metavar="B",
                        help="re-estimate the stress table on 1/2, 1/4 and 1/8 of the texts (B bootstrap resamples "
                             f"per rung, default {LADDER_RESAMPLES}) and rank a pair of encodings only when the sign "
                             "of their difference holds on every rung, else call it undetermined; the resolved "
                             "estimator then uses the resolution an eighth of the texts affords, for the whole "
                             "report")
    report.add_argument("--groups", metavar="FILE",
                        help="one group label per line, one line per document in the corpus's order: texts with "
                             "one label (phrases of one sentence, pages of one book) are split and resampled "
                             "together (default: texts are treated as independent; the report states which)")
    report.add_argument("--out", required=True, help="output folder (created if needed)")
    report.add_argument("--no-progress", dest="progress", action="store_false", help="hide progress bars")
    report.add_argument("--debug", action="store_true", help="show the traceback of errors")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``posgeom`` command; returns the exit code.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; ``None`` reads ``sys.argv[1:]``.

    Returns
    -------
    int
        0 on success, 2 for bad arguments or unusable input (printed to stderr), 1 for an unexpected error.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     main(["report", tmp + "/missing.txt", "--out", tmp])
    2
    """
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        settings = ReportSettings(
            corpus=args.corpus, n_positions=args.positions, model=args.model, split=args.split,
            special_tokens=args.special_tokens, count_padding=args.count_padding, truncation=args.truncation,
            min_length=args.min_length, limit=args.limit, n_resamples=args.bootstrap, rng=args.seed,
            text_field=args.text_field, scheduler=args.scheduler, estimator=estimator_from_name(args.estimator),
            sample_texts=args.sample_texts, ladder=args.ladder, groups=args.groups,
        )
        from .pipeline import make_report
        table = make_report(settings, args.out, progress=args.progress)
    except (ValueError, TypeError, FileNotFoundError, PermissionError, IsADirectoryError, UnicodeDecodeError,
            ImportError, OSError) as exc:
        if args.debug:
            raise
        print(f"posgeom report: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - the last line of defence prints, never hides
        if args.debug:
            raise
        print(f"posgeom report: unexpected error ({type(exc).__name__}: {exc}); rerun with --debug", file=sys.stderr)
        return 1
    summary = json.loads((Path(args.out) / "report.json").read_text(encoding="utf-8"))
    print(table.to_text())
    floor = summary["noise_floor"]
    print(f"\n{summary['positions']}\nResampling unit: {summary['unit']}.\n{floor['line']}")
    if floor["warning"]:
        print(f"posgeom report: warning: {floor['warning']}", file=sys.stderr)
    if summary["ladder"]:
        from .ladder import ladder_line, ladder_table
        print(f"\n{ladder_line(summary['ladder'])}\n\n{ladder_table(summary['ladder'])}")
    print(f"\nwritten to {args.out}: stress_table.csv, stress_table.md, distances.png, mds_spectrum.png, "
          f"stress_vs_rank.png, {'ladder.png, ' if summary['ladder'] else ''}distances.npy, report.json")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
