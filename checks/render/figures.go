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

func (s stats) figures(f engineResult) []checks.Figure {
	figs := []checks.Figure{
		{Label: "Templates", Value: fmt.Sprintf("%d templates, %d variable sets, %d renders", s.templates, s.sets, s.renders)},
		{Label: "bash -n", Value: fmt.Sprintf("%d distinct rendered scripts", s.shellScripts)},
	}
	if f.jinja2 {
		figs = append(figs, checks.Figure{Label: "Engine", Value: fmt.Sprintf("Python Jinja2 %s rendered %d renders; gonja differs in %d", f.version, f.rendered, f.differ)})
	} else {
		figs = append(figs, checks.Figure{Label: "Engine", Value: "gonja (Python Jinja2 not run)"})
	}
	return figs
}

func summary(s stats, fails int, f engineResult) string {
	msg := fmt.Sprintf("The check renders %s at base and head for %s. ", plural(s.templates, "template"), plural(s.sets, "variable set"))
	if fails > 0 {
		msg += fmt.Sprintf("It finds %s. ", plural(fails, "problem"))
	} else {
		msg += "Every render at head works, and bash accepts every rendered script. "
	}
	if f.jinja2 {
		msg += fmt.Sprintf("Python Jinja2 %s, production's engine, rendered them.", f.version)
	} else {
		msg += "gonja rendered them, not Python Jinja2: " + f.reason + "."
	}
	return msg
}
