package jinja

import (
	"strings"

	"github.com/formula-code/template-verify/third_party/gonja/exec"
)

// pythonStrMethods are the names of Python's str methods; strMethods keeps
// gonja's implementation of each that gonja has.
var pythonStrMethods = []string{
	"capitalize", "casefold", "center", "count", "encode", "endswith", "expandtabs", "find",
	"format", "format_map", "index", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit",
	"isidentifier", "islower", "isnumeric", "isprintable", "isspace", "istitle", "isupper",
	"join", "ljust", "lower", "lstrip", "partition", "removeprefix", "removesuffix", "replace",
	"rfind", "rindex", "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines",
	"startswith", "strip", "swapcase", "title", "translate", "upper", "zfill",
}

// strMethods is gonja's set of str methods with Python's replace, whose
// count is optional; gonja's replace requires it.
func strMethods(def *exec.MethodSet[string]) *exec.MethodSet[string] {
	m := map[string]exec.Method[string]{}
	for _, name := range pythonStrMethods {
		if fn, ok := def.Get(name); ok {
			m[name] = fn
		}
	}
	m["replace"] = strReplace
	return exec.NewMethodSet(m)
}

func strReplace(self string, _ *exec.Value, args *exec.VarArgs) (any, error) {
	var old, repl string
	count := -1
	if err := args.Take(
		exec.PositionalArgument("old", nil, exec.StringArgument(&old)),
		exec.PositionalArgument("new", nil, exec.StringArgument(&repl)),
		exec.PositionalArgument("count", exec.AsValue(-1), exec.IntArgument(&count)),
	); err != nil {
		return nil, exec.ErrInvalidCall(err)
	}
	if count < 0 {
		count = -1
	}
	return strings.Replace(self, old, repl, count), nil
}
