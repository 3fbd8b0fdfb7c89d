package publish

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/report"
)

// RunName is the check-run name of a check: "template-verify / render".
func RunName(check string) string { return "template-verify / " + check }

// GateResult is the gate a session sent: the verdict and the title of its
// check run.
type GateResult struct {
	Verdict checks.GateVerdict
	Title   string
}

// RunInfo is one published check run.
type RunInfo struct {
	Check      string
	ID         int64
	URL        string
	Conclusion string
}

// checkRuns are the check runs of one verification, from Start to Complete or
// Abort.
type checkRuns struct {
	p     *publisher
	order []string
	ids   map[string]int64
	urls  map[string]string
	done  map[string]string // check -> conclusion sent
	// gateDone is the gate Complete sent.
	gateDone GateResult
}

// Start creates one check run per check, and the gate, on the head commit
// as in_progress. When a create fails, Start completes the runs it made
// (failure, with the error: a run that was not verified never reads as
// passed) and returns the error.
func (p *publisher) Start(ctx context.Context, names []string) (*checkRuns, error) {
	r := &checkRuns{p: p, ids: map[string]int64{}, urls: map[string]string{}, done: map[string]string{}}
	for _, n := range append(slices.Clone(names), checks.GateCheck) {
		if _, dup := r.ids[n]; dup || n == "" {
			continue
		}
		cr, _, err := p.client.Checks.CreateCheckRun(ctx, p.owner, p.repo, github.CreateCheckRunOptions{
			Name:       RunName(n),
			HeadSHA:    p.headSHA,
			DetailsURL: p.detailsURL(),
			Status:     ptr("in_progress"),
			StartedAt:  &github.Timestamp{Time: p.clock.Now()},
			Output:     runOutput(report.Running(n, p.headSHA), nil),
		})
		if err != nil {
			err = fmt.Errorf("create the check run %q: %w", RunName(n), err)
			stopped := report.PublishStopped(err)
			if aerr := r.Abort(ctx, "failure", stopped.Title, stopped.Summary, checks.Gate{}); aerr != nil {
				err = errors.Join(err, aerr)
			}
			return nil, err
		}
		r.order = append(r.order, n)
		r.ids[n] = cr.GetID()
		r.urls[n] = cr.GetHTMLURL()
	}
	return r, nil
}

// Complete completes every check run from the report: its conclusion,
// title, summary, text and annotations (50 a request, the later requests
// append). A check in the report that has no run yet gets a new completed
// run; a run with no result in the report completes as neutral. The gate
// completes last. Every run is completed even when some fail; the error
// joins what failed.
func (r *checkRuns) Complete(ctx context.Context, rep *report.Report, gate checks.Gate) ([]RunInfo, error) {
	var errs []error
	results := slices.Clone(rep.Results)
	seen := map[string]bool{}
	for _, res := range rep.Results {
		seen[res.Check] = true
		out := report.CheckRun(res, rep.Command, r.p.maxAnn)
		if err := r.complete(ctx, res.Check, res.Conclusion.CheckRun(), out); err != nil {
			errs = append(errs, err)
		}
	}
	for _, n := range r.order {
		if n == checks.GateCheck || seen[n] {
			continue
		}
		res := report.NoResult(n)
		results = append(results, res)
		if err := r.complete(ctx, n, res.Conclusion.CheckRun(), report.CheckRun(res, rep.Command, r.p.maxAnn)); err != nil {
			errs = append(errs, err)
		}
	}
	v := checks.GateOf(results, gate)
	out := report.GateRun(v)
	r.gateDone = GateResult{Verdict: v, Title: out.Title}
	if err := r.complete(ctx, checks.GateCheck, string(v.Conclusion), out); err != nil {
		errs = append(errs, err)
	}
	return r.Infos(), errors.Join(errs...)
}

