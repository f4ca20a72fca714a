"""Give every figure's image an alternative text: its caption.

A figure glued from a notebook is an image whose only name is its file, so a screen reader (and a reader whose image
did not load) met a hashed path. After the references are resolved (``doctree-resolved``), every image inside a
figure without an alternative text of its own takes the figure's caption as one (:func:`caption_alt`); a figure glued
from another page (``{glue}`` with ``:doc:``, no caption of its own) takes the paragraph that follows it, which the
pages that do so write as its caption (:func:`following_alt`).
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
            if _bare(image):
                image["alt"] = text
                count += 1
    return count


def following_alt(doctree: nodes.Node) -> int:
    """Set ``alt`` of every image outside a figure that has none (or only its path) to the text of the first paragraph
    after its output block (a leading "Figure." dropped); return how many were set."""
    count = 0
    for image in doctree.findall(nodes.image):
        if not _bare(image) or any(isinstance(a, nodes.figure) for a in _ancestors(image)):
            continue
        for block in [image, *_ancestors(image)]:
            after = block.next_node(nodes.paragraph, include_self=False, descend=False, siblings=True)
            if after is not None:
                text = " ".join(after.astext().split())
                image["alt"] = text.removeprefix("Figure.").strip() or text
                count += 1
                break
    return count


def _bare(image: nodes.image) -> bool:
    """The image has no alternative text of its own (none, empty, or its path)."""
    return image.get("alt") in (None, "", image.get("uri"))


def _ancestors(node: nodes.Node) -> list[nodes.Node]:
    """The node's parents, nearest first."""
    out = []
    while node.parent is not None:
        node = node.parent
        out.append(node)
    return out


def _on_resolved(app, doctree, docname):
    caption_alt(doctree)
    following_alt(doctree)


def setup(app):
    app.connect("doctree-resolved", _on_resolved)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
