package jinja

import (
	"fmt"

	"github.com/formula-code/template-verify/third_party/gonja/tokens"
)

// Jinja2 3.1 checks the names of filters and tests when it compiles a
// template, so a wrong name fails every render, even in a branch that does
// not run. gonja looks a filter up only when it runs it. unknownName finds
// the first filter or test name that Jinja2 does not know, so that Parse
// fails where Jinja2 fails. A name that Jinja2 knows and gonja lacks is
// left to the render, which fails only if it runs.
var jinja2Filters = setOf("abs", "attr", "batch", "capitalize", "center", "count", "d", "default",
	"dictsort", "e", "escape", "filesizeformat", "first", "float", "forceescape", "format",
	"groupby", "indent", "int", "items", "join", "last", "length", "list", "lower", "map", "max",
	"min", "pprint", "random", "reject", "rejectattr", "replace", "reverse", "round", "safe",
	"select", "selectattr", "slice", "sort", "string", "striptags", "sum", "title", "tojson",
	"trim", "truncate", "unique", "upper", "urlencode", "urlize", "wordcount", "wordwrap", "xmlattr")

var jinja2Tests = setOf("boolean", "callable", "defined", "divisibleby", "eq", "equalto", "escaped",
	"even", "false", "filter", "float", "ge", "greaterthan", "gt", "in", "integer", "iterable", "le",
	"lessthan", "lower", "lt", "mapping", "ne", "none", "number", "odd", "sameas", "sequence",
	"string", "test", "true", "undefined", "upper")

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// unknownName returns the line and message of the first filter or test
// name in src that Jinja2 does not know.
func (e *Env) unknownName(src string) (line int, msg string, found bool) {
	defer func() {
		if recover() != nil {
			found = false
		}
	}()
	s := tokens.LexAll(src, e.cfg)
	var prev, prev2 *tokens.Token
	for !s.End() {
		t := s.Next()
		if t == nil {
			break
		}
		if t.Type == tokens.Name && prev != nil {
			isFilter := prev.Type == tokens.Pipe ||
				prev.Type == tokens.Name && prev.Val == "filter" && prev2 != nil && prev2.Type == tokens.BlockBegin
			isTest := prev.Type == tokens.Is || prev.Type == tokens.Not && prev2 != nil && prev2.Type == tokens.Is
			switch {
			case isFilter && !jinja2Filters[t.Val]:
				return t.Line, fmt.Sprintf("no filter named '%s'", t.Val), true
			case isTest && !jinja2Tests[t.Val]:
				return t.Line, fmt.Sprintf("no test named '%s'", t.Val), true
			}
		}
		prev2, prev = prev, t
	}
	return 0, "", false
}
