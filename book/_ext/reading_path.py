"""A "Next on the machine-learning path" link at the foot of every page on that path.

The path is read from the index page's "Machine-learning path" card (its ``{doc}`` links, in order), so it is written
once. The theme's previous/next buttons keep following the table of contents, the order of the sidebar; this link,
labelled as the path's, names the path's next page beside them, and a small script marks each page of the path in the
sidebar with its step ("ML 5", titled "Machine-learning path, step 5 of 12"). In the HTML builds only (the PDF is
read in book order).
"""

from __future__ import annotations

import json
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


# marks the sidebar's links to the path's pages with their step
_MARK_STEPS = """
document.addEventListener('DOMContentLoaded', function () {
  var path = %s;
  document.querySelectorAll('.bd-sidenav a.reference.internal').forEach(function (a) {
    var href = a.getAttribute('href').split('#')[0];  // '' for the page itself
    var k = path.indexOf((href || location.pathname).split('/').pop());
    if (k < 0 || a.querySelector('.pg-path-step')) return;
    var mark = document.createElement('span');
    mark.className = 'pg-path-step';
    mark.textContent = 'ML ' + (k + 1);
    mark.title = 'Machine-learning path, step ' + (k + 1) + ' of ' + path.length;
    a.appendChild(mark);
  });
});
"""


def step_script(path: list[str]) -> str:
    """The script that marks the path's pages in the sidebar (their HTML file names, in order)."""
    return _MARK_STEPS % json.dumps([d.split("/")[-1] + ".html" for d in path])


def _read_path(app):
    """Read the path from the index once, when the build starts, and mark its pages in the sidebar."""
    index = Path(app.srcdir, "book", "index.md").read_text(encoding="utf-8")
    app.reading_path = ["book/" + d for d in path_from_index(index)]
    if app.builder.format == "html" and app.builder.name != "singlehtml":
        app.builder.add_js_file(None, body=step_script(app.reading_path))  # once, for this build


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
