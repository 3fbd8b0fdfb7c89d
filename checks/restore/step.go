package restore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/jinja"
	"github.com/formula-code/template-verify/internal/rendertemplate"
	"github.com/formula-code/template-verify/plan"
)

// Step is the restore step as the scenarios run it.
type Step struct {
	// Template is the repository path of the template the step comes from,
	// and Line the line of the section start in the template (0: unknown).
	Template string
	Line     int
	// Script is what runs, with the original paths: in section mode the
	// ERR trap (under set -e), the prelude and the section; in command
	// mode the whole rendered template.
	Script string
	// Section is the section alone, and SectionAt the line of Script where
	// it starts (section mode only).
	Section   string
	SectionAt int
	// Command, when set, runs with bash -c instead of Script; "{script}" in
	// it names the rendered template written into the scenario folder.
	Command string
	// ScriptName is the file name of the rendered template in command mode.
	ScriptName string
	Paths      config.RestorePaths
	Report     string // as the script names it; empty: the step writes none
	// SectionLine is the line of the section start in the rendered
	// script, and Rendered that script (section mode only).
	SectionLine int
	Rendered    string
	// Source is the template's own text (section mode only).
	Source string
	// Prelude is what the script sets before the section and the section
	// reads; PreludeErr says why there is none when the script does not
	// parse.
	Prelude    Prelude
	PreludeErr string
	// RefusalExit is restore.refusal_exit; FallsBack is true when the step
	// restores against the rendered base_commit without the baseline file.
	RefusalExit string
	FallsBack   bool
	// PathsRead lists the paths read from the step that replace the
	// defaults ("report /logs/x.json"), for a note.
	PathsRead []string
	// Engine made the rendered script: Python Jinja2, as production, or
	// gonja where Python Jinja2 is missing (for the report's notes).
	Engine jinja.Engine
}

// stop is a result that ends the check before any scenario runs.
type stop struct {
	conclusion checks.Conclusion
	title      string
	finding    *checks.Finding
	// noSection: the rendered script (the template at path) has no line
	// that matches the section start; noFile: the side has no such template.
	noSection, noFile bool
	// undefined: the template does not render because the variable set
	// lacks a name.
	undefined bool
	path      string
}

// prepareStep renders the restore template at head and cuts the step out
// of it. baseSHA is the fixture's base commit: the template's base_commit
// renders as it, so a step that falls back to it restores against a
// commit the fixture has.
func prepareStep(ctx context.Context, in *checks.Input, rc *config.Restore, baseSHA string) (*Step, *stop) {
	s, st := renderStep(ctx, in.Plan.Trees, in.Config, rc, in.Plan.Head, "head", baseSHA)
	if st != nil && st.noSection {
		st = missingSection(ctx, in, rc, st)
	}
	if st != nil && st.undefined {
		st = undefinedAtBoth(ctx, in, rc, st)
	}
	return s, st
}

// undefinedAtBoth judges a head step that does not render because the
// variable set lacks a name. When the base's step does not render for the
// same want, the tool has no variables that production passes: the check
// is not run, never a failure of the PR (the render check says the same
// of the template). When the base renders, the head brings the name: the
// head's failure stands.
func undefinedAtBoth(ctx context.Context, in *checks.Input, rc *config.Restore, head *stop) *stop {
	cfg, brc := in.Config, rc
	if in.BaseConfig != nil && in.BaseConfig.Restore != nil {
		cfg, brc = in.BaseConfig, in.BaseConfig.Restore
	}
	_, bst := renderStep(ctx, in.Plan.Trees, cfg, brc, baseRev(in), "base", "")
	if bst == nil || !bst.undefined {
		return head
	}
	f := *head.finding
	f.Level = checks.LevelWarning
	f.Message += ". The base's step does not render either: the variable set lacks names that production passes, so the restore check cannot run. Add a test that renders the template (the tool records its variables), or restore.vars in .github/template-verify.yml."
	return &stop{conclusion: checks.NotRun, title: "The restore template does not render with the variables the tool has, at base or head", finding: &f}
}

