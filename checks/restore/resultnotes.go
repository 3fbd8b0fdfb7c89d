// The notes and small texts of the restore result: the prelude, the base runs, the engine.

package restore

import (
	"fmt"
	"strings"

	"github.com/formula-code/template-verify/internal/jinja"
	"github.com/formula-code/template-verify/internal/words"
)

// preludeNote says which shell options and variables of the script the
// step runs with.
func preludeNote(s *Step) string {
	if s.Command != "" || (len(s.Prelude.Options) == 0 && len(s.Prelude.Vars) == 0 && len(s.Prelude.Funcs) == 0) {
		return ""
	}
	var parts []string
	if len(s.Prelude.Options) > 0 {
		parts = append(parts, "the shell options "+strings.Join(s.Prelude.Options, ", "))
	}
	if n := len(s.Prelude.Vars); n > 0 {
		parts = append(parts, pluralWord(n, "the variable ", "the variables ")+strings.Join(s.Prelude.Vars, ", "))
	}
	if n := len(s.Prelude.Funcs); n > 0 {
		parts = append(parts, pluralWord(n, "the function ", "the functions ")+strings.Join(s.Prelude.Funcs, ", "))
	}
	return "The step runs with " + strings.Join(parts, " and ") + ", as the script sets them before the section."
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// beforeSuffix adds the count of failures that happen before this change
// to a figure.
func beforeSuffix(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d fail before this change", n)
}

func baseRunsText(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" and %d with the base's step", n)
}

// engineNote says which engine rendered what, in the shared words of the
// render check's notes: Python Jinja2's bytes are production's.
func engineNote(what string, e jinja.Engine) string {
	return words.EngineNote(what, e.Jinja2, e.Version, e.Note)
}
