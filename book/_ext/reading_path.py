"""A "Next on the machine-learning path" link at the foot of every page on that path.

The path is read from the index page's "Machine-learning path" card (its ``{doc}`` links, in order), so it is written
once. Sphinx's own "next" button follows the table of contents (1, 2, 3, 3b, 4, ...); a reader on the path would
otherwise have to return to the index after every page, so on the path's pages the stylesheet hides the theme's
buttons and this link is the one next link; the hidden buttons are pointed at the path's neighbours as well, so the
page names one next page. In the HTML builds only (the PDF is read in book order).
"""

from __future__ import annotations

import re
from html import escape
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


def path_neighbours(path: list[str], docname: str) -> tuple[str | None, str | None]:
    """The pages before and after ``docname`` on the path (None at an end, both None off the path)."""
    if docname not in path:
        return None, None
    k = path.index(docname)
    return (path[k - 1] if k else None), (path[k + 1] if k + 1 < len(path) else None)


def _on_page(app, pagename, templatename, context, doctree):
    """On the path's pages the theme's hidden previous/next buttons name the path's neighbours too."""
    for key, doc in zip(("prev", "next"), path_neighbours(app.reading_path, pagename)):
        if doc is not None and context.get(key):
            title = escape(app.env.titles[doc].astext())
            context[key] = {"link": app.builder.get_relative_uri(pagename, doc), "title": title}


def setup(app):
    app.connect("builder-inited", _read_path)
    app.connect("doctree-resolved", _on_resolved)
    app.connect("html-page-context", _on_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
