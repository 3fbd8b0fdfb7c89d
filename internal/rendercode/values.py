"""Static reading of Python render code for template-verify (part 2 of 4).

Evaluation: paths (loader roots, copied files), variable values (constants,
parameter defaults, samples from annotations and dataclasses) and loop
iterables. Every evaluator raises Unresolved for what it cannot know.
"""

SHA_SAMPLE = "0123456789abcdef0123456789abcdef01234567"
PATH_CALLS = {"Path", "PurePath", "PosixPath", "PurePosixPath", "str", "fspath", "abspath", "realpath",
              "normpath", "resolve", "absolute", "expanduser", "as_posix"}
SEQ_TYPES = {"list", "List", "Sequence", "Iterable", "set", "Set", "frozenset", "tuple", "Tuple", "MutableSequence"}
MAP_TYPES = {"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict"}


class ParamRef(Exception):
    """A path or name that is a parameter of the enclosing function: the
    callers of that function give it."""

    def __init__(self, func, index, name):
        super().__init__(name)
        self.func, self.index, self.name = func, index, name


class GlobVal:
    """What a loop over root.glob(pattern) binds."""

    def __init__(self, base, pattern):
        self.base, self.pattern = base, pattern


def example(name):
    n = (name or "value").lower()
    if "sha" in n or "commit" in n or n.endswith("rev"):
        return SHA_SAMPLE
    return "example-" + (name or "value").replace("_", "-")


def uniq(vals):
    out, seen = [], set()
    for v in vals:
        k = repr(v)
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


