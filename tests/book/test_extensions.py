"""The book's own Sphinx extensions (book/_ext), tested on their own: the student edition on a tiny Sphinx project
(an exercise with a solution, one with a gated solution), the ledger's rows and titles that the key-results page
reads, and the reading time and objectives that the teaching page reads from the chapters."""

from __future__ import annotations

import re
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

After the exercises. Hand out :student-edition:`this page without solutions`.
"""


def _build(tmp_path: Path, edition: str | None, monkeypatch, pages: dict | None = None, conf: str = "") -> str:
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
        "extensions = ['sphinx_exercise', 'student_edition']\n" + conf
    )
    (src / "index.rst").write_text(PAGE)
    for name, text in (pages or {}).items():
        (src / f"{name}.rst").write_text(text)
    out = tmp_path / "html"
    app = Sphinx(
        str(src), str(src), str(out), str(tmp_path / "doctrees"), "html", status=None, warning=None, freshenv=True
    )
    app.build()
    return (out / "index.html").read_text()


def test_full_edition_keeps_the_solutions(tmp_path, monkeypatch):
    html = _build(tmp_path, None, monkeypatch)
    assert "How many positions?" in html and "Thirty-two, the window." in html
    assert "Sixty-four, from a gated solution." in html
    link = re.search(r'<a [^>]*href="([^"]+)"[^>]*>this page without solutions</a>', html)
    assert link and link.group(1) == "student/index.html", "the full edition links the page in the student edition"


def test_student_edition_drops_the_solutions_only(tmp_path, monkeypatch):
    html = _build(tmp_path, "student", monkeypatch)
    assert "How many positions?" in html, "the exercise itself must stay"
    assert "Thirty-two" not in html, "a solution is left in the student edition"
    assert "Sixty-four" not in html, "a gated solution (solution-start ... solution-end) is left in the student edition"
    assert "And twice the window?" in html and "After the exercises." in html, "the text around it must stay"
    assert "student edition" in html
    assert "this page without solutions" in html and "student/index.html" not in html, "the student edition's own text"


LECTURER = """Lecturer
========

.. toctree::
   :hidden:

What comes first? Think it through.

.. container:: pg-lecturer

   Expected: the cat (Forty-two).
"""


@pytest.mark.parametrize("edition", [None, "student"])
def test_the_lecturers_containers_stay_out_of_the_student_edition(tmp_path, monkeypatch, edition):
    _build(tmp_path, edition, monkeypatch, {"lecturer": LECTURER})
    html = (tmp_path / "html" / "lecturer.html").read_text()
    assert "What comes first?" in html, "the question stays in both editions"
    if edition is None:
        assert "Forty-two" in html, "the full edition keeps the lecturer's answer"
    else:
        assert "Forty-two" not in html, "the student edition leaves the lecturer's container out"


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


def test_reading_as_it_opens_leaves_out_dropdowns_and_reproducibility():
    words = " ".join(["word"] * chapter_facts.PROSE_RATE)  # one minute each
    page = "\n\n".join(
        [
            "## Results",
            words,
            "````{dropdown} Details\n" + words + "\n````",
            "```{admonition} Aside\n:class: tip dropdown\n" + words + "\n```",
            "```{admonition} Shown\n:class: tip\n" + words + "\n```",
            "## Reproducibility",
            words,
            "## Exercises",
            words,
        ]
    )
    opened = chapter_facts.reading_minutes(chapter_facts.as_it_opens(page))
    assert opened == pytest.approx(4, abs=0.2), "the results, the open admonition, the fold's opening, what follows"
    assert chapter_facts.reading_minutes(page) == pytest.approx(6, abs=0.2)
    extra = "\n\n".join(
        [
            "## Results",
            words,
            "````{dropdown} Shown\n:open:\n\n" + words + "\n````",  # opens unfolded
            "```{solution-start} ex-a\n:class: dropdown\n```\n" + words + "\n```{solution-end}\n```",  # lab time
            "## Reproducibility",
            words,
            "```{dropdown} Methods\n" + words + "\n```",  # its opening paragraph shows
        ]
    )
    assert chapter_facts.reading_minutes(chapter_facts.as_it_opens(extra)) == pytest.approx(3, abs=0.2)
    assert chapter_facts.reading_minutes(extra) == pytest.approx(4, abs=0.2), "the solution is not reading time"


def test_objectives_are_read_from_the_chapter():
    md = "Intro.\n\nAfter this chapter you can\n\n* do one thing;\n* do another,\n  over two lines.\n\nNext.\n"
    assert chapter_facts.objectives(md) == ["do one thing;", "do another, over two lines."]
    assert chapter_facts.objectives("no list here") == []


def test_ledger_rows_are_read_from_the_ledger():
    import ledger_rows

    row = "* - {ref}`T1 · a title <ledger-t1>`\n  - The claim.\n  - {bdg-success}`reproduced`\n  - 0.5\n  - Why.\n"
    assert ledger_rows.ledger_rows(row) == {
        "T1": {
            "label": "ledger-t1",
            "claim": "The claim.",
            "verdict": "{bdg-success}`reproduced`",
            "number": "0.5",
            "why": "Why.",
            "title": "",
        }
    }
    glance = "{bdg-ref-success}`T1 · a title <ledger-t1>`\n\n## The claims\n\n"
    assert ledger_rows.ledger_rows(glance + row)["T1"]["title"] == "a title"
    rows = ledger_rows.ledger_rows()
    glance = ledger_rows.LEDGER.read_text(encoding="utf-8").split("## The claims")[0]
    badges = __import__("re").findall(r"\{bdg-ref-[\w-]+\}`(\S+)[^`<]*<ledger-", glance)  # ids, titles or not
    assert badges and set(badges) == set(rows), "the table's rows and the badges at a glance differ"
    untitled = [row_id for row_id, r in rows.items() if not 0 < len(r["title"].split()) <= 5]
    assert not untitled, f"badges at a glance without a short title ('T1 · necessity', at most 5 words): {untitled}"


def test_a_plain_verdict_line_leaves_the_number_and_the_reason_out():
    import ledger_rows

    row = {
        "label": "ledger-t1",
        "verdict": "{bdg-success}`reproduced`",
        "number": "0.5",
        "why": "Why.",
        "title": "a title",
    }
    full = ledger_rows.verdict_line("T1", row)
    assert full == "{bdg-success}`reproduced` **a title**: 0.5 ({ref}`ledger row T1 <ledger-t1>`). Why."
    plain = ledger_rows.verdict_line("T1", row, plain=True)
    assert plain == "{bdg-success}`reproduced` **a title** ({ref}`ledger row T1 <ledger-t1>`)."
    assert ledger_rows.verdict_line("T1", {**row, "title": ""}) == (
        "{bdg-success}`reproduced` 0.5 ({ref}`ledger row T1 <ledger-t1>`). Why."
    )


REAL_TEXT = (
    "03_text_geometry",
    "03_real_text",
    "03b_estimating",
    "05b_sinusoid.ipynb::ch05b_k",
    "07_stress",
    "07_encodings",
    "10_your_corpus",
    "SST-2",
    "IMDB",
)


def _names_its_resolution(number: str) -> bool:
    """A real-text headline number names the resolution K and the share of the mass it keeps, or the full vocabulary."""
    named = ("K =" in number and "of the mass" in number) or "full vocabulary" in number
    return named or not any(s in number for s in REAL_TEXT)


def test_every_real_text_ledger_row_names_its_resolution_and_mass():
    import ledger_rows

    assert not _names_its_resolution("{glue:text}`07_stress_of_encodings.ipynb::ch07_x:.3f` on SST-2"), "can fail"
    missing = [k for k, r in ledger_rows.ledger_rows().items() if not _names_its_resolution(r["number"])]
    assert not missing, f"real-text ledger rows whose number does not say 'K = ...' and '... of the mass': {missing}"


def test_key_results_show_every_ledger_row_once():
    import ledger_rows

    page = (EXT.parent / "key_results.md").read_text(encoding="utf-8")
    shown = [row for args in re.findall(r"^```\{ledger-verdict\} (.+)$", page, flags=re.M) for row in args.split()]
    assert sorted(shown) == sorted(ledger_rows.ledger_rows()), "key_results.md must show every ledger row once"
    blocks = re.findall(r"^```\{ledger-verdict\} .+\n((?::[^\n]*\n)*)```", page, flags=re.M)
    assert blocks and all(":plain:" in b for b in blocks), "the plain-words page leaves the numbers and reasons out"
    assert not re.search(r"(?<![\w.{`:-])\d+\.\d+", re.sub(r"\$[^$]*\$", "", page)), "a typed number on the page"


def test_notebook_facts_count_exercises_by_difficulty(tmp_path):
    import json

    md = "```{exercise} ★★\n:label: a\n```\n\n```{exercise} ★\n:label: b\n```\n\n```{exercise}\n:label: c\n```\n"
    path = tmp_path / "x.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": [md]}]}))
    facts = chapter_facts.notebook_facts(path)
    assert facts["exercises"] == 3 and facts["by difficulty"] == [1, 1, 0]


FOLDED = """Folded
======

