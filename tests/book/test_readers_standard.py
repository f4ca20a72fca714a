"""The readers' standard, measured on the notebooks as stored: what a reader sees of each chapter.

* **visible code**: the lines (blank ones included) of code cells a reader sees unfolded, i.e. without a ``hide-input``,
  ``hide-cell``, ``remove-input`` or ``remove-cell`` tag: at most 150 per chapter, at most 25 in any one cell;
* **words outside dropdowns**: the words of the Markdown cells, leaving out ``{dropdown}`` directives, admonitions
  with the ``dropdown`` class, display math, directive options and label lines ``(name)=``: at most 2,500;
* **result first**: the first Markdown cells before any code a reader sees hold an admonition whose title names the
  result, with a glued figure in it, followed by "After this chapter you can" and three objectives; a chapter's verdict
  (from "**The book's verdict" to its figure) carries exactly one bold glued number, its headline, in at most 85
  words, so that it is read at a glance and every other number waits in a dropdown;
* **methods folded together**: every dropdown titled "Methods ..." lies after the chapter's ``## Reproducibility``
  heading, so that the statistical protocol is read in one place, beside the ✓ checks;
* **captions**: every figure caption (``{glue:figure}`` and ``{figure}`` bodies, in the notebooks and the .md pages)
  has at least two sentences: what is plotted, then a one-sentence takeaway.

Run as a script on notebooks to print the numbers: ``python tests/book/test_readers_standard.py book/*.ipynb``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[2] / "book"
FOLDED = {"hide-input", "hide-cell", "remove-input", "remove-cell"}
MAX_VISIBLE_LINES, MAX_CELL_LINES, MAX_WORDS, MAX_VERDICT_WORDS = 150, 25, 2500, 85

# Chapters rebuilt to the standard; every chapter joins this list as it is rebuilt.
STANDARD = [
    "02_positional_distributions",
    "03_text_geometry",
    "03_real_text",
    "03b_estimating_distances",
    "03c_checking_the_verdict",
    "01_necessity",
    "04_separation",
    "05_mds_stress",
    "05b_sinusoid",
    "06_minimal_parametrisation",
    "07_encodings_in_use",
    "07_stress_of_encodings",
    "07b_checking_the_verdicts",
    "08_monotonicity",
    "09_stress_vs_accuracy",
    "10_your_corpus",
    "appendix_ntk",
    "primer_encodings",
    "primer_attention",
    "primer_estimation",
    "lab_numpy",
    "lab_attention",
]

_OPEN = re.compile(r"^\s*(`{3,}|:{3,})\{([\w-]+)\}(.*)$")
_LABEL = re.compile(r"^\([\w:.-]+\)=\s*$")  # a MyST target, "(sec-x)=": not rendered, so not a word
_WORD = re.compile(r"[A-Za-z0-9][\w'’-]*")


def _cells(path):
    return json.loads(Path(path).read_text())["cells"]


def _tags(cell):
    return set(cell.get("metadata", {}).get("tags", []))


def visible_code_cells(path) -> list[int]:
    """Non-blank line counts of the code cells a reader sees unfolded."""
    return [
        len("".join(c["source"]).strip("\n").splitlines())
        for c in _cells(path)
        if c["cell_type"] == "code" and not (_tags(c) & FOLDED)
    ]


def main_text(markdown: str) -> str:
    """Markdown with dropdowns, display math and directive options removed (what the main text says)."""
    out, stack = [], []  # stack of (fence, is_dropdown)
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _OPEN.match(line)
        if m:
            fence, name = m.group(1), m.group(2)
            options, j = [], i + 1
            while j < len(lines) and lines[j].startswith(":") and not _OPEN.match(lines[j]):
                options.append(lines[j])
                j += 1
            dropdown = name in {"dropdown", "toggle"} or any(
                "dropdown" in o for o in options if o.startswith(":class:")
            )
            stack.append((fence, dropdown or any(d for _, d in stack)))
            if not stack[-1][1] and name not in {"glue:figure", "figure", "math"}:
                out.append(m.group(3))
            i = j
            continue
        if stack and line.strip() == stack[-1][0]:
            stack.pop()
            i += 1
            continue
        if not (stack and stack[-1][1]) and not _LABEL.match(line):
            out.append(line)
        i += 1
    text = "\n".join(out)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"\$[^$\n]+\$", " x ", text)  # inline math counts as one word
    text = re.sub(r"\{[\w:-]+\}`[^`]*`", " x ", text)  # a role ({glue:text}`...`, {prf:ref}`...`) is one word
    return text


def words_outside_dropdowns(path) -> int:
    """Words of the chapter's Markdown outside dropdowns."""
    return sum(
        len(_WORD.findall(main_text("".join(c["source"])))) for c in _cells(path) if c["cell_type"] == "markdown"
    )


