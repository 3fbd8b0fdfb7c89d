package report

import (
	"path"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/plan"
)

// node is a folder or a file of the file tree.
type node struct {
	name     string
	mark     string // for files: (modified), (added) ...
	children map[string]*node
}

// fileTree draws the templates as a text tree under their common folder,
// each file with how it changed. A chain of folders with one child each
// shows as one line ("a/b/").
func fileTree(ts []plan.Template) string {
	paths := make([]string, len(ts))
	for i, t := range ts {
		paths[i] = oneLine(t.Path)
	}
	root := commonDir(paths)
	top := &node{children: map[string]*node{}}
	for _, t := range ts {
		rel := strings.TrimPrefix(oneLine(t.Path), root)
		n := top
		parts := strings.Split(rel, "/")
		for i, p := range parts {
			if i == len(parts)-1 {
				key := p + "\x00" + t.Path // a path can appear twice: keep both
				n.children[key] = &node{name: p, mark: mark(t)}
				break
			}
			c := n.children[p+"/"]
			if c == nil {
				c = &node{name: p + "/", children: map[string]*node{}}
				n.children[p+"/"] = c
			}
			n = c
		}
	}
	var b strings.Builder
	if root == "" {
		b.WriteString("./\n")
	} else {
		b.WriteString(root + "\n")
	}
	draw(&b, top, "")
	return b.String()
}

func draw(b *strings.Builder, n *node, prefix string) {
	keys := make([]string, 0, len(n.children))
	for k := range n.children {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		c := n.children[k]
		name := c.name
		for len(c.children) == 1 {
			var only *node
			for _, o := range c.children {
				only = o
			}
			if only.children == nil {
				break
			}
			name += only.name
			c = only
		}
		branch, next := "├── ", "│   "
		if i == len(keys)-1 {
			branch, next = "└── ", "    "
		}
		b.WriteString(prefix + branch + name)
		if c.mark != "" {
			b.WriteString("  " + c.mark)
		}
		b.WriteString("\n")
		if c.children != nil {
			draw(b, c, prefix+next)
		}
	}
}

// mark says how a template changed.
func mark(t plan.Template) string {
	switch t.Status {
	case plan.Renamed:
		return "(renamed from " + oneLine(t.OldPath) + ")"
	case plan.Included:
		via := t.Via
		more := ""
		if len(via) > 3 {
			via, more = via[:3], " and "+itoa(len(t.Via)-3)+" more"
		}
		if len(via) == 0 {
			return "(included file changed)"
		}
		return "(included file changed: " + strings.Join(via, ", ") + more + ")"
	case "":
		return ""
	}
	return "(" + string(t.Status) + ")"
}

// commonDir returns the longest folder prefix, with a trailing slash, that
// every path shares; "" when they share none.
func commonDir(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	dir := path.Dir(paths[0])
	for {
		if dir == "." || dir == "/" {
			return ""
		}
		prefix := dir + "/"
		all := true
		for _, p := range paths {
			if !strings.HasPrefix(p, prefix) {
				all = false
				break
			}
		}
		if all {
			return prefix
		}
		dir = path.Dir(dir)
	}
}
