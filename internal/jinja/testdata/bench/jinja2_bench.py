"""Time Python Jinja2 on the benchmark renders of bench_test.go.

Input (JSON on stdin): {"files": {name: source}, "opts": {...}, "name": ...,
"var_sets": [...], "iterations": N, "parse": "once" | "each"}.
Output (JSON): {"ns": wall nanoseconds for all iterations, "cpu_ns": CPU
nanoseconds of the process for them, "sha256": hash of
the outputs of one iteration, "renders": renders per iteration}.

"once" builds one Environment, parses the template once and renders it for
every variable set, as datasmith renders a dataset. "each" gives the
Environment a cache_size of 0, so every get_template reads, parses and
compiles the template again. Only the render loop is timed: the interpreter
start and the jinja2 import are not in the figure.
"""

import hashlib
import json
import sys
import time

import jinja2
from jinja2.loaders import split_template_path


class FilesLoader(jinja2.BaseLoader):
    def __init__(self, files):
        self.files = files

    def get_source(self, environment, template):
        name = "/".join(split_template_path(template))
        if name not in self.files:
            raise jinja2.TemplateNotFound(template)
        return self.files[name], name, lambda: True


def main():
    req = json.load(sys.stdin)
    opts = req["opts"]
    env = jinja2.Environment(
        loader=FilesLoader(req["files"]),
        undefined=jinja2.StrictUndefined if opts.get("strict_undefined") else jinja2.Undefined,
        autoescape=bool(opts.get("autoescape")),
        keep_trailing_newline=bool(opts.get("keep_trailing_newline")),
        trim_blocks=bool(opts.get("trim_blocks")),
        lstrip_blocks=bool(opts.get("lstrip_blocks")),
        cache_size=0 if req["parse"] == "each" else 400,
    )
    name, sets = req["name"], req["var_sets"]
    digest = hashlib.sha256()
    for v in sets:
        digest.update(env.get_template(name).render(v).encode("utf-8"))
    start, cpu = time.perf_counter_ns(), time.process_time_ns()
    for _ in range(req["iterations"]):
        if req["parse"] == "each":
            for v in sets:
                env.get_template(name).render(v)
        else:
            t = env.get_template(name)
            for v in sets:
                t.render(v)
    ns, cpu = time.perf_counter_ns() - start, time.process_time_ns() - cpu
    json.dump({"ns": ns, "cpu_ns": cpu, "sha256": digest.hexdigest(), "renders": len(sets)}, sys.stdout)


if __name__ == "__main__":
    main()
