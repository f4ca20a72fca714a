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
