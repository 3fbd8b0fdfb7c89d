"""Static reading of Python render code for template-verify (part 1 of 4).

Go runs this file followed by values.py, envs.py and derive.py with
python3 -I in the sandbox. Nothing of the repository is imported or run:
the sources are parsed with ast and read. This part holds the model of the analysed modules: their
module-level names, functions, classes and dataclasses, and the scope of a
node (module, class, function, enclosing loops).
"""

import ast
import posixpath

MAX_DEPTH = 12  # how deep one evaluation follows names


class Unresolved(Exception):
    """An expression this reader cannot evaluate statically."""


class Module:
    def __init__(self, path, source):
        self.path = path
        self.tree = ast.parse(source, filename=path)
        self.parent = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node
        self.consts = {}  # module-level name -> value expression
        self.imports = {}  # local name -> dotted origin ("pkg.mod.name")
        self.funcs = {}  # function or method name -> [FunctionDef]
        self.classes = {}  # class name -> ClassDef
        for node in self.tree.body:
            self._top(node)
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.funcs.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.ClassDef):
                self.classes.setdefault(node.name, node)

    def _top(self, node):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    self.consts[t.id] = node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
            self.consts[node.target.id] = node.value
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                self.imports[a.asname or a.name] = (node.module or "") + "." + a.name
        elif isinstance(node, ast.Import):
            for a in node.names:
                self.imports[a.asname or a.name.split(".")[0]] = a.name
        elif isinstance(node, (ast.If, ast.Try)):
            for child in node.body:
                self._top(child)

    def where(self, node):
        return "%s:%d" % (self.path, getattr(node, "lineno", 0))

    def enclosing(self, node, kinds):
        n = self.parent.get(node)
        while n is not None and not isinstance(n, kinds):
            n = self.parent.get(n)
        return n


class Scope:
    """Where an expression is evaluated: its module, function and node."""

    def __init__(self, module, node):
        self.module = module
        self.node = node
        self.func = module.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        self.cls = module.enclosing(node, ast.ClassDef)

    def params(self):
        """name -> (index, annotation, default) of the function's parameters."""
        out = {}
        f = self.func
        if f is None or isinstance(f, ast.Lambda):
            return out
        a = f.args
        pos = a.posonlyargs + a.args
        defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
        for i, (p, d) in enumerate(zip(pos, defaults)):
            out[p.arg] = (i, p.annotation, d)
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            out[p.arg] = (None, p.annotation, d)
        return out

    def kwargs_param(self):
        f = self.func
        if f is None or isinstance(f, ast.Lambda) or f.args.kwarg is None:
            return None
        return f.args.kwarg.arg

    def local_assigns(self, name):
        """The value expressions assigned to name in the function."""
        out = []
        if self.func is None:
            return out
        for n in ast.walk(self.func):
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    if isinstance(t, ast.Name) and t.id == name:
                        out.append(n.value)
            elif isinstance(n, (ast.AnnAssign, ast.AugAssign)) and isinstance(n.target, ast.Name) and n.target.id == name:
                if n.value is not None:
                    out.append(n.value)
            elif isinstance(n, ast.NamedExpr) and n.target.id == name:
                out.append(n.value)
        return out

    def loops(self, name):
        """The iterables of the for loops (and comprehensions) around the
        node that bind name."""
        out = []
        n = self.module.parent.get(self.node)
        while n is not None:
            if isinstance(n, (ast.For, ast.AsyncFor)) and isinstance(n.target, ast.Name) and n.target.id == name:
                out.append(n.iter)
            elif isinstance(n, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                for g in n.generators:
                    if isinstance(g.target, ast.Name) and g.target.id == name:
                        out.append(g.iter)
            n = self.module.parent.get(n)
        return out

    def guarded(self, name):
        """Whether the node runs only when name is true or not None (an
        enclosing "if name:" or "if name is not None:")."""
        n, child = self.module.parent.get(self.node), self.node
        while n is not None:
            if isinstance(n, ast.If) and child in n.body and _tests_present(n.test, name):
                return True
            n, child = self.module.parent.get(n), n
        return False

    def self_attr(self, attr):
        """The expressions assigned to self.attr in the enclosing class."""
        out = []
        if self.cls is None:
            return out
        for n in ast.walk(self.cls):
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    if isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name) and t.value.id == "self":
                        out.append(n.value)
        return out


def _tests_present(test, name):
    if isinstance(test, ast.Name):
        return test.id == name
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_tests_present(v, name) for v in test.values)
    if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == name:
        return len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) and _is_none(test.comparators[0])
    return False


def _is_none(e):
    return isinstance(e, ast.Constant) and e.value is None


def dotted(e):
    """"a.b.c" for a Name or a chain of attributes, else ""."""
    parts = []
    while isinstance(e, ast.Attribute):
        parts.append(e.attr)
        e = e.value
    if isinstance(e, ast.Name):
        parts.append(e.id)
        return ".".join(reversed(parts))
    return ""


def last(e):
    """The last name of a callee: "Environment" for jinja2.Environment."""
    if isinstance(e, ast.Attribute):
        return e.attr
    if isinstance(e, ast.Name):
        return e.id
    return ""


def norm(p):
    """A repository-relative path, or Unresolved when it leaves the top."""
    if p.startswith("/"):
        raise Unresolved("the absolute path %s is outside the repository" % p)
    n = posixpath.normpath(p)
    if n == ".." or n.startswith("../"):
        raise Unresolved("the path %s leaves the repository" % p)
    return n


class Program:
    """Every analysed module, and lookups across them."""

    def __init__(self, modules, py_paths):
        self.modules = modules
        self.py_paths = py_paths

    def global_value(self, module, name):
        """The module-level expression bound to name in module, following
        one import into another analysed module; (module, expr) or None."""
        if name in module.consts:
            return module, module.consts[name]
        origin = module.imports.get(name)
        if origin:
            attr = origin.rsplit(".", 1)[-1]
            for m in self.modules:
                if m is not module and attr in m.consts and self._is_module(m, origin.rsplit(".", 1)[0]):
                    return m, m.consts[attr]
            for m in self.modules:
                if m is not module and attr in m.consts:
                    return m, m.consts[attr]
        return None

    def _is_module(self, m, dotted_name):
        p = m.path[:-3] if m.path.endswith(".py") else m.path
        return p.replace("/", ".").endswith(dotted_name)

    def functions(self, name):
        for m in self.modules:
            for f in m.funcs.get(name, []):
                yield m, f

    def classdef(self, name):
        for m in self.modules:
            if name in m.classes:
                return m, m.classes[name]
        return None

    def package_dir(self, dotted_name):
        want = dotted_name.replace(".", "/") + "/__init__.py"
        for p in self.py_paths:
            if p == want or p.endswith("/" + want):
                return posixpath.dirname(p)
        raise Unresolved("the package %s is not in the repository" % dotted_name)
