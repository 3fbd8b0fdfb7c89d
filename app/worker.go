package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/githubapi"
	"github.com/formula-code/template-verify/publish"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// verifyWorker is River's worker of verifications.
type verifyWorker struct {
	river.WorkerDefaults[verifyArgs]
	s *server
}

// Work runs one verification. The job's state (its check runs, the runs
// the process did not survive, what failed to publish) is in the App's
// table: a job that a stopped or killed process left comes back here,
// on any replica, and finds it there.
func (w *verifyWorker) Work(ctx context.Context, job *river.Job[verifyArgs]) error {
	s := w.s
	done := s.active(job.ID)
	defer done()
	j := &job.Args.Job
	// Not ctx: a newer push's cancel may come now, and the run must
	// still conclude its check runs as superseded (runJob); a Work that
	// fails on the cancelled ctx leaves them open.
	var st *Job
	var ok, finished bool
	err := s.retryStore(context.WithoutCancel(ctx), "read the job", func(ctx context.Context) (err error) {
		if finished, err = s.q.finished(ctx, j.Delivery); err != nil || finished {
			return err
		}
		st, ok, err = s.q.loadState(ctx, j.Delivery)
		return err
	})
	if err != nil {
		return err
	}
	if finished {
		// River ran it again after its completion was lost.
		s.log.Info("the verification finished already", "delivery", j.Delivery, "job", job.ID)
		return nil
	}
	if ok {
		j = st
	}
	j.RiverID = job.ID
	s.running.Add(1)
	defer s.running.Add(-1)
	outcome, err := s.runJob(ctx, j)
	s.metrics.Job(kindVerify, outcome)
	return err
}

