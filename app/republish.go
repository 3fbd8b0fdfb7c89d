package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/publish"
	"github.com/formula-code/template-verify/report"
)

// maxPublishTries is how many times in a row a finished verification is
// tried to publish before the longer wait (publishRestDelay).
const maxPublishTries = 5

// publishRetryDelay is the wait before the next try.
const publishRetryDelay = time.Minute

// Unpublished is a finished verification whose publishing failed: the
// report (or the verification's error), the gate's policy read at the
// base, and the runs the session made. Publishing it again needs neither
// the clone nor a new verification.
type Unpublished struct {
	Report    *report.Report    `json:"report,omitempty"`
	VerifyErr string            `json:"verify_error,omitempty"`
	Gate      storedGate        `json:"gate"`
	Runs      []publish.RunInfo `json:"runs,omitempty"`
	// Tries counts the publishes that failed, over all starts.
	Tries int `json:"tries"`
	// Err is the error of the last try.
	Err string `json:"error"`
}

// storedGate is a checks.Gate that JSON keeps (PolicyErr as its text).
type storedGate struct {
	BaseRef   string   `json:"base_ref"`
	Branches  []string `json:"branches,omitempty"`
	PolicyErr string   `json:"policy_error,omitempty"`
}

func (g storedGate) gate() checks.Gate {
	out := checks.Gate{BaseRef: g.BaseRef, Branches: g.Branches}
	if g.PolicyErr != "" {
		out.PolicyErr = errors.New(g.PolicyErr)
	}
	return out
}

func newUnpublished(rep *report.Report, verr error, g checks.Gate, runs []publish.RunInfo) *Unpublished {
	u := &Unpublished{Report: rep, Runs: runs, Gate: storedGate{BaseRef: g.BaseRef, Branches: g.Branches}}
	if g.PolicyErr != nil {
		u.Gate.PolicyErr = g.PolicyErr.Error()
	}
	if verr != nil {
		u.Report, u.VerifyErr = nil, verr.Error()
	}
	return u
}

// keepUnpublished stores j with what it failed to publish and returns
// the snooze that tries again after publishDelay; after maxPublishTries
// tries in a row it waits publishRestDelay. The job keeps its head until
// it is published. A snooze is not an attempt in River.
func (s *server) keepUnpublished(ctx context.Context, j *Job, u *Unpublished, err error, log *slog.Logger) error {
	if j.Unpublished != nil {
		u.Tries = j.Unpublished.Tries
	}
	u.Tries++
	u.Err = redacted{err}.Error()
	j.State, j.Unpublished, j.CheckRunIDs = StatePublish, u, nil
	if perr := s.q.saveState(context.WithoutCancel(ctx), j); perr != nil {
		log.Error("store the verification that was not published; its check runs stay open", "error", perr, "publish-error", err)
		return perr
	}
	tries := s.publishTries
	if tries == 0 {
		tries = maxPublishTries
	}
	if u.Tries%tries == 0 {
		log.Error("publishing failed; it is tried again later", "tries", u.Tries, "in", publishRestDelay, "error", u.Err)
		return river.JobSnooze(publishRestDelay)
	}
	delay := s.publishDelay
	if delay == 0 {
		delay = publishRetryDelay
	}
	log.Warn("publishing failed; it is tried again", "tries", u.Tries, "in", delay, "error", u.Err)
	return river.JobSnooze(delay)
}

// publishRestDelay is the wait after maxPublishTries failed tries.
const publishRestDelay = time.Hour

// republish publishes a stored verification (StatePublish): it completes
// the runs the first try made, the gate and the comment, then the App's
// run. Nothing is verified again.
func (s *server) republish(rctx context.Context, j *Job) (string, error) {
	log := s.log.With(append([]any{"delivery", j.Delivery}, jobAttrs(j)...)...)
	u := j.Unpublished
	if u == nil {
		log.Error("a job to publish has nothing to publish")
		s.forget(j)
		return "error", nil
	}
	in, err := s.clients.Installation(j.Installation)
	if err != nil {
		return "unpublished", s.keepUnpublished(rctx, j, u, err, log)
	}
	sess := s.session(in, j, log)
	g := u.Gate.gate()
	sess.Gate = func(context.Context) checks.Gate { return g }
	sess.Verify = nil
	sess.Resume(u.Runs)
	var verr error
	if u.VerifyErr != "" {
		verr = errors.New(u.VerifyErr)
	}
	ctx, cancel := s.publishCtx(rctx)
	out := sess.Finish(ctx, u.Report, verr)
	cancel()
	ctx, cancel = s.publishCtx(rctx)
	cerr := s.conclude(ctx, in, j, out, log)
	cancel()
	if err := errors.Join(append(out.Errs, cerr)...); err != nil {
		return "unpublished", s.keepUnpublished(rctx, j, u, err, log)
	}
	log.Info("the verification is published", "tries", u.Tries+1)
	s.forget(j)
	return "published", nil
}
