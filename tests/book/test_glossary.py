"""The glossary and the book's {term} links agree: every {term} target is a glossary term, and every glossary entry
(a group of synonyms) is linked with {term} from at least one page of the book, so that no definition is orphaned.

Also measured (not asserted): the first use of each term per chapter was linked by hand, at most once per chapter.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

BOOK = Path(__file__).resolve().parents[2] / "book"
_TERM = re.compile(r"\{term\}`([^`]*)`")


def glossary_entries(text: str | None = None) -> list[list[str]]:
    """The glossary's entries, each the list of its names (the first name and its synonyms)."""
    text = (BOOK / "glossary.md").read_text() if text is None else text
    m = re.search(r"^(`{3,}|:{3,})\{glossary\}[^\n]*\n(.*?)^\1\s*$", text, flags=re.S | re.M)
    assert m, "no glossary directive in glossary.md"
    entries, current = [], None
    for line in m.group(2).splitlines():
        if not line.strip():
            current = None
        elif line.startswith(":"):
            continue
        elif not line[0].isspace():
            if current is None:
                current = []
                entries.append(current)
            current.append(line.strip())
    return entries


def term_targets(text: str) -> list[str]:
    """The targets of the {term} roles in a text: `name` or `shown text <name>`."""
    out = []
    for role in _TERM.findall(text):
        m = re.fullmatch(r"(?s).*<([^<>]+)>\s*", role)
        out.append((m.group(1) if m else role).strip())
    return out