.. dropdown:: Details of a row

   The details of a row, folded on screen.

.. admonition:: A proof
   :class: dropdown

   A proof, folded on screen.

.. exercise:: Count
   :label: ex-fold

   How many positions?

.. solution:: ex-fold
   :class: dropdown

   Thirty-two, folded on screen.
"""


def _build_folded(tmp_path: Path, builder: str) -> str:
    pytest.importorskip("sphinx_design")
    pytest.importorskip("sphinx_togglebutton")
    pytest.importorskip("sphinx_exercise")
    from sphinx.application import Sphinx

    src = tmp_path / "src"
    src.mkdir(parents=True)
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(EXT)!r})\nproject = 'mini'\n"
        "extensions = ['sphinx_design', 'sphinx_togglebutton', 'sphinx_exercise', 'singlehtml_nodes']\n"
    )
    (src / "index.rst").write_text(FOLDED)
    out = tmp_path / builder
    Sphinx(
        str(src), str(src), str(out), str(tmp_path / "doctrees"), builder, status=None, warning=None, freshenv=True
    ).build()
    return (out / "index.html").read_text()


def test_the_print_build_opens_every_dropdown(tmp_path):
    """The PDF is printed from the single-page build: its dropdowns must be open there, and folded on the site."""
    single = _build_folded(tmp_path / "single", "singlehtml")
    details = re.findall(r"<details[^>]*sd-dropdown[^>]*>", single)
    assert details and all("open" in tag for tag in details), f"a sphinx-design dropdown prints closed: {details}"
    admonitions = re.findall(r'<div class="([^"]*\bdropdown\b[^"]*)"', single)
    assert len(admonitions) == 2 and all("toggle-shown" in c for c in admonitions), admonitions
    for text in ("The details of a row, folded", "A proof, folded", "Thirty-two, folded"):
        assert text in single
    site = _build_folded(tmp_path / "site", "html")
    assert not any("open" in tag for tag in re.findall(r"<details[^>]*sd-dropdown[^>]*>", site))
    assert "toggle-shown" not in site, "the web site's dropdowns must stay folded"


def test_unnumbered_pages_number_their_figures_on_their_own():
    import figure_numbers

    fignumbers = {
        "book/01_necessity": {"figure": {"f3": (3, 1)}},
        "book/primer_encodings": {"figure": {"p2": (2,), "p1": (1,)}, "exercise": {"e1": (1,)}},
        "book/appendix_ntk": {"figure": {"a1": (3,)}, "exercise": {"e1": (2,), "e2": (3,)}},
        "book/key_results": {},
    }
    secnumbers = {"book/01_necessity": {"": (3,)}}
    changed = figure_numbers.prefix_numbers(fignumbers, secnumbers, figure_numbers.PREFIXES)
    assert sorted(changed) == ["book/appendix_ntk", "book/primer_encodings"]
    assert fignumbers["book/01_necessity"] == {"figure": {"f3": (3, 1)}}, "a numbered chapter keeps its numbers"
    assert fignumbers["book/primer_encodings"] == {
        "figure": {"p1": ("P", 1), "p2": ("P", 2)},
        "exercise": {"e1": ("P", 1)},
    }
    assert fignumbers["book/appendix_ntk"] == {"figure": {"a1": ("A", 1)}, "exercise": {"e1": ("A", 1), "e2": ("A", 2)}}


def _numbered_book(tmp_path, pages: dict[str, str]):
    """Build a small Sphinx project with the figure_numbers extension and the given ``{path: rst}`` pages."""
    from sphinx.application import Sphinx

    src = tmp_path / "src"
    (src / "book").mkdir(parents=True)
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(EXT)!r})\nproject = 'mini'\nnumfig = True\n"
        "extensions = ['figure_numbers']\n"
    )
    (src / "pic.png").write_bytes(b"")
    for path, text in pages.items():
        (src / path).write_text(text)
    out = tmp_path / "html"
    Sphinx(
        str(src), str(src), str(out), str(tmp_path / "doctrees"), "html", status=None, warning=None, freshenv=True
    ).build()
    return out


def test_a_figure_numbered_with_a_letter_reads_as_such(tmp_path):
    """Sphinx joins a number's parts with dots wherever it prints one: ("A", 1) is Fig. A.1 in a caption and a ref."""
    pytest.importorskip("sphinx_exercise")
    figure = ".. figure:: /pic.png\n   :name: {name}\n\n   A caption.\n"
    out = _numbered_book(
        tmp_path,
        {
            "index.rst": "Book\n====\n\n.. toctree::\n   :numbered:\n\n   book/chapter\n\n.. toctree::\n\n"
            "   book/primer_encodings\n   book/appendix_ntk\n\n"
            "See :numref:`fig-p2`, :numref:`fig-a1` and :numref:`fig-c1`.\n",
            "book/chapter.rst": "Chapter\n=======\n\n" + figure.format(name="fig-c1"),
            "book/primer_encodings.rst": "Primer\n======\n\n"
            + figure.format(name="fig-p1")
            + "\n"
            + figure.format(name="fig-p2"),
            "book/appendix_ntk.rst": "Appendix\n========\n\n" + figure.format(name="fig-a1"),
        },
    )
    index = (out / "index.html").read_text()
    assert "Fig. P.2" in index and "Fig. A.1" in index and "Fig. 1.1" in index, index
    assert "Fig. A.1" in (out / "book" / "appendix_ntk.html").read_text()


