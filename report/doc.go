// Package report turns the results of one verification into every text
// that people and machines read: the pull-request comment in the house
// format (markdown, from the text/template files of the top-level
// templates package), each check run's title, summary, text and
// annotations within GitHub's limits (CheckRun), the gate's check run
// (GateRun, from the typed checks.GateVerdict), the outputs of a run in
// progress or stopped (Running, Aborted, Refused), the comment while a
// new push is verified (Verifying), the job summary, terminal text, and
// JSON (JSON, read back by ParseJSON).
//
// Who writes what: each check chooses the words of its own result (its
// title, summary, findings, figures and notes), with the shared helpers
// of package words (a count with its noun, a short sha, a code span), and
// builds no other markup. This package owns the markup and the layout of
// every output, with the rules of package markdown (escaping, a sentence,
// bold, a list, a location), and the words of the run as a whole: the
// verdict and its marks, the grouping of failures by cause, the Changes
// items (from the typed checks.Change), and the notes on what did not run.
//
// One Report feeds every output, so they say the same thing: a finding
// reads the same in the comment and in its check run. A check
// that did not run (checks.NotRun) is never shown as passed in any of them.
//
// The comment leads with the verdict: its first visible line is the mark
// (passed, failed, not run; skipped has a mark of its own), the verdict
// in bold, the head commit it verified and why. Then one bullet per cause
// of failure with its file and line (linked to the line at head when
// Links names the repository); the findings that share its root (the
// same line, the same undefined name, the same bash error in a test) fold
// under it as "also seen in". Then the links to the check runs and the
// workflow run. The house format's sections follow, with the detail (file
// tree, the checks' table, figures and findings, diffs, changes after the
// third, more than three notes) folded in <details>, so that a passing
// comment shows at most 25 lines.
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
