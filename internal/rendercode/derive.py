"""Static reading of Python render code for template-verify (part 4 of 4).

Input (JSON on stdin): {"files": {path: source}, "py_paths": [every tracked
.py path]}. Output (JSON on stdout):
  {"envs": [{"where", "roots", "unresolved", "opts", "notes"}],
   "sites": [{"env", "where", "template" | "glob", "vars": {name: {"values", "type"}}, "notes"}],
   "copies": [{"path", "where", "kind"}], "notes": [...], "errors": [...]}
Argument: the memory limit of the process in bytes (RLIMIT_AS).

Every jinja2.Environment(...) call is an environment. get_template calls
are followed to their environment through names, self attributes and
functions that return it, and to their render calls (chained, or through
a local name). A template name or a **kwargs that is a parameter of the
enclosing function makes that function a render wrapper: its callers give
the name and the variables. shutil copies and read_text/read_bytes/open of
a path are files used verbatim.
"""

import json
import sys

RENDER_ATTRS = {"render", "stream", "render_async", "generate"}
COPY_CALLS = {"copy", "copy2", "copyfile", "copytree"}
MAX_WRAP = 3


class Deriver(EnvReader):
    def __init__(self, prog):
        self.prog = prog
        self.ev = Evaluator(prog)
        self.envs = {}  # id(Environment call) -> record
        self.env_list = []
        self.sites = []
        self.copies = []
        self.notes = []

    # ---------- templates and render calls ----------

    def find_sites(self):
        for m in self.prog.modules:
            for n in ast.walk(m.tree):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("get_template", "select_template", "get_or_select_template"):
                    self.site(m, n)

    def site(self, m, call):
        sc = Scope(m, call)
        env = self.env_of(call.func.value, sc)
        if env is None:
            self.notes.append("%s loads a template from an environment this reader cannot find" % m.where(call))
            return
        arg = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in ("name", "names")), None)
        renders = self.render_calls(m, call, sc)
        if not renders:
            renders = [(None, sc)]
        for rcall, rsc in renders:
            fixed, passthrough, notes = self.render_vars(rcall, rsc) if rcall is not None else ({}, False, ["%s: no render call of this template is found, so its variables are not known" % m.where(call)])
            self.expand(env, arg, sc, fixed, passthrough, notes, m.where(rcall or call), 0)

    def render_calls(self, m, call, sc):
        parent = m.parent.get(call)
        if isinstance(parent, ast.Attribute) and parent.attr in RENDER_ATTRS:
            outer = m.parent.get(parent)
            if isinstance(outer, ast.Call) and outer.func is parent:
                return [(outer, Scope(m, outer))]
        target = None
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
            target = parent.targets[0].id
        elif isinstance(parent, ast.AnnAssign) and isinstance(parent.target, ast.Name):
            target = parent.target.id
        if target is not None:
            # The render calls of the name after this assignment and before
            # the next one.
            body = sc.func if sc.func is not None else m.tree
            start = parent.lineno
            later = [n.lineno for n in ast.walk(body) if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.lineno > start
                     and any(isinstance(t, ast.Name) and t.id == target for t in getattr(n, "targets", [getattr(n, "target", None)]))]
            end = min(later) if later else float("inf")
            return [(n, Scope(m, n)) for n in ast.walk(body)
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in RENDER_ATTRS
                    and isinstance(n.func.value, ast.Name) and n.func.value.id == target and start <= n.lineno < end]
        if isinstance(parent, ast.Return) and sc.func is not None and not isinstance(sc.func, ast.Lambda):
            out = []
            for mm in self.prog.modules:
                for n in ast.walk(mm.tree):
                    if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in RENDER_ATTRS
                            and isinstance(n.func.value, ast.Call) and last(n.func.value.func) == sc.func.name):
                        out.append((n, Scope(mm, n)))
            return out
        return []

    def render_vars(self, call, sc):
        """name -> {"values", "type"} of a render call; whether it passes the
        enclosing function's **kwargs through; notes."""
        out, notes, passthrough = {}, [], False
        for k in call.keywords:
            if k.arg:
                out[k.arg] = self.var(k.value, sc, k.arg, notes)
            else:
                passthrough |= self.expand_dict(k.value, sc, out, notes, 0)
        for a in call.args[:1]:
            passthrough |= self.expand_dict(a, sc, out, notes, 0)
        return out, passthrough, notes

    def var(self, e, sc, name, notes):
        typ = ""
        if isinstance(e, ast.Name):
            p = sc.params().get(e.id)
            if p is not None and p[1] is not None:
                typ = ast.unparse(p[1])
        try:
            vals = self.ev.values(e, sc, name)
        except Unresolved as exc:
            notes.append("%s: %s=%s gets a sample value: %s" % (sc.module.where(e), name, ast.unparse(e)[:60], exc))
            vals = [example(name)]
        return {"values": [jsonable(v) for v in vals], "type": typ}

    def expand_dict(self, e, sc, out, notes, d):
        if d > MAX_DEPTH:
            return False
        if isinstance(e, ast.Name) and e.id == sc.kwargs_param():
            return True
        if isinstance(e, ast.Dict):
            for k, v in zip(e.keys, e.values):
                if k is None:
                    self.expand_dict(v, sc, out, notes, d + 1)
                elif isinstance(k, ast.Constant) and isinstance(k.value, str):
                    out[k.value] = self.var(v, sc, k.value, notes)
            return False
        if isinstance(e, ast.Call):
            fn = last(e.func)
            if fn == "dict":
                for k in e.keywords:
                    if k.arg:
                        out[k.arg] = self.var(k.value, sc, k.arg, notes)
                for a in e.args[:1]:
                    self.expand_dict(a, sc, out, notes, d + 1)
                return False
            obj = e.args[0] if fn in ("asdict", "vars") and e.args else (
                e.func.value if fn in ("model_dump", "dict", "_asdict") and isinstance(e.func, ast.Attribute) else None)
            if obj is not None and self._fields_into(obj, sc, out):
                return False
        if isinstance(e, ast.Attribute) and e.attr == "__dict__" and self._fields_into(e.value, sc, out):
            return False
        if isinstance(e, ast.Name):
            local = sc.local_assigns(e.id)
            if local:
                for v in local:
                    self.expand_dict(v, Scope(sc.module, v), out, notes, d + 1)
                for n in ast.walk(sc.func):
                    if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Subscript):
                        t = n.targets[0]
                        if isinstance(t.value, ast.Name) and t.value.id == e.id and isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str):
                            out[t.slice.value] = self.var(n.value, Scope(sc.module, n.value), t.slice.value, notes)
                return False
            g = self.prog.global_value(sc.module, e.id)
            if g:
                return self.expand_dict(g[1], Scope(g[0], g[1]), out, notes, d + 1)
        notes.append("%s: the variables in **%s are not known" % (sc.module.where(e), ast.unparse(e)[:60]))
        return False

    def _fields_into(self, obj, sc, out):
        cls = self.ev.class_of(obj, sc)
        if cls is None:
            return False
        for fname, ann, default, m in self.ev.fields(cls):
            vals = None
            if default is not None:
                try:
                    vals = self.ev.values(default, Scope(m, default), fname)
                except Unresolved:
                    vals = None
            if not vals or vals == [None]:
                # No default, or None: the type's samples (None included
                # where the type is optional) and the default itself.
                vals = uniq(self.ev.sample(ann, fname, Scope(m, cls[1])) + (vals or []))
            elif self.ev._is_bool(ann):
                vals = uniq(vals + [True, False])
            out[fname] = {"values": [jsonable(v) for v in uniq(vals)], "type": ast.unparse(ann) if ann is not None else ""}
        return True

    def expand(self, env, arg, sc, fixed, passthrough, notes, where, depth):
        """Records the sites of a template load, following render wrappers
        to their callers."""
        try:
            names = self.template_names(arg, sc)
            param = None
        except ParamRef as ref:
            names, param = [], ref
        except Unresolved as exc:
            self.notes.append("%s: the template name %s is not static: %s" % (where, ast.unparse(arg)[:60] if arg is not None else "?", exc))
            return
        if param is None and not passthrough:
            for kind, value in names:
                self.sites.append({"env": env["index"], "where": where, kind: value, "vars": fixed, "notes": notes})
            return
        func = sc.func
        if func is None or isinstance(func, ast.Lambda) or depth >= MAX_WRAP:
            self.notes.append("%s: the template name or variables come from parameters this reader cannot follow" % where)
            return
        callers = [(mm, n) for mm in self.prog.modules for n in ast.walk(mm.tree)
                   if isinstance(n, ast.Call) and last(n.func) == func.name and mm.enclosing(n, (ast.FunctionDef, ast.AsyncFunctionDef)) is not func]
        if not callers:
            self.notes.append("%s: nothing calls %s, so its templates and variables are not known" % (where, func.name))
        is_method = bool(func.args.args) and func.args.args[0].arg in ("self", "cls")
        for mm, c in callers:
            csc = Scope(mm, c)
            cnotes = list(notes)
            carg = arg
            if param is not None:
                carg = self._arg(c, param, is_method and isinstance(c.func, ast.Attribute))
                if carg is None:
                    cnotes.append("%s: the call passes no %s" % (mm.where(c), param.name))
                    continue
            vars_ = dict(fixed)
            if passthrough:
                for k in c.keywords:
                    if k.arg and (param is None or k.arg != param.name):
                        vars_[k.arg] = self.var(k.value, csc, k.arg, cnotes)
                    elif k.arg is None:
                        self.expand_dict(k.value, csc, vars_, cnotes, 0)
            self.expand(env, carg, csc if param is not None else sc, vars_, False, cnotes, mm.where(c), depth + 1)

    @staticmethod
    def _arg(call, ref, shifted):
        for k in call.keywords:
            if k.arg == ref.name:
                return k.value
        if ref.index is not None:
            i = ref.index - (1 if shifted else 0)
            if 0 <= i < len(call.args):
                return call.args[i]
        return None

    def template_names(self, arg, sc):
        if arg is None:
            raise Unresolved("get_template has no name")
        if isinstance(arg, ast.JoinedStr):
            pat = "".join(str(p.value) if isinstance(p, ast.Constant) else "*" for p in arg.values)
            return [("glob", pat)]
        if isinstance(arg, ast.Attribute) and arg.attr == "name" and isinstance(arg.value, ast.Name):
            for it in sc.loops(arg.value.id):
                return [("glob", v.pattern.rsplit("/", 1)[-1]) for v in self.ev.iterable(it, sc) if isinstance(v, GlobVal)]
        if isinstance(arg, ast.Name):
            for it in sc.loops(arg.id):
                return [("glob", v.pattern) if isinstance(v, GlobVal) else ("template", str(v)) for v in self.ev.iterable(it, sc)]
            p = sc.params().get(arg.id)
            if p is not None and p[2] is None:
                raise ParamRef(sc.func, p[0], arg.id)
        return [("template", str(v)) for v in self.ev.values(arg, sc, "template") if isinstance(v, str)]

    # ---------- copies ----------

    def find_copies(self):
        for m in self.prog.modules:
            for n in ast.walk(m.tree):
                if not isinstance(n, ast.Call):
                    continue
                fn = last(n.func)
                src, kind = None, ""
                if fn in COPY_CALLS and n.args and (dotted(n.func).startswith("shutil.") or m.imports.get(fn, "").startswith("shutil.")):
                    src, kind = n.args[0], "copied"
                elif fn in ("read_text", "read_bytes") and isinstance(n.func, ast.Attribute):
                    src, kind = n.func.value, "read"
                elif fn == "open" and isinstance(n.func, ast.Name) and n.args:
                    src, kind = n.args[0], "read"
                if src is not None:
                    self.copy_paths(src, Scope(m, n), kind, m.where(n), 0)

    def copy_paths(self, src, sc, kind, where, depth):
        try:
            for p in self.ev.paths(src, sc):
                self.copies.append({"path": p, "where": where, "kind": kind})
        except Unresolved:
            return
        except ParamRef as ref:
            if depth >= MAX_WRAP or ref.func is None:
                return
            for mm in self.prog.modules:
                for c in ast.walk(mm.tree):
                    if isinstance(c, ast.Call) and last(c.func) == ref.func.name:
                        a = self._arg(c, ref, False)
                        if a is not None:
                            self.copy_paths(a, Scope(mm, c), kind, mm.where(c), depth + 1)


def jsonable(v):
    if isinstance(v, (list, tuple, set, frozenset)):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


def main():
    memory = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 30
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    sys.setrecursionlimit(4000)
    req = json.load(sys.stdin)
    modules, errors = [], []
    for path in sorted(req.get("files", {})):
        try:
            modules.append(Module(path, req["files"][path]))
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            errors.append({"file": path, "error": "%s: %s" % (type(exc).__name__, exc)})
    d = Deriver(Program(modules, req.get("py_paths", [])))
    for step in (d.find_envs, d.find_extensions, d.find_sites, d.find_copies):
        try:
            step()
        except RecursionError as exc:
            errors.append({"file": "", "error": "RecursionError: %s" % exc})
    for e in d.env_list:
        e.pop("index", None)
    json.dump({"envs": d.env_list, "sites": d.sites, "copies": d.copies,
               "notes": d.notes + d.ev.notes, "errors": errors}, sys.stdout)


if __name__ == "__main__":
    main()
