"""Give every figure's image an alternative text: its caption.

A figure glued from a notebook is an image whose only name is its file, so a screen reader (and a reader whose image
did not load) met a hashed path. After the references are resolved (``doctree-resolved``), every image inside a
figure without an alternative text of its own takes the figure's caption as one.
"""

from __future__ import annotations

from docutils import nodes


def caption_alt(doctree: nodes.Node) -> int:
    """Set ``alt`` of every image in a captioned figure that has none (or only its path); return how many were set."""
    count = 0
    for figure in doctree.findall(nodes.figure):
        caption = next(iter(figure.findall(nodes.caption)), None)
        if caption is None:
            continue
        text = " ".join(caption.astext().split())
        for image in figure.findall(nodes.image):
            if image.get("alt") in (None, "", image.get("uri")):
                image["alt"] = text
                count += 1
    return count


def _on_resolved(app, doctree, docname):
    caption_alt(doctree)


def setup(app):
    app.connect("doctree-resolved", _on_resolved)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
