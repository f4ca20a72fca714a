"""The single-page HTML build that ``make pdf`` prints: node visitors it lacks, and dropdowns printed open.

Sphinx looks up a node's visitors under the builder's name first and falls back to its format (``html``) only when
no extension registered anything under that name. sphinx-exercise registers its nodes under ``singlehtml``, so the
fallback stops there and sphinx-proof's theorem and definition nodes, registered under ``html``, become unknown to
the single-page builder. ``_merge_handlers`` copies the missing ``html`` handlers to ``singlehtml``.

Chromium prints a closed ``<details>`` closed, and sphinx-togglebutton hides a ``dropdown`` admonition (a proof, a
solution) until it is clicked, so the PDF lost every dropdown's text. In the single-page build only,
``open_dropdowns`` opens sphinx-design dropdowns and marks dropdown admonitions ``toggle-shown``. Hidden code cells
(myst-nb's ``hide-input``) stay folded: they are code, not text.
"""

from __future__ import annotations

from docutils import nodes


def _merge_handlers(app, config):
    handlers = app.registry.translation_handlers
    html = handlers.get("html", {})
    single = handlers.setdefault("singlehtml", {})
    for name, visitors in html.items():
        single.setdefault(name, visitors)


def open_dropdowns(doctree) -> int:
    """Open every sphinx-design dropdown and togglebutton dropdown in ``doctree``; return how many."""
    opened = 0
    for node in doctree.findall(nodes.Element):
        if "opened" in node.attributes and (type(node).__name__ == "dropdown_main" or node.get("type") == "dropdown"):
            node["opened"] = True
            opened += 1
        elif "dropdown" in node.get("classes", ()) and "toggle-shown" not in node["classes"]:
            node["classes"].append("toggle-shown")
            opened += 1
    return opened


def _open_for_print(app, doctree, docname):
    if app.builder.name == "singlehtml":
        open_dropdowns(doctree)


def setup(app):
    app.connect("config-inited", _merge_handlers, priority=900)
    app.connect("doctree-resolved", _open_for_print)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
