"""The Jinja2 environment of template-verify's Python helpers.

Go puts this source in front of each helper (jinja.PythonEnvironment): the
renderer (render.py) and the names check's parser (checks/names/names.py)
build their environments with it, so both read templates as datasmith's
FileSystemLoader does.
"""

import base64

import jinja2
from jinja2.loaders import split_template_path


class FilesLoader(jinja2.BaseLoader):
    """FileSystemLoader semantics over an in-memory folder."""

    def __init__(self, files):
        self.files = files

    def get_source(self, environment, template):
        name = "/".join(split_template_path(template))
        data = self.files.get(name)
        if data is None:
            raise jinja2.TemplateNotFound(template)
        # FileSystemLoader reads bytes and decodes them as UTF-8.
        return data.decode("utf-8"), name, lambda: True

    def list_templates(self):
        return sorted(self.files)


class JobTimeout(Exception):
    pass


def alarm(message):
    """A SIGALRM handler that stops the job at hand with message."""

    def on_alarm(signum, frame):
        raise JobTimeout(message)

    return on_alarm


def make_env(spec):
    """The environment of one loader root, and the names of its files."""
    files = {k: base64.b64decode(v) for k, v in spec["files"].items()}
    opts = spec.get("opts") or {}
    return jinja2.Environment(
        loader=FilesLoader(files),
        undefined=jinja2.StrictUndefined if opts.get("strict_undefined") else jinja2.Undefined,
        autoescape=bool(opts.get("autoescape")),
        keep_trailing_newline=bool(opts.get("keep_trailing_newline")),
        trim_blocks=bool(opts.get("trim_blocks")),
        lstrip_blocks=bool(opts.get("lstrip_blocks")),
    ), set(files)
