// Package templates holds the text/template files that package report
// renders: the verification comment (comment.md.tmpl) and its partials,
// one file per section, in the top-level templates/ folder that the
// design card lays out. The files are embedded, so the binary needs no
// files at run time. (Not to be confused with the Jinja templates that
// template-verify checks.)
//
// The templates are thin: the report package computes every sentence, cut
// and escape in Go, and the templates only lay out the sections. They need
// these functions from the caller: include (run a named template into a
// string, "" for nil data), indent (spaces before each line), paras (join
// the parts that are not blank with blank lines).
package templates

import (
	"embed"
	"fmt"
	"text/template"
)

//go:embed *.tmpl
var FS embed.FS

// Comment is the name of the template that renders the whole comment.
const Comment = "comment"

// Parse parses every template file with funcs, which must define the
// functions the files call.
func Parse(funcs template.FuncMap) (*template.Template, error) {
	t, err := template.New("comment").Option("missingkey=error").Funcs(funcs).ParseFS(FS, "*.tmpl")
	if err != nil {
		return nil, fmt.Errorf("parse the embedded comment templates: %w", err)
	}
	return t, nil
}
