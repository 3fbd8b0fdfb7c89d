package action

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/githubapi"
	"github.com/formula-code/template-verify/internal/safefile"
	"github.com/formula-code/template-verify/publish"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// MaxReportBytes is the largest report artifact the publisher reads.
const MaxReportBytes = 16 << 20

// MaxReportChecks is the most checks a report artifact may hold: each
// becomes a check run.
const MaxReportChecks = 32

var checkNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,39}$`)

// parseReport reads a JSON report back (the artifact of a pull_request
// run). The artifact was made by a run that a fork's workflow file may
// control, so it is data to check, never a source of where to publish:
// it must hold at most MaxReportChecks results with plain check names,
// and its overall conclusion is computed again from its results.
func parseReport(data []byte) (*report.Report, error) {
	rep, err := report.ParseJSON(data)
	if err != nil {
		return nil, fmt.Errorf("the report is not valid JSON: %s", jsonError(data, err))
	}
	if len(rep.Results) > MaxReportChecks {
		return nil, fmt.Errorf("the report has %d check results, more than %d", len(rep.Results), MaxReportChecks)
	}
	seen := map[string]bool{}
	for _, r := range rep.Results {
		if !checkNameRE.MatchString(r.Check) || r.Check == checks.GateCheck || seen[r.Check] {
			return nil, fmt.Errorf("the report has a result with the check name %q: want a unique lower-case name that is not %s", r.Check, checks.GateCheck)
		}
		seen[r.Check] = true
	}
	if !shaRE.MatchString(rep.Head) {
		return nil, fmt.Errorf("the report's head.sha %q is not a full commit sha", rep.Head)
	}
	rep.Overall = checks.Overall(rep.Results)
	return rep, nil
}

// publishRun publishes the report of a pull_request run on workflow_run:
// check runs and the gate on the run's head commit, the comment on the
// open pull request whose head is that commit. Where to publish comes from
// the event and the API, never from the artifact.
func (r *runner) publishRun(ctx context.Context) int {
	wr := r.wrun
	if wr.Event != EventPullRequest {
		r.gha.Noticef("The workflow run %d ran on %s, not on pull_request: there is no report to publish.", wr.ID, wr.Event)
		return ExitPass
	}
	if !strings.EqualFold(wr.Repo, r.owner+"/"+r.repo) {
		r.gha.Errorf("The workflow_run event is of %s, but GITHUB_REPOSITORY is %s/%s.", wr.Repo, r.owner, r.repo)
		return ExitUsage
	}
	client, err := githubapi.NewClient(r.o.Getenv("GITHUB_API_URL"), r.in.Token, &githubapi.Transport{Base: r.o.HTTP, Clock: r.o.Clock, Log: r.log})
	if err != nil {
		r.gha.Errorf("%s", err)
		return ExitUsage
	}
	pr, err := r.pullOfRun(ctx, client, wr)
	if errors.Is(err, errNoPull) {
		// The pull request was closed or got a newer push, whose own run
		// publishes: nothing to do.
		r.gha.Noticef("%s", err)
		r.writeSummary(report.JobSummaryStopped("Nothing was published", err))
		return ExitPass
	}
	if err != nil {
		r.gha.Errorf("%s", err)
		return ExitFail
	}
	s := &publish.Session{
		Mode: publish.ModeWorkflowRun,
		Target: publish.Target{
			Client: client, Owner: r.owner, Repo: r.repo, HeadSHA: wr.HeadSHA, PR: pr.GetNumber(),
			CommentAuthor: CommentAuthor, DetailsURL: r.detailsURL(), Clock: r.o.Clock, Log: r.log,
		},
		Verify:      func(context.Context) (*report.Report, error) { return r.readReport(wr) },
		Gate:        func(ctx context.Context) checks.Gate { return r.publisherGate(ctx, pr) },
		CommentMode: r.in.CommentMode,
		ServerURL:   r.o.Getenv("GITHUB_SERVER_URL"),
		FailTitle:   "No report to publish",
		FailSummary: "template-verify could not publish the report of the pull_request run " + wr.HTMLURL + ": ",
	}
	untrusted := r.forkRun(wr, pr)
	if untrusted {
		s.Untrusted = true
	}
	out := s.Run(ctx)
	if out.Err != nil {
		// No report, or one that is not of this run: the gate must not
		// wait forever, and must not pass.
		r.gha.Errorf("%s", out.Err)
		for _, err := range out.Errs {
			r.gha.Errorf("Publishing to GitHub failed: %s", err)
		}
		r.writeSummary(report.JobSummaryStopped("No report was published", out.Err))
		return ExitFail
	}
	rep := out.Report
	for _, err := range out.Errs {
		r.gha.Errorf("Publishing to GitHub failed: %s", err)
	}
	trust := ""
	if untrusted {
		trust = "\n" + report.UntrustedNote + " The gate does not pass from it.\n"
	}
	r.writeSummary(fmt.Sprintf("## template-verify\n\nPublished the report of %s on pull request #%d (commit `%s`): %s.\n%s",
		wr.HTMLURL, pr.GetNumber(), wr.HeadSHA, report.Word(rep.Overall), trust))
	r.setOutput("conclusion", string(rep.Overall))
	if len(out.Errs) > 0 {
		return ExitFail
	}
	return ExitPass
}

// readReport reads the report artifact from the workspace as a regular
// file (no symlink, within MaxReportBytes) and checks that it is of the
// run's head commit.
func (r *runner) readReport(wr workflowRun) (*report.Report, error) {
	data, err := safefile.ReadIn(r.workspace, r.in.Report, MaxReportBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the report %s is not in the workspace: the pull_request run uploaded none (it may have stopped before the verification), or the artifact was not downloaded", r.in.Report)
	}
	if err != nil {
		return nil, fmt.Errorf("read the report %s: %w", r.in.Report, err)
	}
	rep, err := parseReport(data)
	if err != nil {
		return nil, fmt.Errorf("the report %s: %w", r.in.Report, err)
	}
	if rep.Head != wr.HeadSHA {
		return nil, fmt.Errorf("the report %s is of commit %s, but the workflow run is of %s", r.in.Report, rep.Head, wr.HeadSHA)
	}
	return rep, nil
}

// errNoPull: no open pull request has the run's head commit.
var errNoPull = errors.New("nothing to publish on")

// pullOfRun finds the open pull request whose head is the run's head
// commit: one the event lists, else one GitHub lists for the commit (the
// event lists none for a fork). The pull request is read from the API and
// its head must be the run's head commit.
func (r *runner) pullOfRun(ctx context.Context, client *github.Client, wr workflowRun) (*github.PullRequest, error) {
	numbers := wr.PRs
	if len(numbers) == 0 {
		prs, err := githubapi.PullsWithHead(ctx, client, r.owner, r.repo, wr.HeadSHA)
		if err != nil {
			return nil, err
		}
		for _, p := range prs {
			numbers = append(numbers, p.GetNumber())
		}
	}
	for _, n := range numbers {
		pr, _, err := client.PullRequests.Get(ctx, r.owner, r.repo, n)
		if err != nil {
			return nil, fmt.Errorf("read pull request #%d: %w", n, err)
		}
		if pr.GetState() == "open" && pr.GetHead().GetSHA() == wr.HeadSHA &&
			strings.EqualFold(pr.GetBase().GetRepo().GetFullName(), r.owner+"/"+r.repo) {
			return pr, nil
		}
	}
	return nil, fmt.Errorf("%w: no open pull request of %s/%s has the head commit %s of the workflow run %d", errNoPull, r.owner, r.repo, wr.HeadSHA, wr.ID)
}

// publisherGate reads the gated branches at the pull request's base
// commit when the workspace is a checkout of the base repository (never
// of the pull request); otherwise the gate applies to every branch.
func (r *runner) publisherGate(ctx context.Context, pr *github.PullRequest) checks.Gate {
	g := checks.Gate{BaseRef: pr.GetBase().GetRef()}
	base := pr.GetBase().GetSHA()
	if err := checkWorkspace(ctx, r.workspace); err != nil || base == "" {
		g.PolicyErr = errors.New("the publisher has no checkout of the base repository to read the gated branches from")
		return g
	}
	return verify.GatePolicy(ctx, r.workspace, base, r.in.Config).Gate(g.BaseRef)
}
