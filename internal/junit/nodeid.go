package junit

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"
)

// NodeID returns the pytest node id of the case: "file::name",
// "file::Class::name" or, for a collection error, the file path alone. It
// uses the file attribute (xunit1) when the classname starts with that
// file's module; otherwise (no file attribute, or a test inherited from a
// class in another file) it turns the dotted classname into a path, taking
// trailing capitalised parts as classes. NodeIDIn is more exact.
func (c Case) NodeID() string {
	if id, ok := c.idWithFile(); ok {
		return id
	}
	file, classes := guessFile(c.dotted())
	return join(file, classes, c)
}

// NodeIDIn is NodeID with a file system: when the file attribute does not
// give the id, it finds the test file as the longest dotted prefix of the
// classname that names a .py file under root (pytest's rootdir). The
// classname comes from a file that code from a pull request wrote, and
// root is a checkout that code could change: the search goes through an
// os.Root, so neither ".." parts nor a symlink lead it out of root.
func (c Case) NodeIDIn(root string) string {
	if id, ok := c.idWithFile(); ok {
		return id
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return c.NodeID()
	}
	defer r.Close()
	if rel, classes, ok := findFile(r, "", strings.Split(c.dotted(), ".")); ok {
		return join(rel, classes, c)
	}
	return c.NodeID()
}

// findFile matches leading dotted parts against folders and .py files
// under root/dir. A folder or file name may itself hold dots
// ("tests/v1.2/test_x.py" becomes "tests.v1.2.test_x"), so every split is
// tried, longest names first.
func findFile(root *os.Root, dir string, parts []string) (rel string, classes []string, ok bool) {
	for k := len(parts); k > 0; k-- {
		name := strings.Join(parts[:k], ".")
		p := path.Join(dir, name)
		if !filepath.IsLocal(p) {
			continue // "..": never above root
		}
		st, err := root.Stat(filepath.FromSlash(p + ".py"))
		if err == nil && st.Mode().IsRegular() {
			return p + ".py", parts[k:], true
		}
		if k == len(parts) {
			continue // a folder cannot be the last part
		}
		if st, err := root.Stat(filepath.FromSlash(p)); err == nil && st.IsDir() {
			if rel, classes, ok := findFile(root, p, parts[k:]); ok {
				return rel, classes, true
			}
		}
	}
	return "", nil, false
}

// FilePath returns the file that holds the test definition, as a slash
// path: the file attribute, or the part of NodeID before the first "::".
func (c Case) FilePath() string {
	if c.File != "" {
		return filepath.ToSlash(c.File)
	}
	id, _, _ := strings.Cut(c.NodeID(), "::")
	return id
}

// FilePathIn is FilePath with a file system, as NodeIDIn.
func (c Case) FilePathIn(root string) string {
	if c.File != "" {
		return filepath.ToSlash(c.File)
	}
	id, _, _ := strings.Cut(c.NodeIDIn(root), "::")
	return id
}

// dotted is the dotted path that pytest made from the node id: the
// classname, or for a collection error the name.
func (c Case) dotted() string {
	if c.Classname == "" {
		return c.Name
	}
	return c.Classname
}

// idWithFile strips the module part of the file attribute (the path with
// "/" as "." and no ".py") from the classname; what remains are the class
// names. ok is false when there is no file attribute or the classname does
// not start with its module.
func (c Case) idWithFile() (id string, ok bool) {
	if c.File == "" {
		return "", false
	}
	file := filepath.ToSlash(c.File)
	mod := moduleOf(file)
	switch {
	case c.Classname == "" && (c.CollectionError() || c.Name == mod):
		return file, true
	case c.Classname == "":
		return file + "::" + c.Name, true
	case c.Classname == mod:
		return file + "::" + c.Name, true
	}
	if rest, found := strings.CutPrefix(c.Classname, mod+"."); found {
		return join(file, strings.Split(rest, "."), c), true
	}
	return "", false
}

func join(file string, classes []string, c Case) string {
	if c.Classname == "" {
		return file
	}
	id := file
	for _, k := range classes {
		if k != "" {
			id += "::" + k
		}
	}
	return id + "::" + c.Name
}

// moduleOf turns "tests/test_x.py" into "tests.test_x", as pytest's
// mangle_test_address does.
func moduleOf(file string) string {
	return strings.ReplaceAll(strings.TrimSuffix(file, ".py"), "/", ".")
}

// guessFile splits a dotted path into a file and class names without a
// file system: the trailing capitalised parts are classes.
func guessFile(dotted string) (string, []string) {
	parts := strings.Split(dotted, ".")
	i := len(parts)
	for i > 1 && startsUpper(parts[i-1]) {
		i--
	}
	return path.Join(parts[:i]...) + ".py", parts[i:]
}

func startsUpper(s string) bool {
	for _, r := range s {
		return unicode.IsUpper(r)
	}
	return false
}
