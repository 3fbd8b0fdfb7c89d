package archive

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/plan"
)

// Name is the check's name.
const Name = "archive"

// MaxShell is how many changed shell members get bash -n per archive.
const MaxShell = 20000

// maxBashFindings is how many bash -n findings are listed per archive.
const maxBashFindings = 20

// Check is the archive check.
type Check struct{}

// New returns the archive check.
func New() *Check { return &Check{} }

// Name implements checks.Check.
func (*Check) Name() string { return Name }

// Run implements checks.Check.
func (c *Check) Run(ctx context.Context, in *checks.Input) checks.Result {
	res := checks.Result{Check: Name}
	cfg := config.ArchiveOf(in.BaseConfig, in.Config)
	if cfg == nil {
		res.Conclusion, res.Title = checks.Skipped, "The config turns the archive check off"
		res.Summary = "The archive block of the config is null, so no archive is compared."
		return res
	}
	masks, err := compileMasks(cfg.Masks)
	if err != nil {
		return failed(res, "The archive masks do not compile", err)
	}
	var changed []changedArchive
	for _, fc := range in.Plan.Changed {
		if matchAny(cfg.Paths, fc.Path) || matchAny(cfg.Paths, fc.OldPath) {
			changed = append(changed, changedArchive{Path: fc.Path, OldPath: fc.OldPath, Status: fc.Status})
		}
	}
	if len(changed) == 0 {
		res.Conclusion, res.Title = checks.Skipped, "No archive changed"
		res.Summary = fmt.Sprintf("This change touches no archive that archive.paths names (%s), so there is nothing to compare.", strings.Join(quoteAll(cfg.Paths), ", "))
		return res
	}
	strict := config.PreExistingFails(in.BaseConfig, in.Config)
	var totChanged, totDistinct int
	notRun := false
	for i, a := range changed {
		work := filepath.Join(in.WorkDir, "archive", strconv.Itoa(i))
		out := c.one(ctx, in, a, masks, cfg, work, strict)
		res.Findings = append(res.Findings, out.findings...)
		res.Figures = append(res.Figures, out.figures...)
		res.Tables = append(res.Tables, out.tables...)
		res.Notes = append(res.Notes, out.notes...)
		notRun = notRun || out.notRun
		if out.diff != nil {
			totChanged += out.diff.Changed
			totDistinct += out.diff.Distinct()
		}
		res.Summary += out.summary + "\n\n"
	}
	res.Summary = strings.TrimSpace(res.Summary)
	fails := res.Failures()
	switch {
	case fails > 0:
		res.Conclusion = checks.Failure
		res.Title = fmt.Sprintf("%s in %s", plural(fails, "archive problem"), plural(len(changed), "changed archive"))
	case notRun:
		res.Conclusion = checks.NotRun
		res.Title = "An archive could not be read"
	default:
		res.Conclusion = checks.Success
		res.Title = fmt.Sprintf("%s changed, %s after masking", plural(totChanged, "member"), plural(totDistinct, "distinct diff"))
	}
	return res
}

type changedArchive struct {
	Path, OldPath string
	Status        byte
}

// outcome is what one archive gave.
type outcome struct {
	diff     *Diff
	summary  string
	findings []checks.Finding
	figures  []checks.Figure
	tables   []checks.Table
	notes    []string
	notRun   bool
}

