"""Render code that the static reader cannot follow: the variables arrive
as **ctx built from a dataclass, the loader searches two folders, and the
prompt is loaded from text."""
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional

import jinja2

HERE = Path(__file__).parent
ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader([str(HERE / "templates"), str(HERE / "shared")]),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
)


@dataclass
class Spec:
    task: str
    run_pytest: bool = True
    rounds: Optional[int] = None


def render(spec: Spec) -> str:
    ctx = asdict(spec)
    return ENV.get_template("tests/test.sh").render(**ctx)


def prompt(issue: str) -> str:
    text = (HERE / "prompts" / "final.md").read_text()
    return jinja2.Template(text, undefined=jinja2.StrictUndefined).render(issue=issue)