// runJob runs one verification and publishes it, and returns the
// outcome for /metrics and the error for River: a snooze to publish
// again later or to run again after a stop. Each publishing step gets
// its own budget (publishCtx), counted from when the step starts, so a
// verification that takes longer than publishTimeout still publishes.
// A publish that fails is stored (keepUnpublished): a later attempt
// concludes the check runs and the gate.
//
// The run stops when River cancels ctx: a newer push cancelled the job
// (JobCancel; River tells the replica that runs it by a notification on
// Postgres and by polling on SQLite), or when the server stops after the
// grace period (errShutdown on s.ctx).
func (s *server) runJob(rctx context.Context, j *Job) (string, error) {
	if j.State == StatePublish {
		return s.republish(rctx, j)
	}
	ctx, cancel := context.WithCancelCause(rctx)
	defer cancel(nil)
	// The database writes outlive a cancel of the run.
	dbctx := context.WithoutCancel(rctx)
	stopAfter := context.AfterFunc(s.ctx, func() { cancel(context.Cause(s.ctx)) })
	defer stopAfter()
	log := s.log.With(append([]any{"delivery", j.Delivery, "job", j.RiverID}, jobAttrs(j)...)...)
	in, err := s.clients.Installation(j.Installation)
	if err != nil {
		log.Error("installation client", "error", err)
		return "error", err
	}
	var prev []publish.RunInfo // the runs of the stopped attempt
	if j.State == StateRunning {
		// The process that ran it stopped or died during the run.
		if j.Attempts >= s.cfg.maxAttempts() {
			pubCtx, pubCancel := s.publishCtx(ctx)
			defer pubCancel()
			s.crashed(pubCtx, in, j, log)
			return "crashed", nil
		}
		log.Info("a run stopped with its process; it runs again", "attempts", j.Attempts)
		s.recoverRuns(dbctx, j)
		pubCtx, pubCancel := s.publishCtx(ctx)
		prev = s.resumeRuns(pubCtx, in, j, log)
		pubCancel()
	}
	if newer, ok := s.superseded(dbctx, j); ok {
		pubCtx, pubCancel := s.publishCtx(ctx)
		defer pubCancel()
		s.cancelled(pubCtx, in, j, prev, newer, log)
		return "superseded", nil
	}
	j.State = StateRunning
	j.Attempts++
	if err := s.saveStateRetry(dbctx, j); err != nil {
		// Nothing ran: River runs the job again later.
		log.Error("store the job", "error", err)
		return "error", err
	}
	start := time.Now()
	log.Info("verification starts", "attempt", j.Attempts)
	pubCtx, pubCancel := s.publishCtx(ctx)
	err = s.setRun(pubCtx, in, j, "", "The verification runs", fmt.Sprintf("template-verify verifies %s.", code(short(j.HeadSHA))))
	pubCancel()
	if err != nil {
		log.Warn("mark the check run in progress", "error", err)
	}
	sess := s.session(in, j, log)
	// The runs of the stopped attempt are completed, not made again.
	sess.Resume(prev)
	var gate *checks.Gate // the gate the session read, kept if publishing fails
	readGate := sess.Gate
	sess.Gate = func(ctx context.Context) checks.Gate {
		if gate == nil {
			g := readGate(ctx)
			gate = &g
		}
		return *gate
	}
	rep, err := s.execute(ctx, in, j, sess)
	if ctx.Err() != nil && !errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		if errors.Is(context.Cause(ctx), errShutdown) {
			// A stop is not a crash: the attempt does not count. The
			// runs stay open; the next run concludes them.
			j.Attempts--
			if err := s.q.saveState(dbctx, j); err != nil {
				log.Error("store the job", "error", err)
			}
			log.Info("the server stops; the run goes back to the queue")
			return "stopped", river.JobSnooze(0)
		}
		newer, _ := s.superseded(dbctx, j)
		pubCtx, pubCancel := s.publishCtx(ctx)
		defer pubCancel()
		s.cancelled(pubCtx, in, j, sess.Runs(), newer, log)
		return "superseded", nil
	}
	defer s.removeWork(j)
	s.metrics.Run(time.Since(start))
	if ctx.Err() != nil {
		err = fmt.Errorf("the verification ran longer than the rescue time (%v, serve --rescue-after): %w", s.rescueAfter(), ctx.Err())
	}
	if err != nil {
		err = redacted{err}
		log.Error("verification failed", "error", err)
	}
	// What is published is stored first: a process that dies while it
	// publishes leaves a job that publishes it (republish), completing
	// the same runs, the same gate and the same comment; nothing is
	// verified again.
	gctx, gcancel := s.publishCtx(ctx)
	sess.Gate(gctx)
	gcancel()
	j.State, j.Unpublished = StatePublish, newUnpublished(rep, err, *gate, sess.Runs())
	if serr := s.saveStateRetry(dbctx, j); serr != nil {
		log.Warn("store the verification before publishing it", "error", serr)
	}
	pubCtx, pubCancel = s.publishCtx(ctx)
	out := sess.Finish(pubCtx, rep, err)
	pubCancel()
	pubCtx, pubCancel = s.publishCtx(ctx)
	cerr := s.conclude(pubCtx, in, j, out, log)
	pubCancel()
	if perr := errors.Join(append(out.Errs, cerr)...); perr != nil {
		if gate == nil {
			gate = &checks.Gate{PolicyErr: errors.New("the gate's policy was not read")}
		}
		return "unpublished", s.keepUnpublished(ctx, j, newUnpublished(rep, err, *gate, sess.Runs()), perr, log)
	}
	s.forget(j)
	if err != nil {
		return "failure", nil
	}
	return "verified", nil
}

// superseded returns the newer head of j's pull request, if a newer
// push queued one.
func (s *server) superseded(ctx context.Context, j *Job) (string, bool) {
	latest, err := s.q.latestHead(ctx, prKeyOf(j))
	if err != nil {
		s.log.Warn("read the newest head", "delivery", j.Delivery, "error", err)
		return "", false
	}
	return latest, latest != "" && !strings.EqualFold(latest, j.HeadSHA)
}

// redacted is an error whose text has no GitHub token (a clone error
// may quote a URL with one).
type redacted struct{ err error }

func (r redacted) Error() string { return githubapi.RedactTokens(r.err.Error()) }
func (r redacted) Unwrap() error { return r.err }

