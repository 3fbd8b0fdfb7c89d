package restore

import (
	"context"
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
func locate(ctx context.Context, in *checks.Input) *checks.Input {
	if in.Config == nil || in.Config.Restore == nil || in.Config.Restore.Explicit {
		return in
	}
	out := *in
	if rc, ok := locateAt(ctx, in, in.Config, in.Plan.Head); ok {
		cfg := *in.Config
		cfg.Restore = rc
		out.Config = &cfg
	}
	if in.BaseConfig != nil && in.BaseConfig.Restore != nil && !in.BaseConfig.Restore.Explicit {
		if rc, ok := locateAt(ctx, in, in.BaseConfig, baseRev(in)); ok {
			cfg := *in.BaseConfig
			cfg.Restore = rc
			out.BaseConfig = &cfg
		}
	}
	return &out
}

// locateAt finds the step at one revision. It keeps the configured
// block when its template renders with its section; else it returns a
// copy whose template and section name the step found.
func locateAt(ctx context.Context, in *checks.Input, cfg *config.Config, rev string) (*config.Restore, bool) {
	rc := cfg.Restore
	if _, st := renderStep(ctx, in.Plan.Trees, cfg, rc, rev, "", ""); st == nil {
		return nil, false
	}
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
			if !shellTemplate(p, src) || !strings.Contains(src, "grep") || !strings.Contains(src, "git") {
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
			return &found, true
		}
	}
	return nil, false
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

// sectionAround finds the restore step in a rendered script: the grep
// that filters git's changed paths, and the header comment above it. The
// section runs from that header to the next header of the same kind.
func sectionAround(script string) (*config.Section, bool) {
	read, err := ReadStepPolicy(script)
	if err != nil {
		return nil, false
	}
	lines := strings.Split(script, "\n")
	for i := min(read.Line, len(lines)) - 1; i >= 0; i-- {
		l := strings.TrimRight(lines[i], " \t")
		if !headerLine.MatchString(l) {
			continue
		}
		marker := headerMarker.FindString(l)
		return &config.Section{Start: "^" + regexp.QuoteMeta(l) + "$", End: "^" + regexp.QuoteMeta(marker)}, true
	}
	return nil, false
}
