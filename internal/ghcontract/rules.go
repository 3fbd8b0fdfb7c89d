package ghcontract

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// rule is a limit that the spec states in a description, not in a
// schema keyword.
type rule struct {
	path  []string // property names from the body's root; "*" is any array item
	kind  string   // maxBytes, maxChars, requiredIf, maximum
	limit int
	// requiredIf: the property path[len-1] is required when the sibling
	// ifPresent is present or the sibling ifField equals ifValue.
	ifPresent, ifField, ifValue string
	text                        string // the sentence of the description
}

var (
	// "The maximum size is 64 KB." / "... is 255 characters."
	sizeRe = regexp.MustCompile(`(?i)maximum size is (\d+) (KB|bytes|characters)`)
	// "**Required if you provide `completed_at` or a `status` of `completed`**"
	requiredIfRe = regexp.MustCompile("Required if you provide `(\\w+)` or a `(\\w+)` of `(\\w+)`")
	// "The number of results per page (max 100)."
	paramMaxRe = regexp.MustCompile(`\(max (\d+)\)`)
)

// resolver reads rules out of the descriptions of a schema tree of doc.
type resolver struct{ doc map[string]any }

// deref follows a "#/..." $ref within the document.
func (r resolver) deref(v any) map[string]any {
	m, _ := v.(map[string]any)
	for range 10 {
		ref, ok := m["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#/") {
			return m
		}
		var cur any = r.doc
		for _, p := range strings.Split(ref[2:], "/") {
			p = strings.NewReplacer("~1", "/", "~0", "~").Replace(p)
			cur = cur.(map[string]any)[p]
		}
		m, _ = cur.(map[string]any)
	}
	return m
}

// rules walks the schema v at path and returns the rules of its
// properties' descriptions.
func (r resolver) rules(v any, path []string) []rule {
	m := r.deref(v)
	if m == nil {
		return nil
	}
	var out []rule
	props, _ := m["properties"].(map[string]any)
	for name, p := range props {
		pp := append(append([]string(nil), path...), name)
		pm := r.deref(p)
		desc, _ := pm["description"].(string)
		if d, ok := p.(map[string]any)["description"].(string); ok {
			desc = d + " " + desc
		}
		out = append(out, descRules(desc, pp)...)
		out = append(out, r.rules(pm, pp)...)
	}
	if items, ok := m["items"]; ok {
		out = append(out, r.rules(items, append(append([]string(nil), path...), "*"))...)
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		for _, s := range list(m[k]) {
			out = append(out, r.rules(s, path)...)
		}
	}
	return out
}

// descRules reads the rules of one property's description.
func descRules(desc string, path []string) []rule {
	var out []rule
	for _, s := range sizeRe.FindAllStringSubmatch(desc, -1) {
		n, _ := strconv.Atoi(s[1])
		r := rule{path: path, limit: n, text: sentence(desc, s[0])}
		switch strings.ToLower(s[2]) {
		case "kb":
			// The stricter reading of "KB": 1,000 bytes, not 1,024.
			r.kind, r.limit = "maxBytes", n*1000
		case "bytes":
			r.kind = "maxBytes"
		default:
			r.kind = "maxChars"
		}
		out = append(out, r)
	}
	if s := requiredIfRe.FindStringSubmatch(desc); s != nil {
		out = append(out, rule{path: path, kind: "requiredIf", ifPresent: s[1], ifField: s[2], ifValue: s[3], text: sentence(desc, s[0])})
	}
	return out
}

func paramRules(desc string) []rule {
	if s := paramMaxRe.FindStringSubmatch(desc); s != nil {
		n, _ := strconv.Atoi(s[1])
		return []rule{{kind: "maximum", limit: n, text: sentence(desc, s[0])}}
	}
	return nil
}

// sentence is the sentence of desc around match, for messages.
func sentence(desc, match string) string {
	i := strings.Index(desc, match)
	start := strings.LastIndex(desc[:i], ". ") + 1
	end := strings.Index(desc[i:], ". ")
	if end < 0 {
		end = len(desc) - i
	}
	return strings.TrimRight(strings.Trim(strings.TrimSpace(desc[start:i+end]), "*."), "*") + "."
}

// apply checks body against the rule and returns the violations.
func (r rule) apply(body any) []Violation {
	var out []Violation
	bad := func(loc []string, msg string) {
		out = append(out, Violation{Field: "/" + strings.Join(loc, "/"), Rule: fmt.Sprintf("%s %d (description: %q)", r.kind, r.limit, r.text), Message: msg})
	}
	if r.kind == "requiredIf" {
		parent := r.path[:len(r.path)-1]
		name := r.path[len(r.path)-1]
		at(body, parent, nil, func(v any, loc []string) {
			obj, ok := v.(map[string]any)
			if !ok {
				return
			}
			_, has := obj[name]
			_, given := obj[r.ifPresent]
			if !has && (given || fmt.Sprint(obj[r.ifField]) == r.ifValue) {
				out = append(out, Violation{Field: "/" + strings.Join(append(loc, name), "/"), Rule: fmt.Sprintf("requiredIf (description: %q)", r.text),
					Message: fmt.Sprintf("%s is missing, but %s is given or %s is %q", name, r.ifPresent, r.ifField, r.ifValue)})
			}
		})
		return out
	}
	at(body, r.path, nil, func(v any, loc []string) {
		s, ok := v.(string)
		if !ok {
			return
		}
		switch r.kind {
		case "maxBytes":
			if len(s) > r.limit {
				bad(loc, fmt.Sprintf("%d bytes, more than %d", len(s), r.limit))
			}
		case "maxChars":
			if n := utf8.RuneCountInString(s); n > r.limit {
				bad(loc, fmt.Sprintf("%d characters, more than %d", n, r.limit))
			}
		}
	})
	return out
}

// at calls f with each value at path below v ("*": every array item).
func at(v any, path, loc []string, f func(v any, loc []string)) {
	if len(path) == 0 {
		f(v, loc)
		return
	}
	if path[0] == "*" {
		for i, e := range list(v) {
			at(e, path[1:], append(append([]string(nil), loc...), strconv.Itoa(i)), f)
		}
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	c, ok := m[path[0]]
	if !ok {
		return
	}
	at(c, path[1:], append(append([]string(nil), loc...), path[0]), f)
}

// uniqueRules drops repeats: a description can be reached twice, through
// a $ref and beside it.
func uniqueRules(rs []rule) []rule {
	seen := map[string]bool{}
	var out []rule
	for _, r := range rs {
		k := fmt.Sprint(r.path, r.kind, r.limit, r.ifPresent)
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}
