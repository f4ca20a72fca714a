"""The student edition: the book without the solutions to its exercises.

Set ``POSGEOM_EDITION=student`` when building (``make student`` does, writing the site to ``_build/student/html``):
the ``{solution}`` blocks are then left out (sphinx-exercise's ``hide_solutions``), every page says which edition
it is, and the chapters are taken from the execution cache of the full edition (``_build/.jupyter_cache``), so they are
not executed again when that build has run. Any other value, or none, builds the full edition.
"""

from __future__ import annotations

import os
from pathlib import Path

VARIABLE = "POSGEOM_EDITION"
CACHE = Path(__file__).resolve().parents[2] / "_build" / ".jupyter_cache"


def is_student_edition() -> bool:
    """True when the environment asks for the student edition (``POSGEOM_EDITION=student``)."""
    value = os.environ.get(VARIABLE, "").strip().lower()
    if value not in {"", "full", "student"}:
        raise ValueError(f"{VARIABLE}={value!r}: use 'student' for the edition without solutions, or leave it unset")
    return value == "student"


def _configure(app, config):
    if not is_student_edition():
        return
    config.hide_solutions = True
    config.html_title = f"{config.html_title or config.project} (student edition)"
    if "nb_execution_cache_path" in config and CACHE.is_dir():
        config.nb_execution_cache_path = str(CACHE)


def setup(app):
    app.connect("config-inited", _configure, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
