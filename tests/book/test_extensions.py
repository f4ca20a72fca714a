"""The book's own Sphinx extensions (book/_ext), tested on their own: the student edition on a tiny Sphinx project
(an exercise with a solution, one with a gated solution), the ledger's rows and titles that the key-results page
reads, and the reading time and objectives that the teaching page reads from the chapters."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

EXT = Path(__file__).resolve().parents[2] / "book" / "_ext"
sys.path.insert(0, str(EXT))

import chapter_facts  # noqa: E402
import student_edition  # noqa: E402

PAGE = """Exercises
=========

.. exercise:: Count
   :label: ex-count

   How many positions?

.. solution:: ex-count

   Thirty-two, the window.

.. exercise:: Double
   :label: ex-double

   And twice the window?

.. solution-start:: ex-double

Sixty-four, from a gated solution.

.. solution-end::

After the exercises.
"""


def _build(tmp_path: Path, edition: str | None, monkeypatch) -> str:
    pytest.importorskip("sphinx_exercise")
    from sphinx.application import Sphinx

    if edition is None:
        monkeypatch.delenv(student_edition.VARIABLE, raising=False)
    else:
        monkeypatch.setenv(student_edition.VARIABLE, edition)
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(EXT)!r})\nproject = 'mini'\n"
        "extensions = ['sphinx_exercise', 'student_edition']\n"
    )
    (src / "index.rst").write_text(PAGE)
    out = tmp_path / "html"
    app = Sphinx(str(src), str(src), str(out), str(tmp_path / "doctrees"), "html", status=None, warning=None,
                 freshenv=True)
    app.build()
    return (out / "index.html").read_text()


def test_full_edition_keeps_the_solutions(tmp_path, monkeypatch):
    html = _build(tmp_path, None, monkeypatch)
    assert "How many positions?" in html and "Thirty-two, the window." in html
    assert "Sixty-four, from a gated solution." in html


def test_student_edition_drops_the_solutions_only(tmp_path, monkeypatch):
    html = _build(tmp_path, "student", monkeypatch)
    assert "How many positions?" in html, "the exercise itself must stay"
    assert "Thirty-two" not in html, "a solution is left in the student edition"
    assert "Sixty-four" not in html, "a gated solution (solution-start ... solution-end) is left in the student edition"
    assert "And twice the window?" in html and "After the exercises." in html, "the text around it must stay"
    assert "student edition" in html


def test_an_unknown_edition_is_an_error(monkeypatch):
    monkeypatch.setenv(student_edition.VARIABLE, "teacher")
    with pytest.raises(ValueError, match="student"):
        student_edition.is_student_edition()


def test_reading_minutes_counts_prose_proofs_and_equations_at_their_rates():
    prose = " ".join(["word"] * chapter_facts.PROSE_RATE)  # one minute
    proof = "```{prf:proof}\n" + " ".join(["step"] * (chapter_facts.PROOF_RATE - 2)) + "\n```"  # one minute
    exercise = "```{exercise}\n" + " ".join(["task"] * 500) + "\n```"  # lab time: not reading
    equation = "$$x^2$$"  # EQUATION_WORDS at the proof rate
    minutes = chapter_facts.reading_minutes("\n\n".join([prose, proof, exercise, equation]))
    expected = 2 + chapter_facts.EQUATION_WORDS / chapter_facts.PROOF_RATE
    assert minutes == pytest.approx(expected, abs=0.02)


def test_objectives_are_read_from_the_chapter():
    md = "Intro.\n\nAfter this chapter you can\n\n* do one thing;\n* do another,\n  over two lines.\n\nNext.\n"
    assert chapter_facts.objectives(md) == ["do one thing;", "do another, over two lines."]
    assert chapter_facts.objectives("no list here") == []


def test_ledger_rows_are_read_from_the_ledger():
    import ledger_rows

    row = "* - {ref}`T1 · a title <ledger-t1>`\n  - The claim.\n  - {bdg-success}`reproduced`\n  - 0.5\n  - Why.\n"
    assert ledger_rows.ledger_rows(row) == {
        "T1": {"label": "ledger-t1", "claim": "The claim.", "verdict": "{bdg-success}`reproduced`", "number": "0.5",
               "why": "Why.", "title": ""}
    }
    glance = "{bdg-ref-success}`T1 · a title <ledger-t1>`\n\n## The claims\n\n"
    assert ledger_rows.ledger_rows(glance + row)["T1"]["title"] == "a title"
    rows = ledger_rows.ledger_rows()
    glance = ledger_rows.LEDGER.read_text(encoding="utf-8").split("## The claims")[0]
    badges = __import__("re").findall(r"\{bdg-ref-[\w-]+\}`(\S+)[^`<]*<ledger-", glance)  # ids, titles or not
    assert badges and set(badges) == set(rows), "the table's rows and the badges at a glance differ"
    untitled = [row_id for row_id, r in rows.items() if not 0 < len(r["title"].split()) <= 5]
    assert not untitled, f"badges at a glance without a short title ('T1 · necessity', at most 5 words): {untitled}"


def test_key_results_show_every_ledger_row_once():
    import re

    import ledger_rows

    page = (EXT.parent / "key_results.md").read_text(encoding="utf-8")
    shown = [row for args in re.findall(r"^```\{ledger-verdict\} (.+)$", page, flags=re.M) for row in args.split()]
    assert sorted(shown) == sorted(ledger_rows.ledger_rows()), "key_results.md must show every ledger row once"
    assert not re.search(r"(?<![\w.{`:-])\d+\.\d+", re.sub(r"\$[^$]*\$", "", page)), "a typed number on the page"


def test_notebook_facts_count_exercises_by_difficulty(tmp_path):
    import json

    md = "```{exercise} ★★\n:label: a\n```\n\n```{exercise} ★\n:label: b\n```\n\n```{exercise}\n:label: c\n```\n"
    path = tmp_path / "x.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": [md]}]}))
    facts = chapter_facts.notebook_facts(path)
    assert facts["exercises"] == 3 and facts["by difficulty"] == [1, 1, 0]
