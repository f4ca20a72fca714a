"""The student edition: the book without the solutions to its exercises.

Set ``POSGEOM_EDITION=student`` when building (``make student`` does, writing the site to
``_build/student/_build/html``): the ``{solution}`` blocks are then left out (sphinx-exercise's ``hide_solutions``),
and so is everything from a ``{solution-start}`` to its ``{solution-end}`` (a gated solution, whose code cells and
outputs ``hide_solutions`` alone would leave on the page); every page says which edition it is, and the chapters are
taken from the execution cache of the full edition (``_build/.jupyter_cache``), so they are not executed again when
that build has run. Any other value, or none, builds the full edition.

Three more things stay out of the student edition: the output of every notebook cell tagged ``answer-output`` (a lab
test that prints the numbers an exercise asks for), every notebook cell tagged ``answer-cell``, code and output (a
cell whose code itself states the answers, such as the lab's tests and their checks), and every container of class
``pg-lecturer`` (a lecturer's class plan, expected answers and rubric, written ``:::{container} pg-lecturer`` on the
page). A container of class ``pg-student`` is the other way round: in the student edition only (a lab's result box
that names its target without giving its answer). The downloaded notebooks follow the same rule
(``reader_notebooks.for_edition``).

``make book`` publishes the student edition beside the book, in ``student/``. The role ``{student-edition}`text``
links a page of the full edition to the same page there; in the student edition it is the text alone. The student
edition has no launch buttons (they would open the repository's notebooks, solutions included) and says so in its
announcement.
"""

from __future__ import annotations

import os
from pathlib import Path

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.transforms import SphinxTransform

VARIABLE = "POSGEOM_EDITION"
CACHE = Path(__file__).resolve().parents[2] / "_build" / ".jupyter_cache"


def is_student_edition() -> bool:
    """True when the environment asks for the student edition (``POSGEOM_EDITION=student``)."""
    value = os.environ.get(VARIABLE, "").strip().lower()
    if value not in {"", "full", "student"}:
        raise ValueError(f"{VARIABLE}={value!r}: use 'student' for the edition without solutions, or leave it unset")
    return value == "student"


class gated_solution_start(nodes.Element):
    """Where a gated solution starts in the student edition: removed with what follows, up to its end."""


class DropGatedSolutions(SphinxTransform):
    """Remove every gated solution (its marker, the nodes after it and its ``solution-end``) from the page."""

    default_priority = 11  # after sphinx-exercise merges the gated solutions it still sees (priority 10)

    def apply(self, **kwargs):
        from sphinx_exercise.nodes import solution_end_node

        for start in list(self.document.findall(gated_solution_start)):
            parent = start.parent
            first = parent.index(start)
            last = next((k for k in range(first, len(parent)) if isinstance(parent[k], solution_end_node)), None)
            if last is None:
                raise ExtensionError(f"{self.env.docname}: a solution-start without a solution-end after it, at the "
                                     "same level (a heading between them?): close the solution before the heading")
            del parent[first : last + 1]


ANNOUNCEMENT = ("The student edition: the exercises without their solutions. Each page's download button gives its "
                "notebook without them; the page \"Running the book\" offers the package as a wheel to install.")
ANSWER_TAG = "answer-output"  # a notebook cell tag; myst-nb gives the cell the class tag_answer-output
ANSWER_CELL_TAG = "answer-cell"  # a notebook cell tag: the whole cell stays out of the student edition
LECTURER_CLASS = "pg-lecturer"  # a container for the lecturer's eyes only
STUDENT_CLASS = "pg-student"  # a container for the student edition only


class DropAnswers(SphinxTransform):
    """Remove the outputs of the cells tagged ``answer-output``, the cells tagged ``answer-cell`` and every
    ``pg-lecturer`` container."""

    default_priority = 12

    def apply(self, **kwargs):
        for node in list(self.document.findall(nodes.container)):  # a removed node keeps its own parent
            if LECTURER_CLASS in node["classes"] or f"tag_{ANSWER_CELL_TAG}" in node["classes"]:
                node.parent.remove(node)
            elif f"tag_{ANSWER_TAG}" in node["classes"]:
                for output in list(node.findall(nodes.container)):
                    if "cell_output" in output["classes"]:
                        output.parent.remove(output)


class DropStudentOnly(SphinxTransform):
    """Remove every ``pg-student`` container (registered in the full edition only, as ``DropAnswers`` in the student
    one)."""

    default_priority = 12

    def apply(self, **kwargs):
        for node in list(self.document.findall(nodes.container)):
            if STUDENT_CLASS in node["classes"]:
                node.parent.remove(node)


def _gated_start_directive():
    """sphinx-exercise's ``solution-start``, leaving a marker where ``hide_solutions`` leaves nothing."""
    from sphinx_exercise.directive import SolutionStartDirective

    class StudentSolutionStart(SolutionStartDirective):
        def run(self):
            super().run()  # registers the gated start (its structure is checked); hidden, it returns no node
            return [gated_solution_start()]

    return StudentSolutionStart


def student_edition_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{student-edition}`text```: the same page in the student edition (full edition), or the text alone (student)."""
    env = inliner.document.settings.env
    if is_student_edition() or env.app.builder.name != "html":  # the PDF's single page has no edition beside it
        return [nodes.Text(text)], []
    docname = env.docname
    uri = "../" * docname.count("/") + f"student/{docname}.html"  # the site's root, then the student edition
    return [nodes.reference(rawtext, text, refuri=uri, classes=["pg-student-edition"])], []


def _configure(app, config):
    if not is_student_edition():
        app.add_transform(DropStudentOnly)
        return
    config.hide_solutions = True
    if "sphinx_exercise" in app.extensions:
        app.add_directive("solution-start", _gated_start_directive(), override=True)
        app.add_transform(DropGatedSolutions)
    app.add_transform(DropAnswers)
    config.html_title = f"{config.html_title or config.project} (student edition)"
    # launch buttons would open the repository's notebooks, solutions included: the download button stays
    config.html_theme_options = {**config.html_theme_options, "launch_buttons": {}, "announcement": ANNOUNCEMENT}
    if "nb_execution_cache_path" in config and CACHE.is_dir():
        config.nb_execution_cache_path = str(CACHE)


def setup(app):
    app.connect("config-inited", _configure, priority=900)
    app.add_role("student-edition", student_edition_role)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
