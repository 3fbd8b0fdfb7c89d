package verify

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
)

// selection is which checks run and why the others do not: the second
// step of Run.
type selection struct {
	run []checks.Check
	// others are the results of the checks that do not run: skipped, or
	// not run when the pull request turns a check off.
	others []checks.Result
	// notes say where a check runs with another time limit than the
	// head asks for.
	notes []string
}

// selectChecks builds the checks (opts.Checks, or DefaultChecks) and
// decides for each whether it runs: --only, a change without template work
// for it, and the head's configuration can keep it from running. A name in
// opts.Only that is no check is a *UsageError.
func selectChecks(ctx context.Context, opts Options, in *inputs, eff *effective) (*selection, error) {
	build := opts.Checks
	if build == nil {
		build = DefaultChecks
	}
	if err := checkNames(opts.Only, build()); err != nil {
		return nil, &UsageError{err}
	}
	sel := &selection{}
	for _, c := range build() {
		if len(opts.Only) > 0 && !slices.Contains(opts.Only, c.Name()) {
			sel.others = append(sel.others, checks.Result{
				Check: c.Name(), Conclusion: checks.Skipped,
				Title:   "Not selected with --only",
				Summary: "The check did not run because the command line selects other checks.",
			})
			continue
		}
		if r, skip := noTemplateWork(c, in.plan, eff.base, eff.config); skip {
			sel.others = append(sel.others, r)
			continue
		}
		if in.head.Disabled(c.Name()) {
			sel.others = append(sel.others, disabledResult(c.Name(), in.head, baseRan(ctx, in.repo, in.plan.MergeBase, eff.base, c.Name())))
			continue
		}
		sel.run = append(sel.run, c)
		sel.notes = append(sel.notes, limitNote(eff.policy, in.head, c.Name())...)
	}
	return sel, nil
}

// checkNames reports a name in only that is not a check.
func checkNames(only []string, list []checks.Check) error {
	var names []string
	for _, c := range list {
		names = append(names, c.Name())
	}
	for _, n := range only {
		if !slices.Contains(names, n) {
			return fmt.Errorf("unknown check %q (checks: %s)", n, strings.Join(names, ", "))
		}
	}
	return nil
}

// disabledResult reports a check that the head's config turns off. When the
// base ran it, this PR turns it off: that is "not run", so the gate fails
// and a reviewer sees it. Otherwise the check is skipped.
func disabledResult(name string, head *config.Config, baseRan bool) checks.Result {
	if baseRan {
		return checks.Result{
			Check: name, Conclusion: checks.NotRun,
			Title:   "This PR turns the check off",
			Summary: fmt.Sprintf("The head's %s turns %s off (checks.disable or a null block), but the base does not. The check did not run.", head.Source, name),
		}
	}
	return checks.Result{
		Check: name, Conclusion: checks.Skipped,
		Title:   "The config turns this check off",
		Summary: fmt.Sprintf("The check did not run because %s turns it off (checks.disable or a null block).", head.Source),
	}
}

// baseRan reports whether the base runs the check. A base whose
// configuration does not decode counts as running every check (fail
// closed). A base without a configuration file ran the defaults, which
// fit the datasmith layout: there a check ran only when the files the
// defaults name for it are at the base. So a PR that adds the file for
// the first time is verified with its own configuration, unless the
// defaults applied.
func baseRan(ctx context.Context, repo gitx.Repo, rev string, base *config.Config, name string) bool {
	switch {
	case base == nil:
		return true
	case base.Disabled(name):
		return false
	case name == "restore" && !base.Restore.Explicit && base.Source != config.Default().Source:
		// A config file with its own groups keeps the default restore
		// block, which names datasmith's group: where the groups have no
		// such group, the base ran no restore check of its own. (A step
		// the check finds elsewhere in the groups is not counted here.)
		_, _, err := base.ResolveTemplate(base.Restore.Template)
		return err == nil
	case base.Source != config.Default().Source:
		return true
	}
	exists := func(p string) bool {
		_, err := repo.Run(ctx, "cat-file", "-e", rev+":"+p)
		return err == nil
	}
	template := func(ref string) bool {
		g, rel, err := base.ResolveTemplate(ref)
		return err == nil && exists(path.Join(g.Root, rel))
	}
	switch name {
	case "restore":
		return template(base.Restore.Template)
	case "pytest":
		if r := base.Pytest.Runner; r != nil && template(r.Template) {
			return true
		}
		for _, s := range base.Pytest.Suites {
			if slices.ContainsFunc(s.Files, exists) {
				return true
			}
		}
		return false
	}
	return true
}

// limitNote says when the head asks for a time limit the base does not
// allow.
func limitNote(pol Policy, head *config.Config, check string) []string {
	d, ok := head.Checks.Timeouts[check]
	if !ok {
		return nil
	}
	if got := pol.Limit(head, check); got != d.Duration {
		return []string{fmt.Sprintf("The head's time limit of %s for the %s check is outside what the base allows (%s to %s); the check ran with %s.",
			d.Duration, check, MinCheckTimeout, limitOf(0, pol.Config.Timeout(check)), got)}
	}
	return nil
}
