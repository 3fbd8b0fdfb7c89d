package restore

import (
	"context"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/rendertemplate"
)

// Without a config file that names the restore step, the defaults name
// datasmith's: harbor:tests/test.sh, the section under "# ── Restore".
// Where that template or section is not in the repository, the check
// looks for the step itself: a shell template of any group whose render
// holds a grep that filters git's list of changed paths (the policy
// ReadStepPolicy reads). The step is the section around that grep,
// between the script's own header comments.

// headerLine is a comment that starts a part of a script: "# ── Name",
// "# --- name", "# === name", "## name".
var headerLine = regexp.MustCompile(`^#+\s*(─|━|-|=|\*|~|#){2,}\s*\S|^##\s+\S`)

// headerMarker is the part of a header line before its name.
var headerMarker = regexp.MustCompile(`^#+\s*(?:─|━|-|=|\*|~|#)*\s*`)

// locate returns the input with the restore block that the repository
// has: the configured one when it is there, else the step found in the
// group templates (at head, and at the base for the base's block). It
// changes nothing when a config file names the block, or when no step is
// found (the check then says that the default step is not there).
//
// It also returns the templates it searched at head (repository paths),
// for the message that no step was found.
func locate(ctx context.Context, in *checks.Input) (*checks.Input, []string) {
	if in.Config == nil || in.Config.Restore == nil || in.Config.Restore.Explicit {
		return in, nil
	}
	out := *in
	rc, searched, ok := locateAt(ctx, in, in.Config, in.Plan.Head)
	if ok {
		cfg := *in.Config
		cfg.Restore = rc
		out.Config = &cfg
	}
	if in.BaseConfig != nil && in.BaseConfig.Restore != nil && !in.BaseConfig.Restore.Explicit {
		if rc, _, ok := locateAt(ctx, in, in.BaseConfig, baseRev(in)); ok {
			cfg := *in.BaseConfig
			cfg.Restore = rc
			out.BaseConfig = &cfg
		}
	}
	return &out, searched
}

// locateAt finds the step at one revision. It keeps the configured
// block when its template renders with its section; else it returns a
// copy whose template and section name the step found. It also returns
// the shell templates it searched, as repository paths.
func locateAt(ctx context.Context, in *checks.Input, cfg *config.Config, rev string) (*config.Restore, []string, bool) {
	rc := cfg.Restore
	// The configured section is the step when it does what a step does;
	// a section that only runs a step of its own file is not.
	if s, st := renderStep(ctx, in.Plan.Trees, cfg, rc, rev, "", ""); st == nil {
		if s.Command == "" && !sectionRestores(s.Section) {
			if found, ok := locateOwnFile(ctx, in, cfg, rev, s.Section); ok {
				return found, nil, true
			}
		}
		return nil, nil, false
	}
	var searched []string
	for _, g := range cfg.Groups {
		files, err := in.Plan.Trees.Get(ctx, rev, g.Root)
		if err != nil {
			continue
		}
		var names []string
		for p := range files {
			names = append(names, p)
		}
		slices.Sort(names)
		for _, p := range names {
			src := string(files[p])
			if !shellTemplate(p, src) {
				continue
			}
			searched = append(searched, p)
			if !strings.Contains(src, "git") {
				continue
			}
			rel := strings.TrimPrefix(p, strings.TrimSuffix(g.Root, "/")+"/")
			ref := g.Name + ":" + rel
			r, err := rendertemplate.Render(ctx, in.Plan.Trees, cfg, ref, rev, rendertemplate.Options{Vars: map[string]any{config.BaseCommitVar: strings.Repeat("0", 40)}})
			if err != nil {
				continue
			}
			sec, ok := sectionAround(r.Text)
			if !ok {
				continue
			}
			found := *rc
			found.Template, found.Section = ref, sec
			found.Report = reportIfNamed(rc.Report, r.Text)
			return &found, searched, true
		}
	}
	return nil, searched, false
}

// Where the restore section of the script does not restore by itself,
// the step may be a template of its own, in any language, that the
// section runs or sources: it lists changed paths through git and puts
// paths back, and a line of the section names its file. Only the section
// is searched for the calling line: a script's other helpers (a pytest
// runner that diffs and checks out) are no restore step.
var (
	listsChangedAny = regexp.MustCompile(`\bgit\b[^\n]{0,80}?\b(diff|status|ls-files|log)\b`)
	putsBackAny     = regexp.MustCompile(`\bgit\b[^\n]{0,80}?\b(checkout|restore|show|cat-file)\b|\bshutil\.copy|(^|[\s;&|(])cp\s`)
)

// ownFileStep reports whether a rendered template does what a restore
// step does, in any language.
func ownFileStep(text string) bool {
	var lists, puts bool
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") {
			continue
		}
		lists = lists || listsChangedAny.MatchString(t)
		puts = puts || putsBackAny.MatchString(t)
	}
	return lists && puts
}

