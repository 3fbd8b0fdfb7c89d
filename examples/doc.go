// Package examples holds datasmith-mini, a small original example of the
// datasmith template layout, and builds it into a real git repository.
//
// The example is stored as plain files and embedded in the binary:
//
//	datasmith-mini/base/...              the full tree of the base commit
//	datasmith-mini/base.message          the message of the base commit
//	datasmith-mini/heads/<name>/...      files that replace or add, applied on base
//	datasmith-mini/heads/<name>.delete   paths to delete, one per line (optional)
//	datasmith-mini/heads/<name>.message  the commit message of the head
//	datasmith-mini/heads/<name>.from     another head whose files apply first (optional)
//
// Build writes the base commit on branch main and one branch per head, each
// with one commit whose parent is the base commit. A ".from" file only
// changes the tree of a head, never its parent: the four bad restore heads
// are the good head's tree with one wrong restore step each.
//
// Files whose names end in ".sh" are executable (mode 100755) in git; every
// other file is 100644. embed.FS keeps no modes, so the rule is by suffix.
package examples