class Evaluator:
    def __init__(self, prog):
        self.prog = prog
        self.notes = []

    # ---------- paths ----------

    def paths(self, e, sc, d=0):
        if d > MAX_DEPTH:
            raise Unresolved("the path expression nests too deep")
        if isinstance(e, ast.Constant) and isinstance(e.value, str):
            return [norm(e.value)]
        if isinstance(e, ast.Name):
            if e.id == "__file__":
                return [sc.module.path]
            for it in sc.loops(e.id):
                return [norm(str(v)) for v in self.iterable(it, sc, d + 1)]
            p = sc.params().get(e.id)
            if p is not None:
                idx, _, default = p
                if default is not None:
                    return self.paths(default, sc, d + 1)
                raise ParamRef(sc.func, idx, e.id)
            local = sc.local_assigns(e.id)
            if local:
                out = []
                for v in local:
                    out += self.paths(v, Scope(sc.module, v), d + 1)
                return uniq(out)
            g = self.prog.global_value(sc.module, e.id)
            if g:
                return self.paths(g[1], Scope(g[0], g[1]), d + 1)
            raise Unresolved("the name %s is not bound to a static path" % e.id)
        if isinstance(e, ast.Attribute):
            if e.attr == "parent":
                return [norm(posixpath.dirname(p)) for p in self.paths(e.value, sc, d + 1)]
            if e.attr in ("name", "stem"):
                raise Unresolved("a file name taken from a path")
            if isinstance(e.value, ast.Name) and e.value.id == "self":
                vals = sc.self_attr(e.attr)
                if vals:
                    out = []
                    for v in vals:
                        out += self.paths(v, Scope(sc.module, v), d + 1)
                    return uniq(out)
            for m in self.prog.modules:
                if e.attr in m.consts:
                    return self.paths(m.consts[e.attr], Scope(m, m.consts[e.attr]), d + 1)
            raise Unresolved("%s is not a static path" % ast.unparse(e))
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Attribute) and e.value.attr == "parents":
            if isinstance(e.slice, ast.Constant) and isinstance(e.slice.value, int):
                out = []
                for p in self.paths(e.value.value, sc, d + 1):
                    for _ in range(e.slice.value + 1):
                        p = posixpath.dirname(p)
                    out.append(norm(p))
                return out
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Div):
            return [norm(posixpath.join(a, b)) for a in self.paths(e.left, sc, d + 1) for b in self.part(e.right, sc, d + 1)]
        if isinstance(e, ast.Call):
            fn = last(e.func)
            recv = e.func.value if isinstance(e.func, ast.Attribute) else None
            if fn in PATH_CALLS:
                if e.args:
                    parts = [self.paths(e.args[0], sc, d + 1)] + [self.part(a, sc, d + 1) for a in e.args[1:]]
                    out = parts[0]
                    for more in parts[1:]:
                        out = [norm(posixpath.join(a, b)) for a in out for b in more]
                    return out
                if recv is not None and dotted(recv) not in ("os.path", "os", "pathlib"):
                    return self.paths(recv, sc, d + 1)
            if fn == "dirname" and e.args:
                return [norm(posixpath.dirname(p)) for p in self.paths(e.args[0], sc, d + 1)]
            if fn == "join" and e.args and dotted(e.func) in ("os.path.join", "path.join", "posixpath.join"):
                out = self.paths(e.args[0], sc, d + 1)
                for a in e.args[1:]:
                    more = self.part(a, sc, d + 1)
                    out = [norm(posixpath.join(x, y)) for x in out for y in more]
                return out
            if fn == "joinpath" and recv is not None:
                out = self.paths(recv, sc, d + 1)
                for a in e.args:
                    more = self.part(a, sc, d + 1)
                    out = [norm(posixpath.join(x, y)) for x in out for y in more]
                return out
        raise Unresolved("%s is not a static path" % ast.unparse(e)[:80])

    def part(self, e, sc, d):
        """A path component: a constant as it is ("..", "x"), else a path."""
        if isinstance(e, ast.Constant) and isinstance(e.value, str):
            return [e.value]
        return self.paths(e, sc, d)

    # ---------- loops ----------

    def iterable(self, it, sc, d=0):
        """The constant values (or one GlobVal) a loop over it binds."""
        if d > MAX_DEPTH:
            raise Unresolved("the loop nests too deep")
        if isinstance(it, (ast.List, ast.Tuple, ast.Set)):
            return [self.values(x, sc, "", d + 1)[0] for x in it.elts]
        if isinstance(it, ast.Call):
            fn = last(it.func)
            if fn in ("sorted", "list", "tuple", "set", "reversed") and it.args:
                return self.iterable(it.args[0], sc, d + 1)
            if fn in ("glob", "rglob") and isinstance(it.func, ast.Attribute) and it.args:
                pat = it.args[0]
                if isinstance(pat, ast.Constant) and isinstance(pat.value, str):
                    base = self.paths(it.func.value, sc, d + 1)[0]
                    return [GlobVal(base, ("**/" if fn == "rglob" else "") + pat.value)]
        if isinstance(it, ast.Name):
            local = sc.local_assigns(it.id)
            if local:
                return self.iterable(local[0], Scope(sc.module, local[0]), d + 1)
            g = self.prog.global_value(sc.module, it.id)
            if g:
                return self.iterable(g[1], Scope(g[0], g[1]), d + 1)
        raise Unresolved("the loop over %s is not over a static list" % ast.unparse(it)[:80])

    # ---------- values ----------

    def values(self, e, sc, name, d=0):
        if d > MAX_DEPTH:
            raise Unresolved("the value nests too deep")
        if isinstance(e, ast.Constant):
            v = e.value
            if isinstance(v, bytes):
                v = v.decode("utf-8", "replace")
            if v is Ellipsis or isinstance(v, complex):
                raise Unresolved("not a JSON value")
            return [v]
        if isinstance(e, ast.JoinedStr):
            s = ""
            for part in e.values:
                if isinstance(part, ast.Constant):
                    s += str(part.value)
                else:
                    try:
                        s += str(self.values(part.value, sc, name, d + 1)[0])
                    except Unresolved:
                        s += "x"
            return [s]
        if isinstance(e, ast.Name):
            return self._name(e, sc, name, d)
        if isinstance(e, ast.Attribute):
            return self._attribute(e, sc, name, d)
        if isinstance(e, ast.Call):
            return self._call(e, sc, name, d)
        if isinstance(e, ast.BoolOp) and isinstance(e.op, ast.Or):
            out = []
            for v in e.values[:-1]:
                try:
                    out += [x for x in self.values(v, sc, name, d + 1) if x]
                except Unresolved:
                    pass
            return uniq(out + self.values(e.values[-1], sc, name, d + 1))
        if isinstance(e, ast.IfExp):
            return uniq(self.values(e.body, sc, name, d + 1) + self.values(e.orelse, sc, name, d + 1))
        if isinstance(e, (ast.List, ast.Tuple, ast.Set)):
            return [[self.values(x, sc, name, d + 1)[0] for x in e.elts]]
        if isinstance(e, ast.Dict):
            out = {}
            for k, v in zip(e.keys, e.values):
                if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                    raise Unresolved("a dict key that is not a constant string")
                out[k.value] = self.values(v, sc, k.value, d + 1)[0]
            return [out]
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            return [-v for v in self.values(e.operand, sc, name, d + 1)]
        raise Unresolved("%s is not static" % ast.unparse(e)[:80])

    def _name(self, e, sc, name, d):
        for it in sc.loops(e.id):
            return [v for v in self.iterable(it, sc, d + 1) if not isinstance(v, GlobVal)]
        p = sc.params().get(e.id)
        if p is not None:
            _, ann, default = p
            vals = []
            assigned = sc.local_assigns(e.id)
            if default is not None:
                try:
                    vals = self.values(default, sc, name, d + 1)
                except Unresolved:
                    vals = self.sample(ann, name, sc)
            else:
                vals = self.sample(ann, name, sc)
            if self._is_bool(ann) or any(isinstance(v, bool) for v in vals):
                vals += [True, False]
            if default is not None and _is_none(default) and ann is not None and not assigned:
                # None by default: the callers that pass a value pass the
                # annotated type.
                vals = self.sample(ann, name, sc) + vals
            if assigned or sc.guarded(e.id):
                # "if rounds is None: rounds = 5" or "if issues:": None does
                # not reach the render.
                vals = [v for v in vals if v is not None]
                for v in assigned:
                    try:
                        vals += [x for x in self.values(v, Scope(sc.module, v), name, d + 1) if x is not None]
                    except Unresolved:
                        pass
                if not vals:
                    vals = [x for x in self.sample(ann, name, sc) if x is not None] or [example(name)]
            return uniq(vals)
        local = sc.local_assigns(e.id)
        if local:
            out = []
            for v in local:
                try:
                    out += self.values(v, Scope(sc.module, v), name, d + 1)
                except Unresolved:
                    pass
            if out:
                return uniq(out)
            raise Unresolved("the local %s has no static value" % e.id)
        g = self.prog.global_value(sc.module, e.id)
        if g:
            return self.values(g[1], Scope(g[0], g[1]), name, d + 1)
        raise Unresolved("the name %s has no static value" % e.id)

    def _attribute(self, e, sc, name, d):
        cls = self.class_of(e.value, sc)
        if cls is not None:
            for fname, ann, default, m in self.fields(cls):
                if fname == e.attr:
                    if default is not None:
                        try:
                            return self.values(default, Scope(m, default), name, d + 1)
                        except Unresolved:
                            pass
                    return self.sample(ann, name, Scope(m, cls[1]))
        if isinstance(e.value, ast.Name) and e.value.id == "self":
            for v in sc.self_attr(e.attr):
                return self.values(v, Scope(sc.module, v), name, d + 1)
        raise Unresolved("%s is not static" % ast.unparse(e)[:80])

    def _call(self, e, sc, name, d):
        fn = last(e.func)
        if fn in ("int", "float", "str", "bool") and len(e.args) == 1:
            conv = {"int": int, "float": float, "str": str, "bool": bool}[fn]
            try:
                return uniq([conv(v) for v in self.values(e.args[0], sc, name, d + 1)])
            except (Unresolved, ValueError, TypeError):
                return {"int": [1], "float": [1.5], "str": [example(name)], "bool": [True, False]}[fn]
        if fn in ("get", "getenv") and dotted(e.func) in ("os.environ.get", "environ.get", "os.getenv", "getenv"):
            if len(e.args) > 1:
                return self.values(e.args[1], sc, name, d + 1)
            return [None]
        if fn == "dict" and not e.args:
            return [{k.arg: self.values(k.value, sc, k.arg, d + 1)[0] for k in e.keywords if k.arg}]
        for m, f in self.prog.functions(fn):
            if f.returns is not None:
                return self.sample(f.returns, name, Scope(m, f))
        raise Unresolved("the call %s is not static" % ast.unparse(e)[:80])

    # ---------- types ----------

    def _is_bool(self, ann):
        if ann is None:
            return False
        return any(isinstance(n, ast.Name) and n.id == "bool" for n in ast.walk(ann))

    def sample(self, ann, name, sc, depth=0):
        """Values a parameter of type ann gets: None where it is optional,
        both booleans, one sample otherwise."""
        if ann is None:
            return [example(name)]
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                ann = ast.parse(ann.value, mode="eval").body
            except SyntaxError:
                return [example(name)]
        if _is_none(ann):
            return [None]
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            return uniq(self.sample(ann.left, name, sc, depth) + self.sample(ann.right, name, sc, depth))
        if isinstance(ann, ast.Subscript):
            base = last(ann.value)
            args = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            if base == "Optional":
                return uniq(self.sample(args[0], name, sc, depth) + [None])
            if base == "Union":
                out = []
                for a in args:
                    out += self.sample(a, name, sc, depth)
                return uniq(out)
            if base in SEQ_TYPES:
                return [[self.sample(args[0], name, sc, depth + 1)[0]]]
            if base in MAP_TYPES:
                return [{}]
            if base == "Literal":
                return [a.value for a in args if isinstance(a, ast.Constant)]
            if base == "Annotated":
                return self.sample(args[0], name, sc, depth)
            return [example(name)]
        n = last(ann)
        simple = {"int": [1], "float": [1.5], "bool": [True, False], "dict": [{}], "list": [[]], "tuple": [[]]}
        if n in simple:
            return simple[n]
        if n in ("str", "Path", "PurePath", "bytes", "Any", "object", ""):
            return [example(name)]
        cls = self.prog.classdef(n)
        if cls is not None and depth < 3:
            out = {}
            for fname, fann, default, m in self.fields(cls):
                vals = None
                if default is not None:
                    try:
                        vals = self.values(default, Scope(m, default), fname)
                    except Unresolved:
                        vals = None
                out[fname] = (vals or self.sample(fann, fname, Scope(m, cls[1]), depth + 1))[0]
            if out:
                return [out]
        return [example(name)]

    def fields(self, cls):
        """(name, annotation, default, module) of the annotated fields of a
        class: a dataclass, a pydantic model, a TypedDict or a NamedTuple."""
        m, c = cls
        out = []
        for node in c.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                if "ClassVar" in ast.unparse(node.annotation):
                    continue
                default = node.value
                if isinstance(default, ast.Call) and last(default.func) == "field":
                    default = next((k.value for k in default.keywords if k.arg == "default"), None)
                out.append((node.target.id, node.annotation, default, m))
        return out

    def class_of(self, e, sc):
        """The class (module, ClassDef) of the object e names, where an
        annotation or a constructor call says it."""
        if isinstance(e, ast.Name):
            if e.id == "self" and sc.cls is not None:
                return sc.module, sc.cls
            p = sc.params().get(e.id)
            if p is not None and p[1] is not None:
                for n in ast.walk(p[1]):
                    if isinstance(n, (ast.Name, ast.Attribute)):
                        c = self.prog.classdef(last(n))
                        if c is not None:
                            return c
            for v in sc.local_assigns(e.id):
                if isinstance(v, ast.Call):
                    c = self.prog.classdef(last(v.func))
                    if c is not None:
                        return c
        return None
