"""Tests of the datasmith templates.

They render every template with the options of its Jinja environment, check
the rendered shell scripts with bash -n, and replay the restore step of
tests/test.sh on temporary git repositories. Run from the repository top:

    PYTHONPATH=src python3 -m pytest -p no:cacheprovider -q tests/test_templates.py
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jinja2
import pytest

import datasmith

SRC = Path(datasmith.__file__).resolve().parent
HARBOR = SRC / "harbor_adapter" / "template"
PROMPTS = SRC / "github" / "templates"

HARBOR_VARS = {
    "owner": "example-owner",
    "repo": "example-repo",
    "issue_number": 1,
    "task_id": "example-owner__example-repo-1",
    "base_commit": "0123456789abcdef0123456789abcdef01234567",
    "extra_setup_commands": "",
    "base_image": "python:3.12-slim",
}
MATRIX = [
    {"run_pytest": run_pytest, "rounds": rounds}
    for run_pytest in (True, False)
    for rounds in (5, None)
]
PROMPT_VARS = {
    "repo_description": "A small example library.",
    "initial_observations": "The slow path is in parse().",
    "issues": [{"number": 1, "title": "parse() is slow", "body": "It takes 2 s."}],
}

# The restore policy: each pattern of the restore step, with the words the
# prompt's rule line uses for it.
POLICY = {
    r"(^|/)benchmarks?/": "benchmarks",
    r"(^|/)asv\.conf": "asv.conf",
    r"(^|/)\.snapshots/": ".snapshots",
    r"(^|/)conftest\.py$": "conftest.py",
    r"(^|/)\.github/": ".github/",
}
SECTIONS = [
    "Skip flags",
    "Source profile",
    "Capture patch",
    "Restore protected paths",
    "Timing",
    "Pytest",
    "Parse",
]
GIT_ENV = {
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "HOME": "/nonexistent",
    "LC_ALL": "C",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_AUTHOR_NAME": "test",
    "GIT_AUTHOR_EMAIL": "test@localhost",
    "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@localhost",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    # No "git maintenance run --auto" after each commit: the repositories
    # are thrown away.
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "maintenance.auto",
    "GIT_CONFIG_VALUE_0": "false",
}


def harbor_env():
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(HARBOR)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render_harbor(name, **matrix):
    return harbor_env().get_template(name).render(**HARBOR_VARS, **matrix)


def copied(rel):
    """The adapter copies these files verbatim (copy: in the config): never rendered."""
    return rel == "tests/parser.py" or rel.startswith("tests/fc_")


def harbor_templates():
    names = []
    for path in sorted(HARBOR.rglob("*")):
        rel = path.relative_to(HARBOR).as_posix()
        if path.is_file() and not rel.endswith(".inc") and "__pycache__" not in rel and not copied(rel):
            names.append(rel)
    return names


def section(script, name):
    """Return the lines from the header of name to the line before the next header."""
    out, inside = [], False
    for line in script.splitlines(keepends=True):
        if line.startswith("# ── "):
            if inside:
                break
            inside = line.startswith("# ── " + name)
        if inside:
            out.append(line)
    assert out, f"no section {name!r}"
    return "".join(out)


def bash_syntax_error(script, tmp_path):
    path = tmp_path / "script.sh"
    path.write_text(script, encoding="utf-8")
    proc = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    return proc.stderr if proc.returncode else ""


@pytest.mark.parametrize("name", harbor_templates())
@pytest.mark.parametrize("matrix", MATRIX, ids=lambda m: f"run_pytest={m['run_pytest']},rounds={m['rounds']}")
def test_harbor_template_renders(name, matrix, tmp_path):
    out = render_harbor(name, **matrix)
    assert out.endswith("\n"), "keep_trailing_newline keeps the last newline"
    if name.endswith(".sh"):
        assert bash_syntax_error(out, tmp_path) == ""


def test_sections_are_in_order():
    script = render_harbor("tests/test.sh", run_pytest=True, rounds=5)
    headers = [line[len("# ── "):].split(" ──")[0] for line in script.splitlines() if line.startswith("# ── ")]
    assert headers == SECTIONS


def test_skip_flags_are_read_before_sourcing(tmp_path):
    script = render_harbor("tests/test.sh", run_pytest=True, rounds=5)
    head = section(script, "Skip flags") + section(script, "Source profile")
    profile = tmp_path / "profile.d"
    profile.mkdir()
    (profile / "agent.sh").write_text("export FC_SKIP_PYTEST=1\nFC_SKIP_SNAPSHOT=0\n_fc_skip_pytest=1\n")
    head = head.replace("/etc/profile.d/", f"{profile}/").replace("/logs/artifacts", str(tmp_path / "logs"))
    probe = head + 'echo "pytest=$_fc_skip_pytest snapshot=$_fc_skip_snapshot"\n'
    for incoming, want in [({}, "pytest=0 snapshot=0"), ({"FC_SKIP_SNAPSHOT": "1"}, "pytest=0 snapshot=1"), ({"FC_SKIP_PYTEST": "true"}, "pytest=0 snapshot=0")]:
        proc = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, env={**GIT_ENV, **incoming})
        assert proc.stdout.strip().splitlines()[-1] == want, proc.stderr


@pytest.mark.parametrize("run_pytest", [True, False])
def test_pytest_step(run_pytest):
    step = section(render_harbor("tests/test.sh", run_pytest=run_pytest, rounds=None), "Pytest")
    assert ("pytest_runner.py" in step) == run_pytest
    assert '"tests_passed": null' in step, "a skip is written as not run, never as a pass"


def test_dockerfile_includes_restore_paths():
    out = render_harbor("environment/Dockerfile", run_pytest=True, rounds=5)
    inc = (HARBOR / "environment" / "restore_paths.inc").read_text(encoding="utf-8")
    assert inc.strip() in out
    assert out.startswith("FROM python:3.12-slim\n")


def script_patterns(script):
    return re.findall(r"^\s*-e '([^']+)'$", section(script, "Restore protected paths"), re.M)


def test_restore_patterns_follow_policy():
    assert script_patterns(render_harbor("tests/test.sh", run_pytest=True, rounds=5)) == list(POLICY)


def test_prompt_rule_line_follows_policy():
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(PROMPTS)), trim_blocks=True, lstrip_blocks=True)
    out = env.get_template("final.md.j2").render(**PROMPT_VARS)
    rules = [line for line in out.splitlines() if line.startswith("RULE:")]
    assert len(rules) == 1
    for words in POLICY.values():
        assert words in rules[0]
    assert "Issue 1: parse() is slow\n  It takes 2 s.\n" in out


def test_parser_skip_is_not_a_pass(tmp_path):
    parser = tmp_path / "parser.py"
    parser.write_text((HARBOR / "tests" / "parser.py").read_text(encoding="utf-8"), encoding="utf-8")
    cases = [
        ({"pytest_skipped": "FC_SKIP_PYTEST", "tests_ran": False, "tests_passed": None}, None),
        # The runner's shape: results.summary.total counts the tests that ran.
        ({"results": {"summary": {"total": 3}}, "regression": {"regressed": [], "n_regressed": 0}}, True),
        ({"results": {"summary": {"total": 3}}, "regression": {"regressed": ["t::x"], "n_regressed": 1}}, False),
        ({"results": {"summary": {"total": 0}}, "regression": {"regressed": [], "n_regressed": 0}}, False),
    ]
    for results, want in cases:
        (tmp_path / "in.json").write_text(json.dumps(results))
        subprocess.run([sys.executable, str(parser), str(tmp_path / "in.json"), str(tmp_path / "out.json")], check=True)
        assert json.loads((tmp_path / "out.json").read_text())["tests_passed"] is want


# ── The restore step on a temporary git repository ──


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True, text=True).stdout


BASE_FILES = {
    "src/pkg/core.py": "def parse(rows):\n    return [list(r) for r in rows]\n",
    "tests/test_core.py": "def test_parse():\n    assert True\n",
    "conftest.py": "# root conftest\n",
    "benchmarks/bench_core.py": "def time_parse():\n    pass\n",
    "asv.conf.json": "{}\n",
    ".github/workflows/ci.yml": "on: push\n",
}


@pytest.fixture
def fixture_repo(tmp_path):
    repo = tmp_path / "repo"
    for rel, text in BASE_FILES.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD").strip()
    (tmp_path / "fc_baseline_sha").write_text(base + "\n")
    (tmp_path / "base_commit").write_text(base + "\n")
    return repo, base


def run_restore(tmp_path):
    """Run test.sh up to the end of the restore step, as production does
    (the profile files aside): set -euo pipefail, the patch capture that
    sets the base commit, then the step. base_commit is the fixture's base."""
    base_commit = (tmp_path / "base_commit").read_text().strip()
    script = harbor_env().get_template("tests/test.sh").render(
        **{**HARBOR_VARS, "base_commit": base_commit, "run_pytest": True, "rounds": None})
    step = "set -euo pipefail\n" + section(script, "Capture patch") + section(script, "Restore protected paths")
    (tmp_path / "logs").mkdir(exist_ok=True)  # test.sh makes it before these sections
    step = step.replace("/workspace/repo", str(tmp_path / "repo"))
    step = step.replace("/opt/fc_baseline_sha", str(tmp_path / "fc_baseline_sha"))
    step = step.replace("/logs/artifacts", str(tmp_path / "logs"))
    proc = subprocess.run(["bash", "-c", step], capture_output=True, text=True, env=GIT_ENV, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads((tmp_path / "logs" / "protected_restore.json").read_text(encoding="utf-8"))


def test_restore_discards_protected_edits_and_keeps_the_fix(fixture_repo, tmp_path):
    repo, base = fixture_repo
    (repo / "conftest.py").write_text("import pytest\n")
    (repo / "benchmarks" / "sp ace.py").write_text("# added by the agent\n")
    (repo / ".github" / "workflows" / "ci.yml").unlink()
    (repo / "src" / "pkg" / "core.py").write_text("def parse(rows):\n    return list(map(list, rows))\n")
    git(repo, "add", "conftest.py")
    report = run_restore(tmp_path)
    assert report == {
        "ran": True,
        "base": base,
        "discarded": [".github/workflows/ci.yml", "benchmarks/sp ace.py", "conftest.py"],
        "remaining": [],
    }
    assert git(repo, "diff", "--name-only", base).split("\n")[:-1] == ["src/pkg/core.py"]
    assert not (repo / "benchmarks" / "sp ace.py").exists()


def test_restore_undoes_a_committed_edit(fixture_repo, tmp_path):
    repo, base = fixture_repo
    (repo / "benchmarks" / "bench_core.py").write_text("def time_parse():\n    return 0\n")
    (repo / "src" / "pkg" / "core.py").write_text("def parse(rows):\n    return []\n")
    git(repo, "commit", "-q", "-am", "agent commit")
    report = run_restore(tmp_path)
    assert report["discarded"] == ["benchmarks/bench_core.py"]
    assert (repo / "benchmarks" / "bench_core.py").read_text() == BASE_FILES["benchmarks/bench_core.py"]
    assert (repo / "src" / "pkg" / "core.py").read_text() == "def parse(rows):\n    return []\n"


def test_restore_falls_back_to_the_base_commit_without_a_baseline(fixture_repo, tmp_path):
    repo, base = fixture_repo
    (tmp_path / "fc_baseline_sha").unlink()
    (repo / "conftest.py").write_text("import pytest\n")
    report = run_restore(tmp_path)
    assert report == {"ran": True, "base": base, "discarded": ["conftest.py"], "remaining": []}
    assert (repo / "conftest.py").read_text() == BASE_FILES["conftest.py"]


def test_restore_changes_nothing_on_an_unrelated_head(fixture_repo, tmp_path):
    repo, _ = fixture_repo
    git(repo, "checkout", "-q", "--orphan", "other")
    (repo / "conftest.py").write_text("import pytest\n")
    git(repo, "commit", "-q", "-am", "unrelated")
    report = run_restore(tmp_path)
    assert report == {"ran": False, "error": "HEAD does not descend from the baseline"}
    assert (repo / "conftest.py").read_text() == "import pytest\n"
