package jinja

import (
	"errors"
	"fmt"
	"strings"

	"github.com/formula-code/template-verify/third_party/gonja/exec"
	"github.com/formula-code/template-verify/third_party/gonja/nodes"
	"github.com/formula-code/template-verify/third_party/gonja/parser"
	"github.com/formula-code/template-verify/third_party/gonja/tokens"
)

// includeStmt replaces gonja's include. It differs in five ways, each
// closer to Jinja2: names resolve from the loader root; a list of names
// picks the first that exists; a {% set %} inside the included file does
// not change the including file's variables; "without context" hides the
// variables; and an error inside the included file is an *Error that names
// that file.
type includeStmt struct {
	location      *tokens.Token
	name          nodes.Expression
	ignoreMissing bool
	noContext     bool // "without context": only the globals
}

func (s *includeStmt) Position() *tokens.Token { return s.location }

func (s *includeStmt) String() string {
	return fmt.Sprintf("IncludeControlStructure(Line=%d Col=%d)", s.location.Line, s.location.Col)
}

// Execute renders the included template into the including one's output.
func (s *includeStmt) Execute(r *exec.Renderer, _ *nodes.ControlStructureBlock) (err error) {
	l, ok := r.Loader.(*rootedLoader)
	if !ok {
		return errors.New("include: the template was not loaded by this package")
	}
	v := r.Eval(s.name)
	if v.IsError() {
		return fmt.Errorf("cannot evaluate the name of the included template: %w", v)
	}
	var names []string
	if v.IsList() {
		v.Iterate(func(_, _ int, item, _ *exec.Value) bool {
			names = append(names, item.String())
			return true
		}, func() {})
	} else {
		names = []string{v.String()}
	}
	chosen := ""
	for _, n := range names {
		if clean, ok := templateName(n); ok {
			if _, ok := l.env.files["/"+clean]; ok {
				chosen = clean
				break
			}
		}
	}
	if chosen == "" {
		if s.ignoreMissing {
			return nil
		}
		return fmt.Errorf("included template %s not found", quoteAll(names))
	}
	depth := includeDepth(r.Environment.Context)
	if depth >= maxIncludeDepth {
		return fmt.Errorf("includes nest more than %d levels deep: does a template include itself?", maxIncludeDepth)
	}
	t, err := l.env.parseCached(chosen)
	if err != nil {
		return err
	}
	file := l.env.file(chosen)
	defer func() {
		if p := recover(); p != nil {
			err = &Error{File: file, Msg: fmt.Sprintf("the template engine panicked while rendering: %v", p), Panic: true}
		}
	}()
	ctx := r.Environment.Context
	if s.noContext {
		ctx = environment.Context
	}
	sub := &exec.Environment{
		Context:           ctx.Inherit(),
		Filters:           r.Environment.Filters,
		Tests:             r.Environment.Tests,
		ControlStructures: r.Environment.ControlStructures,
		Methods:           r.Environment.Methods,
	}
	sub.Context.Set(depthKey, depth+1)
	if err := exec.NewRenderer(sub, r.Output, r.Config, r.Loader, t).Execute(); err != nil {
		return renderError(file, err)
	}
	return nil
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, " or ")
}

// includeParser parses {% include name [ignore missing] [with|without context] %}.
func includeParser(p *parser.Parser, args *parser.Parser) (nodes.ControlStructure, error) {
	// The first argument token is on the tag's line; p.Current() is the
	// token after the tag, which trim_blocks may move to the next line.
	loc := args.Current()
	if loc == nil || loc.Line == 0 {
		loc = p.Current()
	}
	s := &includeStmt{location: loc}
	name, err := args.ParseExpression()
	if err != nil {
		return nil, err
	}
	s.name = name
	if args.MatchName("ignore") != nil {
		if args.MatchName("missing") == nil {
			return nil, args.Error("expected 'missing' after 'ignore'", args.Current())
		}
		s.ignoreMissing = true
	}
	if tok := args.MatchName("with", "without"); tok != nil {
		if args.MatchName("context") == nil {
			return nil, args.Error("expected 'context' after 'with' or 'without'", args.Current())
		}
		s.noContext = tok.Val == "without"
	}
	if !args.End() {
		return nil, args.Error("unexpected text after the included template name", args.Current())
	}
	return s, nil
}
