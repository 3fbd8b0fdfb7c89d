# tv_observe: a pytest plugin (loaded with -p tv_observe from a folder
# outside the repository) that records every Jinja2 render the tests make.
#
# For each render it writes one JSON line to $TV_OBSERVE_OUT: the
# environment (loader kind and whole search path, options, names of custom
# filters, tests and globals), how the template was loaded (get_template,
# select_template, from_string, Template(text)), its name and file (or the
# git blob id of its text), the test that rendered it, the caller's file:line,
# and the context: every value with its Python type, objects as the
# attributes they hold, with the type hints of their classes and of the
# calling function's parameters. Nothing here changes what a render does.
import dataclasses
import enum
import hashlib
import inspect
import json
import os
import sys
import threading
import typing

import jinja2

_OUT = os.environ.get("TV_OBSERVE_OUT", "")
_MAX_RECORDS = int(os.environ.get("TV_OBSERVE_MAX_RECORDS", "2000"))
_MAX_BYTES = int(os.environ.get("TV_OBSERVE_MAX_BYTES", str(8 << 20)))
_MAX_ITEMS = 20   # list items and dict entries kept per value
_MAX_DEPTH = 6    # nesting of values kept
_MAX_TEXT = 4096  # characters of a string kept
_ROOT = os.path.realpath(os.getcwd())
_HERE = os.path.dirname(os.path.abspath(__file__))
_JINJA = os.path.dirname(os.path.abspath(jinja2.__file__))

_state = threading.local()
_written = {"records": 0, "bytes": 0, "cut": False}
_test = {"id": ""}


def _rel(p):
    """p relative to the repository top, or the absolute path outside it."""
    if not p:
        return ""
    try:
        real = os.path.realpath(p)
    except (OSError, ValueError):
        return str(p)
    if real == _ROOT:
        return "."
    if real.startswith(_ROOT + os.sep):
        return real[len(_ROOT) + 1:].replace(os.sep, "/")
    return real


def _caller():
    """The first frame outside jinja2 and this plugin: file:line, frame."""
    f = sys._getframe(2)
    while f is not None:
        fn = os.path.abspath(f.f_code.co_filename)
        if not fn.startswith(_JINJA) and not fn.startswith(_HERE):
            return "%s:%d" % (_rel(fn), f.f_lineno), f
        f = f.f_back
    return "", None


def _type_info(hint, depth=0):
    """A hint as {"name", "bool", "optional", "choices"}: what variants it gives."""
    info = {"name": getattr(hint, "__name__", None) or repr(hint)[:200]}
    if depth > 4:
        return info
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is bool:
        info["bool"] = True
    elif isinstance(hint, type) and issubclass(hint, enum.Enum):
        info["choices"] = [_plain(m) for m in list(hint)[:_MAX_ITEMS]]
    elif origin is typing.Literal:
        info["choices"] = [a for a in args if isinstance(a, (str, int, float, bool)) or a is None][:_MAX_ITEMS]
    elif origin is typing.Union or type(hint).__name__ == "UnionType":
        rest = [a for a in args if a is not type(None)]
        if len(rest) < len(args):
            info["optional"] = True
        if len(rest) == 1:
            inner = _type_info(rest[0], depth + 1)
            for k in ("bool", "choices"):
                if k in inner:
                    info[k] = inner[k]
            info["of"] = inner.get("name")
    return info


def _hints_of(cls):
    try:
        hints = typing.get_type_hints(cls)
    except Exception:
        hints = getattr(cls, "__annotations__", {}) or {}
    out = {}
    for k, h in list(hints.items())[:100]:
        if not k.startswith("_"):
            out[k] = _type_info(h)
    return out


def _plain(m):
    """An enum member as the value production's template sees in text."""
    v = m.value
    if isinstance(m, str) or isinstance(v, (str, int, float, bool)):
        return v if isinstance(m, (str, int)) else str(m)
    return str(m)


