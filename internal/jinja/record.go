package jinja

import (
	"context"
	"fmt"
	"path"
	"strings"
)

// Engine names what made the bytes of a render of record.
type Engine struct {
	// Jinja2 is true when Python Jinja2 made them; Version is its version.
	Jinja2  bool
	Version string
	// Note says why gonja made them, or how the engines differ; "" when
	// there is nothing to say.
	Note string
}

// String is "Python Jinja2 3.1.2" or "gonja".
func (e Engine) String() string {
	if e.Jinja2 {
		return "Python Jinja2 " + e.Version
	}
	return "gonja"
}

// FindPythonFunc finds a python3 that imports jinja2 (FindPython's type).
type FindPythonFunc func(ctx context.Context) (path, version string, ok bool)

// RenderOfRecord renders the template name of e the way production does:
// with Python Jinja2 (out of process, sandboxed, with lim) when find finds
// a python3 that imports it, and with gonja in a render worker (with lim)
// otherwise. gonja renders first in both cases: its errors name the line of
// an unclosed block and the included file. When both engines fail, gonja's
// error is returned; when only one fails, Jinja2 decides. find nil is
// FindPython.
func RenderOfRecord(ctx context.Context, e *Env, name string, vars map[string]any, lim Limits, find FindPythonFunc) (string, Engine, error) {
	r := NewRenderer(lim)
	out, gerr := r.Render(ctx, e, name, vars)
	r.Close()
	if je, ok := gerr.(*Error); ok && je.Stopped {
		return out, Engine{Note: "gonja stopped at a limit; Jinja2 did not run"}, gerr
	}
	if find == nil {
		find = FindPython
	}
	py, version, ok := find(ctx)
	if !ok {
		return out, Engine{Note: "no python3 on this machine can import jinja2"}, gerr
	}
	res, err := RenderPythonLimits(ctx, py, []Job{{Files: e.Sources(), Opts: e.Options(), Name: name, Vars: vars}}, lim)
	if err != nil || len(res) != 1 || res[0].Skipped != "" {
		note := "Python Jinja2 did not answer"
		if err != nil {
			note += ": " + err.Error()
		}
		return out, Engine{Note: note}, gerr
	}
	p := res[0]
	eng := Engine{Jinja2: true, Version: version}
	switch {
	case gerr == nil && p.Err == "":
		if out != p.Output {
			eng.Note = "gonja renders other bytes"
		}
		return p.Output, eng, nil
	case gerr == nil:
		eng.Note = "gonja renders, Jinja2 fails"
		return "", eng, PyError(e, name, p)
	case p.Err == "":
		eng.Note = "gonja fails (" + gerr.Error() + "), Jinja2 renders"
		return p.Output, eng, nil
	}
	return "", eng, BothFailed(e, name, gerr, p)
}

// BothFailed is the error of a render that fails with gonja (gerr) and
// with Jinja2 (p): gonja's, which names the line of an unclosed block and
// the included file, unless it has no line (an engine panic) and Jinja2's
// has one.
func BothFailed(e *Env, name string, gerr error, p PyResult) error {
	if je, ok := gerr.(*Error); ok && je.Line == 0 && p.Line > 0 {
		return PyError(e, name, p)
	}
	return gerr
}

// PyError turns a failed Jinja2 render of the template name of e into an
// *Error that names the repository path and line. For a template that ends
// inside a block, the line is the block's opening line (Jinja2 names the
// end).
func PyError(e *Env, name string, r PyResult) *Error {
	if r.File != "" {
		name = strings.TrimPrefix(r.File, "/")
	}
	line := r.Line
	if strings.HasPrefix(r.Err, "TemplateSyntaxError: Unexpected end of template") || strings.Contains(r.Err, "The innermost block that needs to be closed is") {
		if l := e.UnclosedBlockLine(name); l > 0 {
			line = l
		}
	}
	msg := r.Err
	if msg == "" {
		msg = "the render failed"
	}
	return &Error{File: path.Join(e.Root(), name), Line: line, Msg: fmt.Sprintf("Jinja2: %s", msg)}
}
