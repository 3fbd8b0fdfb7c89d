package action

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/internal/githubapi"
)

// Event is what the Action needs from a pull_request event.
type Event struct {
	Action   string
	Number   int
	HTMLURL  string
	HeadSHA  string
	HeadRef  string
	HeadRepo string // full name; empty when the head repository is gone
	BaseSHA  string
	BaseRef  string
	BaseRepo string // full name
	// Body is the pull request's description (markdown); empty on
	// merge_group.
	Body string
	// fork is githubapi.IsFork of the event's repositories.
	fork bool
}

// Fork reports whether the pull request comes from a fork
// (githubapi.IsFork): its head repository is another repository, is
// marked a fork, or is gone. The token of such a run can only read.
func (e Event) Fork() bool { return e.fork }

var shaRE = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// readEvent reads a pull_request event file. Its errors name the file and
// the field, or the line and column of a JSON syntax error.
func readEvent(path string) (Event, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Event{}, fmt.Errorf("event file: %w", err)
	}
	return parseEvent(path, data)
}

// parseEvent parses the event in data (go-github's PullRequestEvent);
// name is the file name for errors.
func parseEvent(name string, data []byte) (Event, error) {
	var raw github.PullRequestEvent
	if err := json.Unmarshal(data, &raw); err != nil {
		return Event{}, fmt.Errorf("event file %s: %s", name, jsonError(data, err))
	}
	pr := raw.PullRequest
	if pr == nil {
		return Event{}, fmt.Errorf("event file %s: field pull_request is missing: this is not a pull_request event (run the Action with on: pull_request)", name)
	}
	missing := func(field string) error {
		return fmt.Errorf("event file %s: field %s is missing", name, field)
	}
	if pr.Number == nil {
		return Event{}, missing("pull_request.number")
	}
	if pr.GetNumber() <= 0 {
		return Event{}, fmt.Errorf("event file %s: field pull_request.number: %d is not a pull request number", name, pr.GetNumber())
	}
	ev := Event{Action: raw.GetAction(), Number: pr.GetNumber(), HTMLURL: pr.GetHTMLURL(), Body: pr.GetBody()}
	for _, side := range []struct {
		field string
		b     *github.PullRequestBranch
		sha   *string
		ref   *string
		repo  *string
	}{
		{"pull_request.head", pr.Head, &ev.HeadSHA, &ev.HeadRef, &ev.HeadRepo},
		{"pull_request.base", pr.Base, &ev.BaseSHA, &ev.BaseRef, &ev.BaseRepo},
	} {
		if side.b == nil {
			return Event{}, missing(side.field)
		}
		if side.b.GetSHA() == "" {
			return Event{}, missing(side.field + ".sha")
		}
		if !shaRE.MatchString(side.b.GetSHA()) {
			return Event{}, fmt.Errorf("event file %s: field %s.sha: %q is not a full commit sha", name, side.field, side.b.GetSHA())
		}
		if side.b.GetRef() == "" {
			return Event{}, missing(side.field + ".ref")
		}
		*side.sha, *side.ref, *side.repo = side.b.GetSHA(), side.b.GetRef(), side.b.GetRepo().GetFullName()
	}
	if ev.BaseRepo == "" {
		return Event{}, missing("pull_request.base.repo.full_name")
	}
	ev.fork = githubapi.IsFork(pr.Base.Repo, pr.Head.Repo)
	return ev, nil
}

// jsonError turns a decoding error into one that names the line and
// column or the field.
func jsonError(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the bytes read, so the bad byte is the one before,
		// except at the end of the input.
		off := se.Offset
		if off > 0 && off < int64(len(data)) {
			off--
		}
		line, col := position(data, off)
		return fmt.Sprintf("line %d, column %d: %v", line, col, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		line, col := position(data, te.Offset)
		return fmt.Sprintf("line %d, column %d: field %s: want %s, got a JSON %s", line, col, te.Field, te.Type, te.Value)
	}
	return err.Error()
}

// position is the 1-based line and column of a byte offset.
func position(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
