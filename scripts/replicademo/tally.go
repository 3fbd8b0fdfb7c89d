// The count: what the fake GitHub recorded, per head, against what one
// verification and one publication of each head would leave.

package main

import (
	"bufio"
	"fmt"
	"os"
	"slices"

	"github.com/formula-code/template-verify/app"
	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/publish"
)

// gateName is the gate's check run.
var gateName = publish.RunName("gate")

// record is what the count reads: the fake GitHub's check runs and
// comments, the heads, and the stub verifications that finished.
type record struct {
	runs []fakegithub.CheckRun
	// comments are the comments of each pull request.
	comments map[int][]fakegithub.Comment
	// pulls maps every head, superseded or final, to its pull request.
	pulls map[string]int
	// finals are the heads each pull request ends at.
	finals map[string]bool
	// verified counts the stub verifications that ran to the end, by
	// head.
	verified map[string]int
}

// tally is the count. Each field but leftOpen counts heads (a second
// comment: the final head of a pull request with more than one).
type tally struct {
	heads int // final heads
	// verifiedOnce: final heads the stub verified once to the end, whose
	// check-run set (the App's run, the checks' runs) and gate were made
	// once and concluded success, with one comment on the pull request.
	verifiedOnce int
	// secondSets: heads with a check-run name made more than once, the
	// gate aside.
	secondSets int
	// secondGates: heads with more than one gate run.
	secondGates int
	// secondComments: pull requests with more than one comment.
	secondComments int
	// leftOpen: check runs (not heads) that are not completed.
	leftOpen int
	// falseFailures: heads with a run concluded failure, timed_out or
	// action_required, all of them caused by a kill or the outage, as
	// every stub verification succeeds.
	falseFailures int
	// lost: final heads whose App run did not conclude with a verdict
	// (completed, and neither cancelled nor skipped).
	lost int
	// notes say which head each count came from.
	notes []string
}

// count counts r.
func count(r record) tally {
	byHead := map[string][]fakegithub.CheckRun{}
	for _, c := range r.runs {
		byHead[c.HeadSHA] = append(byHead[c.HeadSHA], c)
	}
	t := tally{heads: len(r.finals)}
	note := func(format string, a ...any) { t.notes = append(t.notes, fmt.Sprintf(format, a...)) }
	heads := make([]string, 0, len(r.pulls))
	for h := range r.pulls {
		heads = append(heads, h)
	}
	slices.Sort(heads)
	for _, h := range heads {
		pr, final := r.pulls[h], r.finals[h]
		made := map[string]int{}
		success := map[string]bool{}
		failed, verdict := false, false
		for _, c := range byHead[h] {
			made[c.Name]++
			if c.Status != "completed" {
				t.leftOpen++
				note("%s run %d %q of #%d is still %s", kind(final), c.ID, c.Name, pr, c.Status)
				continue
			}
			switch c.Conclusion {
			case "failure", "timed_out", "action_required":
				failed = true
				note("%s run %d %q of #%d concluded %s: %s: %.200s", kind(final), c.ID, c.Name, pr, c.Conclusion, c.Title, c.Summary)
			case "success":
				success[c.Name] = true
			}
			if c.Name == app.RunName && c.Conclusion != "cancelled" && c.Conclusion != "skipped" {
				verdict = true
			}
		}
		sets := 0
		for name, n := range made {
			if name != gateName {
				sets = max(sets, n)
			}
		}
		if sets > 1 {
			t.secondSets++
			note("%s head %s of #%d has %d check-run sets: %v", kind(final), short(h), pr, sets, made)
		}
		if made[gateName] > 1 {
			t.secondGates++
			note("%s head %s of #%d has %d gate runs", kind(final), short(h), pr, made[gateName])
		}
		if failed {
			t.falseFailures++
		}
		if !final {
			continue
		}
		comments := len(r.comments[pr])
		if comments > 1 {
			t.secondComments++
			note("#%d has %d comments", pr, comments)
		}
		if !verdict {
			t.lost++
			note("final head %s of #%d has no verdict", short(h), pr)
		}
		once := r.verified[h] == 1 && sets == 1 && made[gateName] == 1 && comments == 1 &&
			success[app.RunName] && success[gateName] && !failed
		if once {
			t.verifiedOnce++
		} else if r.verified[h] != 1 {
			note("final head %s of #%d was verified to the end %d times", short(h), pr, r.verified[h])
		}
	}
	return t
}

func kind(final bool) string {
	if final {
		return "final"
	}
	return "superseded"
}

func short(sha string) string { return sha[:min(len(sha), 7)] }

// line is the demonstration's one line.
func (t tally) line() string {
	return fmt.Sprintf("heads %d, verified once %d, second check-run sets %d, second gates %d, second comments %d, left open %d, false failures %d, lost %d",
		t.heads, t.verifiedOnce, t.secondSets, t.secondGates, t.secondComments, t.leftOpen, t.falseFailures, t.lost)
}

// ok says whether every final head was verified once and nothing was
// made twice, left open, failed or lost.
func (t tally) ok() bool {
	return t.heads > 0 && t.verifiedOnce == t.heads && t.secondSets == 0 && t.secondGates == 0 &&
		t.secondComments == 0 && t.leftOpen == 0 && t.falseFailures == 0 && t.lost == 0
}

// stubRecord reads the stubs' lines ("start|done REPLICA HEAD"): the
// verifications that ran to the end by head, and every line in order.
func stubRecord(file string) (map[string]int, []stubLine, error) {
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return map[string]int{}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	done := map[string]int{}
	var lines []stubLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l stubLine
		if _, err := fmt.Sscanf(sc.Text(), "%s %d %s", &l.event, &l.replica, &l.head); err != nil {
			return nil, nil, fmt.Errorf("%s: line %q: %w", file, sc.Text(), err)
		}
		lines = append(lines, l)
		if l.event == "done" {
			done[l.head]++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	return done, lines, nil
}

// stubLine is one line of the stubs' record.
type stubLine struct {
	event   string // start or done
	replica int
	head    string
}
