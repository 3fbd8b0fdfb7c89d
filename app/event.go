package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/internal/githubapi"
)

// RerunAction is the identifier of the "Re-run verification" button on
// the check runs.
const RerunAction = "rerun"

// ErrIgnored marks a delivery that the App does not act on.
var ErrIgnored = errors.New("event not handled")

// decodeEvent turns a delivery into a job. It decodes go-github's event
// types. It returns an error that wraps ErrIgnored for an event or
// action the App does not act on, and another error for a body that is
// not a valid payload of the event.
func decodeEvent(event string, body []byte) (*Job, error) {
	var (
		repo   *github.Repository
		sender *github.User
		inst   *github.Installation
		fill   func(j *Job) (*Job, error)
	)
	var err error
	switch event {
	case "pull_request":
		var e pullRequestEvent
		err = json.Unmarshal(body, &e)
		repo, sender, inst = e.Repo.repository(), e.Sender, e.Installation
		fill = func(j *Job) (*Job, error) { return j.fromPull(&e) }
	case "check_suite":
		var e github.CheckSuiteEvent
		err = json.Unmarshal(body, &e)
		repo, sender, inst = e.Repo, e.Sender, e.Installation
		fill = func(j *Job) (*Job, error) { return j.fromCheckSuite(&e) }
	case "check_run":
		var e checkRunEvent
		err = json.Unmarshal(body, &e)
		repo, sender, inst = e.Repo, e.Sender, e.Installation
		fill = func(j *Job) (*Job, error) { return j.fromCheckRun(&e) }
	case "issue_comment":
		var e github.IssueCommentEvent
		err = json.Unmarshal(body, &e)
		repo, sender, inst = e.Repo, e.Sender, e.Installation
		fill = func(j *Job) (*Job, error) { return j.fromComment(&e) }
	default:
		return nil, fmt.Errorf("%w: event %q", ErrIgnored, event)
	}
	if err != nil {
		return nil, fmt.Errorf("decode the %s payload: %w", event, err)
	}
	full := repo.GetFullName()
	if full == "" {
		return nil, fmt.Errorf("decode the %s payload: no repository.full_name", event)
	}
	owner, name, ok := strings.Cut(full, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("decode the %s payload: repository.full_name %q is not owner/name", event, full)
	}
	j := &Job{Event: event, Owner: owner, Repo: name, CloneURL: repo.GetCloneURL(), Sender: sender.GetLogin()}
	j, err = fill(j)
	if err != nil {
		return nil, err
	}
	if inst.GetID() <= 0 {
		return nil, fmt.Errorf("decode the %s payload: no installation.id (is the App installed?)", event)
	}
	j.Installation = inst.GetID()
	return j, nil
}

// pullRequestEvent is the part of a pull_request payload the App reads.
// go-github's PullRequestEvent decodes all of a payload of about 28 KB
// into some 800 values, and the webhook does that for every delivery
// before it answers; this decodes about 50 (TestPullRequestEventDecodesAsGoGithub
// holds the two to the same job).
type pullRequestEvent struct {
	Action      string `json:"action"`
	PullRequest *struct {
		Number int          `json:"number"`
		Body   string       `json:"body"`
		User   *github.User `json:"user"`
		Head   pullBranch   `json:"head"`
		Base   pullBranch   `json:"base"`
	} `json:"pull_request"`
	Repo         *eventRepository     `json:"repository"`
	Sender       *github.User         `json:"sender"`
	Installation *github.Installation `json:"installation"`
}

// pullBranch is a pull request's head or base.
type pullBranch struct {
	SHA  string           `json:"sha"`
	Ref  string           `json:"ref"`
	Repo *eventRepository `json:"repo"`
}

// eventRepository is the part of a repository the App reads.
type eventRepository struct {
	ID       *int64  `json:"id"`
	FullName *string `json:"full_name"`
	CloneURL *string `json:"clone_url"`
	Fork     *bool   `json:"fork"`
}

// repository is r as go-github's type; nil stays nil.
func (r *eventRepository) repository() *github.Repository {
	if r == nil {
		return nil
	}
	return &github.Repository{ID: r.ID, FullName: r.FullName, CloneURL: r.CloneURL, Fork: r.Fork}
}

