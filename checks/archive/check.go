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
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/sandbox"
	"github.com/formula-code/template-verify/internal/words"
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

var kindTitle = map[string]string{
	KindAdded: "added", KindRemoved: "removed", KindOrder: "order changed", KindMode: "mode changed",
	KindMtime: "mtime changed", KindOwner: "owner changed", KindType: "type changed",
}

func kindMessage(k string, kd *Kind, d *Diff) string {
	switch k {
	case KindAdded:
		return fmt.Sprintf("%s new at head: %s.", verb(kd.Count, "member is", "members are"), listed(d.Added, kd.Count))
	case KindRemoved:
		return fmt.Sprintf("%s gone at head: %s.", verb(kd.Count, "member is", "members are"), listed(d.Removed, kd.Count))
	case KindOrder:
		return fmt.Sprintf("%s.", upper(kd.Detail))
	}
	return fmt.Sprintf("%s %s. Example: %s, %s.", verb(kd.Count, "member changes its", "members change their"), k, kd.Example, kd.Detail)
}

func listed(names []string, n int) string {
	s := strings.Join(names, ", ")
	if n > len(names) {
		s += fmt.Sprintf(" and %d more", n-len(names))
	}
	return s
}

// summaryOf says what changed in seed 003's words.
func summaryOf(a changedArchive, d *Diff, added bool, shellRan, shellBad int) string {
	var s []string
	if added {
		s = append(s, fmt.Sprintf("%s is new: %s members.", code(a.Path), thousands(d.HeadMembers)))
	} else {
		same := []string{}
		if d.Kinds[KindOrder] == nil {
			same = append(same, "in the same order")
		}
		var meta []string
		for _, k := range []string{KindMode, KindMtime, KindOwner} {
			if d.Kinds[k] == nil {
				meta = append(meta, k)
			}
		}
		if len(meta) > 0 {
			same = append(same, "with the same "+strings.Join(meta, "/"))
		}
		if d.BaseMembers == d.HeadMembers && d.Kinds[KindAdded] == nil && d.Kinds[KindRemoved] == nil {
			s = append(s, fmt.Sprintf("%s: the same %s members at base and head %s.", code(a.Path), thousands(d.HeadMembers), strings.Join(same, " ")))
		} else {
			s = append(s, fmt.Sprintf("%s: %s members at base, %s at head.", code(a.Path), thousands(d.BaseMembers), thousands(d.HeadMembers)))
		}
		s[0] = strings.Replace(s[0], " .", ".", 1)
	}
	s = append(s, fmt.Sprintf("%s changed, %s after masking.", plural(d.Changed, "member"), plural(d.Distinct(), "distinct diff")))
	if d.Changed > 0 && len(d.ChangedByName) == 1 {
		for n := range d.ChangedByName {
			s[len(s)-1] = fmt.Sprintf("%s changed (all %s), %s after masking.", plural(d.Changed, "member"), code(n), plural(d.Distinct(), "distinct diff"))
		}
	}
	if !added && onlyContent(d) {
		s = append(s, "No other member of the archive changed.")
	}
	if shellRan > 0 {
		if shellBad == 0 {
			s = append(s, fmt.Sprintf("Every changed shell member passes `bash -n` (%s).", thousands(shellRan)))
		} else {
			s = append(s, fmt.Sprintf("%d of %s changed shell members fail `bash -n`.", shellBad, thousands(shellRan)))
		}
	}
	return strings.Join(s, " ")
}

// onlyContent reports whether nothing but contents changed.
func onlyContent(d *Diff) bool { return len(d.Kinds) == 0 }

var bashLine = regexp.MustCompile(`^[^:]*: line (\d+): (.*)$`)

// bashN runs bash -n, sandboxed, on every changed shell member at head in
// one sandbox, and again at base on those that fail, to tell a failure that
// happens before this change.
func bashN(ctx context.Context, archive, work string, files []ShellFile, strict bool) ([]checks.Finding, int, error) {
	if len(files) == 0 {
		return nil, 0, nil
	}
	headBad, err := runBashN(ctx, filepath.Join(work, "head"))
	if err != nil {
		return nil, 0, err
	}
	var baseBad map[string]string
	var again []string
	for _, f := range files {
		if _, bad := headBad[f.File]; bad && f.HasBase {
			again = append(again, f.File)
		}
	}
	if len(again) > 0 {
		if baseBad, err = runBashN(ctx, filepath.Join(work, "base")); err != nil {
			return nil, 0, err
		}
	}
	var out []checks.Finding
	for _, f := range files {
		msg, bad := headBad[f.File]
		if !bad {
			continue
		}
		if len(out) == maxBashFindings {
			out = append(out, checks.Finding{Path: archive, Level: checks.LevelFailure, Title: "bash -n rejects more changed shell members", Message: "More changed shell members fail bash -n; the first ones are listed."})
			continue
		}
		if len(out) > maxBashFindings {
			continue
		}
		line, text := 0, msg
		if m := bashLine.FindStringSubmatch(firstLine(msg)); m != nil {
			line, _ = strconv.Atoi(m[1])
			text = m[2]
		}
		fd := checks.Finding{Path: archive, Level: checks.LevelFailure, Title: "bash -n rejects a changed shell member",
			Message: fmt.Sprintf("bash -n rejects %s at line %d: %s", f.Member, line, text)}
		if bm, ok := baseBad[f.File]; ok && bashMsg(bm) == bashMsg(msg) {
			fd.Title += ": fails before this change"
			fd.Message += " The base's member fails the same way, so this PR does not cause it."
			if !strict {
				fd.Level = checks.LevelWarning
			}
		}
		out = append(out, fd)
	}
	return out, len(files), nil
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

func bashMsg(s string) string {
	if m := bashLine.FindStringSubmatch(firstLine(s)); m != nil {
		return m[2]
	}
	return s
}

// runBashN runs bash -n on every *.sh file of dir in one sandbox and
// returns bash's message for each file it rejects.
func runBashN(ctx context.Context, dir string) (map[string]string, error) {
	// Batches of 50 files, as many batches at once as there are CPUs; each
	// record is one short write, so records do not mix.
	script := `printf '%s\0' *.sh | xargs -0 -r -n 50 -P "$(nproc)" bash -c 'for f; do [ -e "$f" ] || continue; out=$(bash -n "$f" 2>&1) || printf "\001%s\n%s\n" "$f" "$out"; done' _`
	o := sandbox.Run(ctx, sandbox.Spec{Args: []string{"bash", "-c", script}, Dir: dir, Timeout: 5 * time.Minute, Sandbox: true, MaxOutput: 4 << 20})
	if o.Err != nil || o.ExitCode != 0 {
		return nil, fmt.Errorf("bash -n did not finish (exit %d): %v %s", o.ExitCode, o.Err, sandbox.Tail(o.Stderr, 400))
	}
	bad := map[string]string{}
	for _, rec := range strings.Split(string(o.Stdout), "\x01")[1:] {
		name, msg, _ := strings.Cut(rec, "\n")
		bad[name] = strings.TrimSpace(msg)
	}
	return bad, nil
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

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = code(s)
	}
	return out
}

// code is the shared inline code span.
var code = words.Code

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// plural is the shared count with its noun ("2 sets").
var plural = words.Count

// thousands writes n with comma separators, as the seeds do (1,317).
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
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

// verb is "1 member gets" or "5 members get".
func verb(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(n) + " " + many
}
