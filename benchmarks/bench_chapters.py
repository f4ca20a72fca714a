"""The book's chapters' execution times, as recorded by the last ``make book`` (issue 8 and 9).

Reads the table that myst-nb writes into ``_build/html/book/execution_times.html`` and compares each chapter with
the budget (90 s per chapter, 8 minutes for the book). Run ``make book`` first; without a built book this reports
nothing rather than a stale number.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "_build" / "html" / "book" / "execution_times.html"
CHAPTER_BUDGET_S, BOOK_BUDGET_S = 90.0, 480.0


class _Cells(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self._row, self._in_cell = [], None, False

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._in_cell = True
            self._row.append("")

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._in_cell = False
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._in_cell:
            self._row[-1] += data.strip()


def chapter_times() -> dict[str, float]:
    """``{docname: seconds}`` from the built execution-time table (empty if the book is not built)."""
    if not PAGE.is_file():
        return {}
    parser = _Cells()
    parser.feed(PAGE.read_text(encoding="utf-8"))
    header, *rows = parser.rows
    doc, runtime = header.index("Document"), header.index("Run Time (s)")
    return {r[doc]: float(r[runtime]) for r in rows if re.fullmatch(r"[0-9.]+", r[runtime])}


def run() -> list[dict]:
    times = chapter_times()
    if not times:
        print(f"no execution-time table at {PAGE}: run `make book` first")
        return []
    rows = [
        {"benchmark": f"chapter {name}", "measured": t, "baseline": CHAPTER_BUDGET_S, "unit": "s",
         "ratio": t / CHAPTER_BUDGET_S, "target": f"<= {CHAPTER_BUDGET_S:.0f} s", "met": t <= CHAPTER_BUDGET_S}
        for name, t in sorted(times.items())
    ]
    total = sum(times.values())
    rows.append({"benchmark": "whole book", "measured": total, "baseline": BOOK_BUDGET_S, "unit": "s",
                 "ratio": total / BOOK_BUDGET_S, "target": f"<= {BOOK_BUDGET_S:.0f} s", "met": total <= BOOK_BUDGET_S})
    return rows


if __name__ == "__main__":
    for row in run():
        verdict = "met" if row["met"] else "NOT met"
        print(f"{row['benchmark']}: {row['measured']:.1f} s (target {row['target']}): {verdict}")
