"""The pipeline behind ``posgeom report`` (``ReportSettings``, ``make_report``): corpus -> tokens under a counting
convention -> Hellinger distances -> stress table -> the report's files, and with ``ladder=B`` the ladder."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..stress.results import StressTable

import json
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from .._validation import check_positive_int
from ..geometry.estimators import Estimator, Resolved
from .floor import noise_floor_summary
from .ladder import FRACTIONS as LADDER_FRACTIONS

__all__: list[str] = []  # the command line is the public face (posgeom.report.cli.main)

#: With ``n_positions=None``: at most this many positions, the most that at least half of the texts reach.
MAX_POSITIONS = 64
#: The smallest ``sample_texts``.
MIN_SAMPLE_TEXTS = 4

_NAMED_CORPORA = ("sst2", "imdb")


@dataclass(frozen=True)
class ReportSettings:
    """What a report computes: the command line's options (``posgeom report --help``), each written to
    ``report.json``; ``rng``: every consumer draws from its own ``default_rng(rng)``; ``n_resamples``, ``ladder``:
    bootstrap resamples of the table, per rung of the ladder (0: none).

    Examples
    --------
    >>> ReportSettings("sst2", n_positions=16, special_tokens=False).convention().describe()
    'n=16, word pieces only, position i over sequences reaching it'
    """
    corpus: str
    n_positions: int | None = None
    model: str = "all-MiniLM-L6-v2"
    split: str = "train"
    special_tokens: bool = True
    count_padding: bool = False
    truncation: str = "model"
    min_length: int | None = None
    limit: int | None = None
    n_resamples: int = 0
    rng: int = 0
    text_field: str = "text"
    scheduler: str | None = None
    estimator: Estimator = field(default_factory=Resolved)
    sample_texts: int | None = None
    ladder: int = 0
    groups: str | None = None

    def __post_init__(self):
        if not isinstance(self.estimator, Estimator):
            raise TypeError(f"estimator must be an estimator object (Resolved(), CrossFitted(), PlugIn()), got "
                            f"{type(self.estimator).__name__}")
        if self.n_positions is not None:
            check_positive_int(self.n_positions, "n_positions", minimum=2)
        check_positive_int(self.n_resamples, "n_resamples", minimum=0)
        check_positive_int(self.rng, "rng", minimum=0)
        if check_positive_int(self.ladder, "ladder", minimum=0) == 1:
            raise ValueError("ladder (--ladder) needs at least 2 bootstrap resamples per rung, got 1")
        if self.limit is not None:
            check_positive_int(self.limit, "limit")
        if self.sample_texts is not None:
            try:
                check_positive_int(self.sample_texts, "sample_texts", minimum=MIN_SAMPLE_TEXTS)
            except ValueError:
                raise ValueError(f"sample_texts (--sample-texts) must be at least {MIN_SAMPLE_TEXTS} texts, "
                                 f"got {self.sample_texts}") from None

    def convention(self):
        """The counting convention of these settings (:class:`posgeom.data.CountingConvention`)."""
        from ..data.text import CountingConvention
        return CountingConvention(self.n_positions, special_tokens=self.special_tokens,
                                  count_padding=self.count_padding, truncation=self.truncation,
                                  min_length=self.min_length)


def _load_texts(corpus: str, *, split: str = "train", limit: int | None = None, text_field: str = "text") -> list[str]:
    """The documents of a named corpus split or of a file/folder/glob of shards, optionally the first ``limit``."""
    if corpus in _NAMED_CORPORA:
        from ..data import datasets
        texts = (datasets.load_sst2 if corpus == "sst2" else datasets.load_imdb)(split).texts
    else:
        from ..data._shards import read_shard, shard_paths
        texts = [doc for path in shard_paths(corpus) for doc in read_shard(path, text_field=text_field)]
    if not texts:
        raise ValueError(f"the corpus {corpus!r} has no documents (empty files?)")
    return texts[:limit] if limit else texts


def _text_indices(n_texts: int, *, limit: int | None, sample_texts: int | None, rng: int) -> np.ndarray:
    """The indices of the texts a report uses: the first ``limit``, then a seeded subset of ``sample_texts``."""
    m = min(n_texts, limit) if limit else n_texts
    if sample_texts is None:
        return np.arange(m)
    if sample_texts > m:
        raise ValueError(f"--sample-texts {sample_texts} exceeds the {m} texts of the corpus: choose at most {m}")
    return np.sort(np.random.default_rng(rng).choice(m, size=sample_texts, replace=False))


def _model_shape(model: str) -> tuple[int, int]:
    """``(d_model, n_heads)`` of ``model``."""
    from transformers import AutoConfig

    from ..data.pretrained import _resolve_model
    config = AutoConfig.from_pretrained(str(_resolve_model(model)))
    return int(config.hidden_size), int(config.num_attention_heads)


def make_report(settings: ReportSettings, out: str | os.PathLike, *, progress: bool = False) -> StressTable:
    """Compute the report and write its files into ``out`` (created if needed); returns the stress table."""
    from matplotlib.figure import Figure  # not pyplot: the caller's backend (e.g. a notebook's) stays as it is

    from ..data.pretrained import learned_position_embeddings
    from ..data.text import load_tokenizer, tokenize_corpus
    from ..geometry._crossfit import corrected_distances
    from ..geometry.mds import classical_mds
    from ..plotting import distance_heatmap, spectrum_plot
    from ..stress import standard_candidates, stress_table
    from ..stress.rank_curve import stress_by_rank
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    d, n_heads = _model_shape(settings.model)
    table_positions = learned_position_embeddings(model=settings.model)
    offset = 0 if settings.special_tokens else 1
    cap = settings.n_positions or min(MAX_POSITIONS, table_positions.shape[0] - offset)
    if cap + offset > table_positions.shape[0]:
        raise ValueError(
            f"n_positions={cap} needs {cap + offset} learned positions but {settings.model!r} has "
            f"{table_positions.shape[0]}; use --positions <= {table_positions.shape[0] - offset}"
        )
    if settings.scheduler is not None:
        # only the tokenising runs on Dask: the shards' tokens, concatenated in the order of the one-pass route
        # (shards sorted by path, documents in file order), feed the same estimator code below
        from ..data._distributed import sharded_tokenized_corpus
        if settings.corpus in _NAMED_CORPORA:
            raise ValueError("--scheduler tokenises shards on disk: pass a folder or glob of text/JSONL/Parquet files")
        seen = {}  # the corpus's documents and those chosen (for --groups)

        def select(total):
            seen["docs"] = min(total, settings.limit or total)
            seen["chosen"] = _text_indices(total, limit=settings.limit, sample_texts=settings.sample_texts,
                                           rng=settings.rng)
            return seen["chosen"]
        chosen_only = settings.limit or settings.sample_texts is not None or settings.groups is not None
        tokens = sharded_tokenized_corpus(settings.corpus, cap, model=settings.model,
                                          scheduler=None if settings.scheduler == "local" else settings.scheduler,
                                          text_field=settings.text_field, select=select if chosen_only else None)
        n_docs, chosen = seen.get("docs"), seen.get("chosen")
    else:
        docs = _load_texts(settings.corpus, split=settings.split, limit=settings.limit, text_field=settings.text_field)
        chosen = _text_indices(len(docs), limit=None, sample_texts=settings.sample_texts, rng=settings.rng)
        n_docs, texts = len(docs), [docs[i] for i in chosen]
        tokens = tokenize_corpus(texts, load_tokenizer(name=settings.model), max_pieces=cap, progress=progress)
    n_texts = len(tokens)
    n, positions = _positions(settings, tokens, cap)
    settings = replace(settings, n_positions=n)
    convention = settings.convention()
    data = tokens.incidence(convention)
    groups, unit = None, "texts, treated as independent (pass --groups to keep related texts together)"
    if settings.groups is not None:
        labels = np.array(Path(settings.groups).read_text(encoding="utf-8").splitlines()[: settings.limit or None])
        if labels.size != n_docs:
            raise ValueError(f"--groups {settings.groups} holds {labels.size} labels for {n_docs} documents: "
                             "write one label per document, one per line, in the corpus's order")
        groups = labels[chosen][tokens.kept(convention)]
        unit = f"groups of texts from {settings.groups} ({np.unique(groups).size:,} groups of {groups.size:,} texts)"
    candidates = standard_candidates(n, d_model=d, n_heads=n_heads, model=settings.model, pretrained=table_positions,
                                     offset=offset)
    estimator = settings.estimator
    rung = " at an eighth of the texts (--ladder)" if settings.ladder else ""
    try:
        # one estimand for the whole report: with a ladder, the one an eighth of the texts affords
        estimator = estimator.planned(data, fraction=LADDER_FRACTIONS[-1] if settings.ladder else 1.0)
        estimand = estimator.describe_estimand(data)
        title = f"{settings.corpus} ({convention.describe()}; {estimator.label} estimator)"
        if settings.n_resamples:
            table = stress_table(None, candidates, data=data, estimator=estimator, rng=settings.rng,
                                 n_resamples=settings.n_resamples, title=title, groups=groups)
            D = np.array(table.target)
        else:
            D = estimator.distances(data, rng=settings.rng, groups=groups).distances
            table = stress_table(D, candidates, title=title, estimator=estimator, rng=0)
    except ValueError as exc:
        raise ValueError(f"the {estimator.label} estimator cannot estimate this corpus{rung}: {exc}; use more "
                         "texts, fewer positions (--positions) or another --estimator") from None
    if not np.any(D > 0):
        raise ValueError(f"every estimated distance is 0 ({estimand}), so there is no geometry to compare the "
                         "encodings with; use more texts or fewer positions")
    floors, reason = None, "the estimand is 0 for equal distributions: D carries no upward floor"
    if estimator.upward_floor:
        try:  # the split-half noise floors of the positions, with the rng of the report
            floors = corrected_distances(data, rng=settings.rng, n_splits=20).floors
        except ValueError:
            reason = "the corpus cannot be split into two halves reaching every position"
    floor = noise_floor_summary(D, floors, reason=reason)
    lines = [f"# Stress table: {title}", "", f"Positions: {positions}", "",
             f"Distances: {estimator.label} Hellinger estimate; estimand: {estimand}.", "",
             f"Resampling unit: {unit}.", "", floor.line]
    if floor.warning:
        lines += ["", f"Warning: {floor.warning}"]
    lines += ["", table.to_markdown(), ""]
    ladder = None
    if settings.ladder:  # the same estimator (and estimand) on every rung, fitted rows refitted per resample
        from .ladder import ladder_markdown, plot_ladder, report_ladder
        ladder = report_ladder(candidates, data, estimator, rng=settings.rng, n_resamples=settings.ladder,
                               groups=groups)
        lines.append(ladder_markdown(ladder))
        plot_ladder(ladder, ax=Figure(figsize=(6.4, 0.45 * len(candidates) + 1.2)).subplots()).savefig(
            out / "ladder.png", dpi=120, bbox_inches="tight")
    else:
        lines.append("Rankings of the encodings: not tested (--ladder ranks a pair only when its order holds on "
                     "1/2, 1/4 and 1/8 of the texts).")
    (out / "stress_table.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    table.to_csv(out / "stress_table.csv")
    np.save(out / "distances.npy", D)
    distance_heatmap(D, ax=(ax := Figure(figsize=(5, 4.2)).subplots()), title=f"Hellinger distances, n={n}")
    ax.figure.savefig(out / "distances.png", dpi=120, bbox_inches="tight")
    mds = classical_mds(D)
    spectrum_plot(mds.eigenvalues, ax=(ax := Figure(figsize=(5, 3.4)).subplots()), n_show=min(n, 40))
    ax.set_title(f"spectrum of B (numerical rank {mds.rank})")
    ax.figure.savefig(out / "mds_spectrum.png", dpi=120, bbox_inches="tight")
    ranks = list(range(1, min(10, mds.rank) + 1))
    ax = Figure(figsize=(5, 3.4)).subplots()
    ax.plot(ranks, stress_by_rank(D, ranks, method="classical", rng=0).stress_raw, "o-", label="classical MDS")
    ax.set(xlabel="rank $r$", ylabel="raw stress", yscale="log")
    ax.legend()
    ax.figure.savefig(out / "stress_vs_rank.png", dpi=120, bbox_inches="tight")
    summary = {"settings": {**asdict(settings), "estimator": repr(estimator)}, "convention": convention.describe(),
               "positions": positions, "d_model": d, "n_heads": n_heads, "mds_rank": mds.rank,
               "estimator": estimator.label, "estimand": estimand,
               "splits": f"{estimator!r}, numpy Generator seeded {settings.rng}",
               "sample_texts": settings.sample_texts, "n_texts": n_texts, "unit": unit, "noise_floor": asdict(floor),
               "table": table.to_records(), "ladder": ladder}
    (out / "report.json").write_text(json.dumps(summary, indent=2, default=float), encoding="utf-8")
    return table


def _positions(settings: ReportSettings, tokens, cap: int) -> tuple[int, str]:
    """``n`` and the sentence stating how it was chosen: given, or the most that half of the texts reach."""
    if settings.n_positions is not None:
        return settings.n_positions, f"n = {settings.n_positions} (--positions)."
    counted = np.sort(np.asarray(tokens.lengths) + (2 if settings.special_tokens else 0))[::-1]
    n = int(max(2, min(cap, counted[(counted.size + 1) // 2 - 1])))
    return n, (f"n = {n}, chosen from the corpus: the most positions (at most {cap}) that at least half of the "
               f"{counted.size:,} texts reach; pass --positions to choose another.")
