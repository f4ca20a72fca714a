"""Give the single-page HTML builder (``make pdf``) the node visitors every extension registered for HTML.

Sphinx looks up a node's visitors under the builder's name first and falls back to its format (``html``) only when
no extension registered anything under that name. sphinx-exercise registers its nodes under ``singlehtml``, so the
fallback stops there and sphinx-proof's theorem and definition nodes, registered under ``html``, become unknown to
the single-page builder. This extension copies the missing ``html`` handlers to ``singlehtml``.
"""

from __future__ import annotations


def _merge_handlers(app, config):
    handlers = app.registry.translation_handlers
    html = handlers.get("html", {})
    single = handlers.setdefault("singlehtml", {})
    for name, visitors in html.items():
        single.setdefault(name, visitors)


def setup(app):
    app.connect("config-inited", _merge_handlers, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