def test_a_companion_section_is_numbered_as_itself():
    import figure_numbers

    fignumbers = {
        "book/03_text_geometry": {"figure": {"f1": (3, 1)}},
        "book/03b_estimating_distances": {"figure": {"g2": (3, 3), "g1": (3, 2)}},
    }
    secnumbers = {
        "book/03_text_geometry": {"": (3,), "#ex": (3, 8)},
        "book/03b_estimating_distances": {"": (3, 9), "#why": (3, 9, 1), "#flat": (3, 9, 2)},
    }
    changed = figure_numbers.companion_numbers(fignumbers, secnumbers, figure_numbers.COMPANIONS)
    assert changed == ["book/03b_estimating_distances"]
    assert secnumbers["book/03b_estimating_distances"] == {"": ("3b",), "#why": ("3b", 1), "#flat": ("3b", 2)}
    assert fignumbers["book/03b_estimating_distances"] == {"figure": {"g1": ("3b", 1), "g2": ("3b", 2)}}
    assert secnumbers["book/03_text_geometry"] == {"": (3,), "#ex": (3, 8)}, "the chapter keeps its numbers"


def test_a_companion_reads_3b_in_its_headings_the_toctree_and_references(tmp_path):
    out = _numbered_book(
        tmp_path,
        {
            "index.rst": "Book\n====\n\n.. toctree::\n   :numbered:\n\n   book/03_text_geometry\n\n"
            "See :numref:`fig-g1`.\n",
            "book/03_text_geometry.rst": "Chapter\n=======\n\n.. figure:: /pic.png\n   :name: fig-c1\n\n"
            "   A caption.\n\nExercises\n---------\n\n.. toctree::\n\n   03b_estimating_distances\n",
            "book/03b_estimating_distances.rst": "Companion\n=========\n\nWhy\n---\n\n.. figure:: /pic.png\n"
            "   :name: fig-g1\n\n   Another caption.\n",
        },
    )
    companion = (out / "book" / "03b_estimating_distances.html").read_text()
    assert "3b.1. " in companion and "Fig. 3b.1" in companion, companion
    # without the renumbering the companion's headings would be numbered 1.1.1 and on, its figure Fig. 1.2
    assert 'section-number">1.1.' not in companion and "Fig. 1.2" not in companion, companion
    chapter, index = (out / "book" / "03_text_geometry.html").read_text(), (out / "index.html").read_text()
    assert "3b. Companion" in chapter and "3b. Companion" in index and "Fig. 3b.1" in index


