"""Render many Jinja2 jobs in one process for template-verify.

Input (JSON on stdin):
  {"envs": [{"files": {name: base64 source}, "opts": {...}}],
   "jobs": [{"env": index, "name": template name, "vars": {...}}],
   "job_timeout": seconds}
Output (JSON on stdout):
  {"jinja2": version, "results": [{"output", "error", "file", "line", "skipped"}]}

Arguments: the memory limit of the process in bytes (RLIMIT_AS, set before
the request is read), the largest output of one render in bytes, and the
largest total of the outputs as JSON; past the total a job is "skipped".

Each environment is built as datasmith builds its own (make_env of
environment.py, which Go puts in front of this script): a loader with
FileSystemLoader semantics over the given files, StrictUndefined or
Undefined, and the autoescape, keep_trailing_newline, trim_blocks and
lstrip_blocks options.
"""

import json
import signal
import sys

import jinja2


def decode_value(obj):
    # Go maps with keys that are not strings arrive as {"__tv_map__": [[k, v], ...]}.
    if len(obj) == 1 and "__tv_map__" in obj:
        return {to_key(k): v for k, v in obj["__tv_map__"]}
    return obj


def to_key(k):
    return tuple(k) if isinstance(k, list) else k


def where(exc, names):
    """The template file and line of an exception, from its traceback."""
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return exc.name or exc.filename or "", exc.lineno or 0
    file, line = "", 0
    tb = exc.__traceback__
    while tb is not None:
        fn = tb.tb_frame.f_code.co_filename
        if fn in names:
            file, line = fn, tb.tb_lineno
        tb = tb.tb_next
    return file, line


class OutputTooLarge(Exception):
    pass


def render_capped(template, variables, max_output):
    """Render chunk by chunk and stop past max_output bytes of UTF-8."""
    parts, size = [], 0
    for chunk in template.generate(variables):
        size += len(chunk.encode("utf-8", "surrogatepass"))
        if size > max_output:
            raise OutputTooLarge("the output is larger than the limit of %d bytes (limits.render_output)" % max_output)
        parts.append(chunk)
    return "".join(parts)


def run(env, names, job, timeout, max_output):
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        out = render_capped(env.get_template(job["name"]), job.get("vars") or {}, max_output)
        return {"output": out}
    except BaseException as exc:  # noqa: BLE001 - every failure is a result
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        file, line = where(exc, names)
        msg = str(exc)
        return {"error": type(exc).__name__ + (": " + msg if msg else ""), "file": file, "line": line}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def main():
    memory = int(sys.argv[1]) if len(sys.argv) > 1 else 4 << 30
    max_output = int(sys.argv[2]) if len(sys.argv) > 2 else 64 << 20
    max_total = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 30
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    signal.signal(signal.SIGALRM, alarm("the render took longer than the time limit"))
    req = json.load(sys.stdin, object_hook=decode_value)
    timeout = float(req.get("job_timeout") or 20)
    envs = [make_env(spec) for spec in req.get("envs", [])]
    results, total = [], 0
    for job in req.get("jobs", []):
        if total > max_total:
            results.append({"skipped": "the outputs passed %d bytes in all" % max_total})
            continue
        env, names = envs[job["env"]]
        res = run(env, names, job, timeout, max_output)
        size = len(json.dumps(res))
        if total + size > max_total:
            res = {"skipped": "the outputs passed %d bytes in all" % max_total}
            size = len(json.dumps(res))
        total += size
        results.append(res)
    json.dump({"jinja2": jinja2.__version__, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
