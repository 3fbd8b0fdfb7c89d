"""Render templates with Python Jinja2 for the Go tests of package examples.

stdin: {"groups": [{"root": DIR, "jinja": {OPTIONS}, "jobs": [{"id": ID,
"template": REL, "vars": {...}}]}]}
stdout: [{"id": ID, "ok": bool, "out": TEXT, "err": MESSAGE}]
"""

import json
import sys

import jinja2


def environment(root, opts):
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(root),
        undefined=jinja2.StrictUndefined if opts.get("strict_undefined") else jinja2.Undefined,
        keep_trailing_newline=bool(opts.get("keep_trailing_newline")),
        trim_blocks=bool(opts.get("trim_blocks")),
        lstrip_blocks=bool(opts.get("lstrip_blocks")),
        autoescape=bool(opts.get("autoescape")),
    )


def main():
    req = json.load(sys.stdin)
    results = []
    for group in req["groups"]:
        env = environment(group["root"], group["jinja"])
        for job in group["jobs"]:
            try:
                out = env.get_template(job["template"]).render(**job["vars"])
                results.append({"id": job["id"], "ok": True, "out": out, "err": ""})
            except Exception as err:  # every render error is a result
                results.append({"id": job["id"], "ok": False, "out": "", "err": f"{type(err).__name__}: {err}"})
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