def test_a_figure_image_takes_its_caption_as_alternative_text():
    import figure_alt
    from docutils import nodes

    doc = nodes.document(None, None)
    glued = nodes.figure("", nodes.image(uri="_images/3f2a.png"), nodes.caption("", "Stress falls with rank."))
    described = nodes.figure("", nodes.image(uri="a.png", alt="a bar chart"), nodes.caption("", "Ignored."))
    bare = nodes.figure("", nodes.image(uri="b.png"))  # no caption: nothing to take
    doc += [glued, described, bare]
    assert figure_alt.caption_alt(doc) == 1
    alts = [image.get("alt") for image in doc.findall(nodes.image)]
    assert alts == ["Stress falls with rank.", "a bar chart", None]


def test_a_glued_image_without_a_figure_takes_the_paragraph_after_it():
    import figure_alt
    from docutils import nodes

    doc = nodes.document(None, None)
    output = nodes.container("", nodes.image(uri="_images/9c1d.png"))  # what {glue} with :doc: leaves
    doc += [output, nodes.paragraph("", "Figure. Distances grow with the gap."), nodes.paragraph("", "Later text.")]
    inside = nodes.figure("", nodes.image(uri="c.png"))  # a figure's image: the caption's business, not this
    doc += [inside, nodes.paragraph("", "Not a caption.")]
    assert figure_alt.following_alt(doc) == 1
    assert [image.get("alt") for image in doc.findall(nodes.image)] == ["Distances grow with the gap.", None]


def test_reproducibility_folds_behind_one_dropdown_that_counts_its_checks():
    import fold_reproducibility
    from docutils import nodes

    section = nodes.section("", nodes.title("", "Reproducibility"), nodes.paragraph("", "Every check, in order."))
    section += [nodes.literal_block("", "✓ a holds (0.1)\n✓ b holds"), nodes.container("", nodes.paragraph("", "x"))]
    section += nodes.literal_block("", "not a check: ✓ mid-line\n✓ c holds")
    assert fold_reproducibility.count_checks(section) == 3
    assert fold_reproducibility.fold(section)
    raw = [n for n in section.children if isinstance(n, nodes.raw)]
    assert section.index(raw[0]) == 2, "the opening paragraph stays outside the fold"
    assert raw[1] is section.children[-1] and raw[1].astext() == "</div></details>"
    assert "Show the 3 checks" in raw[0].astext()
    bare = nodes.section("", nodes.title("", "Reproducibility"), nodes.paragraph("", "Nothing to fold."))
    assert not fold_reproducibility.fold(bare) and len(bare.children) == 2


def test_the_fold_title_counts_in_words_and_only_html_pages_fold():
    import fold_reproducibility as fr
    from docutils import nodes

    assert fr.summary_text(1).startswith("Show the check (") and "the 2 checks" in fr.summary_text(2)
    assert fr.summary_text(0) == "Show the protocol"

    def page():
        doc = nodes.document(None, None)
        repro = nodes.section("", nodes.title("", "Reproducibility"), nodes.literal_block("", "✓ a"))
        doc += [nodes.section("", nodes.title("", "Results"), nodes.literal_block("", "✓ b")), repro]
        return doc

    assert fr.fold_page(page(), "html", "html") == 1
    assert fr.fold_page(page(), "html", "singlehtml") == 0, "the PDF's single page prints the section in full"
    assert fr.fold_page(page(), "latex", "latex") == 0


def test_the_reading_path_is_read_from_the_index_card():
    import reading_path

    path = reading_path.path_from_index((EXT.parent / "index.md").read_text(encoding="utf-8"))
    assert path[0] == "primer_encodings" and len(path) == len(set(path)) >= 4  # the core: four pages, each once
    missing = [d for d in path if not any((EXT.parent / f"{d}{s}").is_file() for s in (".md", ".ipynb"))]
    assert not missing, f"the path names pages that do not exist: {missing}"
    with pytest.raises(ValueError, match="The core"):
        reading_path.path_from_index("# An index without the card\n")


def test_the_sidebar_marks_the_path_in_order():
    import json

    import reading_path

    script = reading_path.step_script(["book/primer_encodings", "book/01_necessity"])
    listed = json.loads(script.split("var path = ", 1)[1].split(";", 1)[0])
    assert listed == ["primer_encodings.html", "01_necessity.html"]
    assert "'Core ' + (k + 1)" in script and ".bd-sidenav a.reference.internal" in script


def test_the_theme_buttons_are_styled_not_hidden():
    """The theme's previous/next buttons stay (they follow the table of contents, as the sidebar does): no rule of the
    stylesheet that names them hides them; the path's strip and box have their style."""
    import reading_path

    css = (EXT.parents[1] / "_static" / "posgeom.css").read_text(encoding="utf-8")
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    rules = re.findall(r"([^{}]*prev-next[^{}]*)\{([^}]*)\}", css)
    assert rules, "the stylesheet no longer sets the theme's subtitles' case (see _static/posgeom.css)"
    hiding = [sel.strip() for sel, body in rules if re.search(r"display:\s*none|visibility:\s*hidden|order:", body)]
    assert not hiding, f"the stylesheet hides or reorders the theme's previous/next buttons: {hiding}"
    assert f"div.{reading_path.BOX_CLASS}" in css, "the path's box has no style"
    assert f"div.{reading_path.STRIP_CLASS}" in css, "the path's strip has no style"


def test_the_renamed_words_are_the_themes_subtitles():
    """The words that the path's pages rename are the ones the theme's previous/next buttons are subtitled with."""
    import importlib.util

    import reading_path as rp

    theme = importlib.util.find_spec("pydata_sphinx_theme")
    if theme is None:
        pytest.skip("pydata-sphinx-theme is not installed")
    template = Path(theme.origin).parent / "theme" / "pydata_sphinx_theme" / "components" / "prev-next.html"
    subtitles = re.findall(r'<p class="prev-next-subtitle">\{\{ _\("(\w+)"\) \}\}</p>', template.read_text())
    assert subtitles == ["previous", "next"], f"the theme's buttons are no longer subtitled as expected: {subtitles}"
    assert rp.BOOK_ORDER == {"previous": "previous in book order", "next": "next in book order"}


