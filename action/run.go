package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/githubapi"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/publish"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// Exit codes of the Action.
const (
	ExitPass  = 0
	ExitFail  = 1 // a check conclusion in fail-on, or publishing failed
	ExitUsage = 2 // bad input: environment, event file, inputs, configuration
)

// CommentAuthor is the login of the Action's GITHUB_TOKEN. The comment is
// found again only among this author's comments.
const CommentAuthor = "github-actions[bot]"

// MaxSummaryBytes is GitHub's limit of the job summary of one step.
const MaxSummaryBytes = 1 << 20

// Options are the Action's environment. Zero values use the process's.
type Options struct {
	Getenv func(string) string // nil: os.Getenv
	Stdout io.Writer           // the job log; nil: os.Stdout
	// Verify runs the verification; nil: verify.Run.
	Verify func(context.Context, verify.Options) (*report.Report, error)
	// Checks builds the checks; nil: verify.DefaultChecks. Their names
	// name the check runs made before the verification starts.
	Checks func() []checks.Check
	Clock  githubapi.Clock   // nil: the wall clock
	HTTP   http.RoundTripper // under the retries; nil: http.DefaultTransport
}

// runner holds one run of the Action.
type runner struct {
	o         Options
	gha       *githubactions.Action
	out       io.Writer
	log       *slog.Logger
	in        Inputs
	event     string // EventPullRequest or EventMergeGroup
	ev        Event
	owner     string
	repo      string
	workspace string
	// readOnly is why the run makes no write call, or "".
	readOnly string
	// run is the run whose report a workflow_run publishes.
	wrun workflowRun
	errs []error // publishing errors
	// apiLedger: the checks are the defaults, so the release ledger may
	// read the gate runs of merged pull requests through the API once a
	// client exists.
	apiLedger bool
}

// Run runs the Action and returns its exit code. It never panics on bad
// input: it names the file, field or variable and returns ExitUsage.
func Run(ctx context.Context, o Options) int {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Verify == nil {
		o.Verify = verify.Run
	}
	apiLedger := o.Checks == nil
	if apiLedger {
		o.Checks = verify.DefaultChecks
	}
	if o.Clock == nil {
		o.Clock = githubapi.RealClock{}
	}
	r := &runner{
		o:   o,
		out: o.Stdout,
		gha: githubactions.New(githubactions.WithGetenv(o.Getenv), githubactions.WithWriter(o.Stdout)),
		log: slog.New(slog.NewTextHandler(o.Stdout, &slog.HandlerOptions{Level: slog.LevelInfo})),

		apiLedger: apiLedger,
	}
	return r.run(ctx)
}

func (r *runner) run(ctx context.Context) int {
	if err := r.setup(ctx); err != nil {
		r.gha.Errorf("%s", err)
		return ExitUsage
	}
	if r.event == EventWorkflowRun {
		return r.publishRun(ctx)
	}
	s := r.session()
	s.Verify = func(ctx context.Context) (*report.Report, error) {
		rep, err := r.o.Verify(ctx, verify.Options{
			RepoDir:     r.workspace,
			Base:        r.base(),
			Head:        r.head(),
			RepoName:    r.owner + "/" + r.repo,
			ConfigPath:  r.in.Config,
			Checks:      r.o.Checks,
			Progress:    &checks.LineProgress{W: r.out},
			Log:         r.log,
			Description: r.ev.Body,
			CacheDir:    r.cacheDir(),
		})
		if err != nil && strings.Contains(err.Error(), "unknown revision") {
			err = fmt.Errorf("%w. The checkout must hold both commits: use actions/checkout with fetch-depth: 0", err)
		}
		return rep, err
	}
	out := s.Run(ctx)
	r.started(out.StartErr)
	r.errs = append(r.errs, out.Errs...)
	if out.Err != nil {
		return r.verifyFailed(out.Err)
	}
	rep := out.Report
	commentURL := ""
	if out.Commented {
		commentURL = out.Comment.URL
	}
	r.printReport(rep)
	r.summary(rep)
	if r.readOnly != "" {
		as, left := chooseAnnotations(rep)
		emit(r.gha, as, left)
	}
	r.outputs(rep, commentURL)
	return r.exitCode(rep)
}

