package verify

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/render"
	"github.com/formula-code/template-verify/internal/sandbox"
	"github.com/formula-code/template-verify/report"
)

// runSelected is the last step of Run: it runs the selected checks
// concurrently in a work folder, each under the time limit the policy
// allows, and puts their results with the others' into rep.
func runSelected(ctx context.Context, opts Options, in *inputs, eff *effective, sel *selection, rep *report.Report) error {
	work, err := os.MkdirTemp("", "template-verify-")
	if err != nil {
		return fmt.Errorf("work folder: %w", err)
	}
	defer os.RemoveAll(work)
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cin := &checks.Input{Repo: opts.RepoDir, Plan: in.plan, Config: eff.config, BaseConfig: eff.base, WorkDir: work, Log: log, Description: opts.Description}
	render.DumpTo(sel.run, opts.DumpRenders)
	runner := &checks.Runner{Timeout: func(check string) time.Duration { return eff.policy.Limit(in.head, check) }, Progress: opts.Progress}
	results := append(runner.Run(ctx, cin, sel.run), sel.others...)
	results = markUncovered(results, eff.uncovered, in.cfgPath)
	attachScope(results, eff.scope)
	rep.Results = results
	rep.Overall = checks.Overall(results)
	rep.Notes = append(rep.Notes, sandbox.Describe(ctx))
	return nil
}