CARD_TEXT = """:::{grid-item-card} The core
What an encoding must do.

{doc}`a` → {doc}`Second <b>` (its first
three sections: the {term}`corpora <corpus>`) →
{doc}`c` (the recap)

Going further, in any order: {doc}`d` (not on the path).
:::
"""


def test_each_step_keeps_the_cards_note_on_it():
    import reading_path as rp

    steps = rp.steps_from_index(CARD_TEXT)
    assert steps == [rp.Step("a", ""), rp.Step("b", "its first three sections: the corpora"), rp.Step("c", "the recap")]
    assert rp.path_from_index(CARD_TEXT) == ["a", "b", "c"], "the page after the card is not on the path"
    real = rp.steps_from_index((EXT.parent / "index.md").read_text(encoding="utf-8"))
    assert [s.doc for s in real] == rp.path_from_index((EXT.parent / "index.md").read_text(encoding="utf-8"))
    assert all("\n" not in s.note and "`" not in s.note and "(" not in s.note for s in real), real


def test_a_title_reads_as_the_sidebar_numbers_it():
    import reading_path as rp

    assert rp.numbered("Positional distributions", [2]) == "2. Positional distributions"
    assert rp.numbered("When is the sinusoid the MDS solution?", ["5b"]) == "5b. When is the sinusoid the MDS solution?"
    assert rp.numbered("Key results", None) == "Key results"


def _box(k: int, make: str = "path_box"):
    """The box (or, with ``make="path_strip"``, the strip) of the k-th step of a path a → b → c, and its links."""
    import reading_path as rp

    steps = [rp.Step("book/a", ""), rp.Step("book/b", "its first sections"), rp.Step("book/c", "the recap")]
    titles = {"book/a": "Page A", "book/b": "2. Page B", "book/c": "Page C"}
    uris = {"book/a": "a.html", "book/b": "b.html", "book/c": "c.html"}
    box = getattr(rp, make)(steps, k, titles, uris, back="index.html#the-core")
    return box, {ref.astext(): ref["refuri"] for ref in box.findall(rp.nodes.reference)}


def test_the_box_names_each_steps_neighbours_on_the_path():
    import reading_path as rp

    first, links = _box(0)
    assert first["classes"] == [rp.BOX_CLASS]
    assert first.astext() == "The core, step 1 of 3 · next: 2. Page B (its first sections) →"
    assert links == {"2. Page B": "b.html"}, "the first step has no previous one"
    middle, links = _box(1)
    assert middle.astext() == "The core, step 2 of 3 · ← previous: Page A · next: Page C (the recap) →"
    assert links == {"Page A": "a.html", "Page C": "c.html"}
    last, links = _box(2)
    assert last.astext() == (
        "The core, step 3 of 3 · ← previous: 2. Page B (its first sections) · "
        "the end of the path: back to the path on the index"
    )
    assert links == {"2. Page B": "b.html", "back to the path on the index": "index.html#the-core"}


def test_the_strip_names_the_next_step_as_the_box_does():
    """The strip under the title: the step and the next one (no previous, no note), or the way back to the card on
    the last step; its links are the box's."""
    import reading_path as rp

    first, links = _box(0, "path_strip")
    assert first["classes"] == [rp.STRIP_CLASS]
    assert first.astext() == "The core · step 1 of 3 · next: 2. Page B →"
    assert links == {"2. Page B": "b.html"}
    middle, links = _box(1, "path_strip")
    assert middle.astext() == "The core · step 2 of 3 · next: Page C →", "no previous, no note"
    assert links == {"Page C": "c.html"}
    last, links = _box(2, "path_strip")
    assert last.astext() == "The core · step 3 of 3 · the last step: back to the path on the index"
    assert links == {"back to the path on the index": "index.html#the-core"}
    for k in range(3):
        assert _box(k, "path_strip")[1].items() <= _box(k)[1].items(), "the strip links where the box does"


def test_the_strip_goes_right_after_the_pages_title():
    import reading_path as rp
    from docutils import nodes

    def section(title, *body):
        return nodes.section("", nodes.title("", title), *body)

    doc = nodes.document(None, None)
    doc += [nodes.paragraph("", "A cell before the title."), section("Page", nodes.paragraph("", "Text."))]
    doc[1] += section("A section")
    strip = nodes.container("", classes=[rp.STRIP_CLASS])
    assert rp.add_after_title(doc, strip)
    assert doc[1][1] is strip and doc[1][0].astext() == "Page", "not right after the page's title"
    assert [type(n).__name__ for n in doc[1].children] == ["title", "container", "paragraph", "section"]
    untitled = nodes.document(None, None)
    untitled += nodes.paragraph("", "No title.")
    assert not rp.add_after_title(untitled, strip) and len(untitled.children) == 1


def test_the_index_card_of_the_path_gets_its_anchor():
    import reading_path as rp
    from docutils import nodes

    def card(title):
        heading = nodes.container("", nodes.Text(title), design_component="card-title")
        return nodes.container("", nodes.container("", heading, design_component="card-body"), design_component="card")

    doc = nodes.document(None, None)
    doc += [card("Statistics path"), card("The core")]
    assert rp.mark_card(doc) and rp.mark_card(doc), "marking twice is harmless"
    assert [c["ids"] for c in doc.children] == [[], [rp.CARD_ID]]
    assert not rp.mark_card(nodes.document(None, None))


PATH_BOOK = {
    "book/index.md": "# Mini\n\n::::{grid} 1 1 2 2\n\n" + CARD_TEXT + "::::\n\n"
    "```{toctree}\n:numbered:\n\nc\nb\nAlpha <a>\nd\n```\n",
    "book/a.md": "# Page A\n\nText of A.\n",
    "book/b.md": "# Page B\n\nText of B.\n\n## A section of B\n\nMore of B.\n",
    "book/c.md": "# Page C\n\nText of C.\n",
    "book/d.md": "# Page D\n\nText of D.\n",
}


