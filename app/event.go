package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// RerunAction is the identifier of the "Re-run verification" button on
// the check runs.
const RerunAction = "rerun"

// ErrIgnored marks a delivery that the App does not act on.
var ErrIgnored = errors.New("event not handled")

type payloadRepo struct {
	FullName string `json:"full_name"`
	Name     string `json:"name"`
	Owner    struct {
		Login string `json:"login"`
	} `json:"owner"`
	CloneURL string `json:"clone_url"`
	Fork     bool   `json:"fork"`
}

type payloadUser struct {
	Login string `json:"login"`
}

type payloadRef struct {
	SHA  string       `json:"sha"`
	Ref  string       `json:"ref"`
	Repo *payloadRepo `json:"repo"`
}

type payloadPull struct {
	Number int         `json:"number"`
	Head   payloadRef  `json:"head"`
	Base   payloadRef  `json:"base"`
	User   payloadUser `json:"user"`
	State  string      `json:"state"`
	Body   string      `json:"body"`
}

type payload struct {
	Action       string       `json:"action"`
	Repository   *payloadRepo `json:"repository"`
	Sender       payloadUser  `json:"sender"`
	Installation *struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	PullRequest *payloadPull `json:"pull_request"`
	CheckSuite  *struct {
		HeadSHA      string        `json:"head_sha"`
		PullRequests []payloadPull `json:"pull_requests"`
	} `json:"check_suite"`
	CheckRun *struct {
		HeadSHA      string        `json:"head_sha"`
		PullRequests []payloadPull `json:"pull_requests"`
	} `json:"check_run"`
	RequestedAction *struct {
		Identifier string `json:"identifier"`
	} `json:"requested_action"`
	Issue *struct {
		Number      int             `json:"number"`
		PullRequest json.RawMessage `json:"pull_request"`
		User        payloadUser     `json:"user"`
	} `json:"issue"`
	Comment *struct {
		Body string      `json:"body"`
		User payloadUser `json:"user"`
	} `json:"comment"`
}

// DecodeEvent turns a delivery into a job. It returns an error that
// wraps ErrIgnored for an event or action the App does not act on, and
// another error for a body that is not a valid payload of the event.
func DecodeEvent(event string, body []byte) (*Job, error) {
	switch event {
	case "pull_request", "check_suite", "check_run", "issue_comment":
	default:
		return nil, fmt.Errorf("%w: event %q", ErrIgnored, event)
	}
	var p payload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, fmt.Errorf("decode the %s payload: %w", event, err)
	}
	if p.Repository == nil || p.Repository.FullName == "" {
		return nil, fmt.Errorf("decode the %s payload: no repository.full_name", event)
	}
	owner, repo, ok := strings.Cut(p.Repository.FullName, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return nil, fmt.Errorf("decode the %s payload: repository.full_name %q is not owner/name", event, p.Repository.FullName)
	}
	j := &Job{
		Event: event, Action: p.Action,
		Owner: owner, Repo: repo, CloneURL: p.Repository.CloneURL, Sender: p.Sender.Login,
	}
	j, err := j.decode(p)
	if err != nil {
		return nil, err
	}
	if p.Installation == nil || p.Installation.ID <= 0 {
		return nil, fmt.Errorf("decode the %s payload: no installation.id (is the App installed?)", event)
	}
	j.Installation = p.Installation.ID
	return j, nil
}

// decode reads the event's own part of the payload.
func (j *Job) decode(p payload) (*Job, error) {
	switch j.Event {
	case "pull_request":
		return j.fromPull(p)
	case "check_suite":
		if p.CheckSuite == nil {
			return nil, errors.New("decode the check_suite payload: no check_suite")
		}
		if p.Action != "requested" && p.Action != "rerequested" {
			return nil, fmt.Errorf("%w: check_suite %q", ErrIgnored, p.Action)
		}
		j.Request = p.Action == "rerequested"
		return j.fromSHA(p.CheckSuite.HeadSHA, p.CheckSuite.PullRequests, p.Repository)
	case "check_run":
		if p.CheckRun == nil {
			return nil, errors.New("decode the check_run payload: no check_run")
		}
		switch {
		case p.Action == "rerequested":
		case p.Action == "requested_action" && p.RequestedAction != nil && p.RequestedAction.Identifier == RerunAction:
		default:
			return nil, fmt.Errorf("%w: check_run %q", ErrIgnored, p.Action)
		}
		j.Request = true
		return j.fromSHA(p.CheckRun.HeadSHA, p.CheckRun.PullRequests, p.Repository)
	default: // issue_comment
		if p.Action != "created" {
			return nil, fmt.Errorf("%w: issue_comment %q", ErrIgnored, p.Action)
		}
		if p.Issue == nil || p.Comment == nil {
			return nil, errors.New("decode the issue_comment payload: no issue or comment")
		}
		if len(p.Issue.PullRequest) == 0 || string(p.Issue.PullRequest) == "null" {
			return nil, fmt.Errorf("%w: a comment on an issue, not a pull request", ErrIgnored)
		}
		if !ParseCommand(p.Comment.Body) {
			return nil, fmt.Errorf("%w: the comment has no %s command", ErrIgnored, CommandWord)
		}
		if p.Issue.Number <= 0 {
			return nil, errors.New("decode the issue_comment payload: no issue.number")
		}
		j.PR, j.Request, j.Sender = p.Issue.Number, true, p.Comment.User.Login
		return j, nil
	}
}

func (j *Job) fromPull(p payload) (*Job, error) {
	switch p.Action {
	case "opened", "synchronize", "reopened", "ready_for_review":
	default:
		return nil, fmt.Errorf("%w: pull_request %q", ErrIgnored, p.Action)
	}
	pr := p.PullRequest
	if pr == nil || pr.Number <= 0 || pr.Head.SHA == "" {
		return nil, errors.New("decode the pull_request payload: no pull_request.number or head.sha")
	}
	j.setPull(*pr, p.Repository)
	return j, nil
}

func (j *Job) setPull(pr payloadPull, base *payloadRepo) {
	j.PR, j.HeadSHA, j.BaseSHA, j.BaseRef, j.Author = pr.Number, pr.Head.SHA, pr.Base.SHA, pr.Base.Ref, pr.User.Login
	j.HeadRef = pr.Head.Ref
	j.Body = pr.Body
	j.Fork = isFork(pr.Head.Repo, base)
}

// isFork reports whether the head repository is not the base repository.
// A deleted head repository (nil) counts as a fork.
func isFork(head, base *payloadRepo) bool {
	if head == nil {
		return true
	}
	return !strings.EqualFold(head.FullName, base.FullName)
}

// fromSHA fills the job from a check suite or run. Its pull_requests list
// is empty for a fork: the announcer then finds the pull request by sha.
func (j *Job) fromSHA(sha string, prs []payloadPull, repo *payloadRepo) (*Job, error) {
	if sha == "" {
		return nil, fmt.Errorf("decode the %s payload: no head_sha", j.Event)
	}
	j.HeadSHA = sha
	if len(prs) > 0 && prs[0].Number > 0 {
		j.PR = prs[0].Number
		j.BaseSHA, j.BaseRef, j.HeadRef = prs[0].Base.SHA, prs[0].Base.Ref, prs[0].Head.Ref
	}
	return j, nil
}