// missingSection judges a head script without the restore section against
// the base (rendered with the base's restore block, as compareWithBase
// does). A section the base has and the head lost fails: the change
// removes the step. A section neither side has is not this change's fault:
// under defaults the check has nothing to run and is skipped; under a
// config that names the section it is a warning "fails before this
// change", a failure with pre_existing: fail. Any other trouble at the
// base leaves the head's result as it is.
func missingSection(ctx context.Context, in *checks.Input, rc *config.Restore, head *stop) *stop {
	cfg, brc := in.Config, rc
	if in.BaseConfig != nil && in.BaseConfig.Restore != nil {
		cfg, brc = in.BaseConfig, in.BaseConfig.Restore
	}
	repoPath := head.path
	_, bst := renderStep(ctx, in.Plan.Trees, cfg, brc, baseRev(in), "base", "")
	switch {
	case bst == nil:
		return &stop{conclusion: checks.Failure, title: "The restore step is not in the script",
			finding: &checks.Finding{Path: repoPath, Level: checks.LevelFailure,
				Message: fmt.Sprintf("The rendered %s has no line that matches the section start %s. The base's script has it, so this change removes the restore step.", repoPath, rc.Section.Start)}}
	case !bst.noSection && !bst.noFile:
		return head
	case !rc.Explicit:
		return &stop{conclusion: checks.Skipped,
			title: "The restore check is skipped: the script has no restore section at base or head, so there is nothing to run.",
			finding: &checks.Finding{Path: repoPath, Level: checks.LevelWarning, Title: "No restore section",
				Message: fmt.Sprintf("The rendered %s has no line that matches %s at base or head, so the default restore check has nothing to run.", repoPath, rc.Section.Start)}}
	}
	f := *head.finding // a config names the section: the head's failure finding
	f.Level, f.Title = checks.LevelWarning, "The restore section is missing; it fails before this change"
	f.Message += " The base's script has no such line either, so it fails before this change."
	if config.PreExistingFails(in.BaseConfig, in.Config) {
		f.Level = checks.LevelFailure
		return &stop{conclusion: checks.Failure, title: "The restore step is not in the script; it fails before this change", finding: &f}
	}
	return &stop{conclusion: checks.Skipped, title: "The restore check is skipped: the restore step is not in the script, and it fails before this change.", finding: &f}
}

// renderStep renders the restore template at commit rev ("head" or "base"
// in messages) as production does (rendertemplate.Render: the first
// variable set, the restore block's vars and base_commit on top), and cuts
// the step out of it.
func renderStep(ctx context.Context, trees *plan.Trees, cfg *config.Config, rc *config.Restore, rev, side, baseSHA string) (*Step, *stop) {
	if baseSHA == "" {
		baseSHA = strings.Repeat("0", 40) // a render before the fixture's sha is known
	}
	vars := maps.Clone(rc.Vars)
	if vars == nil {
		vars = map[string]any{}
	}
	vars[config.BaseCommitVar] = baseSHA
	r, err := rendertemplate.Render(ctx, trees, cfg, rc.Template, rev, rendertemplate.Options{Vars: vars})
	// A template that names the task's base commit otherwise gets the
	// fixture's sha under that name too.
	if more := baseSHAVars(string(r.Source)); err == nil && len(more) > 0 {
		for _, name := range more {
			if _, given := rc.Vars[name]; !given {
				vars[name] = baseSHA
			}
		}
		r, err = rendertemplate.Render(ctx, trees, cfg, rc.Template, rev, rendertemplate.Options{Vars: vars})
	}
	if err != nil {
		repoPath := r.Path
		switch {
		case errors.Is(err, rendertemplate.ErrName) && !rc.Explicit:
			// The default names datasmith's group, and locate found no step
			// in the repository's own groups.
			return nil, &stop{conclusion: checks.Skipped, noFile: true,
				title: "The restore check is skipped: no shell template of the config's groups has a restore step.",
				finding: &checks.Finding{Level: checks.LevelWarning, Title: "No restore step found",
					Message: fmt.Sprintf("No config file names the restore step, the groups have no template %s, and no shell template of theirs holds a grep that filters git's changed paths. Name the step in restore.template and restore.section, or set restore: null.", rc.Template)}}
		case errors.Is(err, rendertemplate.ErrName):
			return nil, &stop{conclusion: checks.Failure, title: "The restore template is not valid",
				finding: &checks.Finding{Path: configFile(cfg), Level: checks.LevelFailure, Message: err.Error()}}
		case errors.Is(err, rendertemplate.ErrTree):
			var te *rendertemplate.Error
			cause := err
			if errors.As(err, &te) && errors.Unwrap(te.Err) != nil {
				cause = errors.Unwrap(te.Err)
			}
			return nil, &stop{conclusion: checks.Failure, title: "The restore template cannot be read",
				finding: &checks.Finding{Path: repoPath, Level: checks.LevelFailure, Message: fmt.Sprintf("read %s at %s: %v", r.Group.Root, side, cause)}}
		case errors.Is(err, rendertemplate.ErrMissing):
			msg := fmt.Sprintf("The %s has no file %s.", side, repoPath)
			if !rc.Explicit {
				return nil, &stop{conclusion: checks.NotRun, title: msg + " The default restore check does not apply.", noFile: true}
			}
			return nil, &stop{conclusion: checks.Failure, title: "The restore template is missing", noFile: true,
				finding: &checks.Finding{Path: configFile(cfg), Level: checks.LevelFailure, Message: msg + " The config names it as restore.template."}}
		}
		f := &checks.Finding{Path: repoPath, Level: checks.LevelFailure, Message: err.Error()}
		var je *jinja.Error
		if errors.As(err, &je) {
			f.Path, f.Line = je.File, je.Line
			f.Message = fmt.Sprintf("%s does not render: %s", where(je.File, je.Line), je.Msg)
		}
		return nil, &stop{conclusion: checks.Failure, title: "The restore template does not render", finding: f, undefined: undefinedName.MatchString(err.Error())}
	}
	s, st := cutStep(r.Text, rc, r.Path)
	if st != nil {
		return nil, st
	}
	if r.Engine != nil {
		s.Engine = *r.Engine
	}
	if rc.Command == "" {
		s.Line = lineMatching(string(r.Source), rc.Section.Start)
		s.Source = string(r.Source)
	} else {
		s.Line = commandStepLine(string(r.Source))
	}
	return s, nil
}

