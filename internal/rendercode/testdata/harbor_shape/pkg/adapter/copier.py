"""Copies the static helpers of a task (written for the tests)."""

from pathlib import Path
from shutil import copy2

from pkg.adapter.render import render_grader

HELPERS = ("runner.py", "parse.py")


class Writer:
    def __init__(self) -> None:
        self.template_dir = Path(__file__).parent / "template"

    def copy_helpers(self, out: Path) -> None:
        for name in HELPERS:
            copy2(self.template_dir / "tests" / name, out / name)
        copy2(self.template_dir / "env" / "entry.sh", out / "entry.sh")

    def grader(self) -> str:
        return render_grader("o", 1)
