"""Prompt rendering shaped like datasmith's github/render.py (written for
the tests): a function returns the environment; one template is rendered
only when there are tickets."""

import os

from jinja2 import Environment, FileSystemLoader

from pkg.prompts.models import Ticket

_DIR = os.path.join(os.path.dirname(__file__), "templates")


def _env() -> Environment:
    return Environment(loader=FileSystemLoader(_DIR), trim_blocks=True, lstrip_blocks=True)


def render_prompt(tickets: list[Ticket] | None = None, summary: str = "", hint: str | None = None) -> str:
    env = _env()
    text = ""
    if tickets:
        tpl = env.get_template("tickets.md.j2")
        text = tpl.render(tickets=tickets)
    tpl = env.get_template("final.md.j2")
    return tpl.render(summary=summary, tickets=text, hint=hint)