// undefinedName matches the render error of a name no variable set has.
var undefinedName = regexp.MustCompile(`'[^']+' is undefined|has no attribute '[^']+'`)

// jinjaName finds the variables a template prints: {{ name ... }}.
var jinjaName = regexp.MustCompile(`\{\{-?\s*([A-Za-z_][A-Za-z0-9_]*)`)

var (
	baseSHAName = regexp.MustCompile(`(?i)(base|start|parent|orig).*(commit|sha|rev)|(commit|sha|rev).*(base|start)`)
	anySHAName  = regexp.MustCompile(`(?i)commit|sha|(^|_)rev`)
)

// baseSHAVars are the template's variables other than base_commit that
// hold the task's base commit, by name: those that say base (or start)
// and commit (or sha, or rev), else the one variable that says commit,
// sha or rev.
func baseSHAVars(source string) []string {
	var named, any []string
	for _, m := range jinjaName.FindAllStringSubmatch(source, -1) {
		name := m[1]
		if name == config.BaseCommitVar || slices.Contains(named, name) || slices.Contains(any, name) {
			continue
		}
		switch {
		case baseSHAName.MatchString(name):
			named = append(named, name)
		case anySHAName.MatchString(name):
			any = append(any, name)
		}
	}
	if len(named) > 0 {
		return named
	}
	if len(any) == 1 && !strings.Contains(source, "{{ "+config.BaseCommitVar) && !strings.Contains(source, "{{"+config.BaseCommitVar) {
		return any
	}
	return nil
}

// cutStep makes the step of one rendered script: the section and its
// prelude, or the whole script in command mode.
func cutStep(rendered string, rc *config.Restore, repoPath string) (*Step, *stop) {
	s := &Step{Template: repoPath, Paths: rc.Paths, Report: rc.Report, RefusalExit: rc.RefusalExitRule(), FallsBack: rc.FallsBackToBaseCommit()}
	if rc.Command != "" {
		s.Script, s.Command, s.ScriptName = rendered, rc.Command, path.Base(repoPath)
		return s, nil
	}
	sec, err := CutSection(rendered, rc.Section.Start, rc.Section.End)
	if err != nil {
		var ns *errNoStart
		noStart := errors.As(err, &ns)
		if noStart && !rc.Explicit {
			return nil, &stop{conclusion: checks.NotRun, noSection: true, path: repoPath,
				title: fmt.Sprintf("The restore check does not run: %s renders to a script with no line that matches %s.", repoPath, rc.Section.Start)}
		}
		return nil, &stop{conclusion: checks.Failure, title: "The restore step is not in the script", noSection: noStart, path: repoPath,
			finding: &checks.Finding{Path: repoPath, Level: checks.LevelFailure,
				Message: fmt.Sprintf("The rendered %s has no line that matches the section start %s. The config names this pattern as restore.section.start.", repoPath, rc.Section.Start)}}
	}
	s.Section, s.SectionLine = sec.Text, sec.Line
	s.Rendered = rendered
	p, err := ExtractPrelude(rendered, sec.Line, sec.Text)
	if err != nil {
		s.PreludeErr = err.Error()
	} else {
		s.Prelude = p
	}
	var head string
	if slices.Contains(s.Prelude.Options, "errexit") {
		head = errTrap
	}
	head += s.Prelude.Text
	s.Script, s.SectionAt = head+sec.Text, strings.Count(head, "\n")+1
	s.PathsRead = applyStepPaths(s, rc, ReadStepPaths(s.Script))
	return s, nil
}