def _value(v, depth=0):
    """v as a JSON value with its type: {"t": type, "v": value} and more."""
    t = type(v).__name__
    if v is None or isinstance(v, (bool, int, float)):
        if isinstance(v, enum.Enum):
            return {"t": "enum", "cls": t, "v": _plain(v), "choices": [_plain(m) for m in list(type(v))[:_MAX_ITEMS]]}
        return {"t": t, "v": v}
    if isinstance(v, enum.Enum):
        return {"t": "enum", "cls": t, "v": _plain(v), "choices": [_plain(m) for m in list(type(v))[:_MAX_ITEMS]]}
    if isinstance(v, str):
        return {"t": "str", "v": v[:_MAX_TEXT], "cut": len(v) > _MAX_TEXT}
    if depth >= _MAX_DEPTH:
        return {"t": t, "opaque": "nested deeper than %d" % _MAX_DEPTH}
    if isinstance(v, dict):
        items = {}
        for i, (k, x) in enumerate(v.items()):
            if i >= _MAX_ITEMS:
                break
            if isinstance(k, str):
                items[k] = _value(x, depth + 1)
        return {"t": "dict", "items": items, "cut": len(v) > _MAX_ITEMS}
    if isinstance(v, (list, tuple, set, frozenset)):
        seq = list(v)
        if isinstance(v, (set, frozenset)):
            try:
                seq = sorted(seq)
            except TypeError:
                pass
        return {"t": t, "list": [_value(x, depth + 1) for x in seq[:_MAX_ITEMS]], "cut": len(seq) > _MAX_ITEMS}
    if callable(v) and not hasattr(v, "__dict__") or inspect.isroutine(v) or inspect.isclass(v):
        return {"t": t, "opaque": "a callable"}
    attrs = {}
    names = []
    if dataclasses.is_dataclass(v):
        names = [f.name for f in dataclasses.fields(v)]
    elif hasattr(v, "_fields") and isinstance(v, tuple):
        names = list(v._fields)
    elif hasattr(v, "model_dump") or hasattr(v, "__dict__"):
        try:
            names = [k for k in vars(v) if not k.startswith("_")]
        except TypeError:
            names = []
    for k in names[:100]:
        try:
            x = getattr(v, k)
        except Exception:
            continue
        if inspect.isroutine(x):
            continue
        attrs[k] = _value(x, depth + 1)
    if not attrs:
        return {"t": t, "opaque": "an object with no readable attributes", "text": str(v)[:200]}
    return {"t": "object", "cls": t, "attrs": attrs, "hints": _hints_of(type(v))}


def _param_hints(frame):
    """Type hints of the calling function's parameters, and of the fields
    of dataclass objects in its locals (their asdict() feeds renders)."""
    out = {}
    f = frame
    for _ in range(4):
        if f is None:
            break
        fn = os.path.abspath(f.f_code.co_filename)
        if fn.startswith(_JINJA) or fn.startswith(_HERE):
            f = f.f_back
            continue
        func = f.f_globals.get(f.f_code.co_name)
        if func is None:
            self_ = f.f_locals.get("self")
            func = getattr(type(self_), f.f_code.co_name, None) if self_ is not None else None
        if func is not None and inspect.isfunction(func):
            try:
                hints = typing.get_type_hints(func)
            except Exception:
                hints = {}
            for k, h in hints.items():
                if k != "return":
                    out.setdefault(k, _type_info(h))
        for x in list(f.f_locals.values())[:50]:
            if dataclasses.is_dataclass(x) and not isinstance(x, type):
                for k, h in _hints_of(type(x)).items():
                    out.setdefault(k, h)
        f = f.f_back
    return out


