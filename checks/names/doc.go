// Package names is the names check: for templates of groups without
// strict_undefined (the prompt group renders with Jinja2's default
// Undefined, so an undefined name renders as nothing and no error appears),
// it lists every name a template reads, through includes, imports and
// macros, that no variable set defines. Python Jinja2 parses the templates
// (jinja2.meta.find_undeclared_variables) in a sandboxed helper with
// limits; nothing is rendered. A name the change adds fails; a name the
// base had too is a warning, "fails before this change".
package names
