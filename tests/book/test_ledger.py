"""The claims ledger is a summary: one row per claim, short enough to read at a glance, and a legend that lists
exactly the verdicts it uses.

Each row of its table holds the paper's claim in at most 15 words, a verdict badge, one headline number and a reason
in at most 25 words (followed by a link to the key figure); every row links to a details dropdown, and the verdict
strip above the table links to every row.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

LEDGER = Path(__file__).resolve().parents[2] / "book" / "claims_ledger.md"
VERDICTS = {
    "reproduced",
    "reproduced under a stated convention",
    "nuanced",
    "not reproduced",
    "undetermined",
    "illustrated in a model",
    "uninformative",
    "finding",
    "finding: in part",
    "finding: undetermined",
}
KEY_RESULTS = LEDGER.with_name("key_results.md")
ROLE = re.compile(r"\{[\w:-]+\}`([^`<]*?)(?: <[^>]*>)?`")


def _words(text: str) -> int:
    """Words a reader reads: a role counts as its visible text (a glued number as one word)."""
    text = re.sub(r"\{glue:text\}`[^`]*`", "N", text)
    text = re.sub(r"\(\{numref\}`[^`]*`\)", "", text)
    return len(ROLE.sub(r"\1", text).split())


def _rows(text: str) -> list[list[str]]:
    table = re.search(r"```\{list-table\}\n(.*?)\n```", text, flags=re.S).group(1)
    rows = re.split(r"^\* - ", table, flags=re.M)[2:]  # skip options and the header row
    return [[cell.strip() for cell in re.split(r"^  - ", row, flags=re.M)] for row in rows]


def test_rows_are_short():
    rows = _rows(LEDGER.read_text())
    assert len(rows) >= 10
    for row in rows:
        assert len(row) == 5, row
        ident, claim, verdict, number, reason = row
        assert _words(claim) <= 15, f"claim of {ident} has {_words(claim)} words: {claim}"
        assert _words(reason) <= 25, f"reason of {ident} has {_words(reason)} words: {reason}"
        assert re.fullmatch(r"\{bdg-[\w-]+\}`[^`]+`", verdict), verdict
        assert ROLE.sub(r"\1", verdict) in VERDICTS, verdict
        assert "{glue:text}" in number, f"the headline number of {ident} is not glued: {number}"


def test_legend_lists_exactly_the_verdicts_used():
    text = LEDGER.read_text()
    used = {ROLE.sub(r"\1", row[2]) for row in _rows(text)}
    legend_block = text.split("## The claims")[0]
    legend = set(re.findall(r"^\* \{bdg-[\w-]+\}`([^`]+)`", legend_block, flags=re.M))
    assert legend == used, f"legend {sorted(legend)} against verdicts used {sorted(used)}"


def test_every_row_has_details_and_a_place_in_the_strip():
    text = LEDGER.read_text()
    targets = re.findall(r"^\* - \{ref\}`[^<]*<([\w-]+)>`", text, flags=re.M)
    strip = text.split("## The claims")[0]
    for target in targets:
        assert f"({target})=\n````{{dropdown}}" in text, f"no details dropdown for {target}"
        assert f"<{target}>`" in strip, f"{target} missing from the verdict strip"


def test_key_results_legend_explains_every_verdict_used():
    """The key-results page shows the ledger's badges, so its legend names every verdict, in the ledger's words."""
    ledger = LEDGER.read_text()
    legend = re.search(r"```\{admonition\} How to read a verdict\n(.*?)\n```", KEY_RESULTS.read_text(), flags=re.S)
    assert legend, "key_results.md has no 'How to read a verdict' legend"
    shown = " ".join(legend.group(1).split())
    for verdict in {ROLE.sub(r"\1", row[2]) for row in _rows(ledger)}:
        assert f"`{verdict}`" in shown, f"the key-results legend does not explain {verdict!r}"
    meaning = re.search(r"^\* \{bdg-muted\}`uninformative` (.*)$", ledger, flags=re.M).group(1)
    assert meaning in shown, "'uninformative' must be explained in the ledger's words"


def test_glue_from_another_page_names_its_format():
    """MyST-NB reads ``path::key:fmt`` from the right: ``{glue:text}`page.ipynb::key``` without ``:fmt`` (``:s`` for a
    string) is parsed as key ``page.ipynb:``, a build error. Every Markdown page is checked."""
    bare = {
        page.name: re.findall(r"\{glue:text\}`([\w.-]+\.ipynb::\w+)`", page.read_text(encoding="utf-8"))
        for page in LEDGER.parent.glob("*.md")
    }
    bare = {name: keys for name, keys in bare.items() if keys}
    assert not bare, f"glue from another page without a format (add :s for text, e.g. :.2f for numbers): {bare}"


def test_result_boxes_show_the_ledgers_verdicts():
    """Every chapter's result box states its verdict with the badge of its ledger row: the same colour and the same
    words, linked to the row. A box may name several rows (Chapter 3: R3 and R2); each must match."""
    rows = {}
    for row in _rows(LEDGER.read_text()):
        label = re.search(r"<(ledger-[\w-]+)>", row[0]).group(1)
        rows[label] = re.fullmatch(r"\{bdg-([\w-]+)\}`([^`]+)`", row[2]).groups()
    for page in sorted(LEDGER.parent.glob("[0-9a]*.ipynb")):
        first = json.loads(page.read_text(encoding="utf-8"))["cells"][0]
        source = "".join(first["source"])
        box = re.search(r"\{admonition\} The result first\n(.*?)\n`{3,4}\s*$", source, flags=re.S | re.M)
        assert box, f"{page.name}: no result box in the first cell"
        badges = re.findall(r"\{bdg-ref-([\w-]+)\}`([^`<]+?) <(ledger-[\w-]+)>`", box.group(1))
        assert badges, f"{page.name}: the result box shows no verdict badge linked to the ledger"
        for role, words, label in badges:
            assert label in rows, f"{page.name}: the box links to {label}, which is not a ledger row"
            assert (role, words) == rows[label], (
                f"{page.name}: the box shows {words!r} ({role}) for {label}; the ledger says {rows[label][1]!r} "
                f"({rows[label][0]})"
            )
