package render

import (
	"fmt"

	"github.com/formula-code/template-verify/checks"
)

// stats counts what the check did, for its figures and summary.
type stats struct {
	templates    int
	sets         int // template and variable set pairs
	renders      int
	shellScripts int
}

func (s stats) figures(f fidelityResult) []checks.Figure {
	figs := []checks.Figure{
		{Label: "Templates", Value: fmt.Sprintf("%d templates, %d variable sets, %d renders", s.templates, s.sets, s.renders)},
		{Label: "bash -n", Value: fmt.Sprintf("%d distinct rendered scripts", s.shellScripts)},
	}
	if f.ran {
		figs = append(figs, checks.Figure{Label: "Jinja2 cross-check", Value: fmt.Sprintf("%d renders compared, %d differ (%s)", f.compared, f.differ, f.version)})
	} else {
		figs = append(figs, checks.Figure{Label: "Jinja2 cross-check", Value: "not run"})
	}
	return figs
}

func summary(s stats, fails int, f fidelityResult) string {
	msg := fmt.Sprintf("The check renders %s at base and head for %s. ", plural(s.templates, "template"), plural(s.sets, "variable set"))
	if fails > 0 {
		msg += fmt.Sprintf("It finds %s. ", plural(fails, "problem"))
	} else {
		msg += "Every render at head works, and bash accepts every rendered script. "
	}
	if f.ran {
		msg += fmt.Sprintf("Python Jinja2 gives different bytes for %d of %d renders.", f.differ, f.compared)
	} else {
		msg += "The Jinja2 cross-check did not run: " + f.reason
	}
	return msg
}
