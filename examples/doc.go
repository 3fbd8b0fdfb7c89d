// Package examples holds datasmith-mini, a small original example of the
// datasmith template layout, and builds it into a real git repository.
//
// The example is stored as plain files and embedded in the binary:
//
//	datasmith-mini/base/...              the full tree of the base commit
//	datasmith-mini/base.message          the message of the base commit
//	datasmith-mini/heads/<name>.patch    the head's change, a git diff applied with git apply
//	datasmith-mini/heads/<name>.message  the commit message of the head
//	datasmith-mini/heads/<name>.from     another head whose patch applies first (optional)
//	datasmith-mini/heads/<name>.base     another head the pull request targets (optional)
//
// Build writes the base commit on branch main and one branch per head, each
// with one commit whose parent is the base commit. A ".from" file only
// changes the tree of a head, never its parent: the bad restore heads are
// the good head's tree with one wrong restore step each. A ".base" file
// changes the parent: the head's commit is on top of that head's commit,
// and its pull request targets that branch (Built.BaseOf, BaseBranchOf),
// as prompt-on-failing-base targets bad-restore-spaces.
//
// Some heads are not made by Build: the tests that use them build them on
// a copy of the example (heads_test.go, taint_test.go), honoring .from and
// .base. copied-helper adds a helper the config lists under copy:;
// config-added adds the config file to without-config, which removes it.
// Their patches hold the whole config file, so a change to the base config
// means writing them again ("git diff main without-config", and "git diff
// without-config good" for config-added, whose tree is the good head's).
//
// In the base tree, files whose names end in ".sh" are executable (mode
// 100755) in git; every other file is 100644. embed.FS keeps no modes, so
// the rule is by suffix; a patch carries its own modes. To change a head,
// build the example (template-verify demo --keep DIR), commit on the head's
// branch, and write "git diff FROM HEAD" into its .patch file.
package examples
