"""Run the tests that the agent's change can break, and report regressions.

Task {{ task_id }}.

Usage, in the task repository with the agent's change:

    python3 pytest_runner.py --base SHA

It writes $T_BENCH_TASK_LOGS_PATH/test_results.json (else
$T_BENCH_CONTAINER_LOGS_PATH, else /logs/artifacts), in the shape of
datasmith's runner: results.summary counts the tests that ran, and
regression.regressed lists the regressions.

1. Changed files: git diff --name-only SHA, plus untracked files.
2. Mapped tests: a changed source file src/**/name.py maps to the files
   test_name.py and name_test.py of the tree.
3. Wider check: the nearest tests folder above each changed source file, at
   most 4 folders, in one more run with a time limit. Tests of the mapped
   run are not run twice.
4. Every run has --junitxml and --continue-on-collection-errors. A test file
   that does not import fails that file only.
5. A test that fails runs again. A test that fails twice runs at SHA, in a
   git worktree. It is a regression only if it passes there.
6. A test file that does not import is a regression with the file path as
   its id, if one of its tests passes at SHA.

The file gets regression.regressed and regression.n_regressed, which
parser.py reads. The runner writes it before the wider check too, so a stop
at the task's time limit keeps the mapped results.

Environment: FC_PYTEST_TIMEOUT (default 1800 s) limits the whole runner.
FC_WIDE_TESTS_SEC (default 600 s) limits the wider check:
min(FC_WIDE_TESTS_SEC, FC_PYTEST_TIMEOUT - time used - 180 s). With less
than 60 s left, the wider check does not run. If the limit stops a run, the
tests that finished still count.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

TASK_ID = "{{ task_id }}"

SOURCE_SUFFIXES = (".py", ".pyx", ".pxd", ".c", ".cc", ".cpp", ".h")
TEST_PATH_RE = re.compile(r"(^|/)tests?/|(^|/)test_[^/]*\.py$|(^|/)[^/]*_test\.py$|(^|/)conftest\.py$")
MAX_WIDE_FOLDERS = 4
MAX_BASE_FILES = 40
RESERVE_SEC = 180
MIN_WIDE_SEC = 60
TAIL_CHARS = 4000
BAD = ("failed", "error")
START = time.monotonic()

# A pytest plugin that writes one JSON line per result as it happens, so
# that the results of a run that the time limit kills still count.
STREAM_PLUGIN = '''
import json
import os


def _write(record):
    path = os.environ.get("FC_STREAM_FILE")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\\n")


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        outcome = report.outcome
        if report.failed and report.when != "call":
            outcome = "error"
        _write(dict(id=report.nodeid, outcome=outcome))


def pytest_collectreport(report):
    if report.failed:
        _write(dict(id=report.nodeid, outcome="error"))
'''


def env_seconds(name, default):
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return float(default)


def elapsed():
    return time.monotonic() - START


def git(repo, *args):
    out = subprocess.run(["git", *args], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    return out.stdout


def nul_list(data):
    return [p for p in data.decode("utf-8", "surrogateescape").split("\0") if p]


def changed_files(repo, base):
    """Committed, staged and unstaged changes against base, plus untracked files."""
    names = set(nul_list(git(repo, "diff", "--name-only", "-z", "--no-renames", base, "--")))
    names.update(nul_list(git(repo, "ls-files", "-z", "--others", "--exclude-standard")))
    return sorted(names)


def tree_files(repo):
    """Files of the work tree: tracked and untracked, not ignored."""
    names = nul_list(git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard"))
    return sorted(p for p in set(names) if os.path.isfile(os.path.join(repo, p)))


def is_test_path(path):
    return bool(TEST_PATH_RE.search(path))


def map_tests(changed, sources, files):
    """Test files whose names match a changed source file, and changed test files."""
    wanted = set()
    for src in sources:
        stem = os.path.splitext(os.path.basename(src))[0]
        if stem.startswith("__"):
            continue
        wanted.add("test_" + stem + ".py")
        wanted.add(stem + "_test.py")
    mapped = {f for f in files if os.path.basename(f) in wanted}
    changed_set = set(changed)
    mapped.update(f for f in files if f in changed_set and is_test_file(f))
    return sorted(mapped)


def is_test_file(path):
    name = os.path.basename(path)
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def wide_folders(repo, sources):
    """The nearest tests folder above each changed source file, at most MAX_WIDE_FOLDERS."""
    out = []
    for src in sources:
        d = os.path.dirname(src)
        while True:
            found = None
            for name in ("tests", "test"):
                cand = os.path.join(d, name) if d else name
                if os.path.isdir(os.path.join(repo, cand)):
                    found = cand
                    break
            if found:
                if found not in out:
                    out.append(found)
                break
            if not d:
                break
            d = os.path.dirname(d)
    return out[:MAX_WIDE_FOLDERS]


def module_of(path):
    return path[:-3].replace("/", ".") if path.endswith(".py") else path.replace("/", ".")


def find_file(root, rel_dir, parts):
    """Match dotted parts against folders and .py files; names may hold dots."""
    for k in range(len(parts), 0, -1):
        name = ".".join(parts[:k])
        cand = os.path.join(rel_dir, name) if rel_dir else name
        if os.path.isfile(os.path.join(root, cand + ".py")):
            return cand + ".py", parts[k:]
        if k < len(parts) and os.path.isdir(os.path.join(root, cand)):
            hit = find_file(root, cand, parts[k:])
            if hit:
                return hit
    return None


def node_id(root, classname, name, file):
    """Turn a JUnit test case back into the pytest node id."""
    if file:
        mod = module_of(file)
        if not classname:
            return file if name == mod else file + "::" + name
        if classname == mod:
            return file + "::" + name
        if classname.startswith(mod + "."):
            return "::".join([file, *classname[len(mod) + 1:].split("."), name])
    dotted = classname or name
    hit = find_file(root, "", dotted.split("."))
    if hit:
        path, classes = hit
    else:
        path, classes = dotted.replace(".", "/") + ".py", []
    if not classname:
        return path
    return "::".join([path, *classes, name])


def junit_outcomes(path, root):
    outcomes = {}
    for tc in ET.parse(path).getroot().iter("testcase"):
        if tc.find("failure") is not None:
            outcome = "failed"
        elif tc.find("error") is not None:
            outcome = "error"
        elif tc.find("skipped") is not None:
            outcome = "skipped"
        else:
            outcome = "passed"
        nid = node_id(root, tc.get("classname", ""), tc.get("name", ""), tc.get("file", ""))
        if outcomes.get(nid) not in BAD:
            outcomes[nid] = outcome
    return outcomes


def stream_outcomes(path):
    outcomes = {}
    if not os.path.exists(path):
        return outcomes
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a line cut by the kill
            if outcomes.get(rec["id"]) not in BAD:
                outcomes[rec["id"]] = rec["outcome"]
    return outcomes


def run_pytest(targets, cwd, timeout, extra=(), paths=()):
    """Run pytest on targets; return outcomes by node id and how the run went.

    paths go to the front of PYTHONPATH, after the stream plugin folder.
    """
    work = tempfile.mkdtemp(prefix="fc-pytest-")
    junit = os.path.join(work, "junit.xml")
    stream = os.path.join(work, "stream.jsonl")
    with open(os.path.join(work, "fc_stream_plugin.py"), "w", encoding="utf-8") as f:
        f.write(STREAM_PLUGIN)
    env = dict(os.environ)
    env["FC_STREAM_FILE"] = stream
    env["PYTHONPATH"] = os.pathsep.join(p for p in (work, *paths, env.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "fc_stream_plugin",
           "--continue-on-collection-errors", "-o", "junit_family=xunit1",
           "--junitxml=" + junit, "-q", *extra, *targets]
    started = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    timed_out = False
    try:
        out, _ = proc.communicate(timeout=max(timeout, 1))
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    run = {
        "exit_code": proc.returncode,
        "timed_out": timed_out,
        "seconds": round(time.monotonic() - started, 1),
        "output_tail": out.decode("utf-8", "replace")[-TAIL_CHARS:],
    }
    try:
        run["outcomes"] = junit_outcomes(junit, cwd)
        run["source"] = "junit"
    except (OSError, ET.ParseError):
        run["outcomes"] = stream_outcomes(stream)
        run["source"] = "stream"
    shutil.rmtree(work, ignore_errors=True)
    return run


def counts(outcomes):
    c = dict(passed=0, failed=0, error=0, skipped=0)
    for o in outcomes.values():
        c[o] = c.get(o, 0) + 1
    return c


def file_of(nid):
    return nid.split("::", 1)[0]


def within(key, nid):
    """Whether node id key is nid or lies under it (a test of a file, a file of a folder)."""
    return key == nid or key.startswith(nid + "::") or key.startswith(nid + "/")


def is_bad(nid, outcomes):
    """Whether nid failed in outcomes. No result at all is no evidence of a pass."""
    if "::" in nid:
        return outcomes.get(nid, "failed") in BAD
    own = [o for k, o in outcomes.items() if within(k, nid)]
    return not own or any(o in BAD for o in own)


def passes_at_base(nid, outcomes):
    if "::" in nid:
        return outcomes.get(nid) == "passed"
    return any(o == "passed" for k, o in outcomes.items() if k != nid and within(k, nid))


def run_at_base(repo, base, ids, timeout):
    """Run the files of ids in a git worktree at base; return outcomes and the files run."""
    files = sorted({file_of(i) for i in ids})[:MAX_BASE_FILES]
    tmp = tempfile.mkdtemp(prefix="fc-base-")
    tree = os.path.join(tmp, "base")
    try:
        git(repo, "worktree", "add", "--detach", tree, base)
        present = [f for f in files if os.path.exists(os.path.join(tree, f))]
        # A src layout installed in editable mode would import the agent's
        # code: put the base's src folder first.
        paths = [os.path.join(tree, "src")] if os.path.isdir(os.path.join(tree, "src")) else []
        outcomes = {}
        if present:
            outcomes = run_pytest(present, tree, timeout, paths=paths)["outcomes"]
        return outcomes, files
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", tree], cwd=repo,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        shutil.rmtree(tmp, ignore_errors=True)


def set_results(results, outcomes):
    """results: what ran, as datasmith's runner writes it (one entry per test)."""
    bad = any(o in BAD for o in outcomes.values())
    results["results"] = {
        "exit_code": 5 if not outcomes else (1 if bad else 0),
        "summary": summary(outcomes),
        "tests": [dict(nodeid=n, when="call", outcome=o) for n, o in sorted(outcomes.items())],
    }


