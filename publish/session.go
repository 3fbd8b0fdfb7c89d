package publish

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/githubapi"
	"github.com/formula-code/template-verify/report"
)

// Mode is what a Session writes to GitHub.
type Mode int

// The modes of a Session.
const (
	// ModeWrite makes the check runs (in progress) before the
	// verification, then concludes them, the gate and the comment.
	ModeWrite Mode = iota
	// ModeReadOnly makes no write call: the token can only read (a pull
	// request from a fork, no token). The surface shows the report
	// itself; the Action prints annotations.
	ModeReadOnly
	// ModeWorkflowRun publishes a report that another job made, maybe a
	// fork's own job: Verify reads it, and the runs, named by its
	// results, are made after it is read.
	ModeWorkflowRun
)

func (m Mode) String() string {
	switch m {
	case ModeWrite:
		return "write"
	case ModeReadOnly:
		return "read-only"
	case ModeWorkflowRun:
		return "workflow_run"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// finishTimeout is how long a Session may still publish once its context
// is done, so that no check run stays in progress.
const finishTimeout = 30 * time.Second

// Session is one verification published on one commit: start the check
// runs, verify, complete the runs and the gate, publish the comment. The
// Action and the App both publish through it; they decode their events
// and choose the Mode.
//
// It is fail-closed: an error or a panic in Verify concludes every run
// and the gate as failure with the reason (GitHub counts neutral and
// skipped as passed), and Finish and Abort publish on a context that
// outlives the caller's cancellation by finishTimeout.
type Session struct {
	// Target is where to publish. Its Client may be nil in ModeReadOnly.
	Target Target
	Mode   Mode
	// Checks name the runs made before the verification (ModeWrite).
	Checks []string
	// Verify runs the verification, or in ModeWorkflowRun reads the
	// report. A panic in it is an error.
	Verify func(ctx context.Context) (*report.Report, error)
	// Gate reads the gate's policy at the base commit, which the pull
	// request cannot change (verify.GatePolicy). It is called once,
	// after Verify. Nil, or a policy error: the gate applies.
	Gate func(ctx context.Context) checks.Gate
	// CommentMode says when the comment is published; the zero value is
	// CommentOff.
	CommentMode CommentMode
	// ServerURL is the web server the comment links to (for example
	// GITHUB_SERVER_URL); empty: no link to the repository.
	ServerURL string
	// FailTitle and FailSummary word the runs of a Verify that failed;
	// the error follows FailSummary. Empty: "The verification did not
	// finish" and "template-verify could not verify the pull request: ".
	FailTitle, FailSummary string
	// Untrusted marks a report that the pull request's own job made: the
	// gate cannot pass from it (see checks.Gate.Untrusted), the runs show
	// report.MarkUntrusted(report), and the comment warns under its
	// headline (Report.UntrustedMarkdown).
	Untrusted bool

	pub     *publisher
	runs    *checkRuns
	gate    *checks.Gate
	started bool
}

// Outcome is what a Session did.
type Outcome struct {
	Mode   Mode
	Report *report.Report // nil when Verify failed
	// StartErr is why Start made no runs; after a 403
	// (githubapi.IsForbidden: the token can only read) the session was
	// read-only from then on.
	StartErr error
	// Err is the error of Verify.
	Err     error
	Runs    []RunInfo
	Gate    GateResult // zero when the runs were not completed from a report
	Comment CommentResult
	// Commented is true when a comment was created or edited.
	Commented bool
	// Errs are the publishing errors.
	Errs []error
}

// Run starts the runs, marks the comment "verifying <sha>…"
// (MarkVerifying), verifies and finishes. When Start fails, the session
// writes nothing more and Outcome.StartErr says why.
func (s *Session) Run(ctx context.Context) Outcome {
	var startErr error
	if s.Mode == ModeWrite {
		startErr = s.Start(ctx)
	}
	if startErr == nil {
		if _, err := s.MarkVerifying(ctx); err != nil && s.pub != nil {
			s.pub.log.Warn("the comment does not show that a new push is verified", "error", err)
		}
	}
	rep, err := s.RunVerify(ctx)
	out := s.Finish(ctx, rep, err)
	out.StartErr = startErr
	return out
}

// Start makes the runs of Checks in progress (ModeWrite; other modes do
// nothing). Runs it made before an error are concluded as failure. When
// GitHub refuses with 403 (githubapi.IsForbidden: the token can only
// read), the session turns read-only and makes no other write; after
// another error, Abort tries once more to make the runs and conclude
// them.
func (s *Session) Start(ctx context.Context) error {
	if s.Mode != ModeWrite || s.started {
		return nil
	}
	s.started = true
	if err := s.open(); err != nil {
		s.Mode = ModeReadOnly
		return err
	}
	runs, err := s.pub.Start(ctx, s.Checks)
	if err != nil {
		if githubapi.IsForbidden(err) {
			s.Mode = ModeReadOnly
		}
		return err
	}
	s.runs = runs
	return nil
}

// Resume takes over the runs an earlier session of the same commit made
// (its Runs), in ModeWrite: Finish or Abort then completes them instead
// of making new ones. A run completed before is completed again. With no
// runs it does nothing.
func (s *Session) Resume(runs []RunInfo) {
	if s.Mode != ModeWrite || len(runs) == 0 || s.open() != nil {
		return
	}
	r := &checkRuns{p: s.pub, ids: map[string]int64{}, urls: map[string]string{}, done: map[string]string{}}
	for _, ri := range runs {
		if _, dup := r.ids[ri.Check]; dup {
			continue
		}
		r.order = append(r.order, ri.Check)
		r.ids[ri.Check], r.urls[ri.Check] = ri.ID, ri.URL
	}
	s.runs, s.started = r, true
}

// Runs are the runs Start made, or nil.
func (s *Session) Runs() []RunInfo {
	if s.runs == nil {
		return nil
	}
	return s.runs.Infos()
}

// RunVerify calls Verify; a panic in it is an error, so that the runs
// are still concluded.
func (s *Session) RunVerify(ctx context.Context) (rep *report.Report, err error) {
	defer func() {
		if p := recover(); p != nil {
			rep, err = nil, fmt.Errorf("the verification stopped with an internal error: %v", p)
		}
	}()
	if s.Verify == nil {
		return nil, errors.New("publish: the session has no Verify")
	}
	rep, err = s.Verify(ctx)
	if err == nil && rep == nil {
		err = errors.New("the verification gave no report")
	}
	return rep, err
}

// Finish publishes the result of RunVerify: with an error, every run and
// the gate conclude as failure with it (Abort); with a report, the runs
// and the gate complete from it and the comment is published under
// CommentMode.
func (s *Session) Finish(ctx context.Context, rep *report.Report, verr error) Outcome {
	ctx, cancel := finishContext(ctx)
	defer cancel()
	out := Outcome{Mode: s.Mode, Err: verr}
	if verr != nil {
		title, summary := s.FailTitle, s.FailSummary
		if title == "" {
			title = "The verification did not finish"
		}
		if summary == "" {
			summary = "template-verify could not verify the pull request: "
		}
		if err := s.Abort(ctx, "failure", title, summary+verr.Error()); err != nil {
			out.Errs = append(out.Errs, err)
		}
		out.Runs = s.Runs()
		return out
	}
	out.Report = rep
	if s.Mode == ModeReadOnly {
		return out
	}
	if s.Mode == ModeWorkflowRun {
		if err := s.startFor(ctx, rep); err != nil {
			out.Errs = append(out.Errs, err)
			return out
		}
	}
	if s.runs == nil {
		return out
	}
	shown := rep
	if s.Untrusted {
		shown = report.MarkUntrusted(rep)
	}
	var err error
	if out.Runs, err = s.runs.Complete(ctx, shown, s.gateOf(ctx)); err != nil {
		out.Errs = append(out.Errs, err)
	}
	out.Gate = s.runs.gateDone
	out.Comment, out.Commented, err = s.comment(ctx, rep)
	if err != nil {
		out.Errs = append(out.Errs, err)
	}
	return out
}

// startFor makes the runs of a report read in ModeWorkflowRun.
func (s *Session) startFor(ctx context.Context, rep *report.Report) error {
	if err := s.open(); err != nil {
		return err
	}
	var names []string
	for _, r := range rep.Results {
		names = append(names, r.Check)
	}
	runs, err := s.pub.Start(ctx, names)
	if err != nil {
		return err
	}
	s.runs = runs
	return nil
}

// Abort concludes every run that is still open with conclusion (failure,
// or cancelled when a newer run replaces them), title and summary; the
// gate as failure wherever it applies. When no run was made yet (a
// session that failed before Start, or ModeWorkflowRun without a
// report), it makes the runs first, so that the gate says why. In
// ModeReadOnly it does nothing.
func (s *Session) Abort(ctx context.Context, conclusion, title, summary string) error {
	ctx, cancel := finishContext(ctx)
	defer cancel()
	if s.Mode == ModeReadOnly {
		return nil
	}
	if s.runs == nil {
		if err := s.open(); err != nil {
			return err
		}
		var names []string
		if s.Mode == ModeWrite {
			names = s.Checks
		}
		runs, err := s.pub.Start(ctx, names)
		if err != nil {
			return fmt.Errorf("make the check runs to conclude them: %w", err)
		}
		s.runs = runs
	}
	return s.runs.Abort(ctx, conclusion, title, summary, s.gateOf(ctx))
}

// comment publishes the comment of rep under CommentMode.
func (s *Session) comment(ctx context.Context, rep *report.Report) (CommentResult, bool, error) {
	if s.CommentMode == CommentOff || s.CommentMode == "" || s.Target.PR <= 0 {
		return CommentResult{}, false, nil
	}
	rep.Links = linksOf(s.ServerURL, s.Target.Owner, s.Target.Repo, s.runs, s.Target.DetailsURL)
	var body string
	var err error
	if s.Untrusted {
		body, err = rep.UntrustedMarkdown()
	} else {
		body, err = rep.Markdown()
	}
	if err != nil {
		return CommentResult{}, false, fmt.Errorf("render the comment: %w", err)
	}
	c, ok, err := s.pub.commentFor(ctx, s.CommentMode, rep, body)
	if err == nil && !ok {
		s.pub.log.Info("no comment", "comment-mode", s.CommentMode, "templates", len(rep.Templates), "overall", rep.Overall)
	}
	return c, ok, err
}

// gateOf reads the gate's policy once.
func (s *Session) gateOf(ctx context.Context) checks.Gate {
	if s.gate == nil {
		g := checks.Gate{PolicyErr: errors.New("the gate's policy was not read")}
		if s.Gate != nil {
			g = s.Gate(ctx)
		}
		if s.Untrusted {
			g.Untrusted = true
		}
		s.gate = &g
	}
	return *s.gate
}

func (s *Session) open() error {
	if s.pub != nil {
		return nil
	}
	t := s.Target
	if t.Log == nil {
		t.Log = slog.New(slog.DiscardHandler)
	}
	p, err := newPublisher(t)
	if err != nil {
		return err
	}
	s.pub = p
	return nil
}

// finishContext is ctx while it is live; once it is done, a new context
// that ends after finishTimeout.
func finishContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Err() == nil {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
}