def _loader(ld, depth=0):
    if ld is None:
        return None
    kind = type(ld).__name__
    out = {"kind": kind}
    if depth > 5:
        return out
    if isinstance(ld, jinja2.FileSystemLoader):
        out["searchpath"] = [_rel(p) for p in ld.searchpath]
    elif isinstance(ld, jinja2.PackageLoader):
        out["package"] = ld.package_name
        root = getattr(ld, "_template_root", None)
        out["searchpath"] = [_rel(root)] if root else []
    elif isinstance(ld, jinja2.ChoiceLoader):
        out["loaders"] = [_loader(x, depth + 1) for x in ld.loaders[:20]]
    elif isinstance(ld, jinja2.PrefixLoader):
        out["prefixes"] = {k: _loader(x, depth + 1) for k, x in list(ld.mapping.items())[:20]}
    elif isinstance(ld, jinja2.DictLoader):
        out["names"] = sorted(ld.mapping)[:100]
    return out


_DEFAULT = jinja2.Environment()


def _env(env):
    autoescape = env.autoescape
    if callable(autoescape):
        autoescape = "a function"
    return {
        "id": id(env),
        "loader": _loader(env.loader),
        "undefined": env.undefined.__name__,
        "strict_undefined": issubclass(env.undefined, jinja2.StrictUndefined),
        "keep_trailing_newline": env.keep_trailing_newline,
        "trim_blocks": env.trim_blocks,
        "lstrip_blocks": env.lstrip_blocks,
        "autoescape": autoescape,
        "delimiters": [env.block_start_string, env.block_end_string, env.variable_start_string,
                       env.variable_end_string, env.comment_start_string, env.comment_end_string],
        "newline_sequence": env.newline_sequence,
        "filters": sorted(set(env.filters) - set(_DEFAULT.filters))[:100],
        "tests": sorted(set(env.tests) - set(_DEFAULT.tests))[:100],
        "globals": sorted(set(env.globals) - set(_DEFAULT.globals))[:100],
        "created": getattr(env, "_tv_created", ""),
    }


def _write(rec):
    if not _OUT or _written["cut"]:
        return
    line = json.dumps(rec, default=str, sort_keys=True) + "\n"
    if _written["records"] >= _MAX_RECORDS or _written["bytes"] + len(line) > _MAX_BYTES:
        _written["cut"] = True
        line = json.dumps({"cut": "the recording stopped at %d renders or %d bytes" % (_MAX_RECORDS, _MAX_BYTES)}) + "\n"
    _written["records"] += 1
    _written["bytes"] += len(line)
    with open(_OUT, "a", encoding="utf-8") as fh:
        fh.write(line)


def _record(tmpl, args, kwargs, err):
    if getattr(_state, "busy", False):
        return
    _state.busy = True
    try:
        where, frame = _caller()
        try:
            ctx = dict(*args, **kwargs)
        except Exception:
            ctx = dict(kwargs)
        how = getattr(tmpl, "_tv_how", "") or "Template(text)"
        rec = {
            "test": _test["id"],
            "where": where,
            "how": how,
            "name": tmpl.name or "",
            "file": _rel(tmpl.filename) if tmpl.filename and os.path.exists(tmpl.filename) else "",
            "blob": getattr(tmpl, "_tv_blob", ""),
            "env": _env(tmpl.environment),
            "vars": {k: _value(v) for k, v in list(ctx.items())[:200] if isinstance(k, str)},
            "hints": _param_hints(frame),
            "error": "" if err is None else "%s: %s" % (type(err).__name__, str(err)[:500]),
        }
        _write(rec)
    except Exception as e:  # the recording never changes a test's outcome
        _write({"note": "a render was not recorded: %s: %s" % (type(e).__name__, str(e)[:300])})
    finally:
        _state.busy = False


def _wrap_render(orig):
    def render(self, *args, **kwargs):
        try:
            out = orig(self, *args, **kwargs)
        except Exception as e:
            _record(self, args, kwargs, e)
            raise
        _record(self, args, kwargs, None)
        return out
    render.__wrapped__ = orig
    return render


def _wrap_load(orig, how):
    def load(self, *args, **kwargs):
        t = orig(self, *args, **kwargs)
        if getattr(_state, "spontaneous", False):
            how_ = "Template(text)"
        else:
            how_ = how
        if getattr(_state, "busy", False):
            return t
        try:
            if not getattr(t, "_tv_how", ""):
                t._tv_how = how_
            if how in ("from_string",):
                src = args[0] if args else kwargs.get("source", "")
                if isinstance(src, str):
                    data = src.encode("utf-8", "surrogatepass")
                    # git's blob id: the tool finds the tracked file by it.
                    t._tv_blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        except Exception:
            pass
        return t
    load.__wrapped__ = orig
    return load