// Abort completes every run that is still open: the checks with conclusion
// (failure, or cancelled when a newer run replaces them) and the summary
// that says what failed, the gate with failure and the same summary when
// it applies (always when its policy is unknown), else skipped. Callers
// never pass neutral or success: GitHub counts those as passed.
func (r *checkRuns) Abort(ctx context.Context, conclusion, title, summary string, gate checks.Gate) error {
	var errs []error
	for _, n := range r.order {
		if _, ok := r.done[n]; ok {
			continue
		}
		c := conclusion
		if n == checks.GateCheck {
			c = "failure"
			if !gate.Applies() {
				c = "skipped"
			}
		}
		if err := r.complete(ctx, n, c, report.Aborted(title, summary)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Infos lists the runs in the order they were made.
func (r *checkRuns) Infos() []RunInfo {
	var out []RunInfo
	for _, n := range r.order {
		out = append(out, RunInfo{Check: n, ID: r.ids[n], URL: r.urls[n], Conclusion: r.done[n]})
	}
	return out
}

// complete sends the conclusion and output of one check run, then the
// rest of its annotations. When GitHub refuses the output, it tries once
// more with a short output that says why, so the run never stays
// in_progress.
func (r *checkRuns) complete(ctx context.Context, check, conclusion string, out report.RunOutput) error {
	batches := chunks(out.Annotations, report.AnnotationsPerRequest)
	first := runOutput(out, batches[0])
	err := r.send(ctx, check, conclusion, first)
	if err != nil {
		err = fmt.Errorf("complete the check run %q: %w", RunName(check), err)
		if err2 := r.send(ctx, check, conclusion, runOutput(report.Refused(out.Title, err), nil)); err2 != nil {
			return errors.Join(err, fmt.Errorf("complete the check run %q with a short output: %w", RunName(check), err2))
		}
		return err
	}
	for i, b := range batches[1:] {
		if _, _, err := r.p.client.Checks.UpdateCheckRun(ctx, r.p.owner, r.p.repo, r.ids[check], github.UpdateCheckRunOptions{
			Name:   RunName(check),
			Output: runOutput(out, b),
		}); err != nil {
			return fmt.Errorf("add annotations %d to %d to the check run %q: %w", (i+1)*report.AnnotationsPerRequest+1, (i+1)*report.AnnotationsPerRequest+len(b), RunName(check), err)
		}
	}
	return nil
}

// send completes the run of check, or creates it completed when Start did
// not make it.
func (r *checkRuns) send(ctx context.Context, check, conclusion string, out *github.CheckRunOutput) error {
	now := &github.Timestamp{Time: r.p.clock.Now()}
	id, ok := r.ids[check]
	var cr *github.CheckRun
	var err error
	if ok {
		cr, _, err = r.p.client.Checks.UpdateCheckRun(ctx, r.p.owner, r.p.repo, id, github.UpdateCheckRunOptions{
			Name: RunName(check), Status: ptr("completed"), Conclusion: ptr(conclusion), CompletedAt: now, Output: out,
		})
	} else {
		cr, _, err = r.p.client.Checks.CreateCheckRun(ctx, r.p.owner, r.p.repo, github.CreateCheckRunOptions{
			Name: RunName(check), HeadSHA: r.p.headSHA, DetailsURL: r.p.detailsURL(),
			Status: ptr("completed"), Conclusion: ptr(conclusion), StartedAt: now, CompletedAt: now, Output: out,
		})
	}
	if err != nil {
		return err
	}
	if !ok {
		r.order = append(r.order, check)
		r.ids[check] = cr.GetID()
		r.urls[check] = cr.GetHTMLURL()
	}
	r.done[check] = conclusion
	return nil
}

// runOutput is the output of one request: title, summary and text every
// time (GitHub needs the title and summary), with one batch of
// annotations.
func runOutput(out report.RunOutput, batch []report.Annotation) *github.CheckRunOutput {
	o := &github.CheckRunOutput{Title: ptr(out.Title), Summary: ptr(out.Summary)}
	if out.Text != "" {
		o.Text = ptr(out.Text)
	}
	for _, a := range batch {
		ga := &github.CheckRunAnnotation{
			Path:            ptr(a.Path),
			StartLine:       ptr(a.StartLine),
			EndLine:         ptr(a.EndLine),
			AnnotationLevel: ptr(a.Level),
			Message:         ptr(a.Message),
		}
		if a.Title != "" {
			ga.Title = ptr(a.Title)
		}
		if a.Details != "" {
			ga.RawDetails = ptr(a.Details)
		}
		o.Annotations = append(o.Annotations, ga)
	}
	return o
}

// chunks splits as into batches of n; no annotations is one empty batch.
func chunks(as []report.Annotation, n int) [][]report.Annotation {
	if len(as) == 0 {
		return [][]report.Annotation{nil}
	}
	var out [][]report.Annotation
	for len(as) > n {
		out = append(out, as[:n])
		as = as[n:]
	}
	return append(out, as)
}

func (p *publisher) detailsURL() *string {
	if p.details == "" {
		return nil
	}
	return ptr(p.details)
}