def write_results(path, results):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def summary(outcomes):
    """results.summary of datasmith's runner: counts by outcome and the total."""
    c = counts(outcomes)
    s = {k: c.get(k, 0) for k in ("passed", "failed", "skipped", "xfailed", "xpassed", "error")}
    s.update(total=len(outcomes), rerun=0, warnings=0)
    return s


def logs_root():
    """The log folder, looked up as datasmith's runner and parser.py do."""
    return (os.environ.get("T_BENCH_TASK_LOGS_PATH") or os.environ.get("T_BENCH_CONTAINER_LOGS_PATH")
            or "/logs/artifacts")


def main(argv):
    ap = argparse.ArgumentParser(description="Run the tests that a change can break.")
    ap.add_argument("--base", dest="base_ref", default="origin/main", help="the commit before the agent's change")
    args = ap.parse_args(argv)
    repo = os.getcwd()
    os.makedirs(logs_root(), exist_ok=True)
    out = os.path.abspath(os.path.join(logs_root(), "test_results.json"))
    total = env_seconds("FC_PYTEST_TIMEOUT", 1800)
    wide_sec = env_seconds("FC_WIDE_TESTS_SEC", 600)
    results = {
        "task_id": TASK_ID,
        "repo_root": repo,
        "base_ref": args.base_ref,
        "strategy": "changed-files->tests",
        "note": None,
        "fc_runner": "datasmith-mini",
        "results": {"exit_code": 5, "summary": summary({}), "tests": []},
        "regression": dict(ran=False, base_ref=args.base_ref, regressed=[], n_regressed=0),
    }
    try:
        changed = changed_files(repo, args.base_ref)
        files = tree_files(repo)
    except subprocess.CalledProcessError as err:
        results["note"] = "git failed: " + (err.stderr.decode("utf-8", "replace").strip() or str(err))
    except OSError as err:
        results["note"] = "git failed: " + str(err)
    if results["note"]:
        results["regression"]["error"] = results["note"]
        results["regression"]["n_regressed"] = None
        write_results(out, results)
        print("pytest_runner: " + results["note"], file=sys.stderr)
        return 1
    out_rel = os.path.relpath(out, repo)
    changed = [p for p in changed if p not in (out_rel, out_rel + ".tmp")]
    sources = [p for p in changed if p.endswith(SOURCE_SUFFIXES) and not is_test_path(p)]
    mapped = map_tests(changed, sources, files)
    results.update(changed_files=changed, selected_tests=mapped)

    first = {}
    mapped_origin = set()
    if mapped:
        run = run_pytest(mapped, repo, total - elapsed())
        first.update(run["outcomes"])
        mapped_origin = set(run["outcomes"])
        results["mapped_run"] = {k: run[k] for k in ("exit_code", "timed_out", "seconds")}
        results["mapped_run"]["counts"] = counts(run["outcomes"])
    set_results(results, first)
    write_results(out, results)

    folders = wide_folders(repo, sources)
    wide = dict(folders=folders, ran=False)
    left = total - elapsed() - RESERVE_SEC
    limit = min(wide_sec, left)
    if folders and left >= MIN_WIDE_SEC:
        run = run_pytest(folders, repo, limit, ["--ignore=" + m for m in mapped])
        wide.update(ran=True, limit_sec=round(limit), timed_out=run["timed_out"], seconds=run["seconds"],
                    exit_code=run["exit_code"], counts=counts(run["outcomes"]))
        if not run["outcomes"]:
            wide["output_tail"] = run["output_tail"]
        for nid, outcome in run["outcomes"].items():
            first.setdefault(nid, outcome)
    elif folders:
        wide["not_run"] = "less than %d s left" % MIN_WIDE_SEC
    set_results(results, first)

    failed_first = sorted(nid for nid, o in first.items() if o in BAD)
    failed_twice, flaky = [], []
    if failed_first and total - elapsed() > 0:
        again = run_pytest(failed_first, repo, total - elapsed())["outcomes"]
        for nid in failed_first:
            (failed_twice if is_bad(nid, again) else flaky).append(nid)
    else:
        failed_twice = list(failed_first)

    regressed, at_base_too, not_at_base = [], [], []
    checked = []
    if failed_twice and total - elapsed() > 0:
        base_outcomes, checked = run_at_base(repo, args.base_ref, failed_twice, total - elapsed())
        for nid in failed_twice:
            if file_of(nid) not in checked:
                continue
            if passes_at_base(nid, base_outcomes):
                regressed.append(nid)
            elif any(within(k, file_of(nid)) for k in base_outcomes):
                at_base_too.append(nid)
            else:
                not_at_base.append(nid)

    results.update(
        failed_first_run=failed_first,
        flaky=flaky,
        failing_at_base=at_base_too,
        not_at_base=not_at_base,
        not_checked_at_base=[n for n in failed_twice if file_of(n) not in checked],
        regression=dict(ran=bool(checked), base_ref=args.base_ref, regressed=sorted(regressed), n_regressed=len(regressed)),
        first_run=counts(first),
        seconds=round(elapsed(), 1),
    )
    wide["regressed"] = sorted(n for n in regressed if n not in mapped_origin)
    results["regression_wide"] = wide
    write_results(out, results)
    print("pytest_runner: %d tests, %d failed first, %d flaky, %d fail at base too, %d regressed"
          % (len(first), len(failed_first), len(flaky), len(at_base_too), len(regressed)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