func (c *Check) one(ctx context.Context, in *checks.Input, a changedArchive, masks []Mask, cfg *config.Archive, work string, strict bool) outcome {
	var o outcome
	p := in.Plan
	fail := func(msg string) outcome {
		o.findings = append(o.findings, checks.Finding{Path: a.Path, Level: checks.LevelFailure, Title: "The archive could not be compared", Message: msg})
		o.summary = code(a.Path) + ": " + msg
		return o
	}
	if a.Status == 'D' {
		o.findings = append(o.findings, checks.Finding{Path: a.Path, Level: checks.LevelWarning, Title: "The archive is removed", Message: fmt.Sprintf("This change removes %s.", a.Path)})
		o.summary = fmt.Sprintf("%s is removed by this change.", code(a.Path))
		return o
	}
	if err := makeShellDir(work); err != nil {
		return fail(err.Error())
	}
	added := a.Status == 'A' || a.Status == 'C'
	head, err := openBlob(ctx, in.Repo, p.Head, a.Path)
	if err != nil {
		return c.unreadable(o, a, "head", err)
	}
	defer head.Close()
	var base *blobStream
	if added {
		base = &blobStream{Reader: strings.NewReader(""), close: func() error { return nil }}
	} else if base, err = openBlob(ctx, in.Repo, p.MergeBase, a.OldPath); err != nil {
		return c.unreadable(o, a, "base", err)
	}
	defer base.Close()
	d, err := Compare(ctxReader{ctx, base}, ctxReader{ctx, head}, Options{Masks: masks, MaxDiff: cfg.MaxDiff(), ShellDir: work, MaxShell: MaxShell})
	if err != nil {
		return fail(fmt.Sprintf("Reading %s at base and head failed: %v.", a.Path, err))
	}
	o.diff = d
	if base.LFS != "" || head.LFS != "" {
		o.notes = append(o.notes, fmt.Sprintf("%s is stored in Git LFS; the check read the objects the pointers name, and checked their sha256.", a.Path))
	}
	// Member list, order and metadata.
	for _, k := range config.ArchiveChangeKinds {
		kd := d.Kinds[k]
		if kd == nil || (added && k == KindAdded) {
			continue
		}
		lvl := checks.LevelFailure
		if cfg.Allows(k) {
			lvl = checks.LevelWarning
		}
		f := checks.Finding{Path: a.Path, Level: lvl, Title: "Archive members: " + kindTitle[k], Message: kindMessage(k, kd, d)}
		if lvl == checks.LevelFailure {
			f.Message += fmt.Sprintf(" If this is intended, add %q to archive.allow.", k)
		}
		o.findings = append(o.findings, f)
	}
	// Distinct diffs.
	for i, g := range d.Groups {
		o.findings = append(o.findings, checks.Finding{Path: a.Path, Level: checks.LevelNotice,
			Title:   fmt.Sprintf("Distinct diff %d of %d: %s", i+1, d.Distinct(), plural(g.Count, "member")),
			Message: fmt.Sprintf("%s this diff once the masks are applied. Example: %s.", verb(g.Count, "member gets", "members get"), g.Example),
			Details: g.Diff})
	}
	if d.GroupsCut > 0 {
		o.notes = append(o.notes, fmt.Sprintf("%s: %d more distinct diffs are counted but not shown.", a.Path, d.GroupsCut))
	}
	// bash -n on the changed shell members.
	bad, ran, err := bashN(ctx, a.Path, work, d.Shell, strict)
	if err != nil {
		o.findings = append(o.findings, checks.Finding{Path: a.Path, Level: checks.LevelFailure, Title: "bash -n could not run", Message: err.Error() + "."})
	}
	o.findings = append(o.findings, bad...)
	if d.ShellCut > 0 {
		o.findings = append(o.findings, checks.Finding{Path: a.Path, Level: checks.LevelWarning, Title: "Shell members not checked with bash -n",
			Message: fmt.Sprintf("%s not checked with bash -n: the limits are %d members, 256 MB in all, and %d bytes per member (archive.max_diff_bytes).", verb(d.ShellCut, "changed shell member was", "changed shell members were"), MaxShell, cfg.MaxDiff())})
	}
	o.summary = summaryOf(a, d, added, ran, len(bad))
	cmd := fmt.Sprintf("template-verify run --base %s --head %s --only archive", short(p.MergeBase), short(p.Head))
	o.figures = append(o.figures,
		checks.Figure{Label: a.Path + ": members changed", Value: fmt.Sprintf("%s of %s", thousands(d.Changed), thousands(d.HeadMembers)), Command: cmd},
		checks.Figure{Label: a.Path + ": distinct diffs after masking", Value: thousands(d.Distinct()), Command: cmd})
	if ran > 0 {
		o.figures = append(o.figures, checks.Figure{Label: a.Path + ": changed shell members that pass bash -n", Value: fmt.Sprintf("%s of %s", thousands(ran-len(bad)), thousands(ran))})
	}
	if len(d.ChangedByName) > 0 {
		t := checks.Table{Title: "Changed members of " + a.Path + " by file name", Header: []string{"File name", "Members"}}
		names := make([]string, 0, len(d.ChangedByName))
		for n := range d.ChangedByName {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool {
			ci, cj := d.ChangedByName[names[i]], d.ChangedByName[names[j]]
			return ci > cj || ci == cj && names[i] < names[j]
		})
		for i, n := range names {
			if i == maxListed {
				t.Rows = append(t.Rows, []string{fmt.Sprintf("(%d more names)", len(names)-maxListed), ""})
				break
			}
			t.Rows = append(t.Rows, []string{n, thousands(d.ChangedByName[n])})
		}
		o.tables = append(o.tables, t)
	}
	return o
}

// unreadable is the outcome of an archive that could not be opened. A
// missing Git LFS object means the check could not run: never a pass.
func (c *Check) unreadable(o outcome, a changedArchive, at string, err error) outcome {
	if errors.Is(err, ErrLFSMissing) {
		o.notRun = true
		o.notes = append(o.notes, fmt.Sprintf("%s at %s is a Git LFS pointer and its object is not in the clone (%v), so it was not compared. Fetch it with git lfs fetch, or check out with lfs: true.", a.Path, at, err))
		o.summary = fmt.Sprintf("%s: the Git LFS object at %s is not in the clone.", code(a.Path), at)
		return o
	}
	o.findings = append(o.findings, checks.Finding{Path: a.Path, Level: checks.LevelFailure, Title: "The archive could not be read", Message: fmt.Sprintf("Reading %s at %s failed: %v.", a.Path, at, err)})
	o.summary = fmt.Sprintf("%s could not be read at %s.", code(a.Path), at)
	return o
}

func compileMasks(ms []config.Mask) ([]Mask, error) {
	out := make([]Mask, 0, len(ms))
	for _, m := range ms {
		re, err := regexp.Compile(m.Pattern)
		if err != nil {
			return nil, fmt.Errorf("mask %q: %w", m.Pattern, err)
		}
		out = append(out, Mask{Re: re, Replace: m.Replace})
	}
	return out, nil
}

func matchAny(globs []string, p string) bool {
	for _, g := range globs {
		if config.MatchGlob(g, p) {
			return true
		}
	}
	return false
}

func failed(res checks.Result, title string, err error) checks.Result {
	res.Conclusion, res.Title, res.Summary = checks.Failure, title, err.Error()
	return res
}

// HasWork reports whether the change touches an archive that the config
// names: the check then runs even when no template changed.
func (*Check) HasWork(p *plan.Plan, base, head *config.Config) bool {
	cfg := config.ArchiveOf(base, head)
	if cfg == nil {
		return false
	}
	for _, fc := range p.Changed {
		if matchAny(cfg.Paths, fc.Path) || matchAny(cfg.Paths, fc.OldPath) {
			return true
		}
	}
	return false
}
