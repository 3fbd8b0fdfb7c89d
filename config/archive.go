package config

import (
	"fmt"
	"regexp"
	"strconv"
)

// Archive configures the archive check: dataset archives (tar, tar.gz,
// tar.zst) that the check compares member by member between base and head.
type Archive struct {
	// Paths are globs of repository paths of the archives to compare.
	Paths []string `yaml:"paths"`
	// Masks replace the parts of a diff that differ per member (a task's
	// base commit) before the diffs are grouped.
	Masks []Mask `yaml:"masks"`
	// Allow lists the kinds of member change that are warnings, not
	// failures: added, removed, order, mode, mtime, owner, type.
	Allow []string `yaml:"allow"`
	// MaxDiffBytes is the largest member whose content is diffed; a larger
	// changed member is reported by its size and hash only.
	MaxDiffBytes int64 `yaml:"max_diff_bytes"`
}

// Mask is one regular expression whose matches are replaced before diffs
// are grouped.
type Mask struct {
	Pattern string `yaml:"pattern"`
	Replace string `yaml:"replace"`
}

// ArchiveChangeKinds are the values of archive.allow.
var ArchiveChangeKinds = []string{"added", "removed", "order", "mode", "mtime", "owner", "type"}

// DefaultArchiveMaxDiff is archive.max_diff_bytes when unset.
const DefaultArchiveMaxDiff = 1 << 20

// DefaultArchive is the datasmith archive block: the dataset tars under
// data/, diffs grouped once the 40-hex commit shas are masked, and no
// change to the member list, order, mode, mtime or owner allowed (a
// dataset edit that only rewrites test.sh files changes none of them).
func DefaultArchive() *Archive {
	return &Archive{
		Paths: []string{"data/**/*.tar", "data/**/*.tar.gz", "data/**/*.tgz", "data/**/*.tar.zst"},
		Masks: []Mask{{Pattern: `\b[0-9a-f]{40}\b`, Replace: "<sha>"}},
	}
}

// MaxDiff is archive.max_diff_bytes with its default.
func (a *Archive) MaxDiff() int64 {
	if a.MaxDiffBytes <= 0 {
		return DefaultArchiveMaxDiff
	}
	return a.MaxDiffBytes
}

// Allows reports whether archive.allow lists the kind of change.
func (a *Archive) Allows(kind string) bool {
	for _, k := range a.Allow {
		if k == kind {
			return true
		}
	}
	return false
}

// validateArchive checks the archive block.
func (c *Config) validateArchive(fail func(msg string, keyPath ...string) error) error {
	a := c.Archive
	if a == nil {
		return nil
	}
	for j, p := range a.Paths {
		if !validGlob(p) {
			return fail(fmt.Sprintf("archive path %q is not a valid glob", p), "archive", "paths", strconv.Itoa(j))
		}
	}
	for j, m := range a.Masks {
		if m.Pattern == "" {
			return fail("an archive mask needs a pattern", "archive", "masks", strconv.Itoa(j))
		}
		if _, err := regexp.Compile(m.Pattern); err != nil {
			return fail(fmt.Sprintf("archive mask %q is not a valid regular expression: %v", m.Pattern, err), "archive", "masks", strconv.Itoa(j), "pattern")
		}
	}
	for j, k := range a.Allow {
		if !oneOf(k, ArchiveChangeKinds...) {
			return fail(fmt.Sprintf("archive.allow %q is not one of %v", k, ArchiveChangeKinds), "archive", "allow", strconv.Itoa(j))
		}
	}
	if a.MaxDiffBytes < 0 || a.MaxDiffBytes > 64<<20 {
		return fail("archive.max_diff_bytes must be between 0 and 67108864", "archive", "max_diff_bytes")
	}
	return nil
}

// ArchiveOf is the archive block that judges a change: the head's, widened
// by the base's so that the head cannot hide a change. The paths of both
// count, a change kind is allowed only when both allow it, and the larger
// max_diff_bytes wins. Nil when the head turns the check off.
func ArchiveOf(base, head *Config) *Archive {
	if head == nil || head.Archive == nil {
		return nil
	}
	h := *head.Archive
	if base == nil || base.Archive == nil {
		return &h
	}
	b := base.Archive
	out := h
	out.Paths = unionStrings(b.Paths, h.Paths)
	out.Allow = nil
	for _, k := range h.Allow {
		if b.Allows(k) {
			out.Allow = append(out.Allow, k)
		}
	}
	out.MaxDiffBytes = max(b.MaxDiffBytes, h.MaxDiffBytes)
	return &out
}

// unionStrings is a followed by the items of b that a lacks.
func unionStrings(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, s := range b {
		found := false
		for _, t := range out {
			found = found || s == t
		}
		if !found {
			out = append(out, s)
		}
	}
	return out
}
