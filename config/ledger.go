package config

import (
	"fmt"
	"strconv"
)

// Ledger configures the release ledger: for a pull request from a release
// branch into the branch it leaves from, every pull request merged into the
// release branch must have a green verification of the head it merged.
type Ledger struct {
	// Release are globs of release branch names.
	Release []string `yaml:"release"`
	// Into are globs of the branches a release branch merges into.
	Into []string `yaml:"into"`
	// RunName is the check run whose conclusion is a pull request's
	// verification.
	RunName string `yaml:"run_name"`
}

// DefaultLedgerRunName is ledger.run_name when unset: the gate's check run.
const DefaultLedgerRunName = "template-verify / gate"

// DefaultLedger is the datasmith ledger: release/* into main.
func DefaultLedger() *Ledger {
	return &Ledger{Release: []string{"release/*"}, Into: []string{"main"}}
}

// Run is ledger.run_name with its default.
func (l *Ledger) Run() string {
	if l.RunName == "" {
		return DefaultLedgerRunName
	}
	return l.RunName
}

// Applies reports whether a pull request from head into base is a release
// merge that the ledger checks. Both are branch names ("refs/heads/" and
// "origin/" are cut).
func (l *Ledger) Applies(base, head string) bool {
	return matchAny(l.Into, BranchName(base)) && matchAny(l.Release, BranchName(head))
}

// BranchName cuts "refs/heads/", "refs/remotes/origin/" and "origin/" from
// a ref.
func BranchName(ref string) string {
	for _, p := range []string{"refs/heads/", "refs/remotes/origin/", "origin/"} {
		if len(ref) > len(p) && ref[:len(p)] == p {
			return ref[len(p):]
		}
	}
	return ref
}

func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if MatchGlob(g, name) {
			return true
		}
	}
	return false
}

// validateLedger checks the ledger block.
func (c *Config) validateLedger(fail func(msg string, keyPath ...string) error) error {
	l := c.Ledger
	if l == nil {
		return nil
	}
	for _, key := range []string{"release", "into"} {
		list := l.Release
		if key == "into" {
			list = l.Into
		}
		if len(list) == 0 {
			return fail("ledger."+key+" lists no branches", "ledger", key)
		}
		for j, b := range list {
			if !validGlob(b) {
				return fail(fmt.Sprintf("ledger branch %q is not a valid glob", b), "ledger", key, strconv.Itoa(j))
			}
		}
	}
	return nil
}

// LedgerOf is the ledger block that judges a change: the head's, widened
// by the base's so that the head cannot step out of the ledger. The
// release and into branches of both count, and the base's run name wins.
// Nil when the head turns the check off.
func LedgerOf(base, head *Config) *Ledger {
	if head == nil || head.Ledger == nil {
		return nil
	}
	h := *head.Ledger
	if base == nil || base.Ledger == nil {
		return &h
	}
	b := base.Ledger
	out := h
	out.Release = unionStrings(b.Release, h.Release)
	out.Into = unionStrings(b.Into, h.Into)
	if b.RunName != "" || h.RunName != "" {
		out.RunName = b.Run()
	}
	return &out
}
