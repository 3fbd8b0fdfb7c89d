package config

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Copied reports whether production copies the file rel (relative to the
// group root) verbatim instead of rendering it: it matches a glob of the
// group's copy list. A copied file is never rendered (Python with
// "{%s}" % name is not a Jinja template), but a change to it still runs
// the pytest suites and the runner scenarios, whose triggers are paths.
func (g *Group) Copied(rel string) bool {
	for _, c := range g.Copy {
		if MatchGlob(c, rel) {
			return true
		}
	}
	return false
}

// validateCopy checks the copy globs of every group.
func (c *Config) validateCopy(fail func(msg string, keyPath ...string) error) error {
	for i, g := range c.Groups {
		for j, p := range g.Copy {
			if !validGlob(p) {
				return fail(fmt.Sprintf("copy %q is not a valid glob", p), "groups", strconv.Itoa(i), "copy", strconv.Itoa(j))
			}
		}
	}
	return nil
}

// maxValueText is the longest value text in a variable set's name.
const maxValueText = 60

// varValueText writes a variable's value for a variable set's name: null,
// numbers, booleans and strings as they are, lists and maps as compact
// JSON; newlines as \n, and long values shortened. A name stays one
// readable line of key=value pairs.
func varValueText(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		s = "null"
	case string:
		s = x
	case bool, int, int64, uint64, float64:
		s = fmt.Sprint(x)
	default:
		b, err := json.Marshal(jsonable(x))
		if err != nil {
			s = fmt.Sprintf("%T", x)
		} else {
			s = string(b)
		}
	}
	s = strings.NewReplacer("\r", `\r`, "\n", `\n`, "\t", `\t`).Replace(s)
	if r := []rune(s); len(r) > maxValueText {
		s = string(r[:maxValueText-1]) + "…"
	}
	return s
}

// jsonable turns YAML-decoded maps with non-string keys into maps that
// encoding/json can write.
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonable(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = jsonable(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonable(e)
		}
		return out
	}
	return v
}