// session is the publishing session of j: write mode, the check runs of
// the App's checks, the gate's policy read at the base commit of the
// clone (verify.GatePolicy; without a clone it is unknown and the gate
// applies), and the comment under commentMode.
func (s *server) session(in *githubapi.Installation, j *Job, log *slog.Logger) *publish.Session {
	return &publish.Session{
		Mode: publish.ModeWrite,
		Target: publish.Target{
			Client: in.Client, Owner: j.Owner, Repo: j.Repo, HeadSHA: j.HeadSHA, PR: j.PR,
			CommentAuthor: s.bot, Clock: s.cfg.Clock, Log: log,
		},
		Checks: s.checks,
		Gate: func(ctx context.Context) checks.Gate {
			return verify.GatePolicy(ctx, s.workDir(j), j.BaseSHA, "").Gate(j.BaseRef)
		},
		CommentMode: commentMode(j),
		ServerURL:   webOrigin(j.CloneURL),
		FailTitle:   "The verification stopped",
		FailSummary: "template-verify could not finish the verification: ",
		Verify: func(ctx context.Context) (*report.Report, error) {
			return s.runVerify(ctx, in, j, log)
		},
	}
}

// crashed concludes a job whose runs the process did not survive
// MaxAttempts times, instead of running it again.
func (s *server) crashed(ctx context.Context, in *githubapi.Installation, j *Job, log *slog.Logger) {
	defer s.removeWork(j)
	defer s.forget(j)
	title := fmt.Sprintf("The verification crashed %d times", j.Attempts)
	summary := fmt.Sprintf("The verification crashed %d times: the template-verify server stopped during each of %d runs of %s, so it does not run it again. "+
		"A template or test that kills the process is the likely cause. A new push, or a maintainer's `%s` comment, starts a new run.",
		j.Attempts, j.Attempts, code(short(j.HeadSHA)), CommandWord)
	log.Error("the verification crashed; it does not run again", "attempts", j.Attempts)
	if len(j.CheckRunIDs) > 0 {
		// The runs of the last attempt, the gate among them.
		if err := s.closeRuns(ctx, in, j, j.CheckRunIDs, "failure", title, summary); err != nil {
			log.Warn("conclude the check runs of the crashed run", "error", err)
		}
	} else if err := s.session(in, j, log).Abort(ctx, "failure", title, summary); err != nil {
		log.Warn("conclude the check runs", "error", err)
	}
	if err := s.setRun(ctx, in, j, "failure", title, summary); err != nil {
		log.Warn("conclude the check run", "error", err)
	}
}

// execute clones and verifies through the session: the check runs start
// once the clone is there, and their ids are stored so that a restart
// concludes them. A clone error makes no runs; Finish then makes and
// concludes them.
func (s *server) execute(ctx context.Context, in *githubapi.Installation, j *Job, sess *publish.Session) (*report.Report, error) {
	dir := s.workDir(j)
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("clean the work folder: %w", err)
	}
	token, err := in.Token(ctx)
	if err != nil {
		return nil, err
	}
	if err := clone(ctx, j.CloneURL, token, dir, j.BaseSHA, j.HeadSHA); err != nil {
		return nil, err
	}
	token = ""
	if err := sess.Start(ctx); err != nil {
		return nil, err
	}
	j.CheckRunIDs = nil
	for _, r := range sess.Runs() {
		j.CheckRunIDs = append(j.CheckRunIDs, r.ID)
	}
	// The ids let a restart complete these runs. When the database does
	// not answer through the retry window, the verification goes on: a
	// restart finds the open runs on the head (recoverRuns).
	if err := s.saveStateRetry(context.WithoutCancel(ctx), j); err != nil {
		s.log.Warn("store the check runs of the job", append(jobAttrs(j), "error", err)...)
	}
	// The comment shows "verifying <sha>…" over the previous result until
	// Finish replaces it; a failure here costs only that line.
	if _, err := sess.MarkVerifying(ctx); err != nil {
		s.log.Warn("the comment does not show that a new push is verified", append(jobAttrs(j), "error", err)...)
	}
	return sess.RunVerify(ctx)
}

