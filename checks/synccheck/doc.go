// Package synccheck is the sync check (named "sync" in the configuration
// and the report): copies of one list or
// text that must stay equal, such as the restore patterns of tests/test.sh
// and PROTECTED_PATCH_PATTERNS of the grader. Each copy is a file and an
// extractor (a bash array, a Python literal, a Jinja variable default, the
// lines between two markers); a copy in a template is rendered first, in a
// render worker. The check fails when the change makes copies that were
// equal at the base differ, and warns when they already differed.
//
// Without a sync block it also discovers groups (discover.go): a list of
// a changed file that equals, at the base, a list of another file, one of
// the two a template. lists*.go read the lists of each format.
//
// The folder and the package are named synccheck, not sync: the package
// imports the standard library's sync, and so may its importers.
package synccheck