def _path_book(tmp_path: Path, builder: str = "html", edits: dict[str, str] | None = None, theme: str = "") -> Path:
    """Build (or build again, after ``edits``) a small MyST book whose index's path, a → b → c, is not its order."""
    if theme:
        pytest.importorskip(theme)
    pytest.importorskip("myst_parser")
    pytest.importorskip("sphinx_design")
    import os

    from sphinx.application import Sphinx

    src = tmp_path / "src"
    if not src.exists():
        (src / "book").mkdir(parents=True)
        (src / "conf.py").write_text(
            f"import sys\nsys.path.insert(0, {str(EXT)!r})\nproject = 'mini'\nroot_doc = 'book/index'\n"
            "extensions = ['myst_parser', 'sphinx_design', 'reading_path']\nmyst_enable_extensions = ['colon_fence']\n"
            + (f"html_theme = {theme!r}\n" if theme else "")
        )
        for path, text in PATH_BOOK.items():
            (src / path).write_text(text)
    for path, text in (edits or {}).items():
        (src / path).write_text(text)
        os.utime(src / path, (os.path.getmtime(src / path) + 10,) * 2)  # newer than the last build, however coarse
    out = tmp_path / builder
    Sphinx(
        str(src),
        str(src),
        str(out),
        str(tmp_path / f"doctrees-{builder}"),
        builder,
        status=None,
        warning=None,
        freshenv=edits is None,
    ).build()
    return out


def _box_of(html: str, kind: str = "pg-path-nav") -> tuple[str, dict[str, str]]:
    """The path box's (or strip's, ``kind="pg-path-strip"``) text and its links (text -> href); ('', {}) without one."""
    m = re.search(rf'<div class="{kind}[^"]*">(.*?)</div>', html, re.S)
    if m is None:
        return "", {}
    links = {re.sub(r"<[^>]+>", "", t): h for h, t in re.findall(r'<a [^>]*href="([^"]*)"[^>]*>(.*?)</a>', m[1])}
    return " ".join(re.sub(r"<[^>]+>", "", m[1]).split()), links


def test_a_built_page_of_the_path_ends_with_its_box(tmp_path):
    """In a book whose table of contents reads c, b, a: a page's box follows the path a → b → c, names the pages by
    their sidebar titles (numbered; a title given in the toctree), sits after the page's last section, and the last
    step links to the anchored card on the index."""
    out = _path_book(tmp_path)
    page = (out / "book" / "b.html").read_text()
    text, links = _box_of(page)
    assert text == "The core, step 2 of 3 · ← previous: 3. Alpha · next: 1. Page C (the recap) →", text
    assert links == {"3. Alpha": "a.html", "1. Page C": "c.html"}
    assert page.index("More of B.") < page.index("pg-path-nav"), "the box comes after the page's content"
    assert _box_of((out / "book" / "a.html").read_text())[0].startswith("The core, step 1 of 3 · next:")
    text, links = _box_of((out / "book" / "c.html").read_text())
    assert links["back to the path on the index"] == "index.html#the-core", links
    assert 'id="the-core"' in (out / "book" / "index.html").read_text()
    assert _box_of((out / "book" / "d.html").read_text()) == ("", {}), "a page off the path has no box"
    assert "'Core ' + (k + 1)" in page, "the sidebar script is still added"


def test_a_built_page_of_the_path_opens_with_its_strip(tmp_path):
    """In the book whose table of contents reads c, b, a: right after each path page's title (its h1), one strip with
    its step and the link to the next step on the path a → b → c; the last links to the card; no strip elsewhere."""
    out = _path_book(tmp_path)
    page = (out / "book" / "b.html").read_text()
    assert page.count("pg-path-strip") == 1, "one strip"
    assert re.search(r'</h1>\s*<div class="pg-path-strip', page), "the strip is not right after the page's title"
    assert _box_of(page, "pg-path-strip") == (
        "The core · step 2 of 3 · next: 1. Page C →",
        {"1. Page C": "c.html"},
    )
    first = _box_of((out / "book" / "a.html").read_text(), "pg-path-strip")
    assert first == ("The core · step 1 of 3 · next: 2. Page B →", {"2. Page B": "b.html"})
    text, links = _box_of((out / "book" / "c.html").read_text(), "pg-path-strip")
    assert text == "The core · step 3 of 3 · the last step: back to the path on the index", text
    assert links == {"back to the path on the index": "index.html#the-core"}
    for off in ("d", "index"):
        assert "pg-path-strip" not in (out / "book" / f"{off}.html").read_text(), f"{off}.html is off the path"


def _subtitles(html: str) -> list[tuple[str, str]]:
    """The theme's previous/next buttons on a built page: (where each leads, its subtitle)."""
    return re.findall(
        r'<a class="(?:left-prev|right-next)"\s+href="([^"]*)".*?<p class="prev-next-subtitle">([^<]*)</p>', html, re.S
    )


def test_the_theme_buttons_are_named_book_order_on_the_path(tmp_path):
    """With the book's theme: on the pages of the path the theme's buttons read "previous in book order" and "next in
    book order" and still follow the table of contents (c, b, a, d); elsewhere they read "previous" and "next"."""
    out = _path_book(tmp_path, theme="sphinx_book_theme")
    page = (out / "book" / "b.html").read_text()
    assert _subtitles(page) == [("c.html", "previous in book order"), ("a.html", "next in book order")]
    assert _subtitles((out / "book" / "d.html").read_text()) == [("a.html", "previous")], "d is off the path"
    assert _subtitles((out / "book" / "index.html").read_text()) == [("c.html", "next")], "the index is off the path"
    assert 'title="previous page"' in page, "only the subtitles are renamed"
    assert re.search(r'</h1>\s*<div class="pg-path-strip', page), "with the theme too, the strip follows the title"


