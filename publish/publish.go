package publish

import (
	"context"
	"errors"
	"fmt"

	"github.com/formula-code/template-verify/report"
)

// Options says what Publish sends besides the check runs.
type Options struct {
	Gate    Gate
	Comment bool // publish the comment too
}

// Outcome is what Publish sent.
type Outcome struct {
	Runs    []RunInfo
	Comment CommentResult // zero when no comment was sent
}

// Publish sends a finished report: it starts and completes one check run
// per check and the gate, then publishes the comment. Callers that want
// the runs in progress while the checks run call Start before the
// verification and Runs.Complete after it instead.
func (p *Publisher) Publish(ctx context.Context, rep *report.Report, opts Options) (Outcome, error) {
	var names []string
	for _, r := range rep.Results {
		names = append(names, r.Check)
	}
	runs, err := p.Start(ctx, names)
	if err != nil {
		return Outcome{}, err
	}
	var out Outcome
	var errs []error
	out.Runs, err = runs.Complete(ctx, rep, opts.Gate)
	if err != nil {
		errs = append(errs, err)
	}
	if opts.Comment {
		body, err := rep.Markdown()
		if err != nil {
			errs = append(errs, fmt.Errorf("render the comment: %w", err))
		} else if out.Comment, err = p.Comment(ctx, body); err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}