def opening(path) -> str:
    """The Markdown a reader meets before the first code cell that is not removed."""
    text = []
    for c in _cells(path):
        if c["cell_type"] == "code" and "remove-cell" not in _tags(c):
            break
        if c["cell_type"] == "markdown":
            text.append("".join(c["source"]))
    return "\n".join(text)


def measure(path) -> dict:
    cells = visible_code_cells(path)
    return {
        "visible code lines": sum(cells),
        "longest visible cell": max(cells, default=0),
        "words outside dropdowns": words_outside_dropdowns(path),
    }


@pytest.mark.parametrize("name", STANDARD)
def test_visible_code_and_words(name):
    m = measure(BOOK / f"{name}.ipynb")
    assert m["visible code lines"] <= MAX_VISIBLE_LINES, m
    assert m["longest visible cell"] <= MAX_CELL_LINES, m
    assert m["words outside dropdowns"] <= MAX_WORDS, m


@pytest.mark.parametrize("name", STANDARD)
def test_result_first(name):
    text = opening(BOOK / f"{name}.ipynb")
    box = re.search(r"(`{3,}|:{3,})\{admonition\}[^\n]*result[^\n]*\n(.*?)\n\1\s*$", text, flags=re.S | re.I | re.M)
    assert box, "no result box (an admonition titled with the result) before the first code cell"
    assert "{glue:figure}" in box.group(2) and "{glue:text}" in box.group(2), (
        "the result box needs a glued figure and number"
    )
    if not name.startswith(("primer_", "lab_")):  # a primer or a lab teaches; it judges no claim
        assert not verdict_problems(box.group(2)), verdict_problems(box.group(2))
    after = text[box.end() :]
    assert re.search(r"after this chapter you can", after, flags=re.I), "no 'After this chapter you can' list"
    assert len(re.findall(r"^\s*[*-] ", after, flags=re.M)) >= 3, "fewer than three objectives"


def verdict_problems(box: str) -> list[str]:
    """What keeps a box's verdict from being read at a glance: none, not one bold glued number, too long."""
    verdict = re.search(r"\*\*The book's verdict.*?(?=^`{3,}\{glue:figure\}|\Z)", box, flags=re.S | re.M)
    if not verdict:
        return ["no '**The book's verdict:**' in the box"]
    problems = []
    bold = re.findall(r"\*\*[^*]*\{glue:text\}[^*]*\*\*", verdict.group(0))
    if len(bold) != 1:
        problems.append(f"{len(bold)} bold glued numbers, not one")
    words = len(_WORD.findall(main_text(verdict.group(0))))
    if words > MAX_VERDICT_WORDS:
        problems.append(f"{words} words in the verdict, over {MAX_VERDICT_WORDS}")
    return problems


def test_verdict_problems_can_be_found():
    good = "**The book's verdict:** holds: **{glue:text}`x:.2f`** of it.\n```{glue:figure} f\n```"
    assert not verdict_problems(good)
    assert verdict_problems(good.replace("**{glue:text}`x:.2f`**", "{glue:text}`x:.2f`")), "no bold number"
    assert verdict_problems(good.replace(" of it.", " word" * 90)), "too long"
    assert verdict_problems("no verdict here")


_METHODS = re.compile(r"^\s*(`{3,}|:{3,})\{(?:dropdown|admonition)\}\s*Methods\b.*$", flags=re.M)
_REPRODUCIBILITY = re.compile(r"^## Reproducibility\s*$", flags=re.M)


def methods_before_reproducibility(cells) -> list[str]:
    """Titles of the "Methods" dropdowns that come before the ``## Reproducibility`` heading (all, if none)."""
    early, seen = [], False
    for c in cells:
        if c["cell_type"] != "markdown":
            continue
        text = "".join(c["source"])
        heading = _REPRODUCIBILITY.search(text)
        for m in _METHODS.finditer(text):
            if not seen and not (heading and heading.start() < m.start()):
                early.append(m.group(0).strip())
        seen = seen or bool(heading)
    return early


