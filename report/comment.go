package report

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"text/template"

	"github.com/formula-code/template-verify/templates"
)

// Markdown renders the verification comment in the house format, within
// MaxCommentBytes.
func (r *Report) Markdown() (string, error) {
	return r.MarkdownLimit(MaxCommentBytes)
}

// MarkdownLimit renders the comment within limit bytes of UTF-8. When the
// full comment is longer, it cuts the largest parts first and says so in
// the Notes section. It fails only when the comment does not fit after
// every cut.
func (r *Report) MarkdownLimit(limit int) (string, error) {
	r = r.quieted()
	t, err := parsed()
	if err != nil {
		return "", err
	}
	v := buildView(r)
	v.cuts.limit = limit
	base := notes(r)
	out, err := v.render(t, base)
	if err != nil {
		return "", err
	}
	for len(out) > limit {
		if !v.cutParts(len(out)-limit) && !v.cutLists() && !v.cutProse() {
			return "", fmt.Errorf("the comment is %s bytes after every cut, above the limit of %s bytes", thousands(len(out)), thousands(limit))
		}
		if out, err = v.render(t, base); err != nil {
			return "", err
		}
	}
	return out, nil
}

// render executes the comment template on the view.
func (v *view) render(t *template.Template, base []string) (string, error) {
	v.Notes = append(append([]string(nil), base...), v.cuts.notes()...)
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, templates.Comment, v); err != nil {
		return "", fmt.Errorf("render the comment: %w", err)
	}
	return defuseMarker(strings.TrimRight(b.String(), "\n") + "\n"), nil
}

// defusedMarker is Marker with a zero-width space: it reads the same in a
// code span, and no search for Marker finds it.
const defusedMarker = "<!-- template-verify\u200b:comment -->"

// defuseMarker keeps Marker only at the start of the comment. A copy that
// text from the pull request brings in (a file name in a code span, a
// line of a diff) would make the comment look like two, and another
// comment that quotes ours look like ours.
func defuseMarker(md string) string {
	first, rest, ok := strings.Cut(md, "\n")
	if !ok || !strings.Contains(rest, Marker) {
		return md
	}
	return first + "\n" + strings.ReplaceAll(rest, Marker, defusedMarker)
}

// IsComment reports whether body is a comment of template-verify: it
// starts with Marker. A comment that only quotes the marker further down
// is not one.
func IsComment(body string) bool {
	return strings.HasPrefix(strings.TrimLeft(body, " \t\r\n"), Marker)
}

var (
	parseOnce sync.Once
	parsedSet *template.Template
	parseErr  error
)

// parsed returns the embedded templates, parsed once.
func parsed() (*template.Template, error) {
	parseOnce.Do(func() {
		var set *template.Template
		funcs := template.FuncMap{
			"indent": indent,
			"paras":  paras,
			"include": func(name string, data any) (string, error) {
				if data == nil {
					return "", nil
				}
				if rv := reflect.ValueOf(data); rv.Kind() == reflect.Pointer && rv.IsNil() {
					return "", nil
				}
				var b strings.Builder
				if err := set.ExecuteTemplate(&b, name, data); err != nil {
					return "", err
				}
				return b.String(), nil
			},
		}
		set, parseErr = templates.Parse(funcs)
		parsedSet = set
	})
	if parsedSet == nil && parseErr == nil {
		parseErr = errors.New("the comment templates did not parse")
	}
	return parsedSet, parseErr
}