def _wrap_template_new(orig):
    def new(cls, *args, **kwargs):
        _state.spontaneous = True
        try:
            return orig(cls, *args, **kwargs)
        finally:
            _state.spontaneous = False
    return new


def _wrap_env_init(orig):
    def init(self, *args, **kwargs):
        orig(self, *args, **kwargs)
        try:
            self._tv_created, _ = _caller()
        except Exception:
            pass
    return init


# Stubs for modules that are not installed. Render code often imports
# packages its render path never uses (clients, data libraries); without
# them the tests stop at the import and nothing renders. A module that no
# finder has, imported from the repository's own code, becomes a stub: any
# attribute is a stub, a call returns a stub (or the function it
# decorates), a class may derive from one. The names are reported.
import importlib.abc
import importlib.machinery
import types

_STUBBED = []
_NEVER = {"jinja2", "markupsafe", "pytest", "_pytest", "pluggy"}


class _Stub:
    def __init__(self, name):
        object.__setattr__(self, "_tv_name", name)

    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):
            raise AttributeError(k)
        return _Stub(self._tv_name + "." + k)

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]) and not isinstance(args[0], _Stub):
            return args[0]
        return _Stub(self._tv_name + "()")

    def __mro_entries__(self, bases):
        return (object,)

    def __getitem__(self, k):
        return _Stub(self._tv_name + "[]")

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False

    def __repr__(self):
        return "<stub %s>" % self._tv_name


class _StubModule(types.ModuleType):
    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):
            raise AttributeError(k)
        return _Stub(self.__name__ + "." + k)


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec):
        m = _StubModule(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        pass


def _importer_in_repo():
    f = sys._getframe(2)
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith("<frozen") and "importlib" not in fn and not os.path.abspath(fn).startswith(_HERE):
            return os.path.realpath(fn).startswith(_ROOT + os.sep)
        f = f.f_back
    return False


class _StubFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        top = name.split(".")[0]
        if top in _NEVER or top in sys.stdlib_module_names:
            return None
        if not _importer_in_repo():
            return None
        for base in (_ROOT, os.path.join(_ROOT, "src")):
            if os.path.exists(os.path.join(base, top)) or os.path.exists(os.path.join(base, top + ".py")):
                return None  # the repository's own module: its import error is real
        if top not in _STUBBED:
            _STUBBED.append(top)
        return importlib.machinery.ModuleSpec(name, _StubLoader(), is_package=True)


if os.environ.get("TV_OBSERVE_STUBS", "1") == "1":
    sys.meta_path.append(_StubFinder())


def pytest_sessionfinish(session):
    if _STUBBED:
        _write({"note": "these imports are not installed and were stubbed while the renders were recorded: " + ", ".join(sorted(_STUBBED)[:40])})


jinja2.Environment.__init__ = _wrap_env_init(jinja2.Environment.__init__)
jinja2.Environment.get_template = _wrap_load(jinja2.Environment.get_template, "get_template")
jinja2.Environment.select_template = _wrap_load(jinja2.Environment.select_template, "select_template")
jinja2.Environment.get_or_select_template = _wrap_load(jinja2.Environment.get_or_select_template, "get_template")
jinja2.Environment.from_string = _wrap_load(jinja2.Environment.from_string, "from_string")
jinja2.Template.__new__ = staticmethod(_wrap_template_new(jinja2.Template.__new__))
jinja2.Template.render = _wrap_render(jinja2.Template.render)


def pytest_runtest_setup(item):
    _test["id"] = item.nodeid


def pytest_runtest_teardown(item):
    _test["id"] = ""


def pytest_collectstart(collector):
    _test["id"] = "collect:" + getattr(collector, "nodeid", "")