CHAPTERS = [name for name in STANDARD if not name.startswith(("primer_", "lab_"))]


@pytest.mark.parametrize("name", CHAPTERS)
def test_methods_dropdowns_are_in_reproducibility(name):
    cells = _cells(BOOK / f"{name}.ipynb")
    assert any(c["cell_type"] == "markdown" and _REPRODUCIBILITY.search("".join(c["source"])) for c in cells), (
        "no '## Reproducibility' section"
    )
    early = methods_before_reproducibility(cells)
    assert not early, f"Methods dropdowns outside the Reproducibility section (move them there): {early}"



_SECTION = re.compile(r"^## ", flags=re.M)
_WHOLE = {"hide-cell", "remove-cell"}


def unfolded_in_reproducibility(cells) -> list[str]:
    """Openings of the code cells in the ``## Reproducibility`` section whose output a reader sees unfolded."""
    out, inside = [], False
    for c in cells:
        text = "".join(c["source"])
        if c["cell_type"] == "markdown":
            for line in _SECTION.finditer(text):
                inside = bool(_REPRODUCIBILITY.match(text, line.start()))
        elif inside and not (_tags(c) & _WHOLE) and not {"remove-input", "hide-output"} <= _tags(c):
            out.append(text.strip().splitlines()[0][:60] if text.strip() else "(empty)")
    return out


@pytest.mark.parametrize("name", STANDARD)
def test_reproducibility_folds_its_checks(name):
    """The section is folded: its checks and their ✓ lines open on request (``hide-cell``), not on the page."""
    unfolded = unfolded_in_reproducibility(_cells(BOOK / f"{name}.ipynb"))
    assert not unfolded, f"Reproducibility cells shown unfolded (tag them hide-cell): {unfolded}"


def test_unfolded_checks_are_found():
    def md(text):
        return {"cell_type": "markdown", "source": [text]}

    def code(text, *tags):
        return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": [text]}

    cells = [md("## Results"), code("shown()"), md("## Reproducibility"), code("check(a)", "hide-input")]
    cells += [code("check(b)", "hide-cell"), md("## Exercises"), code("answer()")]
    assert unfolded_in_reproducibility(cells) == ["check(a)"]


_UNTITLED_REF = re.compile(r"\{ref\}`(sec-[\w-]+-methods-[\w-]+)`")


@pytest.mark.parametrize("name", CHAPTERS)
def test_references_to_a_methods_dropdown_carry_a_title(name):
    """A label before a dropdown has no title of its own: a {ref} to it needs one (``{ref}`protocol <label>```)."""
    text = "".join("".join(c["source"]) for c in _cells(BOOK / f"{name}.ipynb") if c["cell_type"] == "markdown")
    bare = _UNTITLED_REF.findall(text)
    assert not bare, f"untitled references to Methods labels (write {{ref}}`protocol <label>`): {bare}"

def test_methods_before_reproducibility_is_found():
    def md(text):
        return {"cell_type": "markdown", "source": [text]}

    body = md("## A\n\n```{dropdown} Methods: the test\nwords\n```\n")
    repro = md("## Reproducibility\n\nChecks.\n\n:::{dropdown} Methods: the nulls\nwords\n:::\n")
    assert methods_before_reproducibility([body, repro]) == ["```{dropdown} Methods: the test"]
    assert methods_before_reproducibility([repro, body]) == []
    assert methods_before_reproducibility([md(":::{admonition} Methods: x\n:class: dropdown\n:::\n")]) != []