def test_a_renamed_step_is_renamed_in_its_neighbours_boxes(tmp_path):
    _path_book(tmp_path)
    out = _path_book(tmp_path, edits={"book/c.md": "# Page C renamed\n\nText of C.\n"})
    page = (out / "book" / "b.html").read_text()
    assert "next: 1. Page C renamed (the recap)" in _box_of(page)[0]
    assert "next: 1. Page C renamed →" in _box_of(page, "pg-path-strip")[0], "the strip follows the renamed page too"


def test_the_printed_single_page_has_no_path_box(tmp_path):
    single = (_path_book(tmp_path, "singlehtml") / "book" / "index.html").read_text()
    assert "Text of B." in single, "the pages are in the single page"
    assert "pg-path-nav" not in single and "pg-path-step" not in single and "pg-path-strip" not in single


def test_the_printed_single_page_keeps_the_themes_words(tmp_path):
    single = (_path_book(tmp_path, "singlehtml", theme="sphinx_book_theme") / "book" / "index.html").read_text()
    assert "Text of B." in single and "pg-path-strip" not in single and "in book order" not in single


# ---------------------------------------------------------------------------------------------------------------
# reader_notebooks: the downloadable notebooks' Markdown without MyST roles

import reader_notebooks  # noqa: E402


def test_glue_values_are_formatted_as_their_roles_ask():
    assert reader_notebooks.format_glue("0.05614", ".3f") == "0.056"
    assert reader_notebooks.format_glue("np.float64(0.2575)", ".0%") == "26%"
    assert reader_notebooks.format_glue("25000", ",d") == "25,000"
    assert reader_notebooks.format_glue("'ALiBi'", "s") == "ALiBi"
    assert reader_notebooks.format_glue("'undetermined'", "") == "undetermined"


def test_plain_markdown_rewrites_each_kind_of_role():
    text = (
        "On IMDB {glue:text}`lead:.3f` ({glue:text}`mass:.0%` of the {term}`text <resolution>`), see "
        "{doc}`07_stress_of_encodings`, {numref}`fig-a`, {ref}`why <sec-why>`, {ref}`sec-why`, "
        "{prf:ref}`prop-x`, {func}`posgeom.stress.stress_ladder`, {bdg-ref-warning}`E3 · ALiBi <ledger-e3>` "
        "and {cite}`press2022alibi`; {glue:text}`missing:d` stays; {glue:text}`07_x.ipynb::k:d` is another page's."
    )
    out = reader_notebooks.plain_markdown(
        text,
        {"lead": "0.0561", "mass": "0.46", "07_x.ipynb::k": "38"},
        titles={"07_stress_of_encodings": "Stress of the encodings we use"},
        numbers={"fig-a": "Fig. 7.1", "prop-x": "Proposition 7.1"},
        sections={"sec-why": "Why ALiBi wins"},
    )
    assert out == (
        "On IMDB 0.056 (46% of the text), see Stress of the encodings we use, Fig. 7.1, why, Why ALiBi wins, "
        "Proposition 7.1, `posgeom.stress.stress_ladder`, **E3 · ALiBi** and [press2022alibi]; "
        "{glue:text}`missing:d` stays; 38 is another page's."
    )


def test_plain_markdown_leaves_directives_and_unknown_roles():
    text = "```{glue:figure} fig_x\n:name: fig-x\n\nA caption.\n```\n{unknownrole}`kept`"
    assert reader_notebooks.plain_markdown(text, {}) == text


def _md(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text.splitlines(keepends=True)}


def _code(text):
    return {"cell_type": "code", "metadata": {}, "outputs": [], "source": text.splitlines(keepends=True)}


def test_the_student_editions_notebooks_leave_out_every_solution():
    cells = [
        _md("```{exercise} ★\n:label: ex-a\n\nHow many?\n```\n\n```{solution} ex-a\n:class: dropdown\n\nSix.\n```\n"),
        _md(
            "```{exercise} ★★\n:label: ex-b\n\nWhy?\n```\n\n```{solution-start} ex-b\n:class: dropdown\n```\n\nBecause"
        ),
        _code("answer = 42"),
        _md("so it is.\n\n```{solution-end}\n```\n\n## Next section\n\nMore text."),
        _code("kept = True"),
    ]
    out = reader_notebooks.drop_solutions(cells)
    text = "".join("".join(c["source"]) for c in out)
    assert "Six" not in text and "Because" not in text and "so it is" not in text and "answer" not in text
    assert "How many?" in text and "Why?" in text and "## Next section" in text and "kept = True" in text
    assert [c["cell_type"] for c in out] == ["markdown", "markdown", "markdown", "code"]


def test_the_handouts_leave_out_the_cells_that_need_a_solution():
    cells = [
        _md("```{solution-start} ex-a\n:class: dropdown\n```\n\nThe answer:"),
        _code("answer = 6 * 7\ndef helper():\n    return answer"),
        _md("```{solution-end}\n```"),
        _code("record('ex', answer)  # a hidden cell for the ledger"),
        _code("other = 1"),
        _code("print(helper())"),
        _code("%pip install -q posgeom\nprint(other)"),
    ]
    kept = ["".join(c["source"]) for c in reader_notebooks.drop_solutions(cells) if c["cell_type"] == "code"]
    assert kept == ["other = 1", "%pip install -q posgeom\nprint(other)"]


