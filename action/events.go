package action

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// The events the Action runs on.
const (
	EventPullRequest = "pull_request"
	EventMergeGroup  = "merge_group"
	EventWorkflowRun = "workflow_run"
)

type rawMergeGroupEvent struct {
	MergeGroup *struct {
		HeadSHA string `json:"head_sha"`
		HeadRef string `json:"head_ref"`
		BaseSHA string `json:"base_sha"`
		BaseRef string `json:"base_ref"`
	} `json:"merge_group"`
	Repository *rawRepo `json:"repository"`
}

// ParseMergeGroup parses a merge_group event: the queue's head commit is
// verified against its base, and the check runs and the gate go on the
// head commit. Number is 0: a queue entry has no comment.
func ParseMergeGroup(name string, data []byte) (Event, error) {
	var raw rawMergeGroupEvent
	if err := json.Unmarshal(data, &raw); err != nil {
		return Event{}, fmt.Errorf("event file %s: %s", name, jsonError(data, err))
	}
	mg := raw.MergeGroup
	if mg == nil {
		return Event{}, fmt.Errorf("event file %s: field merge_group is missing: this is not a merge_group event", name)
	}
	ev := Event{Action: "checks_requested", HeadSHA: mg.HeadSHA, HeadRef: mg.HeadRef, BaseSHA: mg.BaseSHA,
		BaseRef: strings.TrimPrefix(mg.BaseRef, "refs/heads/")}
	for _, f := range []struct{ field, v string }{
		{"merge_group.head_sha", mg.HeadSHA}, {"merge_group.base_sha", mg.BaseSHA},
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
	if raw.Repository == nil || raw.Repository.FullName == "" {
		return Event{}, fmt.Errorf("event file %s: field repository.full_name is missing", name)
	}
	// The queue's branch is in the base repository.
	ev.HeadRepo, ev.BaseRepo = raw.Repository.FullName, raw.Repository.FullName
	return ev, nil
}

// WorkflowRun is what the publisher needs from a workflow_run event: the
// run that made the report. Nothing in it comes from the report.
type WorkflowRun struct {
	ID       int64
	Event    string // the event of the run that made the report: pull_request
	HeadSHA  string
	HeadRepo string // full name; empty when it is gone
	HTMLURL  string
	// PRs are the pull requests GitHub lists for the run; empty for a
	// pull request from a fork.
	PRs  []int
	Repo string // full name of the repository the event is in
}

type rawWorkflowRunEvent struct {
	WorkflowRun *struct {
		ID             int64     `json:"id"`
		Event          string    `json:"event"`
		HeadSHA        string    `json:"head_sha"`
		HTMLURL        string    `json:"html_url"`
		HeadRepository *rawRepo  `json:"head_repository"`
		PullRequests   []rawPull `json:"pull_requests"`
	} `json:"workflow_run"`
	Repository *rawRepo `json:"repository"`
}

type rawPull struct {
	Number int `json:"number"`
}

// ReadWorkflowRun reads a workflow_run event file.
func ReadWorkflowRun(path string) (WorkflowRun, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return WorkflowRun{}, fmt.Errorf("event file: %w", err)
	}
	return ParseWorkflowRun(path, data)
}

// ParseWorkflowRun parses a workflow_run event; name is the file name
// for errors.
func ParseWorkflowRun(name string, data []byte) (WorkflowRun, error) {
	var raw rawWorkflowRunEvent
	if err := json.Unmarshal(data, &raw); err != nil {
		return WorkflowRun{}, fmt.Errorf("event file %s: %s", name, jsonError(data, err))
	}
	wr := raw.WorkflowRun
	if wr == nil {
		return WorkflowRun{}, fmt.Errorf("event file %s: field workflow_run is missing: this is not a workflow_run event", name)
	}
	if !shaRE.MatchString(wr.HeadSHA) {
		return WorkflowRun{}, fmt.Errorf("event file %s: field workflow_run.head_sha: %q is not a full commit sha", name, wr.HeadSHA)
	}
	if raw.Repository == nil || raw.Repository.FullName == "" {
		return WorkflowRun{}, fmt.Errorf("event file %s: field repository.full_name is missing", name)
	}
	out := WorkflowRun{ID: wr.ID, Event: wr.Event, HeadSHA: wr.HeadSHA, HTMLURL: wr.HTMLURL, Repo: raw.Repository.FullName}
	if wr.HeadRepository != nil {
		out.HeadRepo = wr.HeadRepository.FullName
	}
	for _, p := range wr.PullRequests {
		if p.Number > 0 {
			out.PRs = append(out.PRs, p.Number)
		}
	}
	return out, nil
}