// session is the publishing session of a pull_request or merge_group
// run: write, or read-only when the token cannot write (r.readOnly).
func (r *runner) session() *publish.Session {
	s := &publish.Session{
		Mode: publish.ModeReadOnly, CommentMode: r.in.CommentMode, ServerURL: r.o.Getenv("GITHUB_SERVER_URL"),
		Gate: r.gate,
	}
	if r.readOnly != "" {
		return s
	}
	client, err := githubapi.NewClient(r.o.Getenv("GITHUB_API_URL"), r.in.Token, &githubapi.Transport{Base: r.o.HTTP, Clock: r.o.Clock, Log: r.log})
	if err != nil {
		r.errs = append(r.errs, err)
		r.readOnly = "The GitHub API URL is not valid, so the Action cannot write to GitHub."
		return s
	}
	if r.apiLedger {
		r.o.Checks = verify.ChecksWithGitHubLedger(client, r.owner, r.repo, r.ev.BaseRef, r.ev.HeadRef)
	}
	s.Mode = publish.ModeWrite
	s.Target = publish.Target{
		Client: client, Owner: r.owner, Repo: r.repo, HeadSHA: r.ev.HeadSHA, PR: r.ev.Number,
		CommentAuthor: CommentAuthor, DetailsURL: r.detailsURL(), Clock: r.o.Clock, Log: r.log,
	}
	for _, c := range r.o.Checks() {
		s.Checks = append(s.Checks, c.Name())
	}
	return s
}

// started notes why the session could not make its check runs: a token
// that may not write turns the run read-only.
func (r *runner) started(err error) {
	switch {
	case err == nil:
	case githubapi.IsForbidden(err):
		r.readOnly = "GitHub refused to create a check run (403), so the token can only read. This is so for Dependabot pull requests."
		r.gha.Warningf("%s", r.readOnly)
	default:
		r.errs = append(r.errs, err)
		r.readOnly = "The Action could not create its check runs, so it shows the report here."
	}
}

// setup reads the inputs, the environment and the event, and checks the
// workspace.
func (r *runner) setup(ctx context.Context) error {
	var err error
	if r.in, err = readInputs(r.gha.GetInput); err != nil {
		return err
	}
	get := r.o.Getenv
	switch name := get("GITHUB_EVENT_NAME"); name {
	case "", EventPullRequest:
		r.event = EventPullRequest
	case EventMergeGroup, EventWorkflowRun:
		r.event = name
	case "pull_request_target":
		return errors.New("GITHUB_EVENT_NAME is pull_request_target: run this Action on pull_request. Under pull_request_target the code of a fork would run with a write token and secrets")
	default:
		return fmt.Errorf("GITHUB_EVENT_NAME is %q: this Action runs on pull_request, merge_group (verify) and workflow_run (publish) events", name)
	}
	path := get("GITHUB_EVENT_PATH")
	if path == "" {
		return errors.New("GITHUB_EVENT_PATH is not set: run template-verify action as a step of a GitHub Actions job")
	}
	switch r.event {
	case EventPullRequest:
		r.ev, err = readEvent(path)
	case EventMergeGroup:
		var data []byte
		if data, err = os.ReadFile(path); err == nil {
			r.ev, err = parseMergeGroup(path, data)
		} else {
			err = fmt.Errorf("event file: %w", err)
		}
	case EventWorkflowRun:
		r.wrun, err = readWorkflowRun(path)
	}
	if err != nil {
		return err
	}
	if r.event == EventWorkflowRun && r.in.Report == "" {
		return errors.New("input report is empty: on workflow_run the Action publishes the report that the pull_request run uploaded; set report to its path in the workspace (see examples/workflows/template-verify-publish.yml)")
	}
	if r.event != EventWorkflowRun && r.in.Report != "" {
		return fmt.Errorf("input report is set, but the event is %s: the Action publishes a report only on workflow_run", r.event)
	}
	full := get("GITHUB_REPOSITORY")
	owner, repo, ok := strings.Cut(full, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return fmt.Errorf("GITHUB_REPOSITORY is %q: want owner/name", full)
	}
	r.owner, r.repo = owner, repo
	if r.workspace = get("GITHUB_WORKSPACE"); r.workspace == "" {
		return errors.New("GITHUB_WORKSPACE is not set: run template-verify action as a step of a GitHub Actions job")
	}
	if r.event == EventWorkflowRun {
		// The publisher checks out nothing: the workspace holds the
		// downloaded artifact only.
		if st, err := os.Stat(r.workspace); err != nil || !st.IsDir() {
			return fmt.Errorf("GITHUB_WORKSPACE %s is not a folder", r.workspace)
		}
		if r.in.Token == "" {
			return errors.New("input github-token is empty: on workflow_run the Action publishes with it (checks: write, pull-requests: write)")
		}
		return nil
	}
	if err := checkWorkspace(ctx, r.workspace); err != nil {
		return err
	}
	switch {
	case r.ev.Fork():
		r.readOnly = fmt.Sprintf("This pull request comes from a fork (%s), so the token can only read.", orGone(r.ev.HeadRepo))
	case r.in.Token == "":
		r.readOnly = "The github-token input is empty, so the Action cannot write to GitHub."
	}
	return nil
}

