// Package render is the render check: it re-renders every changed template
// at the merge base and at the head for every variable set, runs bash -n on
// rendered shell scripts, diffs the rendered output, and cross-checks the
// bytes against Python Jinja2 when it is installed.
package render
