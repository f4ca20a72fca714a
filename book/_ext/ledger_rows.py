"""A ``{ledger-verdict}`` directive: a claims-ledger row's verdict and reason, read from book/claims_ledger.md when the
book is built, so that a page summarising the results never repeats (and never contradicts) the ledger.

``{ledger-verdict} T4`` renders the verdict badge the ledger's table gives row T4, the row's short title (from its badge
in "Verdicts at a glance", ``T4 · separation``), its headline number (glued from the chapter), a link to the row, and
the row's "why" sentence. With the flag option ``:plain:`` only the badge, the title and the link are shown (a page in
plain words gives its own sentence; the ledger keeps the number and the reason). The ledger is the one place a
verdict is written; change it there.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

LEDGER = Path(__file__).resolve().parents[1] / "claims_ledger.md"
_ROW = re.compile(
    r"^\* - \{ref\}`(?P<id>[^`<\s]+)[^`<]*<(?P<label>ledger-[\w-]+)>`\n"
    r"  - (?P<claim>[^\n]*)\n"
    r"  - (?P<verdict>\{bdg-[\w-]+\}`[^`]+`)[^\n]*\n"
    r"  - (?P<number>[^\n]*)\n"
    r"  - (?P<why>[^\n]*)",
    re.M,
)

_TITLE = re.compile(r"\{bdg-ref-[\w-]+\}`(?P<id>\S+) · (?P<title>[^`<]+?) <(?P<label>ledger-[\w-]+)>`")


def ledger_rows(text: str | None = None) -> dict[str, dict[str, str]]:
    """The rows of the ledger's table by id (``"T1"``, ``"T1′"``, ...): label, claim, verdict, number, why, title."""
    text = LEDGER.read_text(encoding="utf-8") if text is None else text
    titles = {m["label"]: m["title"].strip() for m in _TITLE.finditer(text.split("## The claims")[0])}
    return {m["id"].strip(): {**{k: m[k].strip() for k in ("label", "claim", "verdict", "number", "why")},
                              "title": titles.get(m["label"], "")}
            for m in _ROW.finditer(text)}


def verdict_line(row_id: str, row: dict[str, str], *, plain: bool = False) -> str:
    """The Markdown line of one row: badge, title, headline number, link, reason (``plain``: badge, title, link)."""
    title = f"**{row['title']}**" if row["title"] else ""
    link = f"({{ref}}`ledger row {row_id} <{row['label']}>`)"
    if plain:
        return f"{row['verdict']} {title} {link}." if title else f"{row['verdict']} {link}."
    head = f"{title}: {row['number']}" if title and row["number"] else title or row["number"]
    return f"{row['verdict']} {head} {link}. {row['why']}"


class LedgerVerdict(SphinxDirective):
    required_arguments = 1
    final_argument_whitespace = True
    option_spec = {"plain": directives.flag}

    def run(self):
        self.env.note_dependency(str(LEDGER))
        rows = ledger_rows()
        lines = []
        for row_id in self.arguments[0].split():
            if row_id not in rows:
                raise self.error(f"no ledger row {row_id!r} in {LEDGER.name}; rows: {', '.join(rows)}")
            lines += [verdict_line(row_id, rows[row_id], plain="plain" in self.options), ""]
        container = nodes.container(classes=["ledger-verdict"])
        self.state.nested_parse(StringList(lines, source=str(LEDGER)), self.content_offset, container)
        return [container]


def setup(app):
    app.add_directive("ledger-verdict", LedgerVerdict)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