def test_a_functions_own_names_do_not_tie_a_cell_to_a_dropped_solution():
    cells = [
        _md("```{solution-start} ex-a\n:class: dropdown\n```"),
        _code("def solve(D):\n    x = D.sum()\n    return x"),
        _md("```{solution-end}\n```"),
        _code("def mine(D):\n    x = [k for k in D]\n    return x"),  # D, x, k: its own
        _code("print(x)"),  # x was never bound in the namespace: kept
        _code("print(solve(1))"),  # reads what only the dropped cell bound: dropped
    ]
    kept = ["".join(c["source"]) for c in reader_notebooks.drop_solutions(cells) if c["cell_type"] == "code"]
    assert kept == ["def mine(D):\n    x = [k for k in D]\n    return x", "print(x)"]


def test_directives_read_as_plain_markdown():
    text = (
        "````{admonition} The result first\n:class: tip\n\n**Claim.** Text.\n\n"
        "```{glue:figure} fig_x\n:name: fig-x\n\nA caption.\n```\n````\n\n"
        "```{exercise} ★★\n:label: ex-a\n\nDo it.\n```\n\n"
        "```{solution-start} ex-a\n:class: dropdown\n```\n\nAnswer.\n\n```{solution-end}\n```\n\n"
        "```{prf:proposition} Stress\n:label: prop-x\n\nStatement.\n```\n\n```python\ncode = 1\n```"
    )
    assert reader_notebooks.plain_directives(text) == (
        "**The result first**\n\n**Claim.** Text.\n\n*Figure:*\n\nA caption.\n\n"
        "**Exercise ★★**\n\nDo it.\n\n**Solution**\n\nAnswer.\n\n\n"
        "**Proposition (Stress).**\n\nStatement.\n\n```python\ncode = 1\n```"
    )


def test_target_labels_leave_the_downloaded_notebook():
    text = "(sec-ch07-data)=\n## The data's distances\n\nText (not a label)= stays.\n"
    assert reader_notebooks.plain_directives(text) == "## The data's distances\n\nText (not a label)= stays.\n"


def test_directives_lead_with_the_numbers_the_book_prints():
    text = (
        "```{exercise} ★★\n:label: ex-a\n\nDo it.\n```\n\n"
        "```{solution-start} ex-a\n:class: dropdown\n```\n\nAnswer.\n\n```{solution-end}\n```\n\n"
        "```{glue:figure} fig_x\n:name: fig-x\n\nA caption.\n```\n\n"
        "```{prf:proposition} Stress\n:label: prop-x\n\nStatement.\n```\n\n"
        "```{exercise} ★\n:label: ex-unnumbered\n\nAnother.\n```"
    )
    numbers = {"ex-a": "Exercise 3.2", "fig-x": "Fig. 3.1", "prop-x": "Proposition 3.4"}
    assert reader_notebooks.plain_directives(text, numbers) == (
        "**Exercise 3.2 ★★**\n\nDo it.\n\n**Solution to Exercise 3.2**\n\nAnswer.\n\n\n"
        "*Fig. 3.1:*\n\nA caption.\n\n**Proposition 3.4 (Stress).**\n\nStatement.\n\n"
        "**Exercise ★**\n\nAnother."
    )


def test_a_downloaded_notebook_keeps_its_own_editions_containers_only():
    """``pg-lecturer`` text stays in the full edition's notebooks only, ``pg-student`` text in the student's only;
    the fences go in both, and text outside the containers is untouched."""
    text = "Before.\n\n::::{container} pg-lecturer\nThe answer is 89%.\n::::\n\n" \
           ":::{container} pg-student\nFind the answer.\n:::\nAfter."
    full = reader_notebooks.for_edition(text, student=False)
    student = reader_notebooks.for_edition(text, student=True)
    assert "89%" in full and "Find the answer" not in full
    assert "89%" not in student and "Find the answer" in student
    for out in (full, student):
        assert out.startswith("Before.") and out.endswith("After.") and "container" not in out


STUDENT_ONLY = """Student only
============

.. toctree::
   :hidden:

What comes first?

.. container:: pg-student

   Work it out yourself.
"""


@pytest.mark.parametrize("edition", [None, "student"])
def test_the_student_containers_stay_out_of_the_full_edition(tmp_path, monkeypatch, edition):
    _build(tmp_path, edition, monkeypatch, {"studentonly": STUDENT_ONLY})
    html = (tmp_path / "html" / "studentonly.html").read_text()
    assert "What comes first?" in html, "the question stays in both editions"
    assert ("Work it out yourself" in html) == (edition == "student"), "a pg-student container is the student's only"


def test_a_cell_that_states_answers_stays_out_of_the_handout():
    cells = [
        {"cell_type": "code", "metadata": {}, "source": ["x = 1\n"]},
        {"cell_type": "code", "metadata": {"tags": ["answer-cell"]}, "source": ["answer = 13\n"]},
        {"cell_type": "code", "metadata": {}, "source": ["print(answer)\n"]},
    ]
    kept = ["".join(c["source"]) for c in reader_notebooks.drop_solutions(cells)]
    assert kept == ["x = 1\n"], "the answer cell, and the cell that reads what it bound, are left out"


def test_a_downloaded_markdown_page_leaves_out_answers_in_the_student_edition():
    """The student edition's Markdown downloads keep the questions and drop the lecturer's containers and every
    solution, whole or gated."""
    text = ("# Unit\n\nWhat comes first?\n\n:::{container} pg-lecturer\n```{dropdown} Expected answer\nThe cat.\n```\n"
            ":::\n\n```{exercise}\n:label: ex-a\nHow many?\n```\n\n```{solution} ex-a\n:class: dropdown\nThirty-two.\n"
            "```\n\n```{solution-start} ex-a\n```\nSixty-four.\n```{solution-end}\n```\nAfter.\n")
    out = reader_notebooks.student_markdown(text)
    assert "What comes first?" in out and "How many?" in out and out.rstrip().endswith("After.")
    assert not any(s in out for s in ("The cat", "Thirty-two", "Sixty-four", "pg-lecturer")), out
