"""A render module shaped like datasmith's harbor adapter (written for the
tests): one environment at module level, a wrapper that takes the template
name and **context, and one function per template with defaults."""

from __future__ import annotations

import os
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

ROUNDS: int = int(os.environ.get("PKG_ROUNDS", "7"))

TEMPLATE_DIR = Path(__file__).parent / "template"
_ENV = Environment(
    loader=FileSystemLoader(str(TEMPLATE_DIR)),
    undefined=StrictUndefined,
    autoescape=False,
    keep_trailing_newline=True,
)


def _render(template_name: str, **context: object) -> str:
    return _ENV.get_template(template_name).render(**context)


def make_id(owner: str, number: int) -> str:
    return f"{owner}-{number}"


def render_grader(owner: str, number: int, with_tests: bool = True, rounds: int | None = None, label: str = "") -> str:
    if rounds is None:
        rounds = ROUNDS
    return _render(
        "tests/grade.sh",
        task=make_id(owner, number),
        owner=owner,
        number=number,
        with_tests=with_tests,
        rounds=rounds,
        label=label or "none",
        limit=None,
    )


def render_image(base: str, threads: int = 2) -> str:
    return _render("env/Dockerfile", base=base, threads=int(threads))


def read_notes() -> str:
    return read_file(TEMPLATE_DIR / "notes.md")


def read_file(path: Path) -> str:
    return path.read_text()
