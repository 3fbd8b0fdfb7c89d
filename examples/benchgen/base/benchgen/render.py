"""Render one benchmark task from the templates in task_templates/."""

from __future__ import annotations

import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

import jinja2

TEMPLATE_ROOT = Path(__file__).resolve().parent / "task_templates"

# Helpers the grader runs; they are copied as they are, never rendered.
HELPERS = ("collect.py",)

ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(TEMPLATE_ROOT)),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
    autoescape=False,
)


@dataclass
class TaskSpec:
    project: str
    bench_id: int
    baseline_rev: str
    timeout_s: int = 600
    warmup: int | None = None


def render_grader(spec: TaskSpec, strict_mode: bool = True) -> str:
    """The grader script of one task."""
    return ENV.get_template("grade.sh.jinja").render(**asdict(spec), strict_mode=strict_mode)


def render_prompt(project: str, goal: str = "Make the hot loop faster.") -> str:
    """The prompt the agent reads."""
    return ENV.get_template("prompt.md.jinja").render(project=project, goal=goal)


def write_task(spec: TaskSpec, out: Path) -> None:
    """Write the files of one task into out."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "grade.sh").write_text(render_grader(spec))
    (out / "prompt.md").write_text(render_prompt(spec.project))
    for name in HELPERS:
        shutil.copy2(TEMPLATE_ROOT / "helpers" / name, out / name)
