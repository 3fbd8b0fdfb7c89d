package synccheck

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/jinja"
	"github.com/formula-code/template-verify/plan"
)

// Name is the check's name.
const Name = "sync"

// Check is the sync check.
type Check struct {
	mu sync.Mutex
	// found holds the discovered groups of each plan seen.
	found map[*plan.Plan]*discovery
}

// New returns the sync check.
func New() *Check { return &Check{} }

// Name implements checks.Check.
func (*Check) Name() string { return Name }

// copyState is one copy at one commit.
type copyState struct {
	path     string // repository path
	rendered bool   // the items come from the rendered template
	items    []Item
	// missing says that the file, array, name or marker is not there;
	// broken that the copy is there but cannot be read (a render error,
	// a value that is not a literal). Either way it is not compared.
	missing, broken string
}

func (s copyState) usable() bool { return s.missing == "" && s.broken == "" }

func (s copyState) problem() string {
	if s.missing != "" {
		return s.missing
	}
	return s.broken
}

// lack is an item a copy does not have that another copy has.
type lack struct {
	value string
	from  int // the index of the copy that has it
	line  int // its line there
}

// side is a group at one commit.
type side struct {
	states []copyState
	lacks  [][]lack // per copy; nil when a copy is not usable
}

func (s side) usable() bool {
	for _, st := range s.states {
		if !st.usable() {
			return false
		}
	}
	return true
}

// indexOf is the index of the copy at repository path p.
func indexOf(s side, p string) int {
	for i, st := range s.states {
		if st.path == p {
			return i
		}
	}
	return 0
}

// onlyMissing reports whether every copy that is not usable is missing
// (not there), rather than there and unreadable.
func onlyMissing(s side) bool {
	for _, st := range s.states {
		if st.broken != "" {
			return false
		}
	}
	return true
}

func (s side) differ() bool {
	for _, l := range s.lacks {
		if len(l) > 0 {
			return true
		}
	}
	return false
}

