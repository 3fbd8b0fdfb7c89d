"""List the names Jinja2 templates read that they do not set, for template-verify.

Input (JSON on stdin):
  {"envs": [{"files": {name: base64 source}, "opts": {...}}],
   "jobs": [{"env": index, "name": template name}], "job_timeout": seconds}
Output (JSON on stdout):
  {"jinja2": version, "results": [{"names": [{"name", "file", "line"}], "dynamic": [file], "error"}]}

Argument: the memory limit of the process in bytes (RLIMIT_AS, set before
the request is read).

For each job, the template and every template it includes, imports or
extends (by a constant name, transitively) are parsed, never rendered. A
name is listed when jinja2.meta.find_undeclared_variables reports it for
one of these files, no file of the job assigns it ({% set %}, for targets),
it is no global of the environment, and no file tests it with "is defined"
or "is undefined" or passes it through the default filter: such a name is
known to be optional. "dynamic" lists files that include a name computed at
render time; those are not followed.
"""

import json
import signal
import sys

import jinja2
from jinja2 import meta, nodes
from jinja2.loaders import split_template_path


def closure(env, name):
    """The parsed template and everything it references by constant name."""
    todo, seen, out, dynamic = [name], set(), [], []
    while todo:
        n = todo.pop(0)
        n = "/".join(split_template_path(n))
        if n in seen:
            continue
        seen.add(n)
        source, filename, _ = env.loader.get_source(env, n)
        ast = env.parse(source, n, filename)
        out.append((n, ast))
        for ref in meta.find_referenced_templates(ast):
            if ref is None:
                dynamic.append(n)
            else:
                todo.append(ref)
    return out, dynamic


def optional_names(ast):
    found = set()
    for f in ast.find_all(nodes.Filter):
        if f.name in ("default", "d") and isinstance(f.node, nodes.Name):
            found.add(f.node.name)
    for t in ast.find_all(nodes.Test):
        if t.name in ("defined", "undefined") and isinstance(t.node, nodes.Name):
            found.add(t.node.name)
    return found


def job_names(env, name):
    files, dynamic = closure(env, name)
    stored, optional = set(), set()
    for _, ast in files:
        optional |= optional_names(ast)
        for n in ast.find_all(nodes.Name):
            if n.ctx in ("store", "param"):
                stored.add(n.name)
    out, listed = [], set()
    for i, (fname, ast) in enumerate(files):
        undeclared = meta.find_undeclared_variables(ast)
        if i > 0:
            undeclared -= stored
        undeclared -= set(env.globals)
        undeclared -= optional
        for n in ast.find_all(nodes.Name):
            if n.ctx == "load" and n.name in undeclared and n.name not in listed:
                listed.add(n.name)
                out.append({"name": n.name, "file": fname, "line": n.lineno})
    out.sort(key=lambda r: (r["file"] != name, r["file"], r["line"], r["name"]))
    return {"names": out, "dynamic": sorted(set(dynamic))}


def run(env, job, timeout):
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return job_names(env, job["name"])
    except BaseException as exc:  # noqa: BLE001 - every failure is a result
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        msg = str(exc)
        return {"error": type(exc).__name__ + (": " + msg if msg else "")}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def main():
    memory = int(sys.argv[1]) if len(sys.argv) > 1 else 4 << 30
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    signal.signal(signal.SIGALRM, alarm("parsing took longer than the time limit"))
    req = json.load(sys.stdin)
    timeout = float(req.get("job_timeout") or 20)
    envs = [make_env(spec)[0] for spec in req.get("envs", [])]
    results = [run(envs[job["env"]], job, timeout) for job in req.get("jobs", [])]
    json.dump({"jinja2": jinja2.__version__, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
