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
	headRenders  int // renders at head
	headOK       int // renders at head that work
	unrendered   int // templates no variable set renders at either side
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
	switch {
	case fails > 0:
		msg += fmt.Sprintf("It finds %s. ", plural(fails, "problem"))
	case s.unrendered > 0:
		msg += fmt.Sprintf("No variable set renders %s at base or at head, so the check cannot judge %s: it is not run. ", plural(s.unrendered, "template"), map[bool]string{true: "it", false: "them"}[s.unrendered == 1])
	case s.headRenders > 0 && s.headOK == s.headRenders:
		msg += "Every render at head works, and bash accepts every rendered script. "
	case s.headRenders > 0:
		msg += fmt.Sprintf("%d of %d renders at head work; the others fail as they do at base. ", s.headOK, s.headRenders)
	default:
		msg += "No template is at head (the change deletes them). "
	}
	if f.jinja2 {
		msg += fmt.Sprintf("Python Jinja2 %s, production's engine, rendered them.", f.version)
	} else {
		msg += "gonja rendered them, not Python Jinja2: " + f.reason + "."
	}
	return msg
}