// Run implements checks.Check.
func (c *Check) Run(ctx context.Context, in *checks.Input) checks.Result {
	res := checks.Result{Check: Name}
	// The groups are read at the base when it has a configuration: a pull
	// request cannot excuse its own difference (only_here, drop) or drop
	// a group.
	cfg := in.Config
	if in.BaseConfig != nil && in.BaseConfig.Sync != nil {
		cfg = in.BaseConfig
	}
	discovering := cfg.Sync != nil && cfg.Sync.Discovers()
	if cfg.Sync == nil || len(cfg.Sync.Groups) == 0 && !discovering {
		res.Conclusion, res.Title = checks.Skipped, "No sync groups are configured"
		res.Summary = res.Title + "."
		return res
	}
	if cfg != in.Config && !reflect.DeepEqual(cfg.Sync, in.Config.Sync) {
		res.Notes = append(res.Notes, "This change edits the sync block; the base's block is used, and the new one applies after the merge.")
	}
	baseCfg := in.Config
	if in.BaseConfig != nil {
		baseCfg = in.BaseConfig
	}
	r := jinja.NewRenderer(jinja.LimitsOf(in.Config.Limits.Effective()))
	defer r.Close()
	strict := config.PreExistingFails(in.BaseConfig, in.Config)
	touched := touchedPaths(in)

	table := checks.Table{Title: "Copies that must stay equal", Header: []string{"Group", "Copies", "Base", "Head"}}
	compared, notCompared := 0, 0
	var skippedNames, notApplicable []string
	for _, g := range cfg.Sync.Groups {
		if !triggered(cfg, g, touched) {
			skippedNames = append(skippedNames, g.Name)
			continue
		}
		base := c.side(ctx, in, r, baseCfg, cfg, g, in.Plan.MergeBase)
		head := c.side(ctx, in, r, in.Config, cfg, g, in.Plan.Head)
		if err := ctx.Err(); err != nil {
			res.Conclusion, res.Title = checks.Cancelled, "The sync check was stopped"
			return res
		}
		fs, ok := judge(g, base, head, strict)
		switch {
		case ok:
			compared++
		case !cfg.Sync.Explicit && onlyMissing(base) && onlyMissing(head):
			// datasmith's default names the grader's file, which this
			// repository does not have: the default does not apply here,
			// whatever pre_existing says.
			notApplicable = append(notApplicable, g.Name)
			for i := range fs {
				fs[i].Level, fs[i].Advisory = checks.LevelWarning, true
				fs[i].Message = fmt.Sprintf("Sync group %s is a default. At the base and at the head, %s. So the default group does not apply to this repository.", g.Name, strings.TrimSuffix(head.states[indexOf(head, fs[i].Path)].problem(), "."))
			}
		default:
			notCompared++
			res.Notes = append(res.Notes, fmt.Sprintf("Sync group %s was not compared: a copy is missing or unreadable at the base and at the head.", g.Name))
		}
		res.Findings = append(res.Findings, fs...)
		table.Rows = append(table.Rows, []string{g.Name, copyList(head), verdict(base), verdict(head)})
	}
	total := len(cfg.Sync.Groups)
	if discovering {
		dr, err := c.runDiscovered(ctx, in.Plan, []*config.Config{in.Config, in.BaseConfig}, cfg.Sync, namedPairs(cfg))
		if err != nil {
			if ctx.Err() != nil {
				res.Conclusion, res.Title = checks.Cancelled, "The sync check was stopped"
				return res
			}
			notCompared++
			res.Notes = append(res.Notes, fmt.Sprintf("Discovery of copies did not run: %v.", err))
		}
		res.Findings = append(res.Findings, dr.findings...)
		res.Notes = append(res.Notes, dr.notes...)
		table.Rows = append(table.Rows, dr.rows...)
		compared += dr.compared
		total += dr.compared
	}
	if len(table.Rows) > 0 {
		res.Tables = append(res.Tables, table)
	}
	fails := res.Failures()
	switch {
	case fails > 0:
		res.Conclusion = checks.Failure
		res.Title = fmt.Sprintf("%s of copies that must stay equal", plural(fails, "problem"))
	case notCompared > 0:
		res.Conclusion = checks.NotRun
		res.Title = fmt.Sprintf("%s could not be compared: a copy is missing", plural(notCompared, "sync group"))
	case compared > 0:
		res.Conclusion = checks.Success
		res.Title = fmt.Sprintf("%s equal at the head", plural(compared, "sync group"))
	case len(notApplicable) > 0:
		res.Conclusion = checks.Skipped
		res.Title = "The default sync group does not apply: a copy is not in this repository"
		res.Notes = append(res.Notes, fmt.Sprintf("Not compared: %s. A copy that the default names is missing at the base and at the head. To compare it, name its path in the sync block of %s.", strings.Join(notApplicable, ", "), config.Path))
	default:
		res.Conclusion = checks.Skipped
		res.Title = "This change touches no copy of a sync group"
	}
	res.Summary = res.Title + "."
	if len(skippedNames) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("Not compared, because this change touches none of their copies: %s.", strings.Join(skippedNames, ", ")))
	}
	res.Figures = append(res.Figures, checks.Figure{Label: "Sync groups compared", Value: fmt.Sprintf("%d of %d", compared, total)})
	return res
}

// HasWork reports whether the change touches a copy of a sync group of
// the base's or the head's configuration when no template changed (a copy
// in a plain file, such as the grader's list), so that the verification
// runs this check.
func (c *Check) HasWork(p *plan.Plan, base, head *config.Config) bool {
	touched := touchedPlan(p)
	discovering := false
	for _, cfg := range []*config.Config{base, head} {
		if cfg == nil || cfg.Sync == nil {
			continue
		}
		for _, g := range cfg.Sync.Groups {
			if triggered(cfg, g, touched) {
				return true
			}
		}
		discovering = discovering || cfg.Sync.Discovers()
	}
	if !discovering {
		return false
	}
	// A changed plain file may hold a copy of a template's list. HasWork
	// has no context of its own; discovery is bounded (discover.go).
	d, err := c.discovery(context.Background(), p, []*config.Config{head, base})
	return err != nil || len(d.groups) > 0
}

// touchedPaths is every changed path and every planned template (a
// template is planned when a file it includes changed).
func touchedPaths(in *checks.Input) map[string]bool { return touchedPlan(in.Plan) }

func touchedPlan(p *plan.Plan) map[string]bool {
	t := map[string]bool{}
	for _, c := range p.ChangedPaths() {
		t[c] = true
	}
	for _, tm := range p.Templates {
		t[tm.Path], t[tm.OldPath] = true, true
	}
	return t
}

// triggered reports whether the change touches a copy of g.
func triggered(cfg *config.Config, g config.SyncGroup, touched map[string]bool) bool {
	for _, cp := range g.Copies {
		if p, _, _, err := resolve(cfg, cp); err == nil && touched[p] {
			return true
		}
	}
	return false
}
