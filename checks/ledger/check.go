package ledger

import (
	"context"
	"fmt"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/words"
	"github.com/formula-code/template-verify/plan"
)

// Name is the check's name.
const Name = "ledger"

// Check is the release ledger check.
type Check struct {
	// BaseRef and HeadRef are the pull request's branch names; empty uses
	// the revisions the verification was given (Plan.BaseRev, HeadRev),
	// which the CLI gets as branch names.
	BaseRef, HeadRef string
	// Source gives the verifications. Nil uses Local with LocalVerify.
	Source Source
	// LocalVerify re-verifies a merged head when Source is nil.
	LocalVerify VerifyFunc
}

// New returns the ledger check.
func New() *Check { return &Check{} }

// Name implements checks.Check.
func (*Check) Name() string { return Name }

func (c *Check) refs(p *plan.Plan) (string, string) {
	base, head := c.BaseRef, c.HeadRef
	if base == "" {
		base = p.BaseRev
	}
	if head == "" {
		head = p.HeadRev
	}
	return base, head
}

// HasWork reports whether the change is a release merge: the check then
// runs even when no template changed.
func (c *Check) HasWork(p *plan.Plan, base, head *config.Config) bool {
	b, h := c.refs(p)
	l := config.LedgerOf(base, head)
	return l != nil && l.Applies(b, h)
}

// Run implements checks.Check.
func (c *Check) Run(ctx context.Context, in *checks.Input) checks.Result {
	res := checks.Result{Check: Name}
	cfg := config.LedgerOf(in.BaseConfig, in.Config)
	base, head := c.refs(in.Plan)
	if cfg == nil || !cfg.Applies(base, head) {
		res.Conclusion, res.Title = checks.Skipped, "Not a release merge"
		res.Summary = fmt.Sprintf("The ledger applies to a pull request from a release branch into the branch it left. This change is %s into %s.", code(config.BranchName(head)), code(config.BranchName(base)))
		if cfg != nil {
			res.Summary += fmt.Sprintf(" The config names %s into %s.", strings.Join(codes(cfg.Release), ", "), strings.Join(codes(cfg.Into), ", "))
		}
		return res
	}
	entries, err := Entries(ctx, gitx.Repo{Dir: in.Repo}, in.Plan.Base, in.Plan.Head)
	if err != nil {
		res.Conclusion, res.Title, res.Summary = checks.Failure, "The release branch's history could not be read", err.Error()
		return res
	}
	src := c.Source
	if src == nil {
		if c.LocalVerify == nil {
			res.Conclusion, res.Title = checks.NotRun, "No source of verifications"
			res.Summary = "The ledger has neither GitHub's check runs nor a local verifier, so it could not judge the merged pull requests."
			return res
		}
		src = NewLocal(in.Repo, cfg.Run(), c.LocalVerify, entries)
		res.Notes = append(res.Notes, "The ledger re-verified each merged head on this machine against the release branch it merged into.")
	}
	rows, err := Judge(ctx, src, cfg.Run(), entries)
	if err != nil {
		res.Conclusion, res.Title, res.Summary = checks.Failure, "The verifications could not be read", err.Error()
		return res
	}
	return result(res, rows, config.BranchName(head), config.BranchName(base))
}

// result turns the rows into the check's result.
func result(res checks.Result, rows []Row, release, into string) checks.Result {
	prs, good := 0, 0
	for _, r := range rows {
		if r.Kind == KindPR || r.Kind == KindSquash {
			prs++
		}
		lvl := checks.Level("")
		switch {
		case r.Status.Bad():
			lvl = checks.LevelFailure
		case r.Status == NotPR:
			lvl = checks.LevelWarning
		case r.Status == Verified && (r.Kind == KindPR || r.Kind == KindSquash):
			good++
		}
		if lvl != "" {
			what := fmt.Sprintf("Pull request #%d", r.PR)
			msg := fmt.Sprintf("%s (%s, merged as %s): %s.", what, oneLine(r.Subject), short(r.Commit), r.Detail)
			if r.PR == 0 {
				what = "Commit " + short(r.Commit)
				msg = fmt.Sprintf("%s (%s): %s.", what, oneLine(r.Subject), r.Detail)
			}
			res.Findings = append(res.Findings, checks.Finding{Level: lvl, Title: fmt.Sprintf("%s: %s", what, r.Status), Message: msg})
		}
	}
	res.Tables = append(res.Tables, checks.Table{Title: fmt.Sprintf("Pull requests merged into %s since it left %s", release, into), Header: Header, Rows: Table(rows)})
	res.Figures = append(res.Figures, checks.Figure{Label: "merged pull requests verified green at the head they merged", Value: fmt.Sprintf("%d of %d", good, prs),
		Command: fmt.Sprintf("template-verify ledger --repo . --base %s --head %s", into, release)})
	fails := res.Failures()
	switch {
	case fails > 0:
		res.Conclusion = checks.Failure
		res.Title = fmt.Sprintf("%d of %d merged pull requests lack a green verification of the head they merged", prs-good, prs)
		if prs-good == 0 {
			res.Title = fmt.Sprintf("%d merges lack a green verification", fails)
		}
	case prs == 0:
		res.Conclusion, res.Title = checks.Success, "No pull request was merged into the release branch"
	default:
		res.Conclusion = checks.Success
		res.Title = fmt.Sprintf("All %d merged pull requests are verified green at the head they merged", prs)
		if prs == 1 {
			res.Title = "The merged pull request is verified green at the head it merged"
		}
	}
	verb := "are"
	if good == 1 {
		verb = "is"
	}
	res.Summary = fmt.Sprintf("%s has %d merged pull requests since it left %s; %d %s verified green at the head they merged.", code(release), prs, code(into), good, verb)
	return res
}

// code is the shared inline code span.
var code = words.Code

func codes(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = code(s)
	}
	return out
}
