package jinja

import (
	"fmt"
	"io"
	"strings"

	"github.com/formula-code/template-verify/third_party/gonja/loaders"
	"github.com/formula-code/template-verify/third_party/gonja/parser"
)

type parserFunc = parser.ControlStructureParser

// rootedLoader resolves every name from the loader root, as Jinja2's
// FileSystemLoader does, instead of from the folder of the including file
// as gonja's loaders do.
type rootedLoader struct{ env *Env }

var _ loaders.Loader = (*rootedLoader)(nil)

// Resolve returns the loader name ("/" + path) of a template name.
func (l *rootedLoader) Resolve(p string) (string, error) {
	name, ok := templateName(p)
	if !ok {
		return "", fmt.Errorf("template %q not found", p)
	}
	if _, ok := l.env.files["/"+name]; !ok {
		return "", fmt.Errorf("template %q not found", p)
	}
	return "/" + name, nil
}

// Read returns the source of a template.
func (l *rootedLoader) Read(p string) (io.Reader, error) {
	name, err := l.Resolve(p)
	if err != nil {
		return nil, err
	}
	return strings.NewReader(l.env.files[name]), nil
}

// Inherit returns the same loader: names never depend on the including file.
func (l *rootedLoader) Inherit(string) (loaders.Loader, error) { return l, nil }

// templateName cleans a template name the way Jinja2's split_template_path
// does on Linux: empty and "." parts go, and ".." makes the name invalid.
// A leading "/" is dropped, so "/a/b" and "a/b" are the same template.
func templateName(name string) (string, bool) {
	parts := strings.Split(name, "/")
	out := parts[:0]
	for _, p := range parts {
		switch {
		case p == "..":
			return "", false
		case p == "" || p == ".":
		default:
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return "", false
	}
	return strings.Join(out, "/"), true
}
