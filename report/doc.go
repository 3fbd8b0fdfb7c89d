// Package report turns the results of one verification into the outputs
// that people and machines read: the pull-request comment in the house
// format (markdown, from the text/template files of package templates),
// terminal text, and JSON.
//
// One Report feeds every output, so the three say the same thing. A check
// that did not run (checks.NotRun) is never shown as passed in any of them.
//
// The comment fits GitHub's limit of 65,536 characters: when the full
// comment is longer, the largest parts (rendered diffs, finding details)
// are cut first, each cut named in the Notes section. Cuts happen in the
// model, before rendering, so a code fence or a table never breaks.
package report
