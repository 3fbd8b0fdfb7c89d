"""Static reading of Python render code for template-verify (part 3 of 4).

Environments: every jinja2.Environment(...) call, its loader roots and
options, the filters and globals the code adds to it, and which
environment an expression evaluates to.
"""

OPTION_KEYS = ("trim_blocks", "lstrip_blocks", "keep_trailing_newline", "autoescape")
ENV_CLASSES = {"Environment", "SandboxedEnvironment", "ImmutableSandboxedEnvironment"}


class EnvReader:
    """The environment half of Deriver (derive.py): it needs self.prog,
    self.ev, self.envs and self.env_list."""

    def find_envs(self):
        for m in self.prog.modules:
            for n in ast.walk(m.tree):
                if isinstance(n, ast.Call) and last(n.func) in ENV_CLASSES and self._is_jinja(m, n.func):
                    rec = self.env_record(m, n)
                    rec["index"] = len(self.env_list)
                    self.envs[id(n)] = rec
                    self.env_list.append(rec)

    def find_extensions(self):
        """Notes on filters, tests and globals that the render code adds to
        an environment: the tool's renderers do not have them."""
        for m in self.prog.modules:
            for n in ast.walk(m.tree):
                if not isinstance(n, ast.Assign):
                    continue
                for t in n.targets:
                    if (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Attribute) and t.value.attr in ("filters", "tests", "globals")
                            and isinstance(t.slice, ast.Constant) and self.env_of(t.value.value, Scope(m, n)) is not None):
                        env = self.env_of(t.value.value, Scope(m, n))
                        env["notes"].append("%s adds the %s %s to the environment at %s; template-verify renders without it" % (
                            m.where(n), t.value.attr[:-1], t.slice.value, env["where"]))

    def _is_jinja(self, m, func):
        d = dotted(func)
        if d.startswith("jinja2."):
            return True
        return m.imports.get(d.split(".")[0], "").startswith("jinja2")

    def env_record(self, m, call):
        sc = Scope(m, call)
        rec = {"where": m.where(call), "roots": [], "unresolved": [], "notes": [],
               "opts": {"strict_undefined": False, "trim_blocks": False, "lstrip_blocks": False,
                        "keep_trailing_newline": False, "autoescape": False}}
        loader = None
        for k in call.keywords:
            if k.arg is None:
                rec["notes"].append("%s passes **%s: options in it are not read" % (rec["where"], ast.unparse(k.value)[:40]))
            elif k.arg == "loader":
                loader = k.value
            elif k.arg == "undefined":
                rec["opts"]["strict_undefined"] = last(k.value) == "StrictUndefined"
            elif k.arg in OPTION_KEYS:
                self._option(rec, k, sc)
        if loader is None:
            rec["unresolved"].append("%s: the environment has no loader= argument" % rec["where"])
        else:
            self.loader_roots(rec, loader, sc, 0)
        return rec

    def _option(self, rec, k, sc):
        if k.arg == "autoescape" and isinstance(k.value, ast.Call) and last(k.value.func) == "select_autoescape":
            rec["notes"].append("%s: autoescape=select_autoescape(...) escapes html and xml names only; it is taken as off" % rec["where"])
            return
        try:
            vals = self.ev.values(k.value, sc, k.arg)
            rec["opts"][k.arg] = bool(vals[0])
        except Unresolved as exc:
            rec["notes"].append("%s: %s=%s is not static (%s); it is taken as off" % (rec["where"], k.arg, ast.unparse(k.value)[:40], exc))

    def loader_roots(self, rec, e, sc, d):
        if d > MAX_DEPTH:
            rec["unresolved"].append("%s: the loader nests too deep" % rec["where"])
            return
        if isinstance(e, ast.Name):
            vals = sc.local_assigns(e.id)
            g = None if vals else self.prog.global_value(sc.module, e.id)
            if vals:
                for v in vals:
                    self.loader_roots(rec, v, Scope(sc.module, v), d + 1)
                return
            if g:
                self.loader_roots(rec, g[1], Scope(g[0], g[1]), d + 1)
                return
        if isinstance(e, ast.Call):
            kind = last(e.func)
            kw = {k.arg: k.value for k in e.keywords if k.arg}
            if kind == "FileSystemLoader":
                arg = e.args[0] if e.args else kw.get("searchpath")
                items = arg.elts if isinstance(arg, (ast.List, ast.Tuple)) else [arg]
                for it in items:
                    self._root(rec, lambda it=it: self.ev.paths(it, sc), ast.unparse(it) if it is not None else "?")
                return
            if kind == "PackageLoader":
                pkg = e.args[0] if e.args else kw.get("package_name")
                sub = e.args[1] if len(e.args) > 1 else kw.get("package_path")

                def pkg_root():
                    names = self.ev.values(pkg, sc, "package")
                    subdir = self.ev.values(sub, sc, "path")[0] if sub is not None else "templates"
                    return [norm(posixpath.join(self.prog.package_dir(str(n)), str(subdir))) for n in names]
                self._root(rec, pkg_root, ast.unparse(e))
                return
            if kind == "ChoiceLoader":
                arg = e.args[0] if e.args else kw.get("loaders")
                for it in getattr(arg, "elts", []):
                    self.loader_roots(rec, it, sc, d + 1)
                if not isinstance(arg, (ast.List, ast.Tuple)):
                    rec["unresolved"].append("%s: ChoiceLoader over %s is not a static list" % (rec["where"], ast.unparse(arg)[:60]))
                return
            if kind in ("DictLoader", "FunctionLoader", "PrefixLoader", "ModuleLoader"):
                rec["unresolved"].append("%s: a %s has no folder of templates" % (rec["where"], kind))
                return
        rec["unresolved"].append("%s: the loader %s is not a FileSystemLoader or PackageLoader of a static path" % (rec["where"], ast.unparse(e)[:60]))

    def _root(self, rec, fn, text):
        try:
            for p in fn():
                if p not in rec["roots"]:
                    rec["roots"].append(p)
        except (Unresolved, ParamRef) as exc:
            rec["unresolved"].append("%s: the loader path %s: %s" % (rec["where"], text[:60], exc))

    def env_of(self, e, sc, d=0):
        """The environment record that e evaluates to, or None."""
        if d > MAX_DEPTH:
            return None
        if isinstance(e, ast.Call):
            if id(e) in self.envs:
                return self.envs[id(e)]
            for m, f in self.prog.functions(last(e.func)):
                for r in ast.walk(f):
                    if isinstance(r, ast.Return) and r.value is not None:
                        env = self.env_of(r.value, Scope(m, r.value), d + 1)
                        if env:
                            return env
            return None
        if isinstance(e, ast.Name):
            for v in sc.local_assigns(e.id):
                env = self.env_of(v, Scope(sc.module, v), d + 1)
                if env:
                    return env
            g = self.prog.global_value(sc.module, e.id)
            if g:
                return self.env_of(g[1], Scope(g[0], g[1]), d + 1)
            return None
        if isinstance(e, ast.Attribute):
            if isinstance(e.value, ast.Name) and e.value.id == "self":
                for v in sc.self_attr(e.attr):
                    env = self.env_of(v, Scope(sc.module, v), d + 1)
                    if env:
                        return env
            for m in self.prog.modules:
                if e.attr in m.consts:
                    return self.env_of(m.consts[e.attr], Scope(m, m.consts[e.attr]), d + 1)
        return None
