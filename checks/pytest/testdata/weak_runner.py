"""A deliberately weak pytest runner for the tests of the pytest check.

It maps changed src/**/name.py files to tests/test_name.py and runs only
those, without --continue-on-collection-errors and without a wider check.
Failing tests run again and then at base, so flaky tests and tests that
fail at base are handled. A test module that does not import is ignored.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def git(*args):
    return subprocess.run(["git", *args], check=True, stdout=subprocess.PIPE).stdout.decode()


def outcomes(targets, cwd):
    junit = os.path.join(tempfile.mkdtemp(), "junit.xml")
    subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                    "--junitxml=" + junit, *targets], cwd=cwd, stdout=subprocess.DEVNULL, check=False)
    res = {}
    if not os.path.exists(junit):
        return res
    for tc in ET.parse(junit).getroot().iter("testcase"):
        cls = tc.get("classname", "")
        if not cls:
            continue  # collection errors are not tests
        parts = cls.split(".")
        nid = "/".join(parts) + ".py::" + tc.get("name")
        bad = tc.find("failure") is not None or tc.find("error") is not None
        res[nid] = "failed" if bad else "passed"
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    args = ap.parse_args()
    changed = git("diff", "--name-only", args.base).split() + git("ls-files", "--others", "--exclude-standard").split()
    mapped = []
    for p in changed:
        if p.startswith("src/") and p.endswith(".py"):
            t = "tests/test_" + os.path.basename(p)
            if os.path.exists(t):
                mapped.append(t)
    first = outcomes(mapped, ".") if mapped else {}
    failed = [n for n, o in first.items() if o == "failed"]
    again = outcomes(failed, ".") if failed else {}
    twice = [n for n in failed if again.get(n) != "passed"]
    regressed = []
    if twice:
        tree = os.path.join(tempfile.mkdtemp(), "base")
        git("worktree", "add", "--detach", tree, args.base)
        base = outcomes(sorted({n.split("::")[0] for n in twice}), tree)
        regressed = [n for n in twice if base.get(n) == "passed"]
    # The shape of datasmith's runner, in $T_BENCH_TASK_LOGS_PATH.
    out = os.path.join(os.environ.get("T_BENCH_TASK_LOGS_PATH") or "/logs/artifacts", "test_results.json")
    with open(out, "w") as f:
        json.dump({"results": {"summary": {"total": len(first)}},
                   "regression": {"regressed": regressed, "n_regressed": len(regressed)}}, f)


main()
