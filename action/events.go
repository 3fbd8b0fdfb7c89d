package action

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/google/go-github/v62/github"
)

// The events the Action runs on.
const (
	EventPullRequest = "pull_request"
	EventMergeGroup  = "merge_group"
	EventWorkflowRun = "workflow_run"
)

// parseMergeGroup parses a merge_group event: the queue's head commit is
// verified against its base, and the check runs and the gate go on the
// head commit. Number is 0: a queue entry has no comment.
func parseMergeGroup(name string, data []byte) (Event, error) {
	var raw github.MergeGroupEvent
	if err := json.Unmarshal(data, &raw); err != nil {
		return Event{}, fmt.Errorf("event file %s: %s", name, jsonError(data, err))
	}
	mg := raw.MergeGroup
	if mg == nil {
		return Event{}, fmt.Errorf("event file %s: field merge_group is missing: this is not a merge_group event", name)
	}
	ev := Event{Action: "checks_requested", HeadSHA: mg.GetHeadSHA(), HeadRef: mg.GetHeadRef(), BaseSHA: mg.GetBaseSHA(),
		BaseRef: strings.TrimPrefix(mg.GetBaseRef(), "refs/heads/")}
	for _, f := range []struct{ field, v string }{
		{"merge_group.head_sha", ev.HeadSHA}, {"merge_group.base_sha", ev.BaseSHA},
	} {
		if f.v == "" {
			return Event{}, fmt.Errorf("event file %s: field %s is missing", name, f.field)
		}
		if !shaRE.MatchString(f.v) {
			return Event{}, fmt.Errorf("event file %s: field %s: %q is not a full commit sha", name, f.field, f.v)
		}
	}
	if ev.BaseRef == "" {
		return Event{}, fmt.Errorf("event file %s: field merge_group.base_ref is missing", name)
	}
	if raw.GetRepo().GetFullName() == "" {
		return Event{}, fmt.Errorf("event file %s: field repository.full_name is missing", name)
	}
	// The queue's branch is in the base repository: not a fork.
	ev.HeadRepo, ev.BaseRepo = raw.GetRepo().GetFullName(), raw.GetRepo().GetFullName()
	return ev, nil
}

// workflowRun is what the publisher needs from a workflow_run event: the
// run that made the report. Nothing in it comes from the report.
type workflowRun struct {
	ID       int64
	Event    string // the event of the run that made the report: pull_request
	HeadSHA  string
	HeadRepo string // full name; empty when it is gone
	HTMLURL  string
	// PRs are the pull requests GitHub lists for the run; empty for a
	// pull request from a fork.
	PRs  []int
	Repo string // full name of the repository the event is in
	// repo and headRepo are the event's repository and the run's head
	// repository, for githubapi.IsFork.
	repo, headRepo *github.Repository
}

// readWorkflowRun reads a workflow_run event file.
func readWorkflowRun(path string) (workflowRun, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return workflowRun{}, fmt.Errorf("event file: %w", err)
	}
	return parseWorkflowRun(path, data)
}

// parseWorkflowRun parses a workflow_run event; name is the file name
// for errors.
func parseWorkflowRun(name string, data []byte) (workflowRun, error) {
	var raw github.WorkflowRunEvent
	if err := json.Unmarshal(data, &raw); err != nil {
		return workflowRun{}, fmt.Errorf("event file %s: %s", name, jsonError(data, err))
	}
	wr := raw.WorkflowRun
	if wr == nil {
		return workflowRun{}, fmt.Errorf("event file %s: field workflow_run is missing: this is not a workflow_run event", name)
	}
	if !shaRE.MatchString(wr.GetHeadSHA()) {
		return workflowRun{}, fmt.Errorf("event file %s: field workflow_run.head_sha: %q is not a full commit sha", name, wr.GetHeadSHA())
	}
	if raw.GetRepo().GetFullName() == "" {
		return workflowRun{}, fmt.Errorf("event file %s: field repository.full_name is missing", name)
	}
	out := workflowRun{ID: wr.GetID(), Event: wr.GetEvent(), HeadSHA: wr.GetHeadSHA(), HTMLURL: wr.GetHTMLURL(), Repo: raw.GetRepo().GetFullName(),
		HeadRepo: wr.GetHeadRepository().GetFullName(), repo: raw.Repo, headRepo: wr.HeadRepository}
	for _, p := range wr.PullRequests {
		if p.GetNumber() > 0 {
			out.PRs = append(out.PRs, p.GetNumber())
		}
	}
	return out, nil
}
