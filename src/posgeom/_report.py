"""Private (the pipeline behind ``posgeom report``, :func:`posgeom.cli.main`): a stress report for any corpus and
model.

corpus texts → WordPiece tokens under a stated :class:`~posgeom.data.CountingConvention` → Hellinger distances
between positions → classical MDS → the stress table of the encodings in use (:func:`posgeom.stress.stress_table`)
→ files: ``stress_table.csv``, ``stress_table.md``, ``distances.png`` (heatmap), ``mds_spectrum.png``,
``stress_vs_rank.png``, ``distances.npy`` and ``report.json`` (every setting, for reproducibility). With a ladder
(``ladder=B``), the table re-estimated on 1/2, 1/4, 1/8 of the texts and the pairwise rankings that hold on every
rung (:mod:`posgeom.report_ladder`), in ``stress_table.md``, ``report.json`` and ``ladder.png``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .stress.results import StressTable

import functools
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ._report_floor import noise_floor_summary
from ._validation import check_positive_int
from .geometry.estimators import ESTIMATORS
from .report_ladder import _FRACTIONS as LADDER_FRACTIONS

__all__ = [
    "ReportSettings",
    "ESTIMATORS",
    "ESTIMATOR_ALIASES",
    "make_report",
]

#: Former names of the estimators, still accepted (``"corrected"``: cross-fitted; ``"plugin"``: plug-in).
ESTIMATOR_ALIASES = {"corrected": "cross-fitted", "plugin": "plug-in"}
#: The smallest ``sample_texts``.
MIN_SAMPLE_TEXTS = 4

_NAMED_CORPORA = ("sst2", "imdb")


@dataclass(frozen=True)
class ReportSettings:
    """What a report computes; every field is written to ``report.json``.

    Parameters
    ----------
    corpus : str
        ``"sst2"``, ``"imdb"``, or a text file, folder or glob of shards (``.txt``: one document per line;
        ``.jsonl``/``.parquet``: field ``text_field``).
    n_positions : int
        Positions ``n`` (the learned rows need ``n`` (+1 without special tokens) <= the model's position table).
    model : str
        Tokenizer and pretrained position embeddings: ``"all-MiniLM-L6-v2"`` (offline), a hub name such as
        ``"bert-base-uncased"`` (needs the hub), or a local directory.
    split : str
        Split of a named corpus.
    special_tokens, count_padding, truncation, min_length
        The counting convention (:class:`posgeom.data.CountingConvention`).
    limit : int, optional
        Use only the first ``limit`` documents.
    n_resamples : int
        Bootstrap resamples for the intervals (0: none).
    seed : int
        Seed of the bootstrap, of the estimator's random splits and of ``sample_texts``.
    text_field : str
        Field/column of JSONL/Parquet shards.
    scheduler : str, optional
        Tokenise the shards on Dask (``"local"`` for a local cluster, or a scheduler address; not with a named
        corpus): each shard is tokenised on a worker, the parts are concatenated in the order in which one process
        reads the corpus (``posgeom.data._distributed.sharded_tokenized_corpus``), and the estimator runs in this
        process on the same data. The report is identical, bit for bit, to the one without a scheduler.
    estimator : {"resolved", "cross-fitted", "plug-in"}
        Estimator of the Hellinger distances (``posgeom.geometry.estimators.ESTIMATORS``): the resolved estimate
        (default, :class:`posgeom.geometry.Resolved`; its estimand is stated in the report), the cross-fitted one
        (:class:`posgeom.geometry.CrossFitted`) or the plug-in one (biased upward by the noise floor). The
        former names ``"corrected"`` and ``"plugin"`` are accepted and stored as ``"cross-fitted"`` and
        ``"plug-in"``.
    sample_texts : int, optional
        Use a random subset of this many texts (at least 4; drawn with ``seed``, after ``limit``, before
        tokenising).
    ladder : int
        Bootstrap resamples per rung of the subsampling ladder (0: no ladder; else at least 2). The resolved
        estimator then fixes its resolution on all the texts for an eighth of them, and the whole report (table,
        distances, ladder) estimates that one estimand.

    Raises
    ------
    ValueError, TypeError
        ``n_positions < 2``, negative ``n_resamples`` or ``seed``, non-positive ``limit``, ``sample_texts < 4``, or an
        unknown ``estimator`` (the message names the choices).

    Examples
    --------
    >>> settings = ReportSettings("sst2", n_positions=16, special_tokens=False)
    >>> settings.convention().describe()
    'n=16, word pieces only, position i over sequences reaching it'
    >>> settings.estimator, ReportSettings("sst2", estimator="plugin").estimator
    ('resolved', 'plug-in')
    """

    corpus: str
    n_positions: int = 64
    model: str = "all-MiniLM-L6-v2"
    split: str = "train"
    special_tokens: bool = True
    count_padding: bool = False
    truncation: str = "model"
    min_length: int | None = None
    limit: int | None = None
    n_resamples: int = 0
    seed: int = 0
    text_field: str = "text"
    scheduler: str | None = None
    estimator: str = "resolved"
    sample_texts: int | None = None
    ladder: int = 0

    def __post_init__(self):
        estimator = ESTIMATOR_ALIASES.get(self.estimator, self.estimator)
        if estimator not in ESTIMATORS:
            raise ValueError(f"unknown estimator {self.estimator!r}: choose one of {', '.join(ESTIMATORS)} "
                             f"(the former names {', '.join(ESTIMATOR_ALIASES)} are read as "
                             f"{', '.join(ESTIMATOR_ALIASES.values())})")
        object.__setattr__(self, "estimator", estimator)
        check_positive_int(self.n_positions, "n_positions", minimum=2)
        check_positive_int(self.n_resamples, "n_resamples", minimum=0)
        check_positive_int(self.seed, "seed", minimum=0)
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
        """The counting convention of these settings.

        Returns
        -------
        posgeom.data.CountingConvention
            Built from ``n_positions``, ``special_tokens``, ``count_padding``, ``truncation`` and ``min_length``.

        Raises
        ------
        ValueError, TypeError
            An invalid convention (e.g. an unknown ``truncation``).

        Examples
        --------
        >>> ReportSettings("imdb", n_positions=32, min_length=32).convention().key
        'n32-s1-p0-model-m32'
        """
        from .data.text import CountingConvention

        return CountingConvention(self.n_positions, special_tokens=self.special_tokens,
                                  count_padding=self.count_padding, truncation=self.truncation,
                                  min_length=self.min_length)


def _load_texts(corpus: str, *, split: str = "train", limit: int | None = None, text_field: str = "text") -> list[str]:
    """The documents of a named corpus split or of a file/folder/glob of shards, optionally the first ``limit``.

    Parameters
    ----------
    corpus : str
        ``"sst2"`` or ``"imdb"`` (loaded with :mod:`posgeom.data`), or a file, folder or glob of shards.
    split : str, default "train"
        Split of a named corpus (ignored for shards).
    limit : int, optional
        Keep only the first ``limit`` documents.
    text_field : str, default "text"
        Field/column of JSONL/Parquet shards.

    Returns
    -------
    list of str
        The documents.

    Raises
    ------
    ValueError
        The corpus has no documents, or a shard cannot be read.
    FileNotFoundError
        No shard file matches ``corpus``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "reviews.txt").write_text("a fine film\\nskip it\\nloved it\\n", encoding="utf-8")
    ...     _load_texts(tmp, limit=2)
    ['a fine film', 'skip it']
    """
    if corpus in _NAMED_CORPORA:
        from .data import datasets

        texts = (datasets.load_sst2 if corpus == "sst2" else datasets.load_imdb)(split).texts
    else:
        from .data._shards import read_shard, shard_paths

        texts = [doc for path in shard_paths(corpus) for doc in read_shard(path, text_field=text_field)]
    if not texts:
        raise ValueError(f"the corpus {corpus!r} has no documents (empty files?)")
    return texts[:limit] if limit else texts


def _sample_texts(texts: list[str], n: int | None, seed: int) -> list[str]:
    """A seeded random subset of ``n`` texts, in corpus order (all texts when ``n`` is ``None``)."""
    if n is None:
        return texts
    return [texts[i] for i in _text_indices(len(texts), limit=None, sample_texts=n, seed=seed)]


def _text_indices(n_texts: int, *, limit: int | None, sample_texts: int | None, seed: int) -> np.ndarray:
    """The indices of the texts a report uses: the first ``limit``, then a seeded subset of ``sample_texts``.

    The one selection of both routes (``_load_texts`` + ``_sample_texts`` in one process, and the ``select``
    of ``sharded_tokenized_corpus`` on Dask), so that both use the same texts.
    """
    m = min(n_texts, limit) if limit else n_texts
    if sample_texts is None:
        return np.arange(m)
    if sample_texts > m:
        raise ValueError(f"--sample-texts {sample_texts} exceeds the {m} texts of the corpus: choose at most {m}")
    return np.sort(np.random.default_rng(seed).choice(m, size=sample_texts, replace=False))


def _model_shape(model: str) -> tuple[int, int]:
    from transformers import AutoConfig

    from .data.pretrained import _resolve_model

    config = AutoConfig.from_pretrained(str(_resolve_model(model)))
    return int(config.hidden_size), int(config.num_attention_heads)


#: Random splits averaged by the corrected estimator of the report.
CORRECTED_SPLITS = 20


def _split_method(settings: ReportSettings) -> str | None:
    """How the estimator split the documents (``None`` for the plug-in estimate)."""
    if settings.estimator == "plug-in":
        return None
    if settings.estimator == "resolved":
        return (f"{CORRECTED_SPLITS} random splits into halves, every position subsampled to the same number of "
                f"texts per half (numpy Generator seeded {settings.seed})")
    return f"{CORRECTED_SPLITS} random permutations of the sequences (numpy Generator seeded {settings.seed})"


def make_report(settings: ReportSettings, out: str | os.PathLike, *, progress: bool = False) -> StressTable:
    """Compute the report and write its files into ``out`` (created if needed).

    Parameters
    ----------
    settings : ReportSettings
        Corpus, convention, model and bootstrap.
    out : str or os.PathLike
        Output folder: ``stress_table.csv``, ``stress_table.md``, ``distances.png``, ``mds_spectrum.png``,
        ``stress_vs_rank.png``, ``distances.npy`` and ``report.json`` are written there (and ``ladder.png`` with a
        ladder).
    progress : bool, default False
        Show a progress bar while tokenising.

    Returns
    -------
    posgeom.stress.StressTable
        The table that was written.

    Raises
    ------
    ValueError
        ``n_positions`` too large for the model's position table, a named corpus with a Dask scheduler, an
        empty corpus, ``sample_texts`` above the number of texts, or a corpus the estimator cannot split (with a
        ladder: whose eighth it cannot split, or at whose eighth's resolution no token keeps a cell of its own).
    OSError, FileNotFoundError
        Unreadable corpus or model files.

    Examples
    --------
    A tiny report on the shipped toy reviews with the offline model (a few seconds, no network):

    >>> import tempfile
    >>> from posgeom.corpus.toy_text import _tiny_reviews
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     texts = _tiny_reviews(n_reviews=400, rng=0)
    ...     _ = (Path(tmp) / "reviews.txt").write_text("\\n".join(texts), encoding="utf-8")
    ...     table = make_report(ReportSettings(str(Path(tmp) / "reviews.txt"), n_positions=6), Path(tmp) / "out")
    ...     names = sorted(p.name for p in (Path(tmp) / "out").iterdir())
    >>> len(names), names[:4]
    (7, ['distances.npy', 'distances.png', 'mds_spectrum.png', 'report.json'])
    >>> table.n_positions, table.names[0]
    (6, 'sinusoidal')
    """
    from matplotlib.figure import Figure  # not pyplot: the caller's backend (e.g. a notebook's) stays as it is

    from .data.pretrained import learned_position_embeddings
    from .data.text import load_tokenizer, tokenize_corpus
    from .geometry._crossfit import corrected_distances
    from .geometry.estimators import CrossFitted, PlugIn, Resolved
    from .geometry.mds import classical_mds
    from .plotting import _spectrum_plot, distance_heatmap
    from .stress import standard_candidates, stress_table
    from .stress.rank_curve import stress_by_rank

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    convention = settings.convention()
    n = settings.n_positions
    d, n_heads = _model_shape(settings.model)
    table_positions = learned_position_embeddings(model=settings.model)
    offset = 0 if settings.special_tokens else 1
    if n + offset > table_positions.shape[0]:
        raise ValueError(
            f"n_positions={n} needs {n + offset} learned positions but {settings.model!r} has "
            f"{table_positions.shape[0]}; use --positions <= {table_positions.shape[0] - offset}"
        )
    floors = None
    estimand = (CrossFitted() if settings.estimator == "cross-fitted" else PlugIn()).describe_estimand()
    if settings.scheduler is not None:
        # only the tokenising runs on Dask: the shards' tokens, concatenated in the order of the one-pass route
        # (shards sorted by path, documents in file order), feed the same estimator code below
        from .data._distributed import sharded_tokenized_corpus

        if settings.corpus in _NAMED_CORPORA:
            raise ValueError("--scheduler tokenises shards on disk: pass a folder or glob of text/JSONL/Parquet files")
        select = None
        if settings.limit or settings.sample_texts is not None:
            select = functools.partial(_text_indices, limit=settings.limit, sample_texts=settings.sample_texts,
                                       seed=settings.seed)
        tokens = sharded_tokenized_corpus(settings.corpus, n, model=settings.model,
                                          scheduler=None if settings.scheduler == "local" else settings.scheduler,
                                          text_field=settings.text_field, select=select)
    else:
        texts = _load_texts(settings.corpus, split=settings.split, limit=settings.limit, text_field=settings.text_field)
        texts = _sample_texts(texts, settings.sample_texts, settings.seed)
        tokens = tokenize_corpus(texts, load_tokenizer(name=settings.model), max_pieces=n, progress=progress)
    n_texts = len(tokens)
    data = tokens.incidence(convention)
    if settings.estimator == "resolved":
        # no split-half floor: the resolved estimand is 0 for equal distributions (no upward bias to measure)
        planned = LADDER_FRACTIONS[-1] if settings.ladder else 1.0  # a ladder: one resolution for every rung
        try:
            resolution = Resolved(n_splits=CORRECTED_SPLITS).fixed(data, fraction=planned).resolution
            if not resolution.tokens:  # one cell ("other"): every distance would be 0 by construction
                raise ValueError(f"its resolution keeps no token of its own ({resolution.describe()}), so every "
                                 "distance would be 0; use more texts or fewer positions")
            estimate = Resolved(resolution=resolution, n_splits=CORRECTED_SPLITS).distances(data, rng=settings.seed)
        except ValueError as exc:
            rung = " at an eighth of the texts (--ladder)" if settings.ladder else ""
            raise ValueError(f"the resolved estimator cannot estimate this corpus{rung}: {exc}; "
                             "or use --estimator cross-fitted or plug-in") from None
        D, estimand = estimate.distances, estimate.estimand
    else:
        try:  # the split-half noise floors (and the cross-fitted estimate), with the seed of the report
            corrected = corrected_distances(data, rng=settings.seed, n_splits=CORRECTED_SPLITS)
        except ValueError as exc:
            if settings.estimator == "cross-fitted":
                raise ValueError(f"the cross-fitted estimator cannot split this corpus ({exc}); "
                                 "or use --estimator plug-in") from None
            corrected = None
        floors = None if corrected is None else corrected.floors
        D = corrected.distances if settings.estimator == "cross-fitted" else PlugIn().distances(data).distances
    candidates = standard_candidates(n, d_model=d, n_heads=n_heads, model=settings.model, pretrained=table_positions,
                                     offset=offset)
    title = f"{settings.corpus} ({convention.describe()}; {settings.estimator} estimator)"
    table_estimator = {
        "resolved": lambda: Resolved(resolution=resolution, n_splits=CORRECTED_SPLITS),
        "cross-fitted": lambda: CrossFitted(n_splits=CORRECTED_SPLITS),
        "plug-in": PlugIn,
    }[settings.estimator]()
    if settings.n_resamples:
        table = stress_table(None, candidates, data=data, estimator=table_estimator, rng=settings.seed,
                             n_resamples=settings.n_resamples, title=title)
    else:
        table = stress_table(D, candidates, title=title, estimator=table_estimator)
    if settings.estimator == "resolved":
        floor = noise_floor_summary(D, None, reason="the resolved estimand is 0 for equal distributions, so its "
                                                    "estimate carries no upward noise floor")
    else:
        floor = noise_floor_summary(D, floors)
    estimator_line = {
        "resolved": "Distances: resolved (cross-fitted, equal-reach) Hellinger estimate",
        "cross-fitted": "Distances: corrected (cross-fitted, bias-corrected) Hellinger estimate",
        "plug-in": "Distances: plug-in Hellinger estimate (biased upward by the noise floor)",
    }[settings.estimator] + f"; estimand: {estimand}."
    lines = [f"# Stress table: {title}", "", estimator_line, "", floor.line]
    if floor.warning:
        lines += ["", f"**Warning:** {floor.warning}"]
    lines += ["", table.to_markdown(), ""]
    ladder = None
    if settings.ladder:  # the same estimator (and estimand) on every rung, fitted rows refitted per resample
        from .report_ladder import _ladder_markdown, plot_ladder, report_ladder

        ladder = report_ladder(candidates, data, table_estimator, rng=settings.seed, n_resamples=settings.ladder)
        lines.append(_ladder_markdown(ladder))
        fig = Figure(figsize=(6.4, 0.45 * len(candidates) + 1.2))
        plot_ladder(ladder, ax=fig.subplots())
        fig.savefig(out / "ladder.png", dpi=120, bbox_inches="tight")
    else:
        lines.append("Rankings of the encodings: not tested (--ladder ranks a pair only when its order holds on "
                     "1/2, 1/4 and 1/8 of the texts).")
    (out / "stress_table.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    table.to_csv(out / "stress_table.csv")
    np.save(out / "distances.npy", D)

    fig = Figure(figsize=(5, 4.2))
    ax = fig.subplots()
    distance_heatmap(D, ax=ax, title=f"Hellinger distances, n={n}")
    fig.savefig(out / "distances.png", dpi=120, bbox_inches="tight")
    mds = classical_mds(D)
    fig = Figure(figsize=(5, 3.4))
    ax = fig.subplots()
    _spectrum_plot(mds.eigenvalues, ax=ax, n_show=min(n, 40))
    ax.set_title(f"spectrum of B (numerical rank {mds.rank})")
    fig.savefig(out / "mds_spectrum.png", dpi=120, bbox_inches="tight")
    ranks = list(range(1, min(10, mds.rank) + 1))
    curve = stress_by_rank(D, ranks, method="classical")
    fig = Figure(figsize=(5, 3.4))
    ax = fig.subplots()
    ax.plot(ranks, curve.stress_raw, "o-", label="classical MDS")
    ax.set_xlabel("rank $r$")
    ax.set_ylabel("raw stress")
    ax.set_yscale("log")
    ax.legend()
    fig.savefig(out / "stress_vs_rank.png", dpi=120, bbox_inches="tight")
    summary = {"settings": asdict(settings), "convention": convention.describe(), "d_model": d, "n_heads": n_heads,
               "mds_rank": mds.rank, "estimator": settings.estimator, "estimand": estimand,
               "splits": _split_method(settings), "sample_texts": settings.sample_texts, "n_texts": n_texts,
               "noise_floor": asdict(floor), "table": table.to_records(), "ladder": ladder}
    (out / "report.json").write_text(json.dumps(summary, indent=2, default=float), encoding="utf-8")
    return table
