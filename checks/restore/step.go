package restore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/jinja"
)

// Step is the restore step as the scenarios run it.
type Step struct {
	// Template is the repository path of the template the step comes from,
	// and Line the line of the section start in the template (0: unknown).
	Template string
	Line     int
	// Script is the section of the rendered script (section mode), or the
	// whole rendered template (command mode), with the original paths.
	Script string
	// Command, when set, runs with bash -c instead of Script; "{script}" in
	// it names the rendered template written into the scenario folder.
	Command string
	// ScriptName is the file name of the rendered template in command mode.
	ScriptName string
	Paths      config.RestorePaths
	Report     string // as the script names it; empty: the step writes none
}

// stop is a result that ends the check before any scenario runs.
type stop struct {
	conclusion checks.Conclusion
	title      string
	finding    *checks.Finding
}

// prepareStep renders the restore template at head and cuts the step out
// of it.
func prepareStep(ctx context.Context, in *checks.Input, rc *config.Restore) (*Step, *stop) {
	g, rel, err := in.Config.ResolveTemplate(rc.Template)
	if err != nil {
		return nil, &stop{conclusion: checks.Failure, title: "The restore template is not valid",
			finding: &checks.Finding{Path: configFile(in.Config), Level: checks.LevelFailure, Message: err.Error()}}
	}
	repoPath := path.Join(g.Root, rel)
	files, err := in.Plan.Trees.Get(ctx, in.Plan.Head, g.Root)
	if err != nil {
		return nil, &stop{conclusion: checks.Failure, title: "The restore template cannot be read",
			finding: &checks.Finding{Path: repoPath, Level: checks.LevelFailure, Message: fmt.Sprintf("read %s at head: %v", g.Root, err)}}
	}
	source, ok := files[repoPath]
	if !ok {
		msg := fmt.Sprintf("The head has no file %s.", repoPath)
		if !rc.Explicit {
			return nil, &stop{conclusion: checks.NotRun, title: msg + " The default restore check does not apply."}
		}
		return nil, &stop{conclusion: checks.Failure, title: "The restore template is missing",
			finding: &checks.Finding{Path: configFile(in.Config), Level: checks.LevelFailure, Message: msg + " The config names it as restore.template."}}
	}
	env, err := jinja.NewEnv(files, g.Root, g.Jinja)
	if err != nil {
		return nil, &stop{conclusion: checks.Failure, title: "The restore template does not render",
			finding: &checks.Finding{Path: repoPath, Level: checks.LevelFailure, Message: err.Error()}}
	}
	rendered, err := env.Render(rel, renderVars(g, rel, rc.Vars))
	if err != nil {
		f := &checks.Finding{Path: repoPath, Level: checks.LevelFailure, Message: err.Error()}
		var je *jinja.Error
		if errors.As(err, &je) {
			f.Path, f.Line = je.File, je.Line
			f.Message = fmt.Sprintf("%s does not render: %s", where(je.File, je.Line), je.Msg)
		}
		return nil, &stop{conclusion: checks.Failure, title: "The restore template does not render", finding: f}
	}
	s := &Step{Template: repoPath, Paths: rc.Paths, Report: rc.Report}
	if rc.Command != "" {
		s.Script, s.Command, s.ScriptName = rendered, rc.Command, path.Base(rel)
		return s, nil
	}
	sec, err := CutSection(rendered, rc.Section.Start, rc.Section.End)
	if err != nil {
		var ns *errNoStart
		if errors.As(err, &ns) && !rc.Explicit {
			return nil, &stop{conclusion: checks.NotRun, title: fmt.Sprintf("The restore check does not run: %s renders to a script with no line that matches %s.", repoPath, rc.Section.Start)}
		}
		return nil, &stop{conclusion: checks.Failure, title: "The restore step is not in the script",
			finding: &checks.Finding{Path: repoPath, Level: checks.LevelFailure,
				Message: fmt.Sprintf("The rendered %s has no line that matches the section start %s. The config names this pattern as restore.section.start.", repoPath, rc.Section.Start)}}
	}
	s.Script = sec.Text
	s.Line = lineMatching(string(source), rc.Section.Start)
	return s, nil
}

// configFile is the repository path of the config file, or "" for the
// defaults.
func configFile(c *config.Config) string {
	if c.Source == "" || strings.HasPrefix(c.Source, "(") {
		return ""
	}
	return config.Path
}

// renderVars is the first variable set of the first template entry that
// matches rel, with the restore block's vars on top.
func renderVars(g *config.Group, rel string, over map[string]any) map[string]any {
	t := config.Template{}
	if ts := g.TemplateFor(rel); len(ts) > 0 {
		t = ts[0]
	}
	vars := map[string]any{}
	if sets := g.VarSets(t); len(sets) > 0 {
		maps.Copy(vars, sets[0].Vars)
	}
	maps.Copy(vars, over)
	return vars
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