_CAPTION = re.compile(r"^(`{3,}|:{3,})\{(?:glue:figure|figure)\}[^\n]*\n(.*?)^\1\s*$", flags=re.S | re.M)
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bcf)(?<!\bvs)(?<!\bFig)(?<!\bEq)[.!?](?=\s+[A-Z(*\"]|\s*$)")


def captions(markdown: str) -> list[str]:
    """The bodies of the figure directives of a Markdown text, options left out."""
    return [
        "\n".join(line for line in m.group(2).splitlines() if not line.startswith(":")).strip()
        for m in _CAPTION.finditer(markdown)
    ]


def sentences(caption: str) -> int:
    """Sentences of a caption, math and roles read as one word each (so that a '.' inside them ends nothing)."""
    text = re.sub(r"\$\$.*?\$\$|\$[^$]+\$|\{[\w:-]+\}`[^`]*`", "x", caption, flags=re.S)
    return len(_SENTENCE_END.findall(text.strip()))


def _book_markdown() -> dict[str, str]:
    pages = {p.name: "\n".join("".join(c["source"]) for c in _cells(p) if c["cell_type"] == "markdown")
             for p in sorted(BOOK.glob("*.ipynb"))}
    pages.update({p.name: p.read_text() for p in sorted(BOOK.glob("*.md"))})
    return pages


CAPTION_WORDS = 90  # two plain sentences of about 45 words each


def test_every_caption_ends_with_a_takeaway():
    """Every figure caption has two sentences, a description of what is plotted and a takeaway, in at most
    ``CAPTION_WORDS`` words (a role or a formula counts as one word); details belong in the text or a dropdown.

    Only the count is tested here. The takeaways themselves (that the last sentence says what the reader should
    conclude, not what is plotted, and that it is true of the numbers the chapter prints) were audited by hand
    against the executed book; a caption added or rewritten later needs the same reading.
    """
    short = [
        (page, caption[:70]) for page, text in _book_markdown().items() for caption in captions(text)
        if sentences(caption) < 2
    ]
    assert not short, f"captions without a takeaway sentence: {short}"
    long = [
        (page, caption[:70], sentences(caption), len(re.sub(r"\{[\w:-]+\}`[^`]*`|\$[^$]+\$", "x", caption).split()))
        for page, text in _book_markdown().items() for caption in captions(text)
        if sentences(caption) > 2 or len(re.sub(r"\{[\w:-]+\}`[^`]*`|\$[^$]+\$", "x", caption).split()) > CAPTION_WORDS
    ]
    assert not long, f"captions over two sentences or {CAPTION_WORDS} words (page, start, sentences, words): {long}"
    assert any(captions(text) for text in _book_markdown().values()), "no caption found: the parser is broken"


def test_caption_sentences_are_counted_as_a_reader_reads_them():
    md = "```{glue:figure} fig_x\n:name: fig-x\n\nThe mean (e.g. of $x_i. y$) per lag. So it grows.\n```\n"
    assert captions(md) == ["The mean (e.g. of $x_i. y$) per lag. So it grows."]
    assert sentences(captions(md)[0]) == 2
    assert sentences("Distances between positions, dark is close") == 0


def test_measure_counts_only_what_a_reader_sees(tmp_path):
    nb = {
        "cells": [
            {
                "cell_type": "markdown",
                "metadata": {},
                "source": [
                    *["one two\n", "(sec-x-methods)=\n"],
                    *["```{dropdown} Methods\n", "hidden words\n", "```\n", "three $x+y$\n"],
                ],
            },
            {"cell_type": "code", "metadata": {}, "source": ["a = 1\n", "\n", "b = 2\n"]},
            {"cell_type": "code", "metadata": {"tags": ["hide-input"]}, "source": ["c = 3\n"]},
        ]
    }
    path = tmp_path / "x.ipynb"
    path.write_text(json.dumps(nb))
    assert measure(path) == {"visible code lines": 3, "longest visible cell": 3, "words outside dropdowns": 4}




def prose_after_a_gated_solution(markdown: str) -> list[str]:
    """Paragraphs that follow a ``solution-end`` fence before the next exercise, heading, label or directive: an
    answer printed outside its folded solution (and left in the student edition)."""
    leaks = []
    for after in re.split(r"^`{3,}\{solution-end\}\s*\n`{3,}\s*$", markdown, flags=re.M)[1:]:
        first = next((p.strip() for p in after.split("\n\n") if p.strip()), "")
        if first and not re.match(r"(`{3,}|:{3,}|#|\()", first):
            leaks.append(first[:80])
    return leaks


def test_no_answer_follows_a_gated_solution():
    leaks = {page: found for page, text in _book_markdown().items() if (found := prose_after_a_gated_solution(text))}
    assert not leaks, f"text after a solution-end, outside its dropdown: {leaks}"


def test_a_leaked_answer_is_found():
    leaked = "```{solution-end}\n```\n\nThe answer is 42.\n\n```{exercise}\n:label: ex-next\n```\n"
    closed = "The answer is 42.\n\n```{solution-end}\n```\n\n```{exercise}\n:label: ex-next\n```\n"
    assert prose_after_a_gated_solution(leaked) == ["The answer is 42."]
    assert prose_after_a_gated_solution(closed) == []


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(Path(arg).stem, measure(arg))