// conclude concludes the App's own check run from the outcome: failure
// with the reason when the verification failed, else the checks'
// conclusions, never passed when the gate fails.
func (s *server) conclude(ctx context.Context, in *githubapi.Installation, j *Job, out publish.Outcome, log *slog.Logger) error {
	for _, e := range out.Errs {
		log.Warn("publish", "error", e)
	}
	if out.Err != nil {
		if err := s.setRun(ctx, in, j, "failure", "The verification stopped", "template-verify could not finish the verification: "+out.Err.Error()); err != nil {
			log.Warn("conclude the check run", "error", err)
			return err
		}
		return nil
	}
	var lines []string
	for _, r := range out.Runs {
		lines = append(lines, fmt.Sprintf("- %s: %s", publish.RunName(r.Check), r.Conclusion))
	}
	summary := fmt.Sprintf("template-verify verified %s. The checks concluded:\n\n%s", code(short(j.HeadSHA)), strings.Join(lines, "\n"))
	if out.Comment.URL != "" {
		summary += "\n\nThe pull-request comment has the report: " + out.Comment.URL
	}
	// The App's run never reads as passed when the gate fails: a check
	// that did not run is neutral, which GitHub counts as passed.
	concl := out.Report.Overall.CheckRun()
	if out.Gate.Verdict.Conclusion == checks.GateFailed {
		concl = "failure"
	}
	if err := s.setRun(ctx, in, j, concl, "The verification finished: "+out.Gate.Title, summary); err != nil {
		log.Warn("conclude the check run", "error", err)
		return err
	}
	log.Info("verification finished", "conclusion", concl, "gate", out.Gate.Verdict.Conclusion)
	return nil
}

// commentMode is when the App comments: publish.DefaultCommentMode (only
// when a template changed, or the comment exists), and always when a
// maintainer asked for the run with a comment, which expects an answer.
func commentMode(j *Job) publish.CommentMode {
	if j.Event == "issue_comment" {
		return publish.CommentAlways
	}
	return publish.DefaultCommentMode
}

// cancelled concludes the runs of a job whose head a newer push replaced.
func (s *server) cancelled(ctx context.Context, in *githubapi.Installation, j *Job, runs []publish.RunInfo, newer string, log *slog.Logger) {
	defer s.removeWork(j)
	defer s.forget(j)
	why := supersededWhy(j, newer)
	var ids []int64
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	if len(ids) == 0 {
		// A cancel while the session made the runs (Start) leaves the
		// runs it made open with their ids on GitHub only; one job holds
		// a head, so the open runs of the head are this job's.
		open, err := s.openRunsOf(ctx, j)
		if err != nil {
			log.Warn("find the check runs of the cancelled run", "error", err)
		}
		ids = open
	}
	if len(ids) > 0 {
		if err := s.closeRuns(ctx, in, j, ids, "cancelled", "Cancelled: a newer push replaced this commit", why); err != nil {
			log.Warn("cancel the check runs", "error", err)
		}
	}
	if err := s.setRun(ctx, in, j, "cancelled", "Cancelled: a newer push replaced this commit", why); err != nil {
		log.Warn("cancel the check run", "error", err)
	}
	log.Info("run cancelled", "newer", newer)
}

// supersededWhy is the summary of the runs of j's head, which the newer
// head replaced.
func supersededWhy(j *Job, newer string) string {
	return fmt.Sprintf("A newer push (%s) replaced %s, so template-verify stopped this run. The run of the newer commit replaces it.", code(short(newer)), code(short(j.HeadSHA)))
}

// webOrigin is the scheme and host of a clone URL: the web server whose
// pages the comment links to. It is empty when the URL does not parse.
func webOrigin(cloneURL string) string {
	u, err := url.Parse(cloneURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// rescueAfter is Config.RescueAfter or its default.
func (s *server) rescueAfter() time.Duration {
	if s.cfg.RescueAfter > 0 {
		return s.cfg.RescueAfter
	}
	return DefaultRescueAfter
}
