"""The core reading path: read from the index's card, marked in the sidebar, shown at each page's top and end.

* :func:`steps_from_index` (and :func:`path_from_index`, its page names only) reads the path from the index page's
  "The core" card: its ``{doc}`` links in order, each with the note in brackets that follows it, such as
  "(its first sections)" for a step that is part of a page. The path is written once, on the index.
* :func:`step_script` is a small script that marks each page of the path in the sidebar with its step ("Core 5",
  titled "The core, step 5 of 12").
* :func:`path_box` is the box added at the end of each page of the path, before the theme's previous/next buttons
  (which keep following the table of contents, the order of the sidebar): "The core, step 5 of 12 ·
  ← previous: … · next: … →", naming the neighbouring steps by the titles the sidebar gives them
  (:func:`numbered`) and by their notes. The last step's box leads back to the card on the index, which is given
  the anchor ``CARD_ID`` (:func:`mark_card`).
* :func:`path_strip` is the muted line put right after each path page's title (:func:`add_after_title`), with the
  same links as the box: "The core · step 5 of 12 · next: … →", or back to the card on the last step.
* On the pages of the path, the theme's buttons are named for their order, "previous in book order" and "next in
  book order" (``BOOK_ORDER``): the page's template translates the theme's two words so (:func:`_name_book_order`).
* When the index or a page of the path is read again, every page of the path (the old path's too) is written again,
  so that the boxes follow a renamed page or a changed path.

In the HTML builds only, and not in the single page that the PDF prints (read in book order).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import NamedTuple

from docutils import nodes
from sphinx import addnodes
from sphinx.util import logging

logger = logging.getLogger(__name__)

CARD_TITLE = "The core"
CARD_ID = "the-core"
BOX_CLASS = "pg-path-nav"
STRIP_CLASS = "pg-path-strip"
# the theme's subtitles of its previous/next buttons (pydata-sphinx-theme's components/prev-next.html), renamed on
# the pages of the path, where two orders meet
BOOK_ORDER = {"previous": "previous in book order", "next": "next in book order"}
CARD = re.compile(r":::\{grid-item-card\} The core\n(.*?)\n\nGoing further", re.S)
DOC = re.compile(r"\{doc\}`(?:[^`<]*<)?([\w/.-]+?)>?`")
# a {doc} link and the note in brackets right after it, if any
STEP = re.compile(DOC.pattern + r"(?:\s*\(([^()]*)\))?")
ROLE = re.compile(r"\{[\w:-]+\}`(?:([^`<]*?)\s*<[^`>]*>|([^`]*))`")


class Step(NamedTuple):
    """One step of the path: its document (relative to the index's folder) and the card's note on it ('' if none)."""

    doc: str
    note: str


def _plain(note: str) -> str:
    """A note as plain text: one line, a MyST role as its text."""
    return " ".join(ROLE.sub(lambda m: m.group(1) or m.group(2), note).split())


def steps_from_index(text: str) -> list[Step]:
    """The steps of the core path, in order, read from the index page's card.

    Parameters
    ----------
    text : str
        The index page's Markdown.

    Returns
    -------
    list of Step
        Each ``{doc}`` link of the card, with the note in brackets that follows it ("its first sections"), as
        plain text.

    Raises
    ------
    ValueError
        If the index has no "The core" card ending before "Going further".
    """
    card = CARD.search(text)
    if card is None:
        raise ValueError("the index has no 'The core' card ending before 'Going further'")
    return [Step(doc, _plain(note)) for doc, note in STEP.findall(card.group(1))]


def path_from_index(text: str) -> list[str]:
    """The documents of the core path, in order (names relative to the index's folder).

    Parameters
    ----------
    text : str
        The index page's Markdown.

    Returns
    -------
    list of str
        The documents the card's ``{doc}`` links name, in order.
    """
    return [step.doc for step in steps_from_index(text)]


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
    mark.textContent = 'Core ' + (k + 1);
    mark.title = 'The core, step ' + (k + 1) + ' of ' + path.length;
    a.appendChild(mark);
    for (var d = a.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;  // a step in a section
  });
});
"""


def step_script(path: list[str]) -> str:
    """The script that marks the path's pages in the sidebar.

    Parameters
    ----------
    path : list of str
        The path's documents, in order.

    Returns
    -------
    str
        JavaScript that adds "Core k" to each sidebar link to the k-th page (matched on its HTML file's name) and opens
        the sidebar's folded sections that hold one.
    """
    return _MARK_STEPS % json.dumps([d.split("/")[-1] + ".html" for d in path])


def numbered(title: str, number, suffix: str = ". ") -> str:
    """A page's title as the sidebar shows it: after its chapter's number, if it has one.

    Parameters
    ----------
    title : str
        The page's title (its table-of-contents title, or its first heading).
    number : sequence of int or str, or None
        The page's section number, ``[2]`` or ``["5b"]`` (a companion section), None for an unnumbered page.
    suffix : str
        What follows the number (Sphinx's ``html_secnumber_suffix``).

    Returns
    -------
    str
        "2. Positional distributions and their geometry", or the title alone.
    """
    return f"{'.'.join(map(str, number))}{suffix}{title}" if number else title


def _link(title: str, uri: str) -> nodes.reference:
    """An internal link to ``uri`` reading ``title``."""
    return nodes.reference("", title, internal=True, refuri=uri)


def _neighbour(label: str, step: Step, titles: dict, uris: dict, end: str = "", notes: bool = True) -> list:
    """' · label: <title> (note)end', the line's part for the previous or the next step."""
    part = [nodes.Text(f" · {label}: "), _link(titles[step.doc], uris[step.doc])]
    if notes and step.note:
        part.append(nodes.inline("", f" ({step.note})", classes=["pg-path-note"]))
    return part + [nodes.Text(end)] if end else part


def _path_line(head: str, steps: list[Step], k: int, links: tuple, end: str, previous: bool, notes: bool):
    """The box's or the strip's line: ``head``, the previous step (if asked), the next one or the path's end."""
    titles, uris, back = links
    line = nodes.paragraph("", "", nodes.strong("", head))
    if previous and k > 0:
        line += _neighbour("← previous", steps[k - 1], titles, uris, notes=notes)
    if k < len(steps) - 1:
        line += _neighbour("next", steps[k + 1], titles, uris, end=" →", notes=notes)
    else:
        line += [nodes.Text(f" · {end}: "), _link("back to the path on the index", back)]
    return line


def path_box(steps: list[Step], k: int, titles: dict[str, str], uris: dict[str, str], back: str) -> nodes.container:
    """The box at the end of the k-th page of the path: its step and links to its neighbours on the path.

    Parameters
    ----------
    steps : list of Step
        The path, in order.
    k : int
        The page's place on the path, from 0.
    titles : dict
        Each neighbouring step's document -> its title as the sidebar shows it (:func:`numbered`).
    uris : dict
        Each neighbouring step's document -> its address relative to this page.
    back : str
        The address of the path's card on the index, relative to this page (the last step's link).

    Returns
    -------
    docutils.nodes.container
        "The core, step k of N · ← previous: <title> · next: <title> (note) →"; the first step has no
        previous, the last says that the path ends there and links back to its card.
    """
    head = f"{CARD_TITLE}, step {k + 1} of {len(steps)}"
    line = _path_line(head, steps, k, (titles, uris, back), "the end of the path", previous=True, notes=True)
    return nodes.container("", line, classes=[BOX_CLASS])


def path_strip(steps: list[Step], k: int, titles: dict[str, str], uris: dict[str, str], back: str) -> nodes.container:
    """The line under the title of the k-th page of the path: its step and a link to the next one.

    Parameters
    ----------
    steps, k, titles, uris, back
        As for :func:`path_box`, whose links the strip shares.

    Returns
    -------
    docutils.nodes.container
        "The core · step k of N · next: <title> →", without the previous step and the card's notes
        (the box at the page's end gives them); the last step says so and links back to the path's card.
    """
    head = f"{CARD_TITLE} · step {k + 1} of {len(steps)}"
    line = _path_line(head, steps, k, (titles, uris, back), "the last step", previous=False, notes=False)
    return nodes.container("", line, classes=[STRIP_CLASS])


def add_after_title(doctree: nodes.Node, node: nodes.Node) -> bool:
    """Put ``node`` right after the page's title, its first section's heading (the page's ``h1``).

    Parameters
    ----------
    doctree : docutils.nodes.Node
        The page's doctree.
    node : docutils.nodes.Node
        What to put there.

    Returns
    -------
    bool
        False, and the doctree unchanged, when the page has no titled section.
    """
    section = doctree.next_node(nodes.section)
    if section is None or not section.children or not isinstance(section[0], nodes.title):
        return False
    section.insert(1, node)
    return True


def mark_card(doctree: nodes.Node) -> bool:
    """Give the index's "The core" card the anchor ``CARD_ID``.

    Parameters
    ----------
    doctree : docutils.nodes.Node
        The index page's resolved doctree (sphinx-design's cards are containers with a ``design_component``).

    Returns
    -------
    bool
        False when the page has no such card.
    """
    for title in doctree.findall(nodes.container):
        if title.get("design_component") != "card-title" or title.astext().strip() != CARD_TITLE:
            continue
        card = title.parent
        while card is not None and card.get("design_component") != "card":
            card = card.parent
        if card is not None:
            if CARD_ID not in card["ids"]:
                card["ids"].append(CARD_ID)
            return True
    return False


def _in_html(app) -> bool:
    """Whether this build writes the HTML pages (not the single page the PDF prints)."""
    return app.builder.format == "html" and app.builder.name != "singlehtml"


def _read_path(app):
    """Read the path from the index once, when the build starts, and mark its pages in the sidebar."""
    index = Path(app.srcdir, "book", "index.md").read_text(encoding="utf-8")
    app.reading_steps = [Step("book/" + s.doc, s.note) for s in steps_from_index(index)]
    app.reading_path = [s.doc for s in app.reading_steps]
    app.reading_titles, app.reading_path_read = None, False
    if _in_html(app):
        app.builder.add_js_file(None, body=step_script(app.reading_path))  # once, for this build


def _toc_titles(env) -> dict[str, str]:
    """The titles that the table of contents gives its entries, where it gives one (``title:`` in _toc.yml)."""
    found = {}
    for parent in env.toctree_includes:
        for toctree in env.get_doctree(parent).findall(addnodes.toctree):
            found.update({ref: title for title, ref in toctree["entries"] if title})
    return found


def _sidebar_titles(app) -> dict[str, str]:
    """Each step's title as the sidebar shows it, worked out once, when the first page is written."""
    if app.reading_titles is None:
        env, own = app.env, _toc_titles(app.env)
        suffix = app.config.html_secnumber_suffix
        app.reading_titles = {
            d: numbered(own.get(d) or env.titles[d].astext(), env.titles[d].get("secnumber"), suffix)
            for d in app.reading_path
        }
    return app.reading_titles


def _on_resolved(app, doctree, docname):
    """Add the strip and the box to a page of the path; give the index's card its anchor."""
    if not _in_html(app):
        return
    if docname == app.config.root_doc and not mark_card(doctree):
        logger.warning(f"{docname}: no '{CARD_TITLE}' card to anchor the path's last link (#{CARD_ID}) on")
    if docname not in app.reading_path:
        return
    uris = {d: app.builder.get_relative_uri(docname, d) for d in app.reading_path}
    back = f"{app.builder.get_relative_uri(docname, app.config.root_doc)}#{CARD_ID}"
    k, titles = app.reading_path.index(docname), _sidebar_titles(app)
    if not add_after_title(doctree, path_strip(app.reading_steps, k, titles, uris, back)):
        logger.warning(f"{docname}: no title to put the core path's strip after")
    doctree.append(path_box(app.reading_steps, k, titles, uris, back))  # after every section


def _name_book_order(app, pagename, templatename, context, doctree):
    """On a page of the path, have the theme's template say "previous in book order" for "previous" (BOOK_ORDER)."""
    if _in_html(app) and pagename in app.reading_path:
        translate = app.translator.gettext
        context["_"] = lambda message: BOOK_ORDER.get(message) or translate(message)


def _note_read(app, env, docnames):
    """Remember whether this build reads the index or a page of the path again (the boxes then change)."""
    watched = {app.config.root_doc, *app.reading_path, *getattr(env, "posgeom_reading_path", ())}
    app.reading_path_read = bool(watched & set(docnames))


def _rewrite(app, env):
    """The pages of the path, the old path's too, to write again when the index or one of them was read again."""
    before = getattr(env, "posgeom_reading_path", [])
    env.posgeom_reading_path = list(app.reading_path)
    return sorted({*before, *app.reading_path} & env.found_docs) if app.reading_path_read else []


def setup(app):
    app.connect("builder-inited", _read_path)
    app.connect("env-before-read-docs", _note_read)
    app.connect("env-get-updated", _rewrite)
    app.connect("doctree-resolved", _on_resolved)
    app.connect("html-page-context", _name_book_order)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
