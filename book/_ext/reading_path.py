"""A "Next on the machine-learning path" link at the foot of every page on that path.

The path is read from the index page's "Machine-learning path" card (its ``{doc}`` links, in order), so it is written
once. The theme's previous/next buttons keep following the table of contents, the order of the sidebar; this link,
labelled as the path's, names the path's next page beside them. In the HTML builds only (the PDF is read in book
order).
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes

CARD = re.compile(r":::\{grid-item-card\} Machine-learning path\n(.*?)\n\nThe rest of the argument", re.S)
DOC = re.compile(r"\{doc\}`(?:[^`<]*<)?([\w/.-]+?)>?`")


def path_from_index(text: str) -> list[str]:
    """The documents of the machine-learning path, in order (names relative to the index's folder)."""
    card = CARD.search(text)
    if card is None:
        raise ValueError("the index has no 'Machine-learning path' card ending before 'The rest of the argument'")
    return DOC.findall(card.group(1))


def _read_path(app):
    """Read the path from the index once, when the build starts."""
    index = Path(app.srcdir, "book", "index.md").read_text(encoding="utf-8")
    app.reading_path = ["book/" + d for d in path_from_index(index)]


def _on_resolved(app, doctree, docname):
    if app.builder.format != "html" or not docname.startswith("book/"):
        return
    path = app.reading_path
    if docname not in path[:-1]:
        return
    after = path[path.index(docname) + 1]
    link = nodes.reference("", app.env.titles[after].astext(), internal=True,
                           refuri=app.builder.get_relative_uri(docname, after))
    note = nodes.paragraph("", "", classes=["reading-path-next"])
    note += [nodes.strong("", "Next on the machine-learning path: "), link]
    sections = [n for n in doctree.children if isinstance(n, nodes.section)]
    (sections[0] if sections else doctree).append(note)


def setup(app):
    app.connect("builder-inited", _read_path)
    app.connect("doctree-resolved", _on_resolved)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
