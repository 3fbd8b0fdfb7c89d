// Package report turns the results of one verification into the outputs
// that people and machines read: the pull-request comment in the house
// format (markdown, from the text/template files of package templates),
// terminal text, and JSON.
//
// One Report feeds every output, so the three say the same thing. A check
// that did not run (checks.NotRun) is never shown as passed in any of them.
//
// The comment leads with the verdict: its first visible line is the
// verdict in bold with a mark (passed, failed, not run) and why, then each
// failure with its file and line (linked to the line at head when Links
// names the repository), then the links to the check runs and the
// workflow run. The house format's sections follow, with the passing
// detail (file tree, each check's figures, tables and findings, diffs)
// folded in <details>.
//
// Every text that a check returns is data: package markdown escapes it,
// so no file name or log line can open HTML, ping someone, reference an
// issue, carry control characters, or forge the comment's Marker, which
// stays on the first line only.
//
// The comment fits GitHub's limit of 65,536 characters: when the full
// comment is longer, the largest parts (rendered diffs, finding details)
// are cut first, each cut named in the Notes section. Cuts happen in the
// model, before rendering, so a code fence or a table never breaks.
package report
