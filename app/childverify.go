package app

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/formula-code/template-verify/checks/ledger"
	"github.com/formula-code/template-verify/internal/githubapi"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
	"github.com/formula-code/template-verify/verify/child"
)

// runVerify runs the verification of j: in a child process when the
// configuration has a VerifyChild runner and no Verify of a test, else in
// this process through s.verify. In the child, a crash, a stack overflow
// or an out-of-memory ends that process alone: the head's checks are not
// run with the reason, and this server goes on.
func (s *server) runVerify(ctx context.Context, in *githubapi.Installation, j *Job, log *slog.Logger) (*report.Report, error) {
	cacheDir := s.cacheDir(ctx, j, log)
	since := time.Now().Add(-time.Second) // a coarse file clock never hides an entry
	defer s.keepCache(context.WithoutCancel(ctx), j, cacheDir, since, log)
	if s.cfg.Verify == nil && s.cfg.VerifyChild != nil {
		r := *s.cfg.VerifyChild
		if r.Checks == nil {
			r.Checks = slices.Clone(s.checks)
		}
		r.Log = log
		rep, err := r.Verify(ctx, child.Request{
			RepoDir: s.workDir(j), Base: j.BaseSHA, Head: j.HeadSHA, RepoName: j.FullName(), Description: j.Body,
			Sandbox: s.cfg.Sandbox, CacheDir: cacheDir, Ledger: &child.LedgerRefs{BaseRef: j.BaseRef, HeadRef: j.HeadRef},
			Debug: log.Enabled(ctx, slog.LevelDebug),
		}, &ledger.GitHub{Client: in.Client, Owner: j.Owner, Repo: j.Repo})
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		return rep, nil
	}
	rep, err := s.verify(ctx, verify.Options{
		RepoDir: s.workDir(j), Base: j.BaseSHA, Head: j.HeadSHA, RepoName: j.FullName(), Log: log, Description: j.Body,
		Checks: verify.ChecksWithGitHubLedger(in.Client, j.Owner, j.Repo, j.BaseRef, j.HeadRef), Sandbox: s.cfg.Sandbox,
		CacheDir: cacheDir,
	})
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	return rep, nil
}