func (j *Job) fromPull(e *pullRequestEvent) (*Job, error) {
	j.Action = e.Action
	switch j.Action {
	case "opened", "synchronize", "reopened", "ready_for_review":
	default:
		return nil, fmt.Errorf("%w: pull_request %q", ErrIgnored, j.Action)
	}
	pr := e.PullRequest
	if pr == nil || pr.Number <= 0 || pr.Head.SHA == "" {
		return nil, errors.New("decode the pull_request payload: no pull_request.number or head.sha")
	}
	j.PR, j.HeadSHA, j.BaseSHA, j.BaseRef, j.Author = pr.Number, pr.Head.SHA, pr.Base.SHA, pr.Base.Ref, pr.User.GetLogin()
	j.HeadRef, j.Body = pr.Head.Ref, pr.Body
	base := pr.Base.Repo
	if base == nil {
		base = e.Repo
	}
	j.Fork = githubapi.IsFork(base.repository(), pr.Head.Repo.repository())
	return j, nil
}

func (j *Job) fromCheckSuite(e *github.CheckSuiteEvent) (*Job, error) {
	j.Action = e.GetAction()
	if e.CheckSuite == nil {
		return nil, errors.New("decode the check_suite payload: no check_suite")
	}
	if j.Action != "requested" && j.Action != "rerequested" {
		return nil, fmt.Errorf("%w: check_suite %q", ErrIgnored, j.Action)
	}
	j.Request = j.Action == "rerequested"
	return j.fromSHA(e.CheckSuite.GetHeadSHA(), e.CheckSuite.PullRequests)
}

// checkRunEvent is the part of a check_run payload the App reads.
// go-github's CheckRunEvent does not fit: GitHub sends the check run's
// app.created_at as "2018-04-25 20:42:10", which its Timestamp refuses.
type checkRunEvent struct {
	Action   *string `json:"action"`
	CheckRun *struct {
		HeadSHA      *string               `json:"head_sha"`
		PullRequests []*github.PullRequest `json:"pull_requests"`
	} `json:"check_run"`
	RequestedAction *github.RequestedAction `json:"requested_action"`
	Repo            *github.Repository      `json:"repository"`
	Sender          *github.User            `json:"sender"`
	Installation    *github.Installation    `json:"installation"`
}

func (j *Job) fromCheckRun(e *checkRunEvent) (*Job, error) {
	if e.Action != nil {
		j.Action = *e.Action
	}
	if e.CheckRun == nil {
		return nil, errors.New("decode the check_run payload: no check_run")
	}
	switch {
	case j.Action == "rerequested":
	case j.Action == "requested_action" && e.RequestedAction != nil && e.RequestedAction.Identifier == RerunAction:
	default:
		return nil, fmt.Errorf("%w: check_run %q", ErrIgnored, j.Action)
	}
	j.Request = true
	sha := ""
	if e.CheckRun.HeadSHA != nil {
		sha = *e.CheckRun.HeadSHA
	}
	return j.fromSHA(sha, e.CheckRun.PullRequests)
}

func (j *Job) fromComment(e *github.IssueCommentEvent) (*Job, error) {
	j.Action = e.GetAction()
	if j.Action != "created" {
		return nil, fmt.Errorf("%w: issue_comment %q", ErrIgnored, j.Action)
	}
	if e.Issue == nil || e.Comment == nil {
		return nil, errors.New("decode the issue_comment payload: no issue or comment")
	}
	if !e.Issue.IsPullRequest() {
		return nil, fmt.Errorf("%w: a comment on an issue, not a pull request", ErrIgnored)
	}
	if !parseCommand(e.Comment.GetBody()) {
		return nil, fmt.Errorf("%w: the comment has no %s command", ErrIgnored, CommandWord)
	}
	if e.Issue.GetNumber() <= 0 {
		return nil, errors.New("decode the issue_comment payload: no issue.number")
	}
	j.PR, j.Request, j.Sender = e.Issue.GetNumber(), true, e.Comment.GetUser().GetLogin()
	return j, nil
}

// fromSHA fills the job from a check suite or run. Its pull_requests list
// is empty for a fork: the announcer then finds the pull request by sha.
func (j *Job) fromSHA(sha string, prs []*github.PullRequest) (*Job, error) {
	if sha == "" {
		return nil, fmt.Errorf("decode the %s payload: no head_sha", j.Event)
	}
	j.HeadSHA = sha
	if len(prs) > 0 && prs[0].GetNumber() > 0 {
		j.PR = prs[0].GetNumber()
		j.BaseSHA, j.BaseRef, j.HeadRef = prs[0].GetBase().GetSHA(), prs[0].GetBase().GetRef(), prs[0].GetHead().GetRef()
	}
	return j, nil
}
