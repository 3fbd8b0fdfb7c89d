// Package report turns the results of one verification into every text
// that people and machines read: the pull-request comment in the house
// format (markdown, from the text/template files of package commenttmpl),
// each check run's title, summary, text and annotations within GitHub's
// limits (CheckRun), the gate's check run (GateRun, from the typed
// checks.GateVerdict), the outputs of a run in progress or stopped
// (Running, Aborted, Refused), the job summary, terminal text, and JSON.
// Checks return data; this package alone decides words and markup, with
// the rules of package markdown (a sentence, bold, a list, a location).
//
// One Report feeds every output, so they say the same thing: a finding
// reads the same in the comment and in its check run. A check
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
// The comment fits within 65,536 bytes, the stricter reading of GitHub's
// limit of 65,536 characters: when the full
// comment is longer, the largest parts (rendered diffs, finding details)
// are cut first, each cut named in the Notes section. Cuts happen in the
// model, before rendering, so a code fence or a table never breaks.
package report
