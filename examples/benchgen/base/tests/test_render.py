"""Checks of the rendered task files."""

import subprocess

from benchgen.render import TaskSpec, render_grader, render_prompt

SPEC = TaskSpec(project="fastjson", bench_id=7, baseline_rev="a" * 40)


def test_grader_is_valid_bash():
    script = render_grader(SPEC)
    subprocess.run(["bash", "-n"], input=script, text=True, check=True)


def test_grader_writes_the_score_file():
    assert "SCORE_FILE=/var/grading/score.json" in render_grader(SPEC)


def test_grader_keeps_the_tests():
    assert "tests/" in render_grader(SPEC).split("KEEP_BASELINE=(", 1)[1].split(")", 1)[0]


def test_prompt_names_the_project():
    assert "# Speed up fastjson" in render_prompt("fastjson")