// RenderedLine maps a line of the run file to the line of the rendered
// script; 0 when the line is in the prelude or unknown.
func (s *Step) RenderedLine(fileLine int) int {
	if fileLine < s.SectionAt || s.SectionLine == 0 {
		return 0
	}
	return s.SectionLine + fileLine - s.SectionAt
}

// TemplateLine is the line of the template that rendered line n of the
// script: the first template line at or after the section start with the
// same text, else the section start (0 when unknown).
func (s *Step) TemplateLine(n int) int {
	want := strings.TrimSpace(strings.Trim(s.lineText(n), "`"))
	if want == "" || s.Source == "" {
		return s.Line
	}
	for i, l := range strings.Split(s.Source, "\n") {
		if i+1 >= s.Line && strings.TrimSpace(l) == want {
			return i + 1
		}
	}
	return s.Line
}

// configFile is the repository path of the config file, or "" for the
// defaults.
func configFile(c *config.Config) string {
	if c.Source == "" || strings.HasPrefix(c.Source, "(") {
		return ""
	}
	return config.Path
}

func where(file string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

// Layout is where one scenario keeps its files; the step's absolute paths
// are mapped onto it.
type Layout struct {
	Root     string // the scenario folder; the only folder the step may write
	Repo     string
	Baseline string // the baseline sha file
	Logs     string
	Report   string // the report file; empty when the step writes none
	Home     string
}

// NewLayout places the folders of a scenario under root.
func NewLayout(root string, p config.RestorePaths, report string) Layout {
	l := Layout{
		Root:     root,
		Repo:     path.Join(root, "repo"),
		Baseline: path.Join(root, "baseline", baseName(p.BaselineSHA, "fc_baseline_sha")),
		Logs:     path.Join(root, "logs"),
		Home:     path.Join(root, "home"),
	}
	if report != "" {
		logs := strings.TrimSuffix(p.Logs, "/")
		if rest, ok := strings.CutPrefix(report, logs+"/"); ok && logs != "" {
			l.Report = path.Join(l.Logs, rest)
		} else {
			l.Report = path.Join(l.Logs, path.Base(report))
		}
	}
	return l
}

func baseName(p, fallback string) string {
	if b := path.Base(strings.TrimSuffix(p, "/")); p != "" && b != "/" && b != "." {
		return b
	}
	return fallback
}

// MapPaths replaces the step's absolute paths by the scenario's. Longer
// paths are replaced first, so a report under the log folder maps whole.
func (s *Step) MapPaths(text string, l Layout) string {
	type pair struct{ from, to string }
	var pairs []pair
	add := func(from, to string) {
		from = strings.TrimSuffix(from, "/")
		if from != "" && to != "" {
			pairs = append(pairs, pair{from, to})
		}
	}
	add(s.Paths.Repo, l.Repo)
	add(s.Paths.BaselineSHA, l.Baseline)
	add(s.Paths.Logs, l.Logs)
	add(s.Report, l.Report)
	slices.SortStableFunc(pairs, func(a, b pair) int { return len(b.from) - len(a.from) })
	var args []string
	for _, p := range pairs {
		args = append(args, p.from, p.to)
	}
	return strings.NewReplacer(args...).Replace(text)
}

// commandStepLine is the line of a step in a template of its own that
// findings name: the first that lists changed paths through git, else 1.
func commandStepLine(source string) int {
	for i, l := range strings.Split(source, "\n") {
		if t := strings.TrimSpace(l); !strings.HasPrefix(t, "#") && listsChangedAny.MatchString(t) {
			return i + 1
		}
	}
	return 1
}
