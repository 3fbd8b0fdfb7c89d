package report

import (
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/plan"
)

// Marker is the hidden first line of every comment. The publishers find
// the comment again by it, to edit it in place.
const Marker = "<!-- template-verify:comment -->"

// MaxCommentBytes is the size limit of the comment. GitHub's error says
// "maximum is 65536 characters" while peers measured the limit in bytes
// (262,144); 65,536 bytes fits both readings, as a UTF-8 byte count is
// never smaller than a character count (internal/ghcontract, CommentBody).
const MaxCommentBytes = 65536

// DefaultsSource is the ConfigSource value for a run without a
// configuration file.
const DefaultsSource = "(defaults)"

// Report is everything one verification found, in the order of its checks.
type Report struct {
	Repo             string // display name of the repository, e.g. "datasmith-mini" or owner/name
	BaseRev, HeadRev string // as the user gave them
	Base, Head       string // full shas
	MergeBase        string // sha
	Templates        []plan.Template
	Results          []checks.Result // in check order: render, restore, pytest ...
	Overall          checks.Conclusion
	Command          string // the exact command that reproduces the run
	ConfigSource     string // ".github/template-verify.yml" or DefaultsSource
	Notes            []string
	Duration         time.Duration
	// Links are the pages the comment links to, when the surface knows
	// them; the JSON and the terminal text leave them out.
	Links Links
}

// Word is the word a reader sees for a conclusion. Only Success reads
// "passed"; NotRun reads "not run", Skipped "skipped", and an unknown value
// "unknown".
func Word(c checks.Conclusion) string {
	switch c {
	case checks.Success:
		return "passed"
	case checks.Failure:
		return "failed"
	case checks.NotRun:
		return "not run"
	case checks.Skipped:
		return "skipped"
	case checks.TimedOut:
		return "timed out"
	case checks.Cancelled:
		return "cancelled"
	}
	return "unknown"
}

// counts tallies the conclusions of the results.
type counts struct {
	total, passed, failed, notRun, skipped, other int
}

func (r *Report) counts() counts {
	var c counts
	for _, res := range r.Results {
		c.total++
		switch {
		case res.Conclusion == checks.Success:
			c.passed++
		case res.Conclusion.Failed():
			c.failed++
		case res.Conclusion == checks.NotRun:
			c.notRun++
		case res.Conclusion == checks.Skipped:
			c.skipped++
		default:
			c.other++
		}
	}
	return c
}
