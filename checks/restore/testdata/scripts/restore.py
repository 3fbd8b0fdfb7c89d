"""Restore step written in Python for task {{ task_id }} (test fixture).

Puts protected paths back to the baseline commit, deletes protected files
that the agent added, and writes a JSON report.
"""
import argparse
import json
import os
import re
import shutil
import subprocess

PROTECTED = re.compile(
    r"(^|/)benchmarks?/|(^|/)asv\.conf|(^|/)\.snapshots/|(^|/)conftest\.py$|(^|/)\.github/"
    r"|(^|/)tests?/|(^|/)test_[^/]*\.py$|(^|/)[^/]*_test\.py$"
)


def git(repo, *args, check=True):
    cmd = ["git", "-C", repo, "--literal-pathspecs", *args]
    return subprocess.run(cmd, capture_output=True, check=check)


def candidates(repo, base):
    out = git(repo, "diff", "--name-only", "-z", "--no-renames", base, "--").stdout
    out += git(repo, "ls-files", "-z", "--others", "--exclude-standard").stdout
    names = {n.decode("utf-8", "surrogateescape") for n in out.split(b"\0") if n}
    return sorted(n for n in names if PROTECTED.search(n))


def restore(repo, base):
    discarded = candidates(repo, base)
    for p in discarded:
        full = os.path.join(repo, p)
        if git(repo, "cat-file", "-e", f"{base}:{p}", check=False).returncode == 0:
            if os.path.islink(full):
                os.unlink(full)
            elif os.path.isdir(full):
                shutil.rmtree(full)
            git(repo, "checkout", "-q", base, "--", p)
        else:
            git(repo, "rm", "-q", "--cached", "--ignore-unmatch", "--", p)
            if os.path.islink(full) or os.path.isfile(full):
                os.unlink(full)
            elif os.path.isdir(full):
                shutil.rmtree(full)
    return {"ran": True, "base": base, "discarded": discarded, "remaining": candidates(repo, base)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--baseline", required=True)
    ap.add_argument("--report", required=True)
    a = ap.parse_args()
    try:
        with open(a.baseline) as f:
            base = f.read().strip()
    except OSError:
        base = ""
    if not base:
        report = {"ran": False, "error": "no baseline sha file"}
    elif git(a.repo, "merge-base", "--is-ancestor", base, "HEAD", check=False).returncode != 0:
        report = {"ran": False, "error": "HEAD does not descend from the baseline"}
    else:
        try:
            report = restore(a.repo, base)
        except subprocess.CalledProcessError as e:
            report = {"ran": False, "error": str(e)}
    os.makedirs(os.path.dirname(a.report), exist_ok=True)
    with open(a.report, "w") as f:
        json.dump(report, f)


if __name__ == "__main__":
    main()