func orGone(repo string) string {
	if repo == "" {
		return "the head repository is gone"
	}
	return repo
}

// checkWorkspace makes sure git can read the checkout.
func checkWorkspace(ctx context.Context, dir string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("GITHUB_WORKSPACE %s is not a folder", dir)
	}
	if _, err := (gitx.Repo{Dir: dir}).Run(ctx, "rev-parse", "--git-dir"); err != nil {
		if strings.Contains(err.Error(), "dubious ownership") {
			return fmt.Errorf("git refuses the workspace %s: it belongs to another user (dubious ownership): %w", dir, err)
		}
		return fmt.Errorf("GITHUB_WORKSPACE %s is not a git repository: add actions/checkout with fetch-depth: 0 before this step: %w", dir, err)
	}
	return nil
}

func (r *runner) base() string {
	if r.in.Base != "" {
		return r.in.Base
	}
	return r.ev.BaseSHA
}

func (r *runner) head() string {
	if r.in.Head != "" {
		return r.in.Head
	}
	return r.ev.HeadSHA
}

func (r *runner) detailsURL() string {
	if r.event == EventWorkflowRun {
		// The page of the run that verified, from the event.
		return r.wrun.HTMLURL
	}
	server, id := r.o.Getenv("GITHUB_SERVER_URL"), r.o.Getenv("GITHUB_RUN_ID")
	if server == "" || id == "" {
		return ""
	}
	return fmt.Sprintf("%s/%s/%s/actions/runs/%s", strings.TrimRight(server, "/"), r.owner, r.repo, id)
}

// gate reads the gated branches at the base commit of the event, which
// the pull request cannot change (not at the base input, which the
// workflow file of the pull request sets), through verify.GatePolicy as
// the App does. When they cannot be read, the gate applies.
func (r *runner) gate(ctx context.Context) checks.Gate {
	pol := verify.GatePolicy(ctx, r.workspace, r.ev.BaseSHA, r.in.Config)
	if pol.Err != nil {
		r.gha.Warningf("The gate applies to every branch: %s", pol.Err)
	}
	return pol.Gate(r.ev.BaseRef)
}

// verifyFailed reports a verification that did not finish (the session
// concluded the check runs as failure with it, the gate too where it
// applies), writes the error to the job summary and returns the exit
// code.
func (r *runner) verifyFailed(err error) int {
	msg := err.Error()
	code := ExitFail
	var ue *verify.UsageError
	if errors.As(err, &ue) {
		code = ExitUsage
	}
	r.gha.Errorf("template-verify could not verify the pull request: %s", msg)
	for _, aerr := range r.errs {
		r.gha.Errorf("%s", aerr)
	}
	r.writeSummary(report.JobSummaryStopped("The verification did not finish", err))
	r.setOutput("conclusion", "error")
	return code
}

// exitCode fails the job for a conclusion in fail-on, or when publishing
// failed.
func (r *runner) exitCode(rep *report.Report) int {
	code := ExitPass
	for _, err := range r.errs {
		r.gha.Errorf("Publishing to GitHub failed: %s", err)
		code = ExitFail
	}
	if bad := failsJob(rep.Results, r.in.FailOn); len(bad) > 0 {
		r.gha.Errorf("The job fails because of fail-on: %s.", strings.Join(bad, ", "))
		code = ExitFail
	}
	return code
}

func (r *runner) printReport(rep *report.Report) {
	// The report holds PR text: the runner reads no workflow command in
	// it (a random stop token, and logSafe on every line).
	token := stopToken()
	r.gha.Group("template-verify report")
	fmt.Fprintf(r.out, "::stop-commands::%s\n%s::%s::\n", token, logSafe(rep.Text()), token)
	r.gha.EndGroup()
}

// cacheDir is the cache-dir input as an absolute path in the workspace,
// "" when the input is empty.
func (r *runner) cacheDir() string {
	if r.in.CacheDir == "" {
		return ""
	}
	return filepath.Join(r.workspace, r.in.CacheDir)
}