def book_pages() -> dict[str, str]:
    """The Markdown of every page: the Markdown cells of the notebooks and the .md pages."""
    pages = {}
    for path in sorted(BOOK.glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        pages[path.name] = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    for path in sorted(BOOK.glob("*.md")):
        pages[path.name] = path.read_text()
    return pages


def test_glossary_parser_on_a_known_text():
    text = "```{glossary}\n:sorted:\n\nA\nB\n  def of A.\n  more.\n\nC\n  def of C.\n```\n"
    assert glossary_entries(text) == [["A", "B"], ["C"]]
    assert term_targets("see {term}`A` and {term}`the b <B>` and {term}`C`") == ["A", "B", "C"]


def test_every_term_link_has_a_glossary_target():
    names = {name.lower() for entry in glossary_entries() for name in entry}
    missing = {
        (page, target) for page, text in book_pages().items() for target in term_targets(text)
        if target.lower() not in names
    }
    assert not missing, f"{{term}} links without a glossary entry: {sorted(missing)}"


def test_every_glossary_entry_is_linked_from_the_book():
    linked = {
        target.lower() for page, text in book_pages().items() if page != "glossary.md" for target in term_targets(text)
    }
    orphans = [entry for entry in glossary_entries() if not linked & {name.lower() for name in entry}]
    assert not orphans, f"glossary entries no page links with {{term}}: {orphans}"


def test_no_term_linked_twice_in_a_chapter():
    entries = glossary_entries()
    entry_of = {name.lower(): entry[0] for entry in entries for name in entry}
    for page, text in book_pages().items():
        if not page.endswith(".ipynb"):
            continue
        seen = [entry_of.get(t.lower(), t) for t in term_targets(text)]
        twice = sorted({e for e in seen if seen.count(e) > 1})
        assert not twice, f"{page}: terms linked more than once: {twice}"


# ---------------------------------------------------------------------------------------------------------------
# Terms used before they are taught
#
# A reader meets the chapters in the order of the table of contents. A technical term is *taught* on one page (the
# page below, where it is defined in bold, in a definition block or in a section of its own). On every chapter before
# that page, and on that page before its definition, the first use of the term must link the glossary ({term}) or the
# page that teaches it ({doc}), in the same paragraph. The names searched are the glossary entry's names plus the
# extra spellings below (a regular expression each, matched case-sensitively on whole words).

TAUGHT_IN = {
    "Hellinger distance": "02_positional_distributions",
    "positional distribution": "02_positional_distributions",
    "plug-in estimator": "02_positional_distributions",
    "Fisher-Rao distance": "02_positional_distributions",
    "counting convention": "03_real_text",
    "lag profile": "03_text_geometry",
    "flat control": "03_text_geometry",
    "cross-fitted estimator": "03b_estimating_distances",
    "resolved estimand": "03b_estimating_distances",
    "resolved estimator": "03b_estimating_distances",
    "m*": "03b_estimating_distances",
    "Bernstein polynomial": "03b_estimating_distances",
    "RoPE": "primer_encodings",
    "ALiBi": "primer_encodings",
    "T5 buckets": "primer_encodings",
    "sinusoidal encoding": "primer_encodings",
    "induced distance": "primer_encodings",
    "causal mask": "01_necessity",
    "classical MDS": "05_mds_stress",
    "stress": "05_mds_stress",
    "scale-optimal stress": "05_mds_stress",
    "strain": "05_mds_stress",
    "SMACOF": "05_mds_stress",
    "signal rank": "06_minimal_parametrisation",
}
# Terms no chapter teaches (the glossary does): their first use in every chapter links the glossary.
GLOSSARY_ONLY = ["noise floor", "subsampling ladder", "data processing inequality", "stationary point", "holds still"]
SPELLINGS = {
    "m*": [r"\$m\^\*\$", r"\$m\^\\star\$"],
    "RoPE": [r"RoPE"],
    "ALiBi": [r"ALiBi"],
    "T5 buckets": [r"T5"],
    "sinusoidal encoding": [r"[Ss]inusoidal"],
    "resolved estimand": [r"resolved (?:squared )?distances?"],
    "subsampling ladder": [r"ladders?", r"rungs?"],
    "classical MDS": [r"MDS"],
    "stress": [r"stress"],
    "cross-fitted estimator": [r"cross-fitt(?:ed|ing)"],
    "data processing inequality": [r"data-processing"],
}
# Known first uses before a term is taught: none left. The test fails on any new case (fix it by linking the term,
# {term}`name`, at its first use) and on a listed case that is fixed, so the list only shrinks.
KNOWN_EARLY_USES: set[tuple[str, str]] = set()


def reading_order() -> list[str]:
    """The pages of the book in the order of _toc.yml (stems)."""
    toc = (BOOK.parent / "_toc.yml").read_text()
    return [m.split("/")[-1] for m in re.findall(r"file:\s*(\S+)", toc)]


def _patterns(term: str) -> list[str]:
    entry = next(e for e in glossary_entries() if term in e)
    return [re.escape(name) for name in entry if name != term or term not in SPELLINGS] + SPELLINGS.get(term, [])


_CODE = re.compile(r"\{(?:func|class|meth|mod|doc|numref|prf:ref|ref|glue:text)\}`[^`]*`|(?<![}`])``?[^`\n]+``?")


def first_use(text: str, term: str) -> re.Match | None:
    """The first use of a term (any of its spellings, on word boundaries) in a page's Markdown."""
    text = _CODE.sub(lambda m: " " * len(m.group(0)), text)  # names of functions and modules are not uses
    hits = [m for p in _patterns(term) if (m := re.search(rf"(?<![\w.-]){p}(?![\w-])", text, flags=re.I))]
    return min(hits, key=lambda m: m.start(), default=None)


def definition_at(text: str, term: str) -> int | None:
    """Where a page defines the term: the first bold span or heading that names it, or definition block that uses it."""
    spans = [
        m.start() for p in _patterns(term)
        for m in re.finditer(rf"\*\*[^*\n]*{p}[^*\n]*\*\*|^#+ [^\n]*{p}", text, flags=re.M | re.I)
    ]
    blocks = re.finditer(r"^(`{3,}|:{3,})\{prf:definition\}.*?^\1\s*$", text, flags=re.M | re.S)
    spans += [b.start() for b in blocks if first_use(b.group(0), term)]
    return min(spans, default=None)


def _linked(text: str, at: int, term: str, page: str) -> bool:
    """Is the use at ``at`` inside a {term} or {doc} role, or does its paragraph link the glossary entry or page?"""
    end = text.find("\n\n", at)
    paragraph = text[text.rfind("\n\n", 0, at) + 1 : end if end >= 0 else len(text)]
    names = {n.lower() for e in glossary_entries() if term in e for n in e}
    return any(t.lower() in names for t in term_targets(paragraph)) or f"{{doc}}`{page}`" in paragraph or bool(
        re.search(rf"\{{doc\}}`[^`]*<{page}>`", paragraph)
    )


def early_uses() -> set[tuple[str, str]]:
    """(chapter, term) for each first use of a term, before it is taught, that links neither glossary nor page."""
    order, pages = reading_order(), book_pages()
    found = set()
    for term, page in [*TAUGHT_IN.items(), *((t, "glossary") for t in GLOSSARY_ONLY)]:
        taught = order.index(page) if page in TAUGHT_IN.values() else len(order)
        for k, chapter in enumerate(order):
            text = pages.get(f"{chapter}.ipynb")
            if text is None or k > taught:
                continue
            use = first_use(text, term)
            if use is None:
                continue
            if k == taught and (d := definition_at(text, term)) is not None and use.start() >= d:
                continue
            if not _linked(text, use.start(), term, page):
                found.add((chapter, term))
    return found


def test_every_taught_term_is_defined_where_the_book_says():
    order, pages = reading_order(), book_pages()
    for term, page in TAUGHT_IN.items():
        assert page in order, f"{term}: {page} is not in _toc.yml"
        assert any(term in e for e in glossary_entries()), f"{term} has no glossary entry"
        assert definition_at(pages[f"{page}.ipynb"], term) is not None, f"{page} does not define {term!r} in bold"
    for term in GLOSSARY_ONLY:
        assert any(term in e for e in glossary_entries()), f"{term} has no glossary entry"


def test_early_use_finder_on_a_known_text():
    text = "Uses **stress** here.\n\nThen SMACOF, unlinked.\n\nAnd {term}`strain` linked."
    assert first_use(text, "SMACOF").start() == text.index("SMACOF")
    assert definition_at(text, "stress") == text.index("**stress**")
    assert not _linked(text, text.index("SMACOF"), "SMACOF", "05_mds_stress")
    assert _linked(text, text.index("strain"), "strain", "05_mds_stress")


def test_no_term_is_used_before_it_is_taught_without_a_link():
    found = early_uses()
    new, fixed = found - KNOWN_EARLY_USES, KNOWN_EARLY_USES - found
    assert not new, f"first uses before the term is taught, with no {{term}} link in their paragraph: {sorted(new)}"
    assert not fixed, f"fixed: remove from KNOWN_EARLY_USES: {sorted(fixed)}"