// locateOwnFile finds a step in a template of its own: a template of a
// group whose render does what a restore step does, run by a line of
// section that names its file. The restore block then runs that line,
// with the file's path as {script}.
func locateOwnFile(ctx context.Context, in *checks.Input, cfg *config.Config, rev, section string) (*config.Restore, bool) {
	for _, g := range cfg.Groups {
		files, err := in.Plan.Trees.Get(ctx, rev, g.Root)
		if err != nil {
			continue
		}
		for _, p := range slices.Sorted(maps.Keys(files)) {
			if !strings.Contains(string(files[p]), "git") {
				continue
			}
			name := path.Base(p)
			for _, ext := range []string{".j2", ".jinja", ".jinja2"} {
				name = strings.TrimSuffix(name, ext)
			}
			cmd, ok := callingLine(section, name)
			if !ok {
				continue
			}
			ref := g.Name + ":" + strings.TrimPrefix(p, strings.TrimSuffix(g.Root, "/")+"/")
			r, err := rendertemplate.Render(ctx, in.Plan.Trees, cfg, ref, rev, rendertemplate.Options{Vars: map[string]any{config.BaseCommitVar: strings.Repeat("0", 40)}})
			if err != nil || !ownFileStep(r.Text) {
				continue
			}
			found := *cfg.Restore
			found.Template, found.Section, found.Command = ref, nil, cmd
			found.Report = reportIfNamed(found.Report, r.Text+"\n"+section)
			return &found, true
		}
	}
	return nil, false
}

// callingLine is the first command line of a shell script that names a
// file called name, with that word replaced by {script}.
func callingLine(script, name string) (string, bool) {
	for _, l := range strings.Split(script, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		fields := strings.Fields(t)
		for i, f := range fields {
			w := strings.Trim(f, `"'`)
			if w == name || strings.HasSuffix(w, "/"+name) {
				fields[i] = "{script}"
				return strings.Join(fields, " "), true
			}
		}
	}
	return "", false
}

// shellTemplate reports whether a template renders a shell script: its
// name (before a .j2, .jinja or .jinja2 ending) ends in .sh or .bash, or
// it starts with a bash or sh shebang.
func shellTemplate(name, src string) bool {
	for _, ext := range []string{".j2", ".jinja", ".jinja2"} {
		name = strings.TrimSuffix(name, ext)
	}
	switch path.Ext(name) {
	case ".sh", ".bash":
		return true
	}
	first, _, _ := strings.Cut(src, "\n")
	return strings.HasPrefix(first, "#!") && (strings.HasSuffix(first, "bash") || strings.HasSuffix(first, "/sh"))
}

// Where a script has no grep list that ReadStepPolicy reads, the step is
// found by what it does: a line that lists changed paths through git
// (diff, status, ls-files, log), in a script that also puts paths back
// (checkout, restore, show, cat-file, or a cp from a kept tree).
var (
	listsChanged = regexp.MustCompile(`\bgit\b[^\n|;&]*\s(diff|status|ls-files|log)\b`)
	putsBack     = regexp.MustCompile(`\bgit\b[^\n|;&]*\s(checkout|restore|show|cat-file)\b|(^|[\s;&|(])cp\s`)
)

// restoreLine is the line (1-based) of the first command that lists
// changed paths through git, in the first part of the script (between
// header comments) that also puts paths back; 0 when no part does both.
func restoreLine(script string) int {
	lines := strings.Split(script, "\n")
	start := 0
	for i := 0; i <= len(lines); i++ {
		if i < len(lines) && (i == start || !headerLine.MatchString(strings.TrimRight(lines[i], " \t"))) {
			continue
		}
		part := strings.Join(lines[start:i], "\n")
		if putsBack.MatchString(part) {
			for j := start; j < i; j++ {
				if !strings.HasPrefix(strings.TrimSpace(lines[j]), "#") && listsChanged.MatchString(lines[j]) {
					return j + 1
				}
			}
		}
		start = i
	}
	return 0
}

// sectionAround finds the restore step in a rendered script: the grep
// that filters git's changed paths (else the first line that lists them,
// see restoreLine), and the header comment above it. The
// section runs from that header to the next header of the same kind.
func sectionAround(script string) (*config.Section, bool) {
	at := 0
	if read, err := ReadStepPolicy(script); err == nil {
		at = read.Line
	} else if at = restoreLine(script); at == 0 {
		return nil, false
	}
	lines := strings.Split(script, "\n")
	for i := min(at, len(lines)) - 1; i >= 0; i-- {
		l := strings.TrimRight(lines[i], " \t")
		if !headerLine.MatchString(l) {
			continue
		}
		marker := headerMarker.FindString(l)
		return &config.Section{Start: "^" + regexp.QuoteMeta(l) + "$", End: "^" + regexp.QuoteMeta(marker)}, true
	}
	return nil, false
}

// searchedNote says which templates were searched for a restore step and
// how a config file names one.
func searchedNote(searched []string) string {
	where := "The check found no shell template in the config's groups to search for a restore step."
	if len(searched) > 0 {
		where = fmt.Sprintf("The check searched %s for a restore step (a part of a script that lists changed paths through git and puts paths back) and found none.", listPaths(searched))
	}
	return where + " Name the step in " + config.Path + ": restore.template (\"group:path\") with restore.section (start and end, regular expressions of its first line and of the line after it), or restore.command for a step in a file of its own or in another language."
}

// reportIfNamed is the default report file of a found step when its
// script names that file, else none: a step of its own writes no
// datasmith report unless it says so.
func reportIfNamed(report, text string) string {
	if report == "" || !strings.Contains(text, path.Base(report)) {
		return ""
	}
	return report
}

// sectionRestores reports whether a section does what a restore step
// does: a grep list of paths the step reader reads, or a part that lists
// changed paths through git and puts paths back.
func sectionRestores(section string) bool {
	if _, err := ReadStepPolicy(section); err == nil {
		return true
	}
	return restoreLine(section) > 0 || ownFileStep(section)
}
